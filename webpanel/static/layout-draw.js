/* The lamp board drawn from its layout (GET /api/layouts/<name>) in SVG: the
 * wires of the rows, the battery, the lamps and the slots. One drawing for the
 * live and simulated boards (board.js) and the digital game (lobby
 * hautetension.js), so the board looks the same wherever it is shown. */
import { outlineOn, svg } from "/static/panel.js";

var UNOWNED_PAWN = "#8a8a8a";  // a pawn nobody placed (put on the board outside a game)
var UNOWNED_LAMP = "#555";     // a lamp no seat holds
// What pawns and lamp rings are drawn on (panel.css: .slot .hole, --bg): a colour that does not
// stand out 3:1 from it gets a light outline.
export var HOLE = "#2a323b";
export var BOARD = "#101418";

// A layout position is [row, column]; its centre in board units (one cell each).
export function centre(pos) { return { x: pos[1] + 0.5, y: pos[0] + 0.5 }; }

function drawWires(root, layout, ends) {
  var wires = root.appendChild(svg("g", { "class": "wires" }));
  layout.rows.forEach(function (row) {
    var pts = row.slots.map(function (s) { return centre(layout.slots[s]); });
    var a = row.kind === "straight" ? ends["+"] : ends[row.lamps[0]];
    var b = row.kind === "straight" ? ends[row.lamps[0]] : ends[row.lamps[1]];
    // A straight row runs from the battery to its lamp; draw the wire through its slots.
    var d = function (p, q) { return Math.hypot(p.x - q.x, p.y - q.y); };
    if (d(pts[0], a) > d(pts[pts.length - 1], a)) { var t = a; a = b; b = t; }
    wires.appendChild(svg("polyline", {
      "class": "wire " + row.kind, "data-row": row.id,
      "points": [a].concat(pts, [b]).map(function (p) { return p.x + "," + p.y; }).join(" ")
    }));
  });
}

function drawLamps(root, layout, ends) {
  var battery = root.appendChild(svg("g", { "class": "battery" }));
  battery.appendChild(svg("rect", { x: ends["+"].x - 0.42, y: ends["+"].y - 0.42, width: 0.84, height: 0.84, rx: 0.12 }));
  battery.appendChild(svg("text", { x: ends["+"].x, y: ends["+"].y + 0.02, "class": "label" }, "+"));
  var lamps = {};
  Object.keys(layout.lamps).forEach(function (name) {
    var p = ends[name];
    var g = root.appendChild(svg("g", { "class": "lamp", "data-lamp": name, id: "lamp-" + name }));
    g.appendChild(svg("circle", { "class": "halo", cx: p.x, cy: p.y, r: 0.56, fill: "none" }));
    g.appendChild(svg("circle", { "class": "bulb", cx: p.x, cy: p.y, r: 0.46 }));
    g.appendChild(svg("text", { x: p.x, y: p.y + 0.02, "class": "label" }, name));
    lamps[name] = g;
  });
  return lamps;
}

function drawSlots(root, layout, options) {
  var group = root.appendChild(svg("g", { "class": "slots" }));
  var slots = {};
  Object.keys(layout.slots).forEach(function (name) {
    var p = centre(layout.slots[name]);
    var attrs = { "class": "slot", "data-slot": name, id: "slot-" + name };
    var extra = options.slotAttributes ? options.slotAttributes(name) : {};
    Object.keys(extra).forEach(function (k) { attrs[k] = extra[k]; });
    var g = group.appendChild(svg("g", attrs));
    // The whole cell is the slot's target: as large as a finger on a tablet, the most a phone allows.
    g.appendChild(svg("rect", { "class": "hit", x: p.x - 0.5, y: p.y - 0.5, width: 1, height: 1 }));
    g.appendChild(svg("circle", { "class": "hole", cx: p.x, cy: p.y, r: 0.4 }));
    g.appendChild(svg("circle", { "class": "pawn", cx: p.x, cy: p.y, r: 0.3 }));
    g.appendChild(svg("text", { x: p.x, y: p.y + 0.02, "class": "name" }, name));
    if (options.eachSlot) { options.eachSlot(g, name, p); }
    slots[name] = g;
  });
  return slots;
}

/* Draws the layout into root (an <svg>, emptied first). options.slotAttributes(name)
 * gives a slot's own attributes (tabindex, role…); options.eachSlot(g, name,
 * centre) adds the page's own parts and listeners to each drawn slot.
 * Returns the slot and lamp elements by name. */
export function draw(root, layout, options) {
  options = options || {};
  root.textContent = "";
  var rows = layout.grid.rows, cols = layout.grid.columns;
  root.setAttribute("viewBox", "-1.1 -1.1 " + (cols + 2.2) + " " + (rows + 2.2));
  var ends = { "+": centre(layout.battery) };
  Object.keys(layout.lamps).forEach(function (l) { ends[l] = centre(layout.lamps[l]); });
  drawWires(root, layout, ends);
  var lamps = drawLamps(root, layout, ends);
  return { slots: drawSlots(root, layout, options), lamps: lamps };
}

/* Shows the pawns ({slot: {owner}}) on the drawn slots, each in its owner's
 * colour (seats[owner].colour, as the staff chose it). */
export function showPawns(slots, pawns, seats) {
  Object.keys(slots).forEach(function (name) {
    var g = slots[name];
    var pawn = pawns[name];
    var pawnEl = g.querySelector(".pawn");
    g.classList.toggle("occupied", !!pawn);
    if (pawn) {
      g.setAttribute("data-owner", pawn.owner === null ? "none" : String(pawn.owner));
      var seat = pawn.owner === null || pawn.owner === undefined ? null : seats[pawn.owner];
      var colour = seat && seat.colour ? seat.colour : UNOWNED_PAWN;
      var outline = outlineOn(colour, HOLE);
      pawnEl.setAttribute("fill", colour);
      pawnEl.setAttribute("stroke", outline || "#000");
      pawnEl.setAttribute("stroke-width", outline ? "0.07" : "0.05");
    } else {
      g.removeAttribute("data-owner");
      ["fill", "stroke", "stroke-width"].forEach(function (a) { pawnEl.removeAttribute(a); });
    }
  });
}

/* Lights the lit lamps and rings each lamp in the colour of the seat that
 * holds it (with a light halo where that colour would not show on the board). */
export function showLamps(lamps, lit, seats) {
  Object.keys(lamps).forEach(function (name) {
    lamps[name].classList.toggle("lit", lit.indexOf(name) >= 0);
    var owner = seats.findIndex(function (s) { return s.lamp === name; });
    var colour = owner >= 0 ? seats[owner].colour : UNOWNED_LAMP;
    lamps[name].querySelector(".bulb").setAttribute("stroke", colour);
    var halo = owner >= 0 ? outlineOn(colour, BOARD) : null;
    lamps[name].querySelector(".halo").setAttribute("fill", halo || "none");
  });
}
