/* Service mode's health page: the board drawn with each slot coloured by its health over the last
 * finished games (GET /api/staff/slot-health, webpanel/slot_health.py), and what to check, in the
 * words the server chose for the page's language. */
import { draw as drawLayout } from "/static/layout-draw.js";
import { api, byId, el } from "/static/panel.js";

var TROUBLE = { fault: "fault", watch: "flicker" };  // the drawing's colours (panel.css: data-trouble)
var EVERY_MS = 30000;  // the slot health changes only when a game ends

async function show(slots) {
  var health = await api("GET", "/api/staff/slot-health");
  Object.keys(slots).forEach(function (name) {
    slots[name].setAttribute("data-trouble", TROUBLE[health.slots[name]] || "clean");
  });
  var summary = byId("slot-health-summary");
  var counted = summary.dataset.games.replace("{games}", String(health.games));
  summary.textContent = health.findings.length ? counted : summary.dataset.none + " " + counted;
  byId("slot-health-findings").replaceChildren.apply(byId("slot-health-findings"), health.findings.map(function (f) {
    return el("li", { "class": f.colour || "board" }, f.text);
  }));
}

if (byId("slot-health-board")) {
  api("GET", "/api/layout").then(function (layout) {
    var slots = drawLayout(byId("slot-health-board"), layout, {}).slots;
    show(slots).catch(function () {});
    setInterval(function () { show(slots).catch(function () {}); }, EVERY_MS);
  });
}
