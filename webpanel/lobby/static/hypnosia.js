/* The Hypnosia board: the concentric circles drawn from the board's geometry
 * (GET /api/games/<id>/hypnosia), pawns and stacks by colour, the squares a
 * tapped pawn can reach highlighted (as the engine computed them), the dice
 * (entered from real dice when the game says so), scores, the order of
 * arrival in the centre and the move log. Moves use the engine's notation
 * (docs/hypnosia.md). */
import { _, api, byId as $, el, inkOn, ngettext, PALETTE, svg } from "/static/panel.js";
import { listOf } from "/static/describe.js";
import { GamePage } from "./game.js";
import { drawCourse } from "./course.js";
import { colourName } from "./words.js";

var PLACES = [5, 4, 3, 2, 1];
var R_OUTER = 72, R_INNER = 28, R_LANE = 86, R_CENTRE = 13, R_SQUARE = 5.2;

var gameId = null;
var data = null;       // {version, board, moves, landings} from the server
var asked = -1;        // the version last asked for
var geometry = null;   // square name -> {x, y}
var drawnBoard = null; // the board name drawn
var current = null;    // the state on screen
var context = null;
var selected = null;   // the square of the pawn or stack the player tapped
var entered = [null, null];
var busy = false;

function colourOfPawn(pawn) { return pawn.replace(/[0-9]+$/, ""); }

// A pawn as players say it: its colour in words and its number ("red2" → "rouge 2").
function pawnName(pawn) { return colourName(colourOfPawn(pawn)) + " " + pawn.slice(colourOfPawn(pawn).length); }

// -- the geometry ------------------------------------------------------------

// A circle's squares in the order pawns walk them, from its first listed square.
function walk(circle) {
  var names = Object.keys(circle.next);
  var order = [names[0]];
  var at = circle.next[names[0]];
  while (at !== names[0] && order.length < names.length) { order.push(at); at = circle.next[at]; }
  return order;
}

// Circles outermost first, evenly spaced; square 0 of each at the bottom,
// numbers growing counter-clockwise (the way pawns move); each colour's start
// lane outside the outer circle, just before its entry.
function layout(board) {
  var g = { centre: { x: 0, y: 0 } };
  var n = board.circles.length;
  var outerStep = 0;
  board.circles.forEach(function (circle, k) {
    var r = n === 1 ? R_OUTER : R_OUTER - k * (R_OUTER - R_INNER) / (n - 1);
    var order = walk(circle);
    if (k === 0) { outerStep = 2 * Math.PI / order.length; }
    order.forEach(function (square, i) {
      var a = Math.PI / 2 - 2 * Math.PI * i / order.length;
      g[square] = { x: r * Math.cos(a), y: r * Math.sin(a), angle: a };
    });
  });
  board.colours.forEach(function (colour) {
    var entry = g[colour.entry];
    colour.start.forEach(function (square, k) {
      var a = entry.angle + (k + 1) * outerStep;
      g[square] = { x: R_LANE * Math.cos(a), y: R_LANE * Math.sin(a), angle: a, lane: colour.name };
    });
  });
  return g;
}

function drawBoard(board) {
  var root = $("hyp-board");
  root.textContent = "";
  geometry = layout(board);
  var lines = root.appendChild(svg("g", { "class": "hyp-lines" }));
  board.circles.forEach(function (circle, k) {
    var first = geometry[Object.keys(circle.next)[0]];
    lines.appendChild(svg("circle", { cx: 0, cy: 0, r: Math.hypot(first.x, first.y), "class": "hyp-ring" }));
  });
  Object.keys(board.bridges).forEach(function (from) {
    var a = geometry[from], b = geometry[board.bridges[from]];
    lines.appendChild(svg("line", { x1: a.x, y1: a.y, x2: b.x, y2: b.y, "class": "hyp-bridge" }));
  });
  board.colours.forEach(function (colour) {
    var a = geometry[colour.start[colour.start.length - 1]], b = geometry[colour.entry];
    lines.appendChild(svg("line", { x1: a.x, y1: a.y, x2: b.x, y2: b.y, "class": "hyp-lane",
      stroke: PALETTE[colour.name] || "#888" }));
  });
  var squares = root.appendChild(svg("g", { "class": "hyp-squares" }));
  var entries = {};
  board.colours.forEach(function (c) { entries[c.entry] = c.name; });
  Object.keys(geometry).forEach(function (name) {
    var at = geometry[name];
    var isCentre = name === "centre";
    var group = squares.appendChild(svg("g", { "class": "hyp-square", "data-square": name, "role": "button",
      "aria-label": isCentre ? _("the centre") : _("square %(name)s", { name: name }) }));
    var shape = group.appendChild(svg("circle", { cx: at.x, cy: at.y, r: isCentre ? R_CENTRE : R_SQUARE,
      "class": "hyp-cell" }));
    if (board.bridges[name]) { shape.classList.add("hyp-bridge-square"); }
    if (entries[name]) { shape.classList.add("hyp-entry"); shape.setAttribute("stroke", PALETTE[entries[name]] || "#888"); }
    if (at.lane) { shape.classList.add("hyp-start"); shape.setAttribute("stroke", PALETTE[at.lane] || "#888"); }
    if (isCentre) { shape.classList.add("hyp-centre-cell"); }
    group.addEventListener("click", function () { onSquare(name); });
    group.addEventListener("keydown", function (event) {
      if (event.key === "Enter" || event.key === " ") { event.preventDefault(); onSquare(name); }
    });
  });
  root.appendChild(svg("g", { id: "hyp-pawns", "class": "hyp-pawns" }));
  drawnBoard = board.name;
}

// -- drawing a position --------------------------------------------------------

function drawPawn(layer, pawn, x, y, extra) {
  var colour = colourOfPawn(pawn);
  var group = layer.appendChild(svg("g", { "class": "hyp-pawn" + (extra ? " " + extra : ""), "data-pawn": pawn }));
  group.appendChild(svg("circle", { cx: x, cy: y, r: 4.2, fill: PALETTE[colour] || "#ccc", "class": "hyp-pawn-body" }));
  group.appendChild(svg("text", { x: x, y: y + 1.6, "class": "hyp-pawn-label", fill: inkOn(colour) },
    pawn.replace(/^[a-z]+/, "")));
}

function drawPawns(view) {
  var layer = $("hyp-pawns");
  layer.textContent = "";
  var bySquare = {};
  Object.keys(view.pawns).forEach(function (pawn) {
    var square = view.pawns[pawn];
    if (square === "captured" || square === "centre") { return; }
    (bySquare[square] = bySquare[square] || []).push(pawn);
  });
  Object.keys(bySquare).forEach(function (square) {
    var at = geometry[square];
    if (!at) { return; }
    var pawns = bySquare[square].sort();
    if (pawns.length === 1) { drawPawn(layer, pawns[0], at.x, at.y); return; }
    drawPawn(layer, pawns[0], at.x - 1.8, at.y + 1.8, "stacked");
    drawPawn(layer, pawns[1], at.x + 1.8, at.y - 1.8, "stacked");
  });
  // The centre's pawns in a small ring, by order of arrival.
  view.centre.forEach(function (pawn, i) {
    var a = Math.PI / 2 - 2 * Math.PI * i / Math.max(5, view.centre.length);
    drawPawn(layer, pawn, 7 * Math.cos(a), 7 * Math.sin(a), "in-centre");
  });
}

// -- what the player may do --------------------------------------------------------

function fresh(state) { return data && state && data.version === state.version; }

function interactive(state) {
  return state.can_move && !context.replay && !busy && state.to_act !== -1 && fresh(state) && data.landings;
}

// The moves of the pawns on ``square``; with doubles, moving by one die or the
// other is the same move: only the first is kept.
function landingsFrom(square) {
  var seen = {};
  return data.landings.filter(function (l) {
    if (current.view.pawns[l.move.pawn] !== square) { return false; }
    var m = l.move;
    var key = [m.pawn, !!m.stack, !!m.cross, diceValue(m, current.view.dice.values)].join("|");
    if (seen[key]) { return false; }
    seen[key] = true;
    return true;
  });
}

function diceValue(move, dice) {
  return move.die === "sum" ? dice[0] + dice[1] : dice[move.die];
}

function moveLabel(landing, dice) {
  var m = landing.move;
  var words = { pawn: pawnName(m.pawn), num: diceValue(m, dice), to: landing.to };
  var what = m.stack ? (m.cross ? _("stack %(pawn)s crosses", words) : _("stack %(pawn)s", words))
    : m.cross ? _("%(pawn)s crosses", words) : words.pawn;
  var by = m.die === "sum" ? _("sum %(num)d", words) : _("die %(num)d", words);
  var text = what + ", " + by + " → " + landing.to;
  if (landing.captures.length) { text += " " + _("(takes %(pawns)s)", { pawns: listOf(landing.captures.map(pawnName)) }); }
  return text;
}

function renderMarks(state) {
  var live = interactive(state);
  if (!live) { selected = null; }
  var movable = {};
  var targets = {};
  if (live) {
    data.landings.forEach(function (l) {
      var from = state.view.pawns[l.move.pawn];
      movable[from] = true;
      if (from === selected) { targets[l.to] = targets[l.to] || (l.captures.length ? "capture" : "dest"); }
    });
    if (selected !== null && !movable[selected]) { selected = null; targets = {}; }
  }
  document.querySelectorAll("#hyp-board .hyp-square").forEach(function (group) {
    var name = group.dataset.square;
    group.classList.toggle("movable", !!movable[name]);
    group.classList.toggle("selected", name === selected);
    group.classList.toggle("dest", !!targets[name]);
    group.classList.toggle("capture", targets[name] === "capture");
    if (movable[name] || targets[name]) { group.setAttribute("tabindex", "0"); } else { group.removeAttribute("tabindex"); }
  });
  renderChoices(state, live);
}

function renderChoices(state, live) {
  var box = $("hyp-choices");
  box.textContent = "";
  var hint = $("hyp-hint");
  if (!live) { hint.textContent = ""; return; }
  if (selected === null) {
    hint.textContent = _("Tap one of your pawns (outlined) to see where it can go.");
    return;
  }
  hint.textContent = _("Tap a highlighted square, or choose below.");
  landingsFrom(selected).forEach(function (landing) {
    var button = el("button", { type: "button", "class": "hyp-choice", "data-to": landing.to,
      "data-index": data.landings.indexOf(landing) }, moveLabel(landing, state.view.dice.values));
    button.addEventListener("click", function () { send(landing.move); });
    box.appendChild(button);
  });
}

function onSquare(name) {
  if (!current || !interactive(current)) { return; }
  var group = document.querySelector('#hyp-board .hyp-square[data-square="' + name + '"]');
  if (selected !== null && group && group.classList.contains("dest")) {
    var options = landingsFrom(selected).filter(function (l) { return l.to === name; });
    if (options.length === 1) { send(options[0].move); return; }
    // Several ways to get there (either die, the pawn or its stack): the player picks one.
    var box = $("hyp-choices");
    box.querySelectorAll(".hyp-choice").forEach(function (b) { b.hidden = b.dataset.to !== name; });
    $("hyp-hint").textContent = _("Several moves land on %(name)s: choose one.", { name: name });
    return;
  }
  selected = (name === selected || !group || !group.classList.contains("movable")) ? null : name;
  renderMarks(current);
}

async function send(move) {
  if (busy) { return; }
  busy = true;
  selected = null;
  try { await context.play(move); } finally { busy = false; }
  if (current) { renderMarks(current); }
}

// -- dice ----------------------------------------------------------------------------

function dieFace(value, used) {
  var face = el("span", { "class": "hyp-die" + (used ? " used" : ""),
    "aria-label": used ? _("die %(num)d, played", { num: value }) : _("die %(num)d", { num: value }) }, String(value));
  return face;
}

function nameOf(state, seat) {
  var player = state.view.players[seat];
  return player ? _("%(name)s (%(colour)s)", { name: context.seatName(seat), colour: colourName(player.colour) }) : "";
}

function renderDice(state) {
  var view = state.view;
  var box = $("hyp-dice");
  box.textContent = "";
  if (view.dice) {
    view.dice.values.forEach(function (v, i) { box.appendChild(dieFace(v, view.dice.used[i])); });
  } else if (view.rolling !== null && view.rolling !== undefined && !view.outcome) {
    box.appendChild(el("span", { "class": "hyp-rolling" }, _("%(name)s rolls", { name: nameOf(state, view.rolling) })));
  }
  $("hyp-lost").textContent = view.lost_dice && view.lost_dice.length
    ? _("Lost (no pawn could use them): %(dice)s", { dice: listOf(view.lost_dice.map(String)) }) : "";
  renderEntry(state);
}

function renderEntry(state) {
  var form = $("hyp-enter");
  var open = state.can_move && state.to_act === -1 && !context.replay;
  form.hidden = !open;
  if (!open) { entered = [null, null]; return; }
  $("hyp-enter-text").textContent = _("Roll the real dice for %(name)s and enter them:", { name: nameOf(state, state.view.rolling) });
  form.querySelectorAll(".hyp-die-button").forEach(function (b) {
    b.classList.toggle("chosen", entered[Number(b.dataset.die)] === Number(b.dataset.value));
    b.setAttribute("aria-pressed", String(entered[Number(b.dataset.die)] === Number(b.dataset.value)));
  });
  $("hyp-enter-roll").disabled = entered[0] === null || entered[1] === null || busy;
}

function initEntry() {
  var form = $("hyp-enter");
  form.querySelectorAll(".hyp-die-row").forEach(function (row) {
    var die = Number(row.dataset.die);
    for (var v = 1; v <= 6; v++) {
      var button = el("button", { type: "button", "class": "hyp-die-button", "data-die": die, "data-value": v,
        "aria-label": die ? _("second die shows %(num)d", { num: v }) : _("first die shows %(num)d", { num: v }) }, String(v));
      button.addEventListener("click", pick.bind(null, die, v));
      row.appendChild(button);
    }
  });
  form.addEventListener("submit", function (event) {
    event.preventDefault();
    if (entered[0] === null || entered[1] === null) { return; }
    var roll = { roll: [entered[0], entered[1]] };
    entered = [null, null];
    send(roll);
  });
}

function pick(die, value) {
  entered[die] = value;
  if (current) { renderEntry(current); }
}

// -- scores, arrivals, opening ------------------------------------------------------------

function renderScores(state) {
  var view = state.view;
  var rows = $("hyp-score-rows");
  rows.textContent = "";
  var acting = view.dice || view.rolling === null ? view.to_act : view.rolling;
  view.players.forEach(function (p, seat) {
    var row = el("li", { "class": "hyp-player", "data-seat": seat });
    if (seat === acting && !view.outcome) { row.classList.add("to-move"); }
    var dot = row.appendChild(el("span", { "class": "hyp-dot hyp-" + p.colour, role: "img", "aria-label": colourName(p.colour) }));
    dot.style.backgroundColor = PALETTE[p.colour] || "";  // the style object, not an inline style: the CSP allows it
    row.appendChild(el("span", { "class": "hyp-who" }, context.seatName(seat)));
    row.appendChild(el("span", { "class": "hyp-score", "aria-label": _("score") }, String(p.score)));
    var captures = p.captures > 0 ? "+" + p.captures : p.captures < 0 ? "−" + (-p.captures) : "0";
    var play = ngettext("%(num)d pawn in play", "%(num)d pawns in play", p.on_board, { num: p.on_board });
    row.appendChild(el("span", { "class": "hyp-detail" }, _("centre %(centre)s · captures %(captures)s · lost %(lost)s · %(play)s", {
      centre: p.centre_points, captures: captures, lost: p.captured, play: play })));
    rows.appendChild(row);
  });
  var centre = $("hyp-centre");
  centre.textContent = "";
  view.centre.forEach(function (pawn, i) {
    var seat = view.players.findIndex(function (p) { return p.colour === colourOfPawn(pawn); });
    var points = i < PLACES.length ? PLACES[i] : 0;
    centre.appendChild(el("li", { "class": "hyp-" + colourOfPawn(pawn) },
      _("%(pawn)s — %(name)s, %(points)s", { pawn: pawnName(pawn), name: seat >= 0 ? context.seatName(seat) : "",
        points: ngettext("%(num)d point", "%(num)d points", points, { num: points }) })));
  });
  if (!view.centre.length) { centre.appendChild(el("li", { "class": "hyp-none" },
    ngettext("nobody yet (%(num)d place)", "nobody yet (%(num)d places)", view.centre_places_left, { num: view.centre_places_left }))); }
  var opening = view.opening || [];
  var then = _("; then ");
  var rolls = opening.map(function (round) {
    return round.map(function (r) { return context.seatName(r.seat) + " " + (r.roll[0] + r.roll[1]); }).join(", ");
  }).join(then);
  $("hyp-opening").textContent = opening.length ? _("Opening rolls: %(rolls)s", { rolls: rolls }) : "";
}

// -- the page's hooks -----------------------------------------------------------------

async function load(version) {
  if (asked >= version) { return; }
  asked = version;
  try {
    var answer = await api("GET", "/api/games/" + gameId + "/hypnosia");
    if (!data || answer.version >= data.version) { data = answer; }
  } catch (err) {
    asked = -1;  // ask again at the next change
    context.fail(err);
    return;
  }
  if (drawnBoard !== data.board.name) { drawBoard(data.board); }
  if (current) { draw(current); }
  context.redrawHistory();
}

function init(ctx) {
  context = ctx;
  gameId = $("hypnosia").dataset.game;
  initEntry();
}

function draw(state) {
  if (!geometry) { return; }
  drawPawns(state.view);
  renderMarks(state);
}

function render(state, ctx) {
  context = ctx;
  if (!current || state.version !== current.version) { selected = null; }
  current = state;
  if (!ctx.replay && (!data || data.version < state.version)) { load(state.version); }
  draw(state);
  renderDice(state);
  renderScores(state);
  renderCourse(state);
}

// The result screen: every player's score turn by turn.
function renderCourse(state) {
  var figure = $("hyp-course");
  var turns = state.view.scores_by_turn || [];
  figure.hidden = !state.outcome || turns.length < 2;
  if (figure.hidden) { return; }
  drawCourse($("hyp-chart"), state.view.players.map(function (p, seat) {
    return { name: context.seatName(seat), colour: PALETTE[p.colour] || p.colour,
      values: turns.map(function (scores) { return scores[seat]; }) };
  }), _("Scores turn by turn"));
}

function history(state) {
  if (state && state.view && Array.isArray(state.view.history)) { return state.view.history; }
  return data ? data.moves : null;
}

function describe(move, index, moves) {
  if (move.roll) {
    var seat = data && data.rolled_by ? data.rolled_by[index] : null;
    var player = current && seat !== null && seat !== undefined ? current.view.players[seat] : null;
    var roll = _("dice %(first)d · %(second)d", { first: move.roll[0], second: move.roll[1] });
    return player ? _("%(name)s: %(move)s", { name: context.seatName(seat), move: roll }) : roll;
  }
  var dice = null;
  for (var i = index - 1; i >= 0 && !dice; i--) { if (moves[i].roll) { dice = moves[i].roll; } }
  var by = dice ? (move.die === "sum" ? _("+%(num)d (sum)", { num: dice[0] + dice[1] }) : "+" + dice[move.die]) : "";
  var words = { pawn: pawnName(move.pawn) };
  var what = move.stack ? (move.cross ? _("stack %(pawn)s crosses", words) : _("stack %(pawn)s", words))
    : move.cross ? _("%(pawn)s crosses", words) : words.pawn;
  return what + " " + by;
}

function status(state) {
  var view = state.view;
  if (!view || !view.players) { return null; }
  if (state.outcome) {
    var winners = state.outcome.winners.map(function (w) { return nameOf(state, w); });
    if (!winners.length) { return _("Game over: a draw"); }
    return winners.length > 1 ? _("Game over: %(names)s share the win", { names: listOf(winners) })
      : _("Game over: %(name)s wins", { name: winners[0] });
  }
  if (state.to_act === -1) {
    var roller = nameOf(state, view.rolling);
    return state.can_move ? _("Enter the dice of %(name)s", { name: roller }) : _("Waiting for the dice of %(name)s", { name: roller });
  }
  var acting = state.seats[state.to_act];
  var who = nameOf(state, state.to_act);
  var text = acting && acting.kind === "ai" ? _("%(name)s is thinking", { name: who })
    : state.can_move ? (state.hot_seat ? _("%(name)s, your move", { name: who }) : _("Your move"))
    : _("%(name)s to play", { name: who });
  return view.dice ? _("%(text)s: dice %(first)d and %(second)d", { text: text, first: view.dice.values[0], second: view.dice.values[1] }) : text;
}

GamePage.register("hypnosia", { init: init, render: render, describe: describe, status: status,
  history: history });

// The rules page's drawing: the circles, bridges, centre and start squares, without pawns (rules.js).
export function drawEmptyBoard(board) { drawBoard(board); }
