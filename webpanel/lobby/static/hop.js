/* The |Hop> board: site cards with their two spin places, the electrodes with
 * the electrons they hold, each player's energy and the bank, the movement
 * board with the blocked action, and the legal moves with their energy cost.
 *
 * Everything is drawn from the game's view (the board's nodes, lines and
 * electrodes are data), so any shipped board is drawn the same way. The seat
 * to act plays by tapping: the blocker taps an action of the movement board;
 * the active player taps one of their electrons (or their electrode), then
 * where it should go, or taps a move in the list under the board.
 *
 * Doctorate: the effects board (market) shows each card with its price; during
 * a thesis defense a tap on a card lists that card's targets, and a tap on a
 * site (or an electron) narrows them to the effects aimed there. Effect tokens
 * are drawn on the board with their direction; removed cards are dimmed. */
import { _, api, byId as $, el, ngettext, paint, pgettext, svg } from "/static/panel.js";
import { listOf } from "/static/describe.js";
import { GamePage } from "./game.js";
import { drawCourse } from "./course.js";
import { colourName, hopTitle, keepWords } from "./words.js";

var U = 100;            // SVG units between two neighbouring nodes
var ARROW = { up: "↑", down: "↓" };

var current = null;     // the state on screen
var selected = null;    // {node, spin}: the electron (or electrode) the mover tapped
var narrowed = null;    // the moves that start and end where the mover tapped, when several do
var focus = null;       // a move whose places are outlined (hover or focus on its button)
var busy = false;       // a move is on its way
var drawnBoard = null;  // the name of the board the SVG holds
var places = {};        // "node:spin" (or "node:" for an electrode) -> its SVG group
var ctxRef = null;
var shownReplay = false; // whether the screen shows a replayed position
var annotated = null;     // {version, moves: move JSON -> energy change}
var asked = null;         // the version whose energy changes were asked for
var card = null;          // Doctorate: the effect card whose targets are listed

function chip(colour) {
  var box = svg("svg", { "class": "hop-chip", viewBox: "0 0 20 20", "aria-hidden": "true" });
  box.appendChild(svg("circle", { cx: 10, cy: 10, r: 8, fill: paint(colour) }));
  return box;
}

function isElectrode(view, node) {
  return view.board.electrodes.some(function (e) { return e.node === node; });
}

function key(node, spin) { return node + ":" + (spin || ""); }

// -- moves: where they start and where they land ---------------------------

// Where an effect, a thesis defense or a heat exchange is aimed (node null: nowhere on the board).
function aim(move, last) {
  if (move.from) { return last ? { node: move.to, spin: move.spin || null } : { node: move.from, spin: move.spin || null }; }
  if (move.at) { return { node: move.at, spin: move.spin || null }; }
  if (move.between) { return { node: move.between[last ? 1 : 0], spin: null }; }
  if (move.sites) { return { node: move.sites[0], spin: null }; }
  if (move.remove || move.add) { return { node: move.remove || move.add, spin: null }; }
  return { node: null, spin: null };
}

function isDefense(move) {
  return !!(move.effect || move.end_defense || move.heat_exchange !== undefined || move.collapse ||
    move.action === "thesis-defense");
}

function source(move) {
  if (isDefense(move)) { return aim(move, false); }
  if (move.action === "spin-flip") { return { node: move.at, spin: move.spin }; }
  if (move.action === "doublon") { return { node: move.from, spin: null }; }
  return { node: move.from, spin: move.spin };
}

function target(view, move) {
  if (isDefense(move)) {
    var end = aim(move, true);
    return end.node && isElectrode(view, end.node) ? { node: end.node, spin: null } : end;
  }
  if (move.action === "spin-flip") { return { node: move.at, spin: move.spin === "up" ? "down" : "up" }; }
  if (move.action === "doublon" || isElectrode(view, move.to)) { return { node: move.to, spin: null }; }
  return { node: move.to, spin: move.spin };
}

// Does a tap on (node, spin) name this end of a move? (a doublon's ends are whole sites)
function touches(end, node, spin) {
  return end.node === node && (end.spin === null || spin === null || end.spin === spin);
}

// The energy change of each legal move comes from the engine, by version
// (GET /api/games/<id>/hop/moves, only for the seat that acts).
function energyOf(state, move) {
  if (!annotated || annotated.version !== state.version) { return null; }
  var delta = annotated.moves[JSON.stringify(move)];
  return delta === undefined ? null : delta;
}

function fetchEnergy(state) {
  if (!state.can_move || ctxRef.replay || state.outcome) { return; }
  if ((annotated && annotated.version === state.version) || asked === state.version) { return; }
  asked = state.version;
  api("GET", "/api/games/" + state.id + "/hop/moves").then(function (data) {
    if (!data.moves) { return; }
    var moves = {};
    data.moves.forEach(function (m) { moves[JSON.stringify(m.move)] = m.energy_change; });
    annotated = { version: data.version, moves: moves };
    if (current && current.version === data.version) { redraw(); }
  }, function (err) { ctxRef.message(err.message); });
}

// The legal movement actions of the seat on this screen, with their energy change (null until known).
function movements(state) {
  if (!state.can_move || ctxRef.replay) { return []; }
  return (state.legal_moves || []).filter(function (m) { return m.action || isDefense(m); })
    .map(function (m) { return { move: m, energy_change: energyOf(state, m) }; });
}

function cost(view, delta) {
  if (view.level === "bachelor" || delta === null) { return ""; }
  if (delta > 0) { return _("pay %(num)d", { num: delta }); }
  if (delta < 0) { return _("take %(num)d", { num: -delta }); }
  return _("no energy");
}

function costShort(delta) { return delta > 0 ? "+" + delta : delta < 0 ? "−" + (-delta) : "0"; }

function spinText(spin) { return spin ? ARROW[spin] : ""; }

// What an action or effect card is called, in the page's language (words.js), else the engine's words.
function title(view, name) { return keepWords(hopTitle(name) || (view && view.titles && view.titles[name]) || name); }

function moveText(move, view) {
  var w = { from: move.from + spinText(move.spin), to: move.to, at: move.at };
  if (move.block) { return _("block %(action)s", { action: title(view, move.block).toLowerCase() }); }
  if (move.pass) { return _("pass"); }
  if (move.effect) { return effectText(move, view); }
  if (move.end_defense) { return _("end the thesis defense"); }
  if (move.collapse) { return _("superposed electron at %(at)s is spin %(spin)s", { at: move.at, spin: spinText(move.collapse) }); }
  if (move.heat_exchange !== undefined) {
    return move.heat_exchange ? _("heat source at %(at)s: exchange its two electrons", w)
      : _("heat source at %(at)s: keep its electrons", w);
  }
  switch (move.action) {
    case "thesis-defense": return _("thesis defense (buy effects, no energy change)");
    case "hop": return _("hop %(from)s → %(to)s", w);
    case "doublon": return _("doublon %(from)s → %(to)s", { from: move.from, to: move.to });
    case "spin-flip": return _("spin flip at %(at)s", w) + " " + spinText(move.spin) + "→" +
      spinText(move.spin === "up" ? "down" : "up");
    case "cradle": return _("cradle from %(from)s, pushes to %(to)s", w);
    case "tunnel": return _("tunnel from %(from)s → %(to)s", w);
    default: return JSON.stringify(move);
  }
}

function playerName(seat) {
  return ctxRef ? ctxRef.seatName(seat) : _("seat %(num)d", { num: seat + 1 });
}

// What an effect does, in the words of the log and the buttons.
function effectText(move, view) {
  var w = { name: title(view, move.effect), at: move.at + spinText(move.spin), from: move.from + spinText(move.spin),
    to: move.to, site: move.at };
  switch (move.effect) {
    case "superposition": return _("%(name)s: the electron at %(site)s is between ↑ and ↓", w);
    case "ionization": return _("%(name)s: the electron at %(at)s leaves the game", w);
    case "penning-trap": return _("%(name)s on %(site)s: electrons may enter, none may leave", w);
    case "heat-source": return _("%(name)s on %(site)s: after each turn lifts spin ↓ to ↑", w);
    case "dead-short": return _("%(name)s: steal 1 energy from %(player)s", { name: w.name, player: playerName(move.player) });
    case "mobility-edge": return _("%(name)s: one more movement action this turn", w);
    case "zero-point-energy": return _("%(name)s: every other player pays 1 energy to the bank", w);
    case "quantum-tunnel": return w.name + " " + w.from + " → " + move.to;
    case "long-range-hopping": return _("%(name)s %(from)s → %(to)s (two cards away)", w);
    case "diffusion": return _("%(name)s: exchange the %(spin)s electrons of %(from)s and %(to)s",
      { name: w.name, spin: spinText(move.spin), from: move.from, to: move.to });
    case "microwave-cavity": return _("%(name)s %(from)s → %(to)s: after each turn moves electrons along it",
      { name: w.name, from: move.from, to: move.to });
    case "resistance": return _("%(name)s between %(a)s and %(b)s: crossing it takes 1 energy from the bank",
      { name: w.name, a: move.between[0], b: move.between[1] });
    case "vortex": return (move.turning === "clockwise" ? _("Vortex ↻ round %(sites)s: after each turn electrons turn one card", { sites: move.sites.join(", ") })
      : _("Anti-vortex ↺ round %(sites)s: after each turn electrons turn one card", { sites: move.sites.join(", ") }));
    case "impurity-vacancy": return move.remove ? _("Vacancy: remove %(site)s (its electrons go home)", { site: move.remove })
      : _("Impurity: put a spare site card on %(site)s", { site: move.add });
    default: return w.name;
  }
}

// -- drawing the board -----------------------------------------------------

function geometry(view) {
  var xs = [], ys = [];
  Object.keys(view.board.nodes).forEach(function (n) {
    xs.push(view.board.nodes[n][0]); ys.push(view.board.nodes[n][1]);
  });
  var g = { minX: Math.min.apply(null, xs), maxX: Math.max.apply(null, xs),
    minY: Math.min.apply(null, ys), maxY: Math.max.apply(null, ys) };
  // Rows are counted from the bottom, as on the table (a1 bottom left).
  g.at = function (node) {
    var p = view.board.nodes[node];
    return { x: (p[0] - g.minX + 0.5) * U, y: (g.maxY - p[1] + 0.5) * U };
  };
  return g;
}

function drawBoard(view) {
  var board = $("hop-board");
  board.textContent = "";
  places = {};
  var g = geometry(view);
  board.setAttribute("viewBox", "0 0 " + (g.maxX - g.minX + 1) * U + " " + (g.maxY - g.minY + 1) * U);
  var wires = svg("g", { "class": "hop-wires" });
  view.board.lines.forEach(function (line) {
    for (var i = 1; i < line.length; i++) {
      var a = g.at(line[i - 1]), b = g.at(line[i]);
      wires.appendChild(svg("line", { x1: a.x, y1: a.y, x2: b.x, y2: b.y }));
    }
  });
  board.appendChild(wires);
  var electrodes = {};
  view.board.electrodes.forEach(function (e) { electrodes[e.node] = e; });
  Object.keys(view.board.nodes).forEach(function (node) {
    var at = g.at(node);
    if (electrodes[node]) { drawElectrode(board, node, electrodes[node], at); } else { drawSite(board, node, at); }
  });
  drawnBoard = view.board.name;
}

// -- Doctorate: the effects board (market) ----------------------------------

function renderMarket(state, ctx) {
  var view = state.view;
  var box = $("hop-market");
  if (!view.market) { if (box) { box.remove(); } return; }
  if (!box) {
    box = el("div", { id: "hop-market", "class": "hop-market", role: "group", "aria-label": _("Effects board") });
    $("hop-market-box").appendChild(box);
  }
  box.textContent = "";
  var moved = (view.after_turn || []).map(function (m) {
    var name = title(view, m.effect);
    return m.from === m.to ? _("%(name)s lifted %(site)s↓ → ↑", { name: name, site: m.from })
      : _("%(name)s moved %(from)s → %(to)s", { name: name, from: m.from + spinText(m.spin), to: m.to });
  });
  if (moved.length) {
    box.appendChild(el("p", { id: "hop-after-turn", "class": "hop-after-turn" }, _("After the last turn: %(moves)s.", { moves: moved.join("; ") })));
  }
  box.appendChild(el("h2", { "class": "hop-heading" }, view.defending ? _("Effects board — thesis defense: buy effects") : _("Effects board")));
  var open = state.can_move && !ctx.replay && view.defending;
  var legal = open ? state.legal_moves || [] : [];
  var energy = view.players[view.turn] ? view.players[view.turn].energy : 0;
  view.market.forEach(function (item) {
    var tile = el("button", { type: "button", "class": "hop-card", "data-effect": item.effect, "data-cost": item.cost });
    tile.appendChild(el("span", { "class": "name" }, title(view, item.effect)));
    tile.appendChild(el("span", { "class": "price" }, "⚡ " + item.cost));
    if (item.used) { tile.classList.add("used"); tile.appendChild(el("span", { "class": "note" }, _("used this turn"))); }
    var playable = legal.some(function (m) { return m.effect === item.effect; });
    if (open && !item.used && item.cost > energy) { tile.appendChild(el("span", { "class": "note" }, _("not enough energy"))); }
    tile.disabled = !playable;
    if (playable) {
      tile.classList.add("choice");
      if (card === item.effect) { tile.classList.add("picked"); }
      tile.addEventListener("click", function () {
        card = card === item.effect ? null : item.effect;
        selected = null;
        narrowed = null;
        redraw();
      });
    }
    box.appendChild(tile);
  });
}

// A place answers a tap, a click, and Enter or Space from the keyboard.
function tappable(place, node, spin) {
  place.setAttribute("tabindex", "0");
  place.addEventListener("click", function () { onPlace(node, spin); });
  place.addEventListener("keydown", function (event) {
    if (event.key === "Enter" || event.key === " ") { event.preventDefault(); onPlace(node, spin); }
  });
}

function drawSite(board, node, at) {
  var card = svg("g", { "class": "hop-site", "data-node": node });
  card.appendChild(svg("rect", { "class": "site-card", x: at.x - 45, y: at.y - 45, width: 90, height: 90, rx: 9 }));
  card.appendChild(svg("text", { "class": "node-name", x: at.x - 40, y: at.y - 31 }, node));
  [["up", -22], ["down", 22]].forEach(function (pair) {
    var spin = pair[0], cy = at.y + pair[1];
    var place = svg("g", { "class": "hop-place", "data-node": node, "data-spin": spin, role: "button" });
    place.appendChild(svg("rect", { "class": "hit", x: at.x - 45, y: cy - 22, width: 90, height: 44 }));
    place.appendChild(svg("text", { "class": "spin-arrow", x: at.x - 36, y: cy + 6 }, ARROW[spin]));
    place.appendChild(svg("circle", { "class": "spot", cx: at.x, cy: cy, r: 17 }));
    place.appendChild(svg("circle", { "class": "electron", cx: at.x, cy: cy, r: 14 }));
    place.appendChild(svg("text", { "class": "delta", x: at.x + 24, y: cy + 6 }));
    tappable(place, node, spin);
    card.appendChild(place);
    places[key(node, spin)] = place;
  });
  board.appendChild(card);
}

function drawElectrode(board, node, electrode, at) {
  var place = svg("g", { "class": "hop-place hop-electrode", "data-node": node, "data-colour": electrode.colour,
    role: "button" });
  place.appendChild(svg("circle", { "class": "hit", cx: at.x, cy: at.y, r: 48 }));
  place.appendChild(svg("circle", { "class": "ring", cx: at.x, cy: at.y, r: 42, stroke: paint(electrode.colour) }));
  place.appendChild(svg("g", { "class": "stock", "data-x": at.x, "data-y": at.y }));
  place.appendChild(svg("text", { "class": "delta", x: at.x + 30, y: at.y - 30 }));
  tappable(place, node, null);
  board.appendChild(place);
  places[key(node, null)] = place;
}

// Doctorate: the effect tokens with their direction, and the cards a vacancy removed.
function drawTokens(view) {
  var board = $("hop-board");
  var old = board.querySelector(".hop-tokens");
  if (old) { old.remove(); }
  var removed = view.removed || [];
  var between = (view.superposed || []).map(function (s) { return s.at; });
  board.querySelectorAll(".hop-place[data-spin]").forEach(function (place) {
    place.classList.toggle("superposed", between.indexOf(place.dataset.node) >= 0);
  });
  board.querySelectorAll(".hop-site").forEach(function (site) {
    site.classList.toggle("removed", removed.indexOf(site.dataset.node) >= 0);
  });
  if (!view.tokens || !view.tokens.length) { return; }
  var g = geometry(view);
  var layer = svg("g", { "class": "hop-tokens" });
  view.tokens.forEach(function (t) {
    var item = svg("g", { "class": "hop-token", "data-effect": t.effect });
    var a, b, c;
    if (t.effect === "vortex") {
      var xs = 0, ys = 0;
      t.sites.forEach(function (n) { var p = g.at(n); xs += p.x / 4; ys += p.y / 4; });
      item.appendChild(svg("circle", { cx: xs, cy: ys, r: 24 }));
      item.appendChild(svg("text", { x: xs, y: ys + 11 }, t.turning === "clockwise" ? "↻" : "↺"));
      item.dataset.turning = t.turning;
    } else if (t.from || t.between) {
      a = g.at(t.from || t.between[0]); b = g.at(t.to || t.between[1]);
      c = { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 };
      if (t.from) {
        // An arrow from the initial card toward the final one.
        var dx = (b.x - a.x) / 5, dy = (b.y - a.y) / 5;
        item.appendChild(svg("line", { x1: c.x - dx, y1: c.y - dy, x2: c.x + dx, y2: c.y + dy }));
        item.appendChild(svg("circle", { cx: c.x + dx, cy: c.y + dy, r: 6 }));
        item.appendChild(svg("text", { x: c.x, y: c.y - 10 }, "≋"));
      } else {
        item.appendChild(svg("rect", { x: c.x - 14, y: c.y - 14, width: 28, height: 28, rx: 4 }));
        item.appendChild(svg("text", { x: c.x, y: c.y + 7 }, "Ω"));
      }
    } else {
      a = g.at(t.at);
      item.appendChild(svg("text", { x: a.x + 30, y: a.y - 28 }, t.effect === "heat-source" ? "♨" : "⊡"));
    }
    item.appendChild(svg("title", {}, t.effect + (t.turning ? " " + t.turning : "")));
    layer.appendChild(item);
  });
  board.appendChild(layer);
}

// What each spin place and electrode holds now.
function fill(view) {
  Object.keys(view.sites).forEach(function (node) {
    ["up", "down"].forEach(function (spin) {
      var place = places[key(node, spin)];
      var colour = view.sites[node][spin];
      var electron = place.querySelector(".electron");
      electron.setAttribute("fill", colour ? paint(colour) : "none");
      place.classList.toggle("taken", !!colour);
      if (colour) { place.dataset.colour = colour; } else { delete place.dataset.colour; }
      place.setAttribute("aria-label", colour ? _("%(node)s spin %(spin)s: %(colour)s electron", { node: node, spin: ARROW[spin], colour: colourName(colour) })
        : _("%(node)s spin %(spin)s: free", { node: node, spin: ARROW[spin] }));
    });
  });
  view.board.electrodes.forEach(function (e) {
    var place = places[key(e.node, null)];
    var stock = place.querySelector(".stock");
    var x = Number(stock.dataset.x), y = Number(stock.dataset.y);
    stock.textContent = "";
    var held = view.electrodes[e.colour] || {};
    var colours = Object.keys(held);
    colours.forEach(function (colour, i) {
      var dy = (i - (colours.length - 1) / 2) * 24;
      stock.appendChild(svg("circle", { cx: x - 12, cy: y + dy, r: 9, fill: paint(colour) }));
      stock.appendChild(svg("text", { "class": "count", x: x + 2, y: y + dy + 7, "data-colour": colour }, String(held[colour])));
    });
    place.setAttribute("aria-label", e.colour + " electrode: " + (colours.map(function (c) {
      return held[c] + " " + c;
    }).join(", ") || "empty"));
  });
}

function highlight(view, moves) {
  Object.keys(places).forEach(function (k) {
    var place = places[k];
    place.classList.remove("source", "selected", "target", "focus");
    place.querySelector(".delta").textContent = "";
  });
  var mark = function (end, cls) {
    var names = places[key(end.node, null)] ? [key(end.node, null)]  // an electrode: one place
      : end.spin === null ? [key(end.node, "up"), key(end.node, "down")] : [key(end.node, end.spin)];
    names.forEach(function (k) { if (places[k]) { places[k].classList.add(cls); } });
    return places[names[0]];
  };
  if (selected) {
    mark(selected, "selected");
    moves.filter(function (m) { return touches(source(m.move), selected.node, selected.spin); })
      .forEach(function (m) {
        var place = mark(target(view, m.move), "target");
        if (place && view.level !== "bachelor" && m.energy_change !== null) {
          var label = place.querySelector(".delta");
          label.textContent = label.textContent ? label.textContent + "/" + costShort(m.energy_change)
            : costShort(m.energy_change);
        }
      });
  } else {
    moves.forEach(function (m) { mark(source(m.move), "source"); });
  }
  if (focus) {
    mark(source(focus), "focus");
    if (focus.action) { mark(target(view, focus), "focus"); }
  }
}

// -- the table: players' energy, the bank, the Hamiltonian ------------------

function renderTable(state) {
  var view = state.view;
  var list = $("hop-players");
  list.textContent = "";
  var active = view.phase === "over" ? null : view.turn;
  view.players.forEach(function (p, seat) {
    var item = el("li", { "class": "hop-player", "data-seat": seat, "data-colour": p.colour });
    if (seat === active) { item.classList.add("active"); }
    if (seat === view.blocker && view.phase === "block") { item.classList.add("blocking"); }
    item.appendChild(chip(p.colour));
    var who = playerName(seat);
    item.appendChild(el("span", { "class": "who" }, view.players.length === 4 ? _("%(name)s (team %(num)d)", { name: who, num: p.team + 1 }) : who));
    if (view.level !== "bachelor") {
      item.appendChild(el("span", { "class": "energy", "aria-label": _("energy of %(name)s", { name: who }) }, "⚡ " + p.energy));
    }
    list.appendChild(item);
  });
  var bank = $("hop-bank");
  bank.textContent = "";
  if (view.level === "bachelor") {
    bank.appendChild(el("span", {}, _("Bachelor level: energy does not count.")));
    return;
  }
  bank.appendChild(el("span", { "class": "bank", "data-bank": view.bank }, _("Bank ⚡ %(num)d", { num: view.bank })));
  bank.appendChild(el("span", { "class": "board-energy" }, _("Board energy %(num)d", { num: view.board_energy })));
  var h = view.hamiltonian;
  var field = h.field === "positive" ? pgettext("magnetic field", "positive") : pgettext("magnetic field", "negative");
  var interaction = h.interaction === "attractive" ? pgettext("interaction", "attractive") : pgettext("interaction", "repulsive");
  var level = view.level === "doctorate" ? pgettext("hop level", "Doctorate") : pgettext("hop level", "Master");
  bank.appendChild(el("span", { "class": "hamiltonian" }, _("%(level)s · field %(field)s (h = %(h)s) · %(interaction)s interaction (%(j)s per pair)", {
    level: level, field: field, h: h.field === "positive" ? "+1" : "−1", interaction: interaction,
    j: h.interaction === "attractive" ? "−1" : "+1" })));
}

// -- the movement board ----------------------------------------------------

function renderActions(state, ctx) {
  var view = state.view;
  var box = $("hop-actions");
  box.textContent = "";
  var blocking = state.can_move && !ctx.replay && view.phase === "block" && !view.heat_exchange && !view.collapse;
  view.movement_board.forEach(function (action) {
    var tile = el("button", { type: "button", "class": "hop-action", "data-action": action },
      title(view, action));
    var blocked = view.blocked === action && view.phase !== "block" && view.phase !== "over";
    var fixed = view.phase === "block" && view.not_blockable === action;
    if (blocked) { tile.classList.add("blocked"); tile.appendChild(el("span", { "class": "note" }, pgettext("hop action", "blocked"))); }
    if (fixed) { tile.classList.add("kept"); tile.appendChild(el("span", { "class": "note" }, _("cannot be blocked now"))); }
    tile.disabled = !blocking || fixed;
    if (blocking && !fixed) {
      tile.classList.add("choice");
      tile.addEventListener("click", function () { send(ctx, { block: action }); });
    }
    box.appendChild(tile);
  });
}

// -- the legal moves as buttons, with their energy cost ---------------------

function renderChoices(state, ctx, moves) {
  var view = state.view;
  var box = $("hop-choices");
  box.textContent = "";
  var shown = moves;
  if (narrowed) {
    shown = narrowed.map(function (n) {
      return moves.filter(function (m) { return JSON.stringify(m.move) === JSON.stringify(n.move); })[0] || n;
    });
  } else if (selected) {
    shown = moves.filter(function (m) { return touches(source(m.move), selected.node, selected.spin); });
  }
  if (card) {
    shown = shown.filter(function (m) { return m.move.effect === card || m.move.end_defense; });
  } else if (view.defending) {
    // Until a card is picked (or a site tapped) a defense lists only its end: the cards are the market's buttons.
    shown = shown.filter(function (m) { return !m.move.effect || !!selected; });
  }
  var all = state.can_move && !ctx.replay ? state.legal_moves || [] : [];
  if (all.length === 1 && all[0].pass) { shown = [{ move: all[0], energy_change: 0 }]; }
  shown.forEach(function (m) {
    var text = moveText(m.move, view);
    var price = cost(view, m.energy_change);
    var button = el("button", { type: "button", "class": "hop-move", "data-move": JSON.stringify(m.move) });
    if (m.energy_change !== null) { button.dataset.energy = String(m.energy_change); }
    button.appendChild(el("span", { "class": "what" }, text));
    if (price) {
      button.appendChild(el("span", { "class": "cost" + (m.energy_change > 0 ? " pays" : m.energy_change < 0 ? " takes" : "") },
        "ΔE " + costShort(m.energy_change) + " · " + price));
    }
    button.addEventListener("click", function () { send(ctx, m.move); });
    button.addEventListener("mouseenter", function () { focus = m.move; highlight(view, moves); });
    button.addEventListener("focus", function () { focus = m.move; highlight(view, moves); });
    button.addEventListener("mouseleave", function () { focus = null; highlight(view, moves); });
    button.addEventListener("blur", function () { focus = null; highlight(view, moves); });
    box.appendChild(button);
  });
}

function renderHint(state, ctx, moves) {
  var hint = $("hop-hint");
  var view = state.view;
  if (!state.can_move || ctx.replay || view.phase === "over") { hint.textContent = ""; return; }
  var activeName = playerName(view.turn);
  if (view.collapse) {
    hint.textContent = keepWords(_("A movement needs the spin of the superposed electron at %(site)s: choose it (a spin that makes the movement impossible loses it).",
      { site: view.collapse.at }));
  } else if (view.heat_exchange) {
    hint.textContent = keepWords(_("Heat source at %(site)s: exchange its two electrons or keep them.", { site: view.heat_exchange }));
  } else if (view.defending) {
    hint.textContent = keepWords(card ? _("Tap where %(card)s goes on the board, or choose below.", { card: title(view, card) })
      : _("Thesis defense: tap a card of the effects board to buy it, or end the defense."));
  } else if (view.phase === "block") {
    hint.textContent = keepWords(_("Block one action of the movement board for the turn of %(name)s.", { name: activeName }));
  } else if (!moves.length) {
    hint.textContent = keepWords(_("No movement is possible: pass to end the turn."));
  } else if (selected) {
    hint.textContent = keepWords(_("Tap where it goes (highlighted, with the energy change), or choose below. Tap it again to cancel."));
  } else {
    hint.textContent = keepWords(_("Action %(num)d of %(total)d: tap one of your highlighted electrons or your electrode, or choose a move below.",
      { num: view.phase === "first" ? 1 : 2, total: 2 + (view.extra_actions || 0) }));
  }
}

// -- taps ------------------------------------------------------------------

async function send(ctx, move) {
  if (busy) { return; }
  busy = true;
  selected = null;
  narrowed = null;
  card = null;
  focus = null;
  try { await ctx.play(move); } finally { busy = false; }
}

function onPlace(node, spin) {
  if (!current || busy) { return; }
  var view = current.view;
  var moves = movements(current);
  if (card) { moves = moves.filter(function (m) { return m.move.effect === card; }); }
  if (!moves.length) { return; }
  narrowed = null;
  if (selected && selected.node === node && selected.spin === spin) { selected = null; redraw(); return; }
  if (selected) {
    var here = moves.filter(function (m) {
      return touches(source(m.move), selected.node, selected.spin) && touches(target(view, m.move), node, spin);
    });
    if (here.length === 1) { send(ctxRef, here[0].move); return; }
    if (here.length > 1) {
      narrowed = here;
      ctxRef.message(_("Several moves end there: choose one below."));
      redraw();
      return;
    }
  }
  var starts = moves.some(function (m) { return touches(source(m.move), node, spin); });
  selected = starts ? { node: node, spin: spin } : null;
  redraw();
}

function redraw() {
  if (current) { render(current, ctxRef); }
}

// -- the page's hooks ------------------------------------------------------

function init(ctx) { ctxRef = ctx; }

function render(state, ctx) {
  ctxRef = ctx;
  if (!current || state.version !== current.version || ctx.replay !== shownReplay) {
    selected = null;
    narrowed = null;
    focus = null;
    card = null;
  }
  current = state;
  shownReplay = ctx.replay;
  var view = state.view;
  // An impurity that adds a site card gives the board a new name: it is drawn again, grown.
  if (drawnBoard !== view.board.name) { drawBoard(view); }
  fill(view);
  drawTokens(view);
  var moves = movements(state);
  if (card) { moves = moves.filter(function (m) { return m.move.effect === card || m.move.end_defense; }); }
  highlight(view, moves);
  renderTable(state);
  renderActions(state, ctx);
  renderMarket(state, ctx);
  renderChoices(state, ctx, moves);
  renderHint(state, ctx, moves);
  renderCourse(state);
  $("hop").dataset.phase = view.phase;
  $("hop").dataset.energyShown = String(!!annotated && annotated.version === state.version);
  fetchEnergy(state);
}

// The seat that made each move: a turn starts with its block, made by the
// seat after the active player; turns go round the table from seat 0.
function describe(move, index, history) {
  var players = current && current.view ? current.view.players : null;
  var turn = -1;
  for (var i = 0; i <= index; i++) { if (history[i] && history[i].block) { turn += 1; } }
  var text = moveText(move, current ? current.view : null);
  if (!players || turn < 0) { return text; }
  var active = turn % players.length;
  var seat = move.block ? (active + 1) % players.length : active;  // a heat exchange: the player who just played
  var said = move.block ? _("%(move)s (for %(name)s)", { move: text, name: playerName(active) }) : text;
  return _("%(name)s: %(move)s", { name: playerName(seat), move: said });
}

// The result screen: every player's energy turn by turn (Master and Doctorate: Bachelor has none).
function renderCourse(state) {
  var view = state.view;
  var figure = $("hop-course");
  var turns = view.energy_by_turn || [];
  figure.hidden = !state.outcome || view.level === "bachelor" || turns.length < 2;
  if (figure.hidden) { return; }
  drawCourse($("hop-chart"), view.players.map(function (p, seat) {
    return { name: playerName(seat), colour: paint(p.colour), values: turns.map(function (e) { return e[seat]; }) };
  }), _("Energy turn by turn"));
}

// The electrode holding an electron of another team (the one that ended the game).
function reachedElectrode(view) {
  var teams = {};
  view.board.electrodes.forEach(function (e) { teams[e.colour] = e.team; });
  return view.board.electrodes.map(function (e) { return e.colour; }).filter(function (colour) {
    return Object.keys(view.electrodes[colour] || {}).some(function (c) { return teams[c] !== teams[colour]; });
  })[0] || null;
}

function status(state) {
  var view = state.view;
  if (!view || !view.players) { return null; }
  var name = playerName;
  if (state.outcome) {
    if (state.outcome.draw || !state.outcome.winners.length) {
      var each = view.max_turns / view.players.length;
      return ngettext("Game over: a draw (%(num)d turn each, no electrode reached)",
        "Game over: a draw (%(num)d turns each, no electrode reached)", each, { num: each });
    }
    var reached = reachedElectrode(view);
    var winners = listOf(state.outcome.winners.map(name));
    var won = ngettext("Game over: %(names)s wins", "Game over: %(names)s win", state.outcome.winners.length, { names: winners });
    return reached ? _("%(text)s — an electron reached the %(colour)s electrode", { text: won, colour: colourName(reached) }) : won;
  }
  var acting = state.seats[state.to_act];
  var who = state.can_move ? _("Your move") : name(state.to_act);
  if (view.collapse) {
    return _("%(who)s: choose the spin of the superposed electron at %(site)s", { who: who, site: view.collapse.at });
  }
  if (view.heat_exchange) {
    return _("%(who)s: heat source at %(site)s — exchange its electrons or not", { who: who, site: view.heat_exchange });
  }
  if (view.defending) {
    return _("%(who)s: thesis defense — buying effects", { who: state.can_move ? _("Your move") : name(view.turn) });
  }
  if (view.phase === "block") {
    if (state.can_move) { return _("Your move: block an action for %(name)s", { name: name(view.turn) }); }
    if (acting && acting.kind === "ai") { return _("%(name)s is choosing what to block…", { name: name(view.blocker) }); }
    return _("%(name)s blocks an action for %(other)s", { name: name(view.blocker), other: name(view.turn) });
  }
  if (state.can_move) {
    return _("Your move: action %(num)d of 2 (%(action)s is blocked)", { num: view.phase === "first" ? 1 : 2,
      action: title(view, view.blocked) });
  }
  return null;
}

GamePage.register("hop", { init: init, render: render, describe: describe, status: status });

// The rules page's drawing: the board's cards and electrodes, empty (rules.js).
export function drawEmptyBoard(board) { drawBoard({ board: board }); }
