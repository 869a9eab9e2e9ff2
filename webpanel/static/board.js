/* The live board (and the simulated board): drawn from the layout (layout-draw.js), kept live over SSE. */
import { checkNews, currentProblems, lampNews, listOf, seatItem, terminationText } from "/static/describe.js";
import { draw as drawLayout, showLamps, showPawns } from "/static/layout-draw.js";
import { _, api, byId, el, ngettext, pgettext, showError, showService } from "/static/panel.js";
import { Chime } from "/static/chime.js";

var root = byId("board");
var isSim = root.classList.contains("sim");
var slotEls = {};
var lampEls = {};
var board = null;
var lastId = null;
var source = null;
var retryTimer = null;
var announced = null;  // the placement whose lamps were last announced (null: not yet rendered)
var chime = new Chime(byId("sound"));

function draw(layout) {
  var drawn = drawLayout(root, layout, {
    slotAttributes: function (name) {
      return isSim ? { tabindex: "0", role: "button", "aria-label": _("Slot %(slot)s", { slot: name }) } : {};
    },
    eachSlot: function (g, name) {
      if (isSim) {
        g.addEventListener("click", function () { simClick(name); });
        g.addEventListener("keydown", function (e) {
          if (e.key === "Enter" || e.key === " ") { e.preventDefault(); simClick(name); }
        });
      }
    }
  });
  slotEls = drawn.slots;
  lampEls = drawn.lamps;
}

function render(b) {
  board = b;
  var game = b.game && b.game.view ? b.game : null;
  var seats = game ? game.view.seats : [];
  showPawns(slotEls, b.pawns, seats);
  var troubled = {};
  b.anomalies.concat(b.faults).forEach(function (a) { if (a.slot) { troubled[a.slot] = true; } });
  Object.keys(slotEls).forEach(function (name) { slotEls[name].classList.toggle("anomaly", !!troubled[name]); });
  showLamps(lampEls, b.lamps.lit, seats);
  renderStatus(b, game, seats);
  announce(game);
  showService(b.service.running);
  if (isSim) { refreshHand(game); }
}

function turnText(b, game, seats) {
  if (!game) { return b.service.running ? _("No game running.") : _("Board service not running."); }
  if (game.status === "running" && checkNews(game.check)) { return _("Pre-game check of the lamps"); }
  if (game.status === "running" && b.paused) { return _("Game paused: put the board right (see below)."); }
  if (game.status === "running" && game.view.to_move !== null && seats[game.view.to_move]) {
    return _("%(name)s to play", { name: seats[game.view.to_move].name });
  }
  if (game.status === "abandoned") { return _("Game abandoned."); }
  return _("Game over.");
}

function renderStatus(b, game, seats) {
  var turn = byId("turn");
  var list = byId("seats");
  list.textContent = "";
  seats.forEach(function (s, i) { list.appendChild(seatItem(s, i, game, { toMove: game.view.to_move === i })); });
  var text = turnText(b, game, seats);
  // The lamp test is said in the page's foot: the heading above the test button never changes under a hand.
  byId("lamp-test").hidden = !b.lamps.test;
  if (b.scanner_faulted || b.lamps.safe) { text += " " + _("Board fault: the lamps are off for safety."); }
  turn.textContent = text;
  renderResult(game, seats);
  renderCheck(game);
  var anomalies = byId("anomalies");
  anomalies.textContent = "";
  currentProblems(b).forEach(function (p) {
    anomalies.appendChild(el("li", p.words.english ? { lang: "en" } : {}, p.words.text));
  });
}

/* The pre-game check: the display asks the players to hold the test button, then, for the lamps
 * without current feedback, whether they saw them light. */
function renderCheck(game) {
  var check = game && game.status === "running" ? game.check : null;
  var news = checkNews(check);
  byId("check").hidden = !news;
  if (!news) { return; }
  byId("check-text").textContent = news;
  var asking = check.status === "confirm";
  byId("check-answer").hidden = !asking;
  var dark = byId("check-dark");
  var key = asking ? check.ask.join(" ") : "";
  if (dark.getAttribute("data-lamps") === key) { return; }
  dark.setAttribute("data-lamps", key);
  dark.textContent = "";
  (asking ? check.ask : []).forEach(function (lamp) {
    var button = el("button", { type: "button", "class": "danger" }, _("Lamp %(lamp)s did not light", { lamp: lamp }));
    button.addEventListener("click", function () { answerCheck([lamp]); });
    dark.appendChild(button);
  });
}

async function answerCheck(notLit) {
  var msg = byId("check-msg");
  msg.textContent = "";
  try { await api("POST", "/api/board/check", { not_lit: notLit }); }
  catch (err) { showError(msg, err); }
}

function renderResult(game, seats) {
  var ended = !!game && game.status !== "running" && typeof game.id === "number";
  byId("replay-wrap").hidden = !ended;
  if (ended) { byId("replay-link").setAttribute("href", "/replay/board/" + game.id); }
  var result = byId("result");
  var outcome = game && game.view.outcome;
  if (!outcome) { result.hidden = true; return; }
  var winners = (outcome.winners || []).map(function (i) { return seats[i] ? seats[i].name : "?"; });
  var text;
  if (winners.length === 1) { text = _("%(name)s wins", { name: winners[0] }); }
  else if (winners.length) { text = _("Tie: %(names)s", { names: listOf(winners) }); }
  else { text = _("No winner"); }
  var reason = terminationText(outcome);
  result.textContent = "";
  result.appendChild(document.createTextNode(text + " "));
  result.appendChild(el("span", reason.english ? { lang: "en" } : {}, "(" + reason.text + ")"));
  result.hidden = false;
}

/* The banner of a lamp that lit: who is out (the alliance, when a diagonal
 * took two). It stays until the next placement; the chime rings only when the
 * lamp lights while the page is open, not for what was lit before. */
function announce(game) {
  var banner = byId("lamp-banner");
  var news = game ? lampNews(game.view) : null;
  var fresh = news && news.current ? news : null;
  banner.hidden = !fresh;
  if (fresh) { banner.textContent = fresh.text; }
  var move = news ? news.move : 0;
  if (announced !== null && fresh && move !== announced) { chime.ring(); }
  announced = move;
}

function setConn(state, label) {
  var conn = byId("conn");
  conn.setAttribute("data-state", state);
  conn.textContent = label;
}

function connect() {
  if (source) { source.close(); }
  // Behind nginx the page follows the board's channel there: each message holds the board's public view.
  var live = root.getAttribute("data-live");
  var url = live || "/api/events" + (lastId !== null ? "?last_event_id=" + lastId : "");
  source = new EventSource(url);
  source.addEventListener("open", function () { setConn("live", pgettext("connection", "live")); });
  source.addEventListener("change", function (e) {
    var message = JSON.parse(e.data);
    if (!message.public) { return; }
    lastId = message.version;
    render(message.public);
  });
  source.addEventListener("board", function (e) {
    lastId = Number(e.lastEventId);
    render(JSON.parse(e.data));
  });
  source.addEventListener("service", function (e) {
    var running = JSON.parse(e.data).running;
    showService(running);
    if (board) { board.service.running = running; renderStatus(board, board.game, board.game ? board.game.view.seats : []); }
  });
  source.addEventListener("error", function () {
    setConn("waiting", _("reconnecting…"));
    // The browser retries a dropped stream itself; a refused one (503: too many pages) it does not.
    if (source.readyState === EventSource.CLOSED) {
      clearTimeout(retryTimer);
      retryTimer = setTimeout(connect, 3000 + Math.random() * 2000);
    }
  });
}

// -- the simulated board's hand -------------------------------------------------------------

async function simClick(slot) {
  var msg = byId("sim-msg");
  var occupied = board && board.pawns[slot];
  var kind = document.querySelector('input[name="pawn"]:checked');
  var pawn = occupied ? null : (kind ? kind.value : "attack");
  msg.textContent = "";
  try {
    await api("POST", "/api/sim/slots/" + encodeURIComponent(slot), { pawn: pawn });
  } catch (err) {
    showError(msg, err);
  }
}

/* What the player to move holds (the simulated board stands for the players'
 * hands): a kind they have none of left cannot be chosen. */
async function refreshHand(game) {
  var who = byId("hand-player");
  var hand = null;
  if (game && game.status === "running") {
    try { hand = await api("GET", "/api/sim/hand"); } catch (err) { hand = null; }
  }
  var stock = hand && hand.stock;
  // A game over (or abandoned): nobody is to play, the hand offers nothing until the next game.
  var ended = !!game && game.status !== "running";
  who.textContent = hand && hand.name ? _("%(name)s's hand", { name: hand.name }) : _("Hand");
  ["attack", "defense"].forEach(function (kind) {
    var input = byId("pawn-" + kind);
    var count = byId("count-" + kind);
    var left = stock ? stock[kind] : null;
    count.textContent = typeof left === "number" ? ngettext("(%(num)d left)", "(%(num)d left)", left) : "";
    input.disabled = ended || left === 0;
    if (!ended && left === 0 && input.checked) {
      var other = byId(kind === "attack" ? "pawn-defense" : "pawn-attack");
      if (!other.disabled) { other.checked = true; }
    }
  });
}

function wireTestButton() {
  var button = byId("test-button");
  if (!button) { return; }
  var held = false;
  async function set(value) {
    if (held === value) { return; }
    held = value;
    button.setAttribute("aria-pressed", value ? "true" : "false");
    try { await api("POST", "/api/sim/button", { held: value }); }
    catch (err) { showError(byId("sim-msg"), err); }
  }
  button.addEventListener("pointerdown", function (e) {
    // Captured: a hand that drifts a few pixels off the button while holding it still holds it.
    if (button.setPointerCapture) { try { button.setPointerCapture(e.pointerId); } catch (err) { /* gone */ } }
    set(true);
  });
  ["pointerup", "pointercancel", "pointerleave", "lostpointercapture"].forEach(function (n) {
    button.addEventListener(n, function () { set(false); });
  });
  // From the keyboard: held while Space or Enter is down.
  button.addEventListener("keydown", function (e) { if (e.key === " " || e.key === "Enter") { e.preventDefault(); set(true); } });
  button.addEventListener("keyup", function (e) { if (e.key === " " || e.key === "Enter") { set(false); } });
}

async function start() {
  try {
    draw(await api("GET", "/api/layout"));
    var first = await api("GET", "/api/board");
    lastId = first.id;
    render(first);
  } catch (err) {
    setConn("error", _("Cannot load the board: %(error)s", { error: err.message }));
  }
  wireTestButton();
  byId("check-all-lit").addEventListener("click", function () { answerCheck([]); });
  connect();
}

start();
