/* The live board (and the simulated board): drawn from the layout (layout-draw.js), kept live over SSE. */
import { draw as drawLayout, showLamps, showPawns } from "/static/layout-draw.js";
import { api, byId, el, showService, svg } from "/static/panel.js";

var root = byId("board");
var isSim = root.classList.contains("sim");
var slotEls = {};
var lampEls = {};
var board = null;
var lastId = null;
var source = null;
var retryTimer = null;

function draw(layout) {
  var drawn = drawLayout(root, layout, {
    slotAttributes: function () { return { tabindex: isSim ? "0" : "-1" }; },
    eachSlot: function (g, name) {
      if (isSim) {
        g.addEventListener("click", function () { simClick(name); });
        g.addEventListener("keydown", function (e) { if (e.key === "Enter" || e.key === " ") { simClick(name); } });
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
  showService(b.service.running);
}

function renderStatus(b, game, seats) {
  var turn = byId("turn");
  var list = byId("seats");
  var result = byId("result");
  list.textContent = "";
  seats.forEach(function (s, i) {
    var li = el("li", { "class": "seat" + (s.eliminated ? " out" : "") + (game.view.to_move === i ? " to-move" : "") });
    var dot = svg("svg", { "class": "dot", viewBox: "0 0 2 2", width: "1em", height: "1em" });
    dot.appendChild(svg("circle", { cx: 1, cy: 1, r: 0.9, fill: s.colour }));
    li.appendChild(dot);
    var label = s.name + " — lamp " + s.lamp + (s.eliminated ? " (out)" : "") +
      (typeof s.pawns_left === "number" ? " — " + s.pawns_left + " pawns left" : "");
    li.appendChild(document.createTextNode(label));
    list.appendChild(li);
  });
  if (!game) {
    turn.textContent = b.service.running ? "No game running." : "Board service not running.";
  } else if (game.status === "running" && b.paused) {
    turn.textContent = "Game paused: put the board right (see below)";
  } else if (game.status === "running" && game.view.to_move !== null && seats[game.view.to_move]) {
    turn.textContent = seats[game.view.to_move].name + " to play";
  } else if (game.status === "abandoned") {
    turn.textContent = "Game abandoned.";
  } else {
    turn.textContent = "Game over.";
  }
  var outcome = game && game.view.outcome;
  if (outcome) {
    var winners = (outcome.winners || []).map(function (i) { return seats[i] ? seats[i].name : "?"; });
    var text = winners.length === 1 ? winners[0] + " wins" : (winners.length ? "Tie: " + winners.join(", ") : "No winner");
    if (game.points) { text += " — points " + game.points.join(" / "); }
    result.textContent = text + " (" + (outcome.reason || outcome.termination) + ")";
    result.hidden = false;
  } else {
    result.hidden = true;
  }
  var anomalies = byId("anomalies");
  anomalies.textContent = "";
  b.anomalies.concat(b.faults).slice(-5).forEach(function (a) {
    anomalies.appendChild(el("li", {}, (a.slot ? a.slot + ": " : "") + (a.message || a.kind)));
  });
  if (b.lamps.test) { turn.textContent += " (lamp test)"; }
  if (b.scanner_faulted || b.lamps.safe) { turn.textContent += " — board fault: lamps in their safe state"; }
}

function setConn(state, label) {
  var conn = byId("conn");
  conn.setAttribute("data-state", state);
  conn.textContent = label;
}

function connect() {
  if (source) { source.close(); }
  var url = "/api/events" + (lastId !== null ? "?last_event_id=" + lastId : "");
  source = new EventSource(url);
  source.addEventListener("open", function () { setConn("live", "live"); });
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
    // The browser retries a dropped stream itself; a refused one (503: too many pages) it does not.
    if (source.readyState === EventSource.CLOSED) {
      setConn("waiting", "reconnecting…");
      clearTimeout(retryTimer);
      retryTimer = setTimeout(connect, 3000 + Math.random() * 2000);
    } else {
      setConn("waiting", "reconnecting…");
    }
  });
}

async function simClick(slot) {
  var msg = byId("sim-msg");
  var occupied = board && board.pawns[slot];
  var kind = document.querySelector('input[name="pawn"]:checked');
  var pawn = occupied ? null : (kind ? kind.value : "attack");
  msg.textContent = "";
  try {
    await api("POST", "/api/sim/slots/" + encodeURIComponent(slot), { pawn: pawn });
  } catch (err) {
    msg.textContent = err.message;
  }
}

function wireTestButton() {
  var button = byId("test-button");
  if (!button) { return; }
  var held = false;
  async function set(value) {
    if (held === value) { return; }
    held = value;
    try { await api("POST", "/api/sim/button", { held: value }); }
    catch (err) { byId("sim-msg").textContent = err.message; }
  }
  button.addEventListener("pointerdown", function () { set(true); });
  ["pointerup", "pointerleave", "pointercancel"].forEach(function (n) {
    button.addEventListener(n, function () { set(false); });
  });
}

async function start() {
  try {
    draw(await api("GET", "/api/layout"));
    var first = await api("GET", "/api/board");
    lastId = first.id;
    render(first);
  } catch (err) {
    setConn("error", "cannot load the board: " + err.message);
  }
  wireTestButton();
  connect();
}

start();
