/* The Hypnosia board: the concentric circles drawn from the board's geometry
 * (GET /api/games/<id>/hypnosia), pawns and stacks by colour, the squares a
 * tapped pawn can reach highlighted (as the engine computed them), the dice
 * (entered from real dice when the game says so), scores, the order of
 * arrival in the centre and the move log. Moves use the engine's notation
 * (docs/hypnosia.md). */
import { api, byId as $, el, inkOn, PALETTE, svg } from "/static/panel.js";
import { GamePage } from "./game.js";

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
      "aria-label": isCentre ? "the centre" : "square " + name }));
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
  var what = m.stack ? "stack " + m.pawn : m.pawn;
  var by = m.die === "sum" ? "sum " + diceValue(m, dice) : "die " + dice[m.die];
  var text = what + (m.cross ? " crosses" : "") + ", " + by + " → " + landing.to;
  if (landing.captures.length) { text += " (takes " + landing.captures.join(", ") + ")"; }
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
    hint.textContent = "Tap one of your pawns (outlined) to see where it can go.";
    return;
  }
  hint.textContent = "Tap a highlighted square, or choose below.";
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
    $("hyp-hint").textContent = "Several moves land on " + name + ": choose one.";
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
  var face = el("span", { "class": "hyp-die" + (used ? " used" : ""), "aria-label": "die " + value + (used ? ", played" : "") }, String(value));
  return face;
}

function nameOf(state, seat) {
  var player = state.view.players[seat];
  return player ? player.name + " (" + player.colour + ")" : "";
}

function renderDice(state) {
  var view = state.view;
  var box = $("hyp-dice");
  box.textContent = "";
  if (view.dice) {
    view.dice.values.forEach(function (v, i) { box.appendChild(dieFace(v, view.dice.used[i])); });
  } else if (view.rolling !== null && view.rolling !== undefined && !view.outcome) {
    box.appendChild(el("span", { "class": "hyp-rolling" }, nameOf(state, view.rolling) + " rolls"));
  }
  $("hyp-lost").textContent = view.lost_dice && view.lost_dice.length
    ? "Lost (no pawn could use): " + view.lost_dice.join(", ") : "";
  renderEntry(state);
}

function renderEntry(state) {
  var form = $("hyp-enter");
  var open = state.can_move && state.to_act === -1 && !context.replay;
  form.hidden = !open;
  if (!open) { entered = [null, null]; return; }
  $("hyp-enter-text").textContent = "Roll the real dice for " + nameOf(state, state.view.rolling) + " and enter them:";
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
        "aria-label": (die ? "second" : "first") + " die shows " + v }, String(v));
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
    var dot = row.appendChild(el("span", { "class": "hyp-dot hyp-" + p.colour, "aria-label": p.colour }));
    dot.style.backgroundColor = PALETTE[p.colour] || "";  // the style object, not an inline style: the CSP allows it
    row.appendChild(el("span", { "class": "hyp-who" }, p.name));
    row.appendChild(el("span", { "class": "hyp-score", "aria-label": "score" }, String(p.score)));
    var captures = p.captures > 0 ? "+" + p.captures : p.captures < 0 ? "−" + (-p.captures) : "0";
    row.appendChild(el("span", { "class": "hyp-detail" }, "centre " + p.centre_points + " · captures " + captures +
      " · lost " + p.captured + " · " + p.on_board + " in play"));
    rows.appendChild(row);
  });
  var centre = $("hyp-centre");
  centre.textContent = "";
  view.centre.forEach(function (pawn, i) {
    var seat = view.players.findIndex(function (p) { return p.colour === colourOfPawn(pawn); });
    var points = i < PLACES.length ? PLACES[i] : 0;
    centre.appendChild(el("li", { "class": "hyp-" + colourOfPawn(pawn) },
      pawn + " — " + (view.players[seat] ? view.players[seat].name : "") + ", " + points + (points === 1 ? " point" : " points")));
  });
  if (!view.centre.length) { centre.appendChild(el("li", { "class": "hyp-none" }, "nobody yet (" + view.centre_places_left + " places)")); }
  var opening = view.opening || [];
  $("hyp-opening").textContent = opening.length ? "Opening rolls: " + opening.map(function (round) {
    return round.map(function (r) { return view.players[r.seat].name + " " + (r.roll[0] + r.roll[1]); }).join(", ");
  }).join("; then ") : "";
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
    context.message(err.message);
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
}

function history(state) {
  if (state && state.view && Array.isArray(state.view.history)) { return state.view.history; }
  return data ? data.moves : null;
}

function describe(move, index, moves) {
  if (move.roll) {
    var seat = data && data.rolled_by ? data.rolled_by[index] : null;
    var player = current && seat !== null && seat !== undefined ? current.view.players[seat] : null;
    return (player ? player.name + ": " : "") + "dice " + move.roll[0] + " · " + move.roll[1];
  }
  var dice = null;
  for (var i = index - 1; i >= 0 && !dice; i--) { if (moves[i].roll) { dice = moves[i].roll; } }
  var by = dice ? (move.die === "sum" ? "+" + (dice[0] + dice[1]) + " (sum)" : "+" + dice[move.die]) : "";
  return (move.stack ? "stack " : "") + move.pawn + (move.cross ? " crosses " : " ") + by;
}

function status(state) {
  var view = state.view;
  if (!view || !view.players) { return null; }
  if (state.outcome) {
    var winners = state.outcome.winners.map(function (w) { return nameOf(state, w); });
    return winners.length ? "Game over: " + winners.join(" and ") + (winners.length > 1 ? " share the win" : " wins")
      : "Game over: a draw";
  }
  if (state.to_act === -1) {
    var roller = nameOf(state, view.rolling);
    return state.can_move ? "Enter the dice of " + roller : "Waiting for the dice of " + roller;
  }
  var acting = state.seats[state.to_act];
  var who = nameOf(state, state.to_act);
  var dice = view.dice ? ": dice " + view.dice.values.join(" and ") : "";
  if (acting && acting.kind === "ai") { return who + " is thinking" + dice; }
  if (state.can_move) { return (state.hot_seat ? who + ", your move" : "Your move") + dice; }
  return who + " to play" + dice;
}

GamePage.register("hypnosia", { init: init, render: render, describe: describe, status: status,
  history: history });
