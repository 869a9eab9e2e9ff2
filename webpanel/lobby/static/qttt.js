/* The quantum tic-tac-toe board: spooky marks small, classical marks large,
 * the cycle waiting for its collapse highlighted, the collapse choice offered
 * to the player who makes it. Squares are numbered 0-8 row by row, as in the
 * API and the engine's messages. */
import { _, byId as $, el } from "/static/panel.js";
import { GamePage } from "./game.js";
import { drawCollapse } from "./course.js";
import { seatName } from "./words.js";
import { listOf } from "/static/describe.js";

var cells = [];
var selected = null;   // the first square of a pair being placed
var current = null;    // the state on screen
var busy = false;      // a move is on its way

function symbolOf(markNumber) { return markNumber % 2 ? "X" : "O"; }

// The squares and marks of the cycle the last pair closed: the path between
// its two squares through the other spooky links (a forest), plus that pair.
function cycleOf(view) {
  if (!view.collapse) { return null; }
  var closing = view.collapse.move;
  var a = view.collapse.squares[0], b = view.collapse.squares[1];
  var links = [[], [], [], [], [], [], [], [], []];
  view.squares.forEach(function (square, s) {
    square.spooky.forEach(function (mark) {
      if (mark.move !== closing) { links[s].push({ to: mark.other, move: mark.move }); }
    });
  });
  var from = {}; from[a] = null;
  var queue = [a];
  while (queue.length) {
    var here = queue.shift();
    links[here].forEach(function (link) {
      if (!(link.to in from)) { from[link.to] = { square: here, move: link.move }; queue.push(link.to); }
    });
  }
  var squares = [b], marks = [closing];
  var at = b;
  while (from[at]) { marks.push(from[at].move); at = from[at].square; squares.push(at); }
  return { squares: squares, marks: marks };
}

function init(ctx) {
  var grid = $("qttt");
  for (var s = 0; s < 9; s++) {
    var cell = el("button", { type: "button", "class": "cell", "data-square": String(s) });
    cell.addEventListener("click", onCell.bind(null, s, ctx));
    grid.appendChild(cell);
    cells.push(cell);
  }
}

async function send(ctx, move) {
  busy = true;
  selected = null;
  try { await ctx.play(move); } finally { busy = false; }
}

function onCell(square, ctx) {
  if (!current || !current.can_move || ctx.replay || busy) { return; }
  var view = current.view;
  if (view.collapse) {
    if (view.collapse.squares.indexOf(square) >= 0) { send(ctx, { collapse: square }); }
    return;
  }
  if (view.squares[square].classical) { return; }
  var moves = current.legal_moves || [];
  if (moves.length === 1 && moves[0].length === 1) { send(ctx, [square]); return; }
  if (selected === null) { selected = square; render(current, ctx); return; }
  if (selected === square) { selected = null; render(current, ctx); return; }
  send(ctx, [selected, square]);
}

function mark(text, className) { return el("span", { "class": className }, text); }

function render(state, ctx) {
  if (state !== current) { selected = current && state.version === current.version ? selected : null; }
  current = state;
  var view = state.view;
  var cycle = cycleOf(view);
  var interactive = state.can_move && !ctx.replay;
  if (!interactive) { selected = null; }
  cells.forEach(function (cell, s) {
    var square = view.squares[s];
    cell.textContent = "";
    cell.className = "cell";
    cell.appendChild(mark(String(s), "square-number"));
    if (square.classical) {
      cell.classList.add("classical", "sym-" + square.classical.symbol);
      cell.appendChild(mark(square.classical.symbol, "classical-mark"));
      cell.appendChild(mark(String(square.classical.move), "classical-move"));
    } else {
      var box = mark("", "spooky");
      square.spooky.forEach(function (m) {
        var span = mark(m.symbol + m.move, ["spooky-mark", "sym-" + m.symbol].join(" "));
        if (cycle && cycle.marks.indexOf(m.move) >= 0) { span.classList.add("in-cycle"); }
        if (view.collapse && m.move === view.collapse.move) { span.classList.add("closing"); }
        box.appendChild(span);
      });
      cell.appendChild(box);
    }
    if (cycle && cycle.squares.indexOf(s) >= 0) { cell.classList.add("cycle"); }
    var choosable = interactive && (view.collapse ? view.collapse.squares.indexOf(s) >= 0 : !square.classical);
    cell.disabled = !choosable;
    if (choosable && view.collapse) { cell.classList.add("choice"); }
    if (selected === s) { cell.classList.add("selected"); }
    var marks = square.classical ? square.classical.symbol
      : square.spooky.length ? square.spooky.map(function (m) { return m.symbol + m.move; }).join(" ") : _("empty");
    cell.setAttribute("aria-label", _("square %(num)d: %(marks)s", { num: s, marks: marks }));
  });
  renderCollapse(state, ctx, interactive);
  renderHint(state, ctx, interactive);
  renderWhy(state);
  renderCourse(state);
}

/* Why the winner won, once the game is over by a line. When one collapse completed lines for both
 * players, the rules say the line finished first wins: the one whose largest move number is lower
 * (X's numbers are odd, O's even: never a tie). */
function renderWhy(state) {
  var why = $("qttt-why");
  var lines = state.outcome && state.view.lines ? state.view.lines : [];
  why.hidden = !lines.length;
  if (!lines.length) { why.textContent = ""; return; }
  var squares = function (line) { return listOf(line.squares.map(String)); };
  if (lines.length === 1) {
    why.textContent = _("%(symbol)s lined up three classical marks: squares %(squares)s.",
      { symbol: lines[0].symbol, squares: squares(lines[0]) });
    return;
  }
  var sorted = lines.slice().sort(function (a, b) { return a.latest - b.latest; });
  var first = sorted[0], second = sorted[1];
  why.textContent = _("The same collapse completed a line for each player: %(winner)s's (squares %(wsquares)s) at move %(wmove)d, %(other)s's (squares %(osquares)s) at move %(omove)d. The line completed first, the one whose largest move number is lower, wins: %(winner)s.",
    { winner: first.symbol, wsquares: squares(first), wmove: first.latest,
      other: second.symbol, osquares: squares(second), omove: second.latest });
}

// The result screen: the entanglement graph at the last collapse (the cycle that decided the game).
function renderCourse(state) {
  var figure = $("qttt-course");
  var collapses = state.view.collapses || [];
  figure.hidden = !state.outcome || !collapses.length;
  if (figure.hidden) { return; }
  var last = collapses[collapses.length - 1];
  drawCollapse($("qttt-graph"), last);
  var closing = symbolOf(last.move) + last.move;
  $("qttt-graph").setAttribute("aria-label", _("The entanglement at the last collapse: mark %(mark)s closed a cycle of %(num)d marks and landed in square %(square)d.",
    { mark: closing, num: last.cycle.length, square: last.square }));
  $("qttt-course-caption").textContent = _("Entanglement at the last collapse (move %(num)d): the cycle in orange, the square chosen outlined.", { num: last.move });
}

function renderCollapse(state, ctx, interactive) {
  var view = state.view;
  var box = $("collapse-choice");
  var buttons = $("collapse-buttons");
  buttons.textContent = "";
  if (!view.collapse || ctx.replay) { box.hidden = true; return; }
  var closing = symbolOf(view.collapse.move) + view.collapse.move;
  box.hidden = false;
  if (!interactive) {
    $("collapse-text").textContent = _("Mark %(mark)s closed a cycle: %(name)s, with %(symbol)s, chooses where it lands.",
      { mark: closing, symbol: view.to_act_symbol, name: ctx.seatName(view.to_act) });
    return;
  }
  $("collapse-text").textContent = _("Mark %(mark)s closed a cycle: choose where it lands.", { mark: closing });
  view.collapse.squares.forEach(function (s) {
    var button = el("button", { type: "button", "class": "primary collapse-button", "data-square": String(s) },
      _("%(mark)s → square %(num)d", { mark: closing, num: s }));
    button.addEventListener("click", function () { if (!busy) { send(ctx, { collapse: s }); } });
    buttons.appendChild(button);
  });
}

function renderHint(state, ctx, interactive) {
  var hint = $("hint");
  var view = state.view;
  if (!interactive || view.collapse) { hint.textContent = ""; return; }
  var moves = state.legal_moves || [];
  var sym = view.to_act_symbol;
  if (moves.length === 1 && moves[0].length === 1) {
    hint.textContent = _("One square left: the ninth mark of %(symbol)s is classical, in square %(num)d.", { symbol: sym, num: moves[0][0] });
  } else if (selected === null) {
    hint.textContent = _("Place %(mark)s: tap two free squares.", { mark: sym + view.move_number });
  } else {
    hint.textContent = _("%(mark)s in square %(num)d: tap the second square (or the same to cancel).", { mark: sym + view.move_number, num: selected });
  }
}

function describe(move, index, history) {
  var marks = 0;
  for (var i = 0; i <= index; i++) {
    if (Array.isArray(history[i])) { marks += 1; }
  }
  if (Array.isArray(move)) {
    var name = symbolOf(marks) + marks;
    return move.length === 2 ? _("%(name)s: %(move)s", { name: name, move: move[0] + " · " + move[1] })
      : _("%(mark)s: %(num)d (classical)", { mark: name, num: move[0] });
  }
  // A collapse is chosen by the player after the mark that closed the cycle.
  return _("%(symbol)s collapses %(mark)s → %(num)d", { symbol: symbolOf(marks + 1), mark: symbolOf(marks) + marks, num: move.collapse });
}

function seatOf(state, seat) { return seatName(state.seats[seat], "qttt"); }

function status(state) {
  var view = state.view;
  if (!view) { return null; }
  if (!state.outcome && view.collapse && state.can_move) {
    return _("Your move: choose where %(mark)s lands", { mark: symbolOf(view.collapse.move) + view.collapse.move });
  }
  if (!state.outcome) { return null; }
  if (view.winner) {
    var seat = view.winner === "X" ? 0 : 1;
    // The name may hold parentheses of its own ("Computer (medium)"): none around it.
    return _("%(name)s wins with %(symbol)s", { symbol: view.winner, name: seatOf(state, seat) });
  }
  return _("A draw: the grid is full");
}

GamePage.register("qttt", { init: init, render: render, describe: describe, status: status });
