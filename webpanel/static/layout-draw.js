/* The lamp board drawn from its layout (GET /api/layouts/<name>) in SVG: the
 * wires of the rows, the battery, the lamps and the slots. One drawing for the
 * live and simulated boards (board.js) and the digital game (lobby
 * hautetension.js), so the board looks the same wherever it is shown.
 * A plain script (no bundler, no inline script under the CSP): it sets
 * window.LayoutDrawing for the scripts loaded after it. */
"use strict";
(function () {
  var SVG = "http://www.w3.org/2000/svg";

  function el(name, attrs, parent) {
    var node = document.createElementNS(SVG, name);
    Object.keys(attrs).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (parent) { parent.appendChild(node); }
    return node;
  }

  // A layout position is [row, column]; its centre in board units (one cell each).
  function centre(pos) { return { x: pos[1] + 0.5, y: pos[0] + 0.5 }; }

  function drawWires(svg, layout, ends) {
    var wires = el("g", { "class": "wires" }, svg);
    layout.rows.forEach(function (row) {
      var pts = row.slots.map(function (s) { return centre(layout.slots[s]); });
      var a = row.kind === "straight" ? ends["+"] : ends[row.lamps[0]];
      var b = row.kind === "straight" ? ends[row.lamps[0]] : ends[row.lamps[1]];
      // A straight row runs from the battery to its lamp; draw the wire through its slots.
      var d = function (p, q) { return Math.hypot(p.x - q.x, p.y - q.y); };
      if (d(pts[0], a) > d(pts[pts.length - 1], a)) { var t = a; a = b; b = t; }
      el("polyline", {
        "class": "wire " + row.kind, "data-row": row.id,
        "points": [a].concat(pts, [b]).map(function (p) { return p.x + "," + p.y; }).join(" ")
      }, wires);
    });
  }

  function drawLamps(svg, layout, ends) {
    var battery = el("g", { "class": "battery" }, svg);
    el("rect", { x: ends["+"].x - 0.42, y: ends["+"].y - 0.42, width: 0.84, height: 0.84, rx: 0.12 }, battery);
    el("text", { x: ends["+"].x, y: ends["+"].y + 0.02, "class": "label" }, battery).textContent = "+";
    var lamps = {};
    Object.keys(layout.lamps).forEach(function (name) {
      var p = ends[name];
      var g = el("g", { "class": "lamp", "data-lamp": name, id: "lamp-" + name }, svg);
      el("circle", { cx: p.x, cy: p.y, r: 0.46 }, g);
      el("text", { x: p.x, y: p.y + 0.02, "class": "label" }, g).textContent = name;
      lamps[name] = g;
    });
    return lamps;
  }

  function drawSlots(svg, layout, options) {
    var group = el("g", { "class": "slots" }, svg);
    var slots = {};
    Object.keys(layout.slots).forEach(function (name) {
      var p = centre(layout.slots[name]);
      var attrs = { "class": "slot", "data-slot": name, id: "slot-" + name };
      var extra = options.slotAttributes ? options.slotAttributes(name) : {};
      Object.keys(extra).forEach(function (k) { attrs[k] = extra[k]; });
      var g = el("g", attrs, group);
      el("circle", { "class": "hole", cx: p.x, cy: p.y, r: 0.4 }, g);
      el("circle", { "class": "pawn", cx: p.x, cy: p.y, r: 0.3 }, g);
      el("text", { x: p.x, y: p.y + 0.02, "class": "name" }, g).textContent = name;
      if (options.eachSlot) { options.eachSlot(g, name, p); }
      slots[name] = g;
    });
    return slots;
  }

  /* Draws the layout into svg (emptied first). options.slotAttributes(name)
   * gives a slot's own attributes (tabindex, role…); options.eachSlot(g, name,
   * centre) adds the page's own parts and listeners to each drawn slot.
   * Returns the slot and lamp elements by name. */
  function draw(svg, layout, options) {
    options = options || {};
    svg.textContent = "";
    var rows = layout.grid.rows, cols = layout.grid.columns;
    svg.setAttribute("viewBox", "-1.1 -1.1 " + (cols + 2.2) + " " + (rows + 2.2));
    var ends = { "+": centre(layout.battery) };
    Object.keys(layout.lamps).forEach(function (l) { ends[l] = centre(layout.lamps[l]); });
    drawWires(svg, layout, ends);
    var lamps = drawLamps(svg, layout, ends);
    return { slots: drawSlots(svg, layout, options), lamps: lamps };
  }

  window.LayoutDrawing = { el: el, centre: centre, draw: draw };
})();
