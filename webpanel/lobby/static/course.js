/* The digital games' result pictures, drawn in the page as SVG (no chart framework: a few lines
 * and circles): a game's course turn by turn (Hypnosia's scores, |Hop>'s energies) and the
 * quantum tic-tac-toe entanglement graph at a collapse. */
import { _, svg } from "/static/panel.js";

var W = 480, H = 240, LEFT = 34, RIGHT = 110, TOP = 14, BOTTOM = 30;

function clear(node) { while (node.firstChild) { node.removeChild(node.firstChild); } }

/* Draw *series* ([{name, colour, values}], one value per turn, the first before any turn) on the
 * <svg> *node*: a line per player, its name at its end, the turns along the bottom. */
export function drawCourse(node, series, label) {
  clear(node);
  node.setAttribute("viewBox", "0 0 " + W + " " + H);
  var turns = Math.max.apply(null, series.map(function (s) { return s.values.length; })) - 1;
  var all = [].concat.apply([0], series.map(function (s) { return s.values; }));
  var low = Math.min.apply(null, all), high = Math.max.apply(null, all);
  if (high === low) { high = low + 1; }
  var x = function (t) { return LEFT + (W - LEFT - RIGHT) * (turns ? t / turns : 0); };
  var y = function (v) { return TOP + (H - TOP - BOTTOM) * (1 - (v - low) / (high - low)); };
  node.appendChild(svg("line", { "class": "axis", x1: LEFT, y1: y(low), x2: W - RIGHT, y2: y(low) }));
  node.appendChild(svg("line", { "class": "axis", x1: LEFT, y1: TOP, x2: LEFT, y2: H - BOTTOM }));
  [low, high].forEach(function (v) {
    node.appendChild(svg("text", { "class": "tick", x: LEFT - 6, y: y(v) + 4, "text-anchor": "end" }, String(v)));
  });
  var step = Math.max(1, Math.ceil(turns / 8));
  for (var t = 0; t <= turns; t += step) {
    node.appendChild(svg("text", { "class": "tick", x: x(t), y: H - BOTTOM + 16, "text-anchor": "middle" }, String(t)));
  }
  node.appendChild(svg("text", { "class": "tick", x: (LEFT + W - RIGHT) / 2, y: H - 2, "text-anchor": "middle" }, _("turn")));
  var ends = [];
  series.forEach(function (s) {
    var points = s.values.map(function (v, i) { return x(i) + "," + y(v); }).join(" ");
    node.appendChild(svg("polyline", { "class": "line", points: points, stroke: s.colour }));
    var last = s.values.length - 1;
    node.appendChild(svg("circle", { cx: x(last), cy: y(s.values[last]), r: 4, fill: s.colour }));
    ends.push({ y: y(s.values[last]), s: s, value: s.values[last] });
  });
  // The names at the lines' ends, pushed apart so none covers another.
  ends.sort(function (a, b) { return a.y - b.y; });
  for (var i = 1; i < ends.length; i++) { ends[i].y = Math.max(ends[i].y, ends[i - 1].y + 17); }
  ends.forEach(function (e) {
    node.appendChild(svg("text", { "class": "end", x: W - RIGHT + 8, y: e.y + 4, fill: e.s.colour }, e.s.name + " " + e.value));
  });
  var values = series.map(function (s) { return s.name + " " + s.values.join(", "); }).join("; ");
  node.setAttribute("aria-label", _("%(name)s: %(move)s", { name: label, move: values }));
}

/* Draw the entanglement at a collapse on the <svg> *node*: the nine squares as a 3 × 3 grid, each
 * spooky mark a link between its two squares (the cycle's in orange), the landing square outlined. */
export function drawCollapse(node, collapse) {
  clear(node);
  node.setAttribute("viewBox", "0 0 300 300");
  var at = function (s) { return { x: 50 + (s % 3) * 100, y: 50 + Math.floor(s / 3) * 100 }; };
  var key = function (m) { return Math.min(m[1], m[2]) + "-" + Math.max(m[1], m[2]); };
  var count = {}, seen = {};
  collapse.marks.forEach(function (m) { count[key(m)] = (count[key(m)] || 0) + 1; });
  collapse.marks.forEach(function (m) {
    var a = at(m[1]), b = at(m[2]);
    // Marks on the same two squares bow apart, each its own curve with its label on it.
    var k = key(m), i = (seen[k] = (seen[k] || 0) + 1) - 1;
    var bend = (i - (count[k] - 1) / 2) * 0.5;
    var mx = (a.x + b.x) / 2 + (b.y - a.y) * bend, my = (a.y + b.y) / 2 - (b.x - a.x) * bend;
    var inCycle = collapse.cycle.indexOf(m[0]) >= 0;
    var colour = m[0] % 2 ? "#6cc4ff" : "#ffcc33";
    node.appendChild(svg("path", { "class": "link" + (inCycle ? " cycle" : ""), fill: "none",
      stroke: inCycle ? "#ff7a59" : colour, d: "M" + a.x + "," + a.y + " Q" + mx + "," + my + " " + b.x + "," + b.y }));
    var lx = (a.x + 2 * mx + b.x) / 4, ly = (a.y + 2 * my + b.y) / 4;  // the curve's middle
    node.appendChild(svg("rect", { "class": "mark-label", x: lx - 14, y: ly - 9, width: 28, height: 18, rx: 4 }));
    node.appendChild(svg("text", { x: lx, y: ly, fill: colour }, (m[0] % 2 ? "X" : "O") + m[0]));
  });
  for (var s = 0; s < 9; s++) {
    var p = at(s);
    node.appendChild(svg("circle", { "class": "square" + (s === collapse.square ? " landing" : ""), cx: p.x, cy: p.y, r: 18 }));
    node.appendChild(svg("text", { x: p.x, y: p.y }, String(s)));
  }
}
