/* The replay of a game (webpanel/replay): the board drawn at each step of its timeline, with a
 * scrubber and step buttons; the reveal by consent; the strongest computer player's view of a move.
 * Everything shown comes from GET /api/replay/<source>/<id>, which holds only what everyone saw at
 * the table until every player consented to the reveal. */
import { anomalyText, checkVerdict, listOf, seatItem, terminationText } from "/static/describe.js";
import { draw as drawLayout, showLamps, showPawns } from "/static/layout-draw.js";
import { _, api, byId, el, formatNumber, ngettext, showError } from "/static/panel.js";

var page = byId("replay");
var base = "/api/replay/" + page.getAttribute("data-source") + "/" + page.getAttribute("data-game");
var replay = null;
var drawn = null;
var current = 0;

function seatName(seat) {
  var p = replay.players[seat];
  return p ? p.name : _("seat %(num)d", { num: seat + 1 });
}

function clock(seconds) {
  if (seconds === null || seconds === undefined) { return ""; }
  var m = Math.floor(seconds / 60);
  var s = seconds - m * 60;
  return m + ":" + (s < 10 ? "0" : "") + formatNumber(s, { minimumFractionDigits: 1, maximumFractionDigits: 1 });
}

/* A step in words: what happened at that moment. */
function stepText(step) {
  if (step.kind === "start") { return _("Start of the game: %(name)s plays first.", { name: seatName(replay.first) }); }
  if (step.kind === "move") {
    var text = _("Move %(move)s: %(name)s placed a pawn on %(slot)s.", { move: step.move, name: seatName(step.player), slot: step.slot });
    if (step.kinds && step.kinds[step.slot]) {
      text += " " + (step.kinds[step.slot] === "defense" ? _("It was a defense pawn.") : _("It was an attack pawn."));
    }
    if (step.lit.length) {
      text += " " + ngettext("Lamp %(lamps)s lit.", "Lamps %(lamps)s lit.", step.lit.length, { lamps: listOf(step.lit) });
    }
    if (step.out.length) { text += " " + _("Out: %(names)s.", { names: listOf(step.out.map(seatName)) }); }
    return text;
  }
  if (step.kind === "anomaly") { return anomalyText({ kind: step.what, slot: step.slot }).text; }
  if (step.kind === "resolved") { return _("The anomaly on %(slot)s is resolved.", { slot: step.slot }); }
  if (step.kind === "resumed") { return _("The game goes on: %(name)s to play.", { name: seatName(step.player) }); }
  if (step.kind === "check-failed") { return checkVerdict("failed", step.lamps); }
  return step.kind;
}

/* Why each lamp lit (revealed steps only): the closed rows from the battery to it. */
function whyText(step) {
  if (!step.why_lit) { return ""; }
  return Object.keys(step.why_lit).map(function (lamp) {
    var rows = step.why_lit[lamp];
    return ngettext("Lamp %(lamp)s lit through the closed row %(rows)s.", "Lamp %(lamp)s lit through the closed rows %(rows)s.",
      rows.length, { lamp: lamp, rows: listOf(rows) });
  }).join(" ");
}

function show(index) {
  current = Math.max(0, Math.min(index, replay.steps.length - 1));
  var step = replay.steps[current];
  var seats = replay.players.map(function (p, i) {
    return { name: p.name, lamp: p.lamp, colour: p.colour, eliminated: step.eliminated.indexOf(i) >= 0 };
  });
  showPawns(drawn.slots, step.pawns, seats);
  showLamps(drawn.lamps, step.lamps, seats);
  Object.keys(drawn.slots).forEach(function (name) {
    var g = drawn.slots[name];
    g.classList.toggle("anomaly", step.anomalies.indexOf(name) >= 0);
    g.classList.toggle("this-step", step.slot === name);
    var kind = step.kinds ? step.kinds[name] : null;
    g.classList.toggle("kind-defense", kind === "defense");
    g.classList.toggle("kind-attack", kind === "attack");
  });
  page.querySelectorAll(".wire").forEach(function (w) {
    w.classList.toggle("closed", !!step.closed_rows && step.closed_rows.indexOf(w.getAttribute("data-row")) >= 0);
  });
  var when = clock(step.seconds);
  byId("step-text").textContent = (when ? when + " · " : "") + stepText(step);
  var why = whyText(step);
  byId("step-why").hidden = !why;
  byId("step-why").textContent = why;
  byId("scrubber").value = String(current);
  byId("scrubber").setAttribute("aria-valuetext", _("Step %(num)d of %(total)d", { num: current + 1, total: replay.steps.length }));
  byId("step-first").disabled = byId("step-back").disabled = current === 0;
  byId("step-next").disabled = byId("step-last").disabled = current === replay.steps.length - 1;
  renderSeats(step);
  page.querySelectorAll("#timeline li").forEach(function (li, i) {
    if (i === current) { li.setAttribute("aria-current", "step"); } else { li.removeAttribute("aria-current"); }
  });
  byId("analysis-text").textContent = "";
}

function renderSeats(step) {
  var list = byId("seats");
  list.textContent = "";
  replay.players.forEach(function (p, i) {
    var seat = { name: p.name, lamp: p.lamp, colour: p.colour, eliminated: step.eliminated.indexOf(i) >= 0,
      pawns_left: step.pawns_left[i] };
    list.appendChild(seatItem(seat, i, { points: null }, { toMove: step.to_move === i }));
  });
}

function renderTimeline() {
  var list = byId("timeline");
  list.textContent = "";
  replay.steps.forEach(function (step, i) {
    var when = clock(step.seconds);
    var button = el("button", { type: "button", "class": "link step-" + step.kind }, (when ? when + " " : "") + stepText(step));
    button.addEventListener("click", function () { show(i); });
    var li = el("li", {});
    li.appendChild(button);
    list.appendChild(li);
  });
}

function renderHead() {
  var check = replay.check;
  var line = byId("replay-check");
  if (!check) { line.textContent = _("No pre-game check (a game without the board's lamps)."); }
  else if (check.result === "not-done") { line.textContent = _("The pre-game check was not over when the game ended."); }
  else { line.textContent = (check.seconds !== null ? clock(check.seconds) + " · " : "") + checkVerdict(check.result, [], check.by); }
  var result = byId("result");
  result.hidden = replay.status === "running";
  if (replay.status === "abandoned") { result.textContent = _("Game abandoned."); }
  else if (replay.status === "over") {
    var names = replay.result.winners.map(seatName);
    var text = names.length === 1 ? _("%(name)s wins", { name: names[0] })
      : (names.length ? _("Tie: %(names)s", { names: listOf(names) }) : _("No winner"));
    result.textContent = text + " (" + terminationText({ termination: replay.result.termination }).text + ")";
  }
  renderReveal();
  byId("scrubber").max = String(replay.steps.length - 1);
  renderTimeline();
}

function renderReveal() {
  var reveal = replay.reveal;
  var text = byId("reveal-text");
  var buttons = byId("reveal-buttons");
  buttons.textContent = "";
  byId("analysis").hidden = !replay.revealed;
  if (replay.revealed) {
    text.textContent = _("Every player agreed: the replay shows every pawn's kind, the closed rows and why each lamp lit.");
    return;
  }
  if (!replay.over) { text.textContent = _("Nothing is revealed before the game ends."); return; }
  if (!reveal.possible) { text.textContent = _("This game's pawn kinds were not kept: there is nothing to reveal."); return; }
  var waiting = reveal.needed.filter(function (s) { return reveal.consented.indexOf(s) < 0; });
  var names = listOf(waiting.map(seatName));
  // Exactly how, for those still to agree: here (their names below), or where they can.
  var how;
  if (reveal.may_consent.length) {
    how = _("Still to agree: %(names)s. Each of them taps their name below and confirms; it cannot be taken back.", { names: names });
  } else if (reveal.where === "board-display") {
    how = _("Still to agree: %(names)s. Each of them does it at the board's display (the screen beside the board): open this replay there, tap your name and confirm.", { names: names });
  } else {
    how = _("Still to agree: %(names)s. Each of them does it on the device that holds their seat: open this replay there, tap your name and confirm.", { names: names });
  }
  text.textContent = _("Each player may reveal their own defense pawns. When every player has, the replay shows them all.") + " " + how;
  reveal.may_consent.forEach(function (seat) {
    var button = el("button", { type: "button" }, _("Reveal the pawns of %(name)s", { name: seatName(seat) }));
    button.addEventListener("click", function () { consent(seat); });
    buttons.appendChild(button);
  });
}

async function consent(seat) {
  var msg = byId("reveal-msg");
  msg.textContent = "";
  if (!window.confirm(_("Reveal the pawns of %(name)s? It cannot be taken back.", { name: seatName(seat) }))) { return; }
  try {
    await api("POST", base + "/reveal", { seat: seat });
    await load(current);
  } catch (err) { showError(msg, err); }
}

async function analyse() {
  var out = byId("analysis-text");
  out.textContent = _("Thinking…");
  try {
    var a = await api("GET", base + "/analysis?step=" + current);
    var chances = function (x) { return formatNumber(x, { style: "percent", maximumFractionDigits: 0 }); };
    var kind = function (k) { return k === "defense" ? _("a defense pawn") : _("an attack pawn"); };
    out.textContent = _("%(name)s had %(best)s chances of winning with %(kind)s on %(slot)s; with the move played, %(played)s.", {
      name: seatName(a.player), best: chances(a.best.chances), kind: kind(a.best.pawn), slot: a.best.slot,
      played: chances(a.played.chances)
    });
  } catch (err) { showError(out, err); }
}

async function load(at) {
  replay = await api("GET", base);
  if (!drawn) { drawn = drawLayout(byId("board"), replay.drawing); }
  renderHead();
  show(at);
}

byId("step-first").addEventListener("click", function () { show(0); });
byId("step-back").addEventListener("click", function () { show(current - 1); });
byId("step-next").addEventListener("click", function () { show(current + 1); });
byId("step-last").addEventListener("click", function () { show(replay.steps.length - 1); });
byId("scrubber").addEventListener("input", function (e) { show(Number(e.target.value)); });
byId("analyse").addEventListener("click", analyse);
document.addEventListener("keydown", function (e) {
  if (!replay || e.target.tagName === "INPUT") { return; }
  if (e.key === "ArrowRight") { show(current + 1); }
  if (e.key === "ArrowLeft") { show(current - 1); }
});

load(0).catch(function (err) { showError(byId("step-text"), err); });
