/* The digital Haute-Tension board: drawn from the game's layout like the live
 * board, each pawn in its owner's colour; the seat's own pawns carry their
 * kind (A / D), which only that seat's view holds. The player to act picks
 * attack or defense and taps a free slot. Also shown: the seat's own stock,
 * lit lamps, eliminations, the turn timer and, at the end, the tournament
 * points. */
import { draw as drawLayout, showLamps, showPawns } from "/static/layout-draw.js";
import { _, api, byId as $, el, ngettext, pgettext, svg } from "/static/panel.js";
import { listOf } from "/static/describe.js";
import { GamePage } from "./game.js";

var root = null;
var slotEls = {};
var lampEls = {};
var drawn = null;       // the layout drawn, by name
var loading = null;     // the layout being fetched
var kind = "attack";    // the pawn the player is about to place
var current = null;     // the state on screen
var busy = false;
var timerVersion = null, timerStart = 0, timerHandle = null;
var page = null;        // the game page (its seat names)

// The same drawing as the live board (webpanel/static/layout-draw.js), each slot a button.
function draw(layout, ctx) {
  var parts = drawLayout(root, layout, {
    slotAttributes: function (name) { return { tabindex: "0", role: "button", "aria-label": _("slot %(slot)s", { slot: name }) }; },
    eachSlot: function (g, name, p) {
      g.appendChild(svg("text", { x: p.x, y: p.y + 0.02, "class": "mine" }));
      g.addEventListener("click", function () { onSlot(name, ctx); });
      g.addEventListener("keydown", function (e) {
        if (e.key === "Enter" || e.key === " ") { e.preventDefault(); onSlot(name, ctx); }
      });
    }
  });
  slotEls = parts.slots;
  lampEls = parts.lamps;
  drawn = layout.name;
}

async function ensureLayout(name, ctx) {
  if (drawn === name) { return true; }
  if (!loading) {
    loading = api("GET", "/api/layouts/" + encodeURIComponent(name))
      .then(function (layout) { draw(layout, ctx); })
      .finally(function () { loading = null; });
  }
  try { await loading; } catch (err) { ctx.fail(err); return false; }
  return drawn === name;
}

function canPlay(state, ctx) { return !!(state && state.can_move && !ctx.replay && !busy); }

async function onSlot(slot, ctx) {
  if (!canPlay(current, ctx) || current.view.pawns[slot]) { return; }
  busy = true;
  try { await ctx.play({ slot: slot, pawn: kind }); } finally { busy = false; }
}

function chooseKind(k) {
  kind = k;
  ["attack", "defense"].forEach(function (name) {
    $("ht-" + name).setAttribute("aria-pressed", String(name === kind));
  });
}

function init(ctx) {
  root = $("ht-board");
  $("ht-attack").addEventListener("click", function () { chooseKind("attack"); });
  $("ht-defense").addEventListener("click", function () { chooseKind("defense"); });
  chooseKind("attack");
  page = ctx;
}

function seatLabel(view, seat) {
  void view;
  return page ? page.seatName(seat) : _("seat %(num)d", { num: seat + 1 });
}

function renderBoard(state) {
  var view = state.view;
  var mine = (view.you && view.you.pawns) || {};
  showPawns(slotEls, view.pawns, view.seats);
  Object.keys(slotEls).forEach(function (name) {
    var g = slotEls[name];
    var mark = g.querySelector(".mine");
    // Only the seat's own view holds kinds: nobody else's pawns are ever marked.
    var own = view.pawns[name] && mine[name];
    mark.textContent = own ? (own === "attack" ? pgettext("attack pawn, one letter", "A") : pgettext("defense pawn, one letter", "D")) : "";
    if (own) { g.setAttribute("data-kind", own); } else { g.removeAttribute("data-kind"); }
  });
  showLamps(lampEls, view.lit, view.seats);
}

function renderPlay(state, ctx) {
  var view = state.view;
  var playing = canPlay(state, ctx);
  root.classList.toggle("can-play", playing);
  $("ht-play").hidden = !playing;
  var stock = $("ht-stock");
  if (view.you && view.you.stock) {
    var s = view.you.stock;
    stock.hidden = false;
    // Each count said apart first: Babel's extractor misses a call made inside another's arguments.
    var attack = ngettext("%(num)d attack pawn", "%(num)d attack pawns", s.attack, { num: s.attack });
    var defense = ngettext("%(num)d defense pawn", "%(num)d defense pawns", s.defense, { num: s.defense });
    stock.textContent = _("Your pawns left: %(attack)s, %(defense)s", { attack: attack, defense: defense });
    $("ht-attack").disabled = s.attack === 0;
    $("ht-defense").disabled = s.defense === 0;
    if (s[kind] === 0) { chooseKind(kind === "attack" ? "defense" : "attack"); }
  } else {
    stock.hidden = true;  // spectators: nobody's stock of kinds is shown
  }
}

function renderEliminations(state) {
  var view = state.view;
  var list = $("ht-eliminations");
  list.textContent = "";
  view.eliminations.forEach(function (e) {
    var words = { name: seatLabel(view, e.player), lamp: e.lamp, num: e.move };
    var text = e.by === null || e.by === undefined ? _("%(name)s is out: lamp %(lamp)s lit at move %(num)d", words)
      : e.by === e.player ? _("%(name)s is out: lamp %(lamp)s lit at move %(num)d, by their own pawn", words)
      : _("%(name)s is out: lamp %(lamp)s lit at move %(num)d, by %(by)s", Object.assign({ by: seatLabel(view, e.by) }, words));
    list.appendChild(el("li", {}, text));
  });
}

function renderPoints(state) {
  var view = state.view;
  var table = $("ht-points");
  table.hidden = !view.points;
  var body = table.querySelector("tbody");
  body.textContent = "";
  (view.points || []).forEach(function (points, seat) {
    var row = el("tr", { "data-seat": String(seat) });
    [seatLabel(view, seat), view.seats[seat].lamp, String(points)].forEach(function (text) {
      row.appendChild(el("td", {}, text));
    });
    body.appendChild(row);
  });
}

// The turn timer counts from the moment this screen saw the position (the server keeps the real clock).
function renderTimer(state, ctx) {
  var seconds = state.view.turn_timer ? state.view.turn_timer.seconds : 0;
  var box = $("ht-timer");
  if (timerHandle) { window.clearInterval(timerHandle); timerHandle = null; }
  if (!seconds || state.outcome || ctx.replay || state.to_act === null) { box.hidden = true; return; }
  if (timerVersion !== state.version) { timerVersion = state.version; timerStart = Date.now(); }
  var acting = state.seats[state.to_act];
  if (!acting || acting.kind === "ai") { box.hidden = true; return; }
  box.hidden = false;
  var tick = function () {
    var left = Math.max(0, Math.ceil(seconds - (Date.now() - timerStart) / 1000));
    box.textContent = state.can_move ? _("Your time: %(num)d s", { num: left })
      : _("Time of %(name)s: %(num)d s", { name: seatLabel(state.view, state.to_act), num: left });
    box.dataset.urgent = String(left <= 5);
  };
  tick();
  timerHandle = window.setInterval(tick, 500);
}

function render(state, ctx) {
  current = state;
  var view = state.view;
  view.history = view.moves;  // the page's move list reads view.history
  ensureLayout(view.layout, ctx).then(function (ok) {
    if (!ok || current !== state) { return; }
    renderBoard(state);
    renderPlay(state, ctx);
  });
  renderEliminations(state);
  renderPoints(state);
  renderTimer(state, ctx);
}

// The list is numbered by the page; a move shows who placed a pawn where, never its kind.
function describe(move) {
  var view = current ? current.view : null;
  var who = view ? seatLabel(view, move.player) : _("seat %(num)d", { num: move.player + 1 });
  return _("%(name)s: %(move)s", { name: who, move: move.slot });
}

function status(state) {
  var view = state.view;
  if (!state.outcome) { return null; }
  var text;
  if (!state.outcome.winners.length) {
    text = _("Game over: nobody won");
  } else {
    var names = state.outcome.winners.map(function (w) { return seatLabel(view, w); });
    text = names.length > 1 ? _("Game over: %(names)s tie", { names: listOf(names) })
      : _("Game over: %(name)s wins", { name: names[0] });
  }
  if (!view.lit.length) { return text; }
  return ngettext("%(text)s (lamp lit: %(lamps)s)", "%(text)s (lamps lit: %(lamps)s)", view.lit.length,
    { text: text, lamps: listOf(view.lit) });
}

GamePage.register("hautetension", { init: init, render: render, describe: describe, status: status });
