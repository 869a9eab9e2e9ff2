/* The event's table on the board's display (webpanel/table): rendered from GET /api/table, read again
 * every second. Person-readable text comes from the page (data-* attributes and <template>s, where it
 * is marked for translation); this script only fills in names and numbers. */
import { draw as drawLayout } from "/static/layout-draw.js";
import { api, byId } from "/static/panel.js";

var page = byId("table-page");
var state = JSON.parse(page.dataset.state);
var layouts = {};
var busy = false;

function fill(template, values) {
  return template.replace(/\{(\w+)\}/g, function (_m, key) { return values[key] === undefined ? "" : values[key]; });
}

function seatRow(seat, options) {
  var li = byId("seat-row").content.firstElementChild.cloneNode(true);
  li.querySelector(".dot").style.background = seat.colour || "#888";
  li.querySelector(".name").textContent = seat.name;
  li.querySelector(".lamp b").textContent = seat.lamp;
  li.querySelector(".starts").hidden = !options.starts;
  li.querySelector(".out").hidden = !options.out;
  var points = li.querySelector(".points");
  points.hidden = options.points === undefined;
  if (options.points !== undefined) { points.textContent = fill(options.pointsText, { points: options.points }); }
  li.querySelector(".agree").hidden = !options.agree;
  li.querySelector(".agreed").hidden = !options.agreed;
  if (options.agree) { li.querySelector(".agree").addEventListener("click", function () { confirmSeat(options.seat); }); }
  li.classList.toggle("to-move", !!options.toMove);
  return li;
}

function renderHead(s) {
  var a = s.assignment;
  var title = byId("title");
  title.textContent = a && s.phase !== "waiting" ? fill(title.dataset.assigned, { round: a.round, table: a.table }) : title.dataset.none;
  byId("tournament").textContent = a ? a.tournament_name : (s.event ? s.event.event + " · " + s.event.board : "");
  var link = byId("link");
  link.hidden = !s.event;
  if (s.event) {
    var text = s.event.connected ? link.dataset.up : link.dataset.down;
    if (s.event.waiting) { text += " " + fill(link.dataset.waiting, { n: s.event.waiting }); }
    link.textContent = text;
    link.classList.toggle("down", !s.event.connected);
  }
  var note = byId("note");
  note.hidden = !(s.event && s.event.note);
  note.textContent = s.event && s.event.note ? s.event.note : "";
}

async function renderAssigned(a) {
  var list = byId("players");
  list.textContent = "";
  a.players.forEach(function (p, i) { list.appendChild(seatRow(p, { starts: i === a.first_seat })); });
  var box = byId("handicap");
  box.hidden = !a.handicap.length;
  var items = byId("handicap-list");
  items.textContent = "";
  a.handicap.forEach(function (h) {
    var li = byId("handicap-row").content.firstElementChild.cloneNode(true);
    li.querySelector(".slot").textContent = h.slot;
    var who = li.querySelector(".who");
    who.textContent = fill(who.textContent, { lamp: h.lamp, player: h.player });
    items.appendChild(li);
  });
  if (a.handicap.length) {
    var layout = layouts[a.layout] || (layouts[a.layout] = await api("GET", "/api/layouts/" + encodeURIComponent(a.layout)));
    var drawn = drawLayout(byId("handicap-board"), layout, {});
    a.handicap.forEach(function (h) { if (drawn.slots[h.slot]) { drawn.slots[h.slot].classList.add("handicap"); } });
  }
}

function renderGame(s) {
  var g = s.game;
  var turn = byId("turn");
  var seats = byId("playing-seats");
  seats.textContent = "";
  if (!g) { return; }
  g.seats.forEach(function (seat, i) {
    seats.appendChild(seatRow(seat, { out: seat.eliminated, toMove: g.to_move === i }));
  });
  if (!g.assignment) {
    turn.textContent = turn.dataset.free;
  } else if (g.paused) {
    turn.textContent = turn.dataset.paused;
  } else if (g.to_move !== null && g.seats[g.to_move]) {
    turn.textContent = fill(turn.dataset.turn, { name: g.seats[g.to_move].name });
  }
}

function renderResult(s, listId, canAgree) {
  var list = byId(listId);
  list.textContent = "";
  var g = s.game;
  if (!g) { return; }
  g.seats.forEach(function (seat, i) {
    var agreed = g.confirmed.indexOf(i) >= 0;
    list.appendChild(seatRow(seat, {
      seat: i, points: g.points ? g.points[i] : undefined, pointsText: list.dataset.points,
      agree: canAgree && !agreed, agreed: agreed
    }));
  });
  var delivered = byId("delivered");
  if (listId === "final") { delivered.textContent = g.delivered ? delivered.dataset.yes : delivered.dataset.no; }
}

function render(s) {
  state = s;
  page.dataset.phase = s.phase;
  document.querySelectorAll(".phase").forEach(function (el) { el.hidden = el.dataset.phase !== s.phase; });
  renderHead(s);
  if (s.phase === "assigned") { renderAssigned(s.assignment); }
  if (s.phase === "playing") { renderGame(s); }
  if (s.phase === "confirm") { renderResult(s, "result", true); }
  if (s.phase === "confirmed") { renderResult(s, "final", false); }
}

function showError(id, error) {
  var el = byId(id);
  el.hidden = !error;
  el.textContent = error ? error.message : "";
}

async function refresh() {
  if (busy) { return; }
  try {
    var s = await api("GET", "/api/table");
    if (JSON.stringify(s) !== JSON.stringify(state)) { render(s); }
  } catch (e) { /* the panel restarting: try again next time */ }
}

async function act(errorId, method, url, body) {
  busy = true;
  try {
    await api(method, url, body);
    showError(errorId, null);
  } catch (e) {
    showError(errorId, e);
  } finally {
    busy = false;
    await refresh();
  }
}

function confirmSeat(seat) { act("confirm-error", "POST", "/api/table/confirm", { seat: seat }); }

byId("start").addEventListener("click", function () { act("start-error", "POST", "/api/table/start", {}); });
var all = byId("confirm-all");
if (all) { all.addEventListener("click", function () { act("confirm-error", "POST", "/api/table/confirm", { all: true }); }); }

render(state);
setInterval(refresh, 1000);
