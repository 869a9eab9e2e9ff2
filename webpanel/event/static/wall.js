/* The room's wall display (webpanel/event): GET /api/event/wall, drawn again on each `change` event of
 * /api/event/stream (every board live, the round's tables, the standings); behind nginx the page follows
 * its language's wall channel instead, whose messages hold the view itself (no request per change). Text comes from the page's
 * data-* attributes and <template>s, where it is marked for translation. */
import { draw as drawLayout, showLamps, showPawns } from "/static/layout-draw.js";
import { api, byId } from "/static/panel.js";

var root = byId("wall");
var layouts = {};
var cards = {};
var pending = null;
var arrived = null;  // a view from the wall's channel, waiting for the drawing in progress
var fetching = false;
// Wide enough for the wall's own layout (event.css): one screen, nothing to scroll, pages turning.
var oneScreen = window.matchMedia("(min-width: 60.01rem)");
var PAGE_SECONDS = 10;
var pages = {};  // a list's id: the page it shows

function fill(template, values) {
  return template.replace(/\{(\w+)\}/g, function (_m, key) { return values[key] === undefined ? "" : values[key]; });
}

function clone(id) { return byId(id).content.firstElementChild.cloneNode(true); }

async function layout(name) {
  if (!layouts[name]) { layouts[name] = api("GET", "/api/layouts/" + encodeURIComponent(name)); }
  return layouts[name];
}

/* What a board's card says of its table: the one it plays; once its result is in (the table is no
 * longer assigned to it), the table it played; a board whose game ended without a table of this round
 * waits for its next one; and only a board that never had one has none. */
function tableText(b, tables, round, words) {
  if (b.table) { return fill(words.text, { round: b.table.round, table: b.table.table }); }
  var played = tables.find(function (t) { return t.board && t.board.id === b.id && t.state === "done"; });
  if (played && round) { return fill(words.done, { round: round, table: played.table }); }
  if (b.game && b.game.status !== "running") { return words.free; }
  return words.none;
}

async function boardCard(b, tables, round) {
  var card = cards[b.id];
  if (!card) {
    card = { el: clone("board-card"), layout: null, drawn: null };
    card.el.id = "wall-board-" + b.id;
    cards[b.id] = card;
  }
  var el = card.el;
  el.querySelector(".label").textContent = b.name;
  var link = el.querySelector(".link");
  link.textContent = b.online ? link.dataset.on : link.dataset.off;
  el.classList.toggle("offline", !b.online);
  var table = el.querySelector(".table");
  table.textContent = tableText(b, tables, round, table.dataset);
  var mine = b.table ? tables.find(function (t) { return t.board && t.board.id === b.id; }) : null;
  var waiting = el.querySelector(".waiting");
  waiting.hidden = !(mine && mine.state === "to-start");
  if (mine) { waiting.textContent = fill(waiting.dataset.text, { players: mine.players.join(", ") }); }
  var live = b.live;
  var seats = live && live.game && live.game.view ? live.game.view.seats : [];
  var name = (live && live.layout) || "pinwheel-80";
  if (card.layout !== name) {
    card.drawn = drawLayout(el.querySelector("svg"), await layout(name), {});
    card.layout = name;
  }
  showPawns(card.drawn.slots, live ? live.pawns : {}, seats);
  showLamps(card.drawn.lamps, live ? live.lamps.lit : [], seats);
  var list = el.querySelector(".seats");
  list.textContent = "";
  var toMove = b.game && b.game.status === "running" && !b.game.paused ? b.game.to_move : null;
  seats.forEach(function (s) {
    var li = clone("seat-item");
    li.querySelector(".dot").style.background = s.colour;
    li.querySelector(".name").textContent = s.name;
    li.querySelector(".out").hidden = !s.eliminated;
    li.classList.toggle("to-move", s.name === toMove);
    list.appendChild(li);
  });
  var state = el.querySelector(".state");
  var g = b.game;
  if (!g) { state.textContent = state.dataset.idle; }
  else if (g.status === "running") { state.textContent = g.paused ? state.dataset.paused : fill(state.dataset.turn, { name: g.to_move || "" }); }
  else { state.textContent = g.status === "over" ? state.dataset.over : state.dataset.abandoned; }
  var fault = el.querySelector(".fault");
  fault.hidden = !b.faults.length;
  fault.textContent = b.faults.map(function (f) { return f.message; }).join(" · ");
  return el;
}

function renderTables(list, tables, withState) {
  list.textContent = "";
  tables.forEach(function (t) {
    var li = clone("table-item");
    li.querySelector(".n").textContent = t.table;
    li.querySelector(".players").textContent = t.players.join(", ");
    li.querySelector(".where").textContent = t.board ? t.board.name : "";
    var state = li.querySelector(".state");
    state.hidden = !withState;
    if (withState) { state.textContent = state.dataset[t.state.replace(/-(\w)/g, function (_m, c) { return c.toUpperCase(); })]; }
    li.className = withState ? "state-" + t.state : "";
    list.appendChild(li);
  });
}

var STANDINGS_SHOWN = 20;  // a phone shows the top of a big field; the tournament's page has them all

function renderStandings(rows) {
  var body = byId("standings");
  var words = byId("status-words").content.firstElementChild.dataset;
  var shown = oneScreen.matches ? rows.length : STANDINGS_SHOWN;  // one screen: all of them, page by page
  body.textContent = "";
  rows.slice(0, shown).forEach(function (s) {
    var tr = document.createElement("tr");
    tr.className = "status-" + s.status;
    [String(s.place), s.name + (s.status !== "in" ? " (" + (words[s.status] || s.status) + ")" : ""), String(s.points)]
      .forEach(function (text, i) {
        var td = document.createElement("td");
        td.textContent = text;
        if (i !== 1) { td.className = "num"; }
        tr.appendChild(td);
      });
    body.appendChild(tr);
  });
  if (rows.length > shown) {
    var more = document.createElement("tr");
    more.className = "more";
    var cell = document.createElement("td");
    cell.colSpan = 3;
    cell.textContent = fill(body.dataset.more, { n: rows.length - shown });
    more.appendChild(cell);
    body.appendChild(more);
  }
}

async function render(view) {
  var title = byId("wall-title");
  var t = view.tournament;
  title.textContent = t && t.round ? fill(title.dataset.round, { name: t.name, round: t.round }) : (t ? t.name : title.dataset.none);
  var winner = byId("wall-winner");
  winner.hidden = !(t && t.winner);
  if (t && t.winner) { winner.textContent = fill(winner.dataset.text, { name: t.winner }); }
  var grid = byId("boards");
  var shown = [];
  for (var i = 0; i < view.boards.length; i++) { shown.push(await boardCard(view.boards[i], view.tables, t && t.round)); }
  grid.replaceChildren.apply(grid, shown);
  byId("no-boards").hidden = view.boards.length > 0;
  renderTables(byId("tables"), view.tables, true);
  byId("no-tables").hidden = view.tables.length > 0;
  byId("next-round-card").hidden = !view.next_round;
  renderTables(byId("next-round"), view.next_round || [], false);
  renderStandings(view.standings);
  arrange();
  root.dataset.at = String(view.at);
}

// -- one screen ---------------------------------------------------------------------------------

/* The boards in as many columns as make each drawing biggest, with room for each card's words. */
function layoutBoards() {
  var grid = byId("boards");
  var cards = Array.prototype.slice.call(grid.children);
  if (!oneScreen.matches || !cards.length) {
    grid.style.removeProperty("--cols");
    grid.style.removeProperty("--rows");
    return;
  }
  var box = grid.getBoundingClientRect();
  var key = [cards.length, Math.round(box.width), Math.round(box.height)].join(" ");
  var overflowing = cards.some(function (card) { return card.scrollHeight > card.clientHeight + 1; });
  if (grid.dataset.arranged === key && !overflowing) { return; }
  var gap = parseFloat(getComputedStyle(grid).rowGap) || 0;
  var best = null;
  // Each way of cutting the area, tried: the words of a card (its name, table, players, seats, state)
  // wrap differently in each width, so they are measured, and the drawing gets what is left.
  for (var cols = 1; cols <= cards.length; cols++) {
    var rows = Math.ceil(cards.length / cols);
    grid.style.setProperty("--cols", String(cols));
    grid.style.setProperty("--rows", String(rows));
    var side = Infinity;
    cards.forEach(function (card) {
      var svg = card.querySelector("svg");
      var drawing = svg.getBoundingClientRect();
      var words = card.scrollHeight - drawing.height;
      side = Math.min(side, drawing.width, card.clientHeight - words);
    });
    if (best === null || side > best.side + 0.5) { best = { cols: cols, rows: rows, side: side }; }
  }
  grid.style.setProperty("--cols", String(best.cols));
  grid.style.setProperty("--rows", String(best.rows));
  grid.dataset.arranged = key;
}

/* Show the items of list *id* that fit its card, a page at a time ("2/3" below them). */
function paginate(id) {
  var list = byId(id);
  var label = byId("wall-" + id + "-page");
  var items = Array.prototype.slice.call(list.children);
  items.forEach(function (item) { item.hidden = false; });
  label.hidden = true;
  if (!oneScreen.matches || !items.length || list.closest("[hidden]")) { return; }
  var card = list.closest(".card");
  var style = getComputedStyle(card);
  var bottom = card.getBoundingClientRect().bottom - parseFloat(style.paddingBottom) - parseFloat(style.borderBottomWidth);
  function fitting(limit) {
    var n = 0;
    while (n < items.length && items[n].getBoundingClientRect().bottom <= limit + 0.5) { n++; }
    return n;
  }
  var size = fitting(bottom);
  if (size >= items.length) { pages[id] = 0; return; }
  label.textContent = "1/1";
  label.hidden = false;
  var room = label.getBoundingClientRect().height + parseFloat(getComputedStyle(label).marginTop);
  size = Math.max(1, fitting(bottom - room));
  var count = Math.ceil(items.length / size);
  var at = (pages[id] || 0) % count;
  pages[id] = at;
  items.forEach(function (item, i) { item.hidden = Math.floor(i / size) !== at; });
  label.textContent = (at + 1) + "/" + count;
}

function arrange() {
  layoutBoards();
  ["tables", "next-round", "standings"].forEach(paginate);
}

function turnPages() {
  Object.keys(pages).forEach(function (id) { pages[id] += 1; });
  arrange();
}

async function refresh() {
  if (fetching) { pending = true; return; }
  fetching = true;
  try {
    var url = root.dataset.api + (root.dataset.tournament ? "?t=" + root.dataset.tournament : "");
    await render(await api("GET", url));
  } catch (e) { /* the server restarting: the next change or the timer tries again */ }
  fetching = false;
  next();
}

/* Draw a view the wall's channel brought (behind nginx), unless the one shown is newer. */
async function show(view) {
  if (fetching) { arrived = view; return; }
  if (view.at < Number(root.dataset.at || 0)) { return; }
  fetching = true;
  try { await render(view); } catch (e) { /* a layout that did not load: the next view draws again */ }
  fetching = false;
  next();
}

function next() {
  if (arrived) { var view = arrived; arrived = null; show(view); }
  else if (pending) { pending = false; refresh(); }
}

function follow() {
  var conn = byId("wall-conn");
  // Behind nginx the page follows its language's wall channel: each message holds the wall's view.
  var source = new EventSource(root.dataset.live || root.dataset.stream);
  source.addEventListener("change", function (e) {
    conn.hidden = true;
    var message = root.dataset.live ? JSON.parse(e.data) : null;
    if (message && message.public) { show(message.public); } else { refresh(); }
  });
  source.onerror = function () { conn.hidden = false; conn.textContent = conn.dataset.lost; };
}

refresh();
follow();
window.addEventListener("resize", arrange);
setInterval(turnPages, PAGE_SECONDS * 1000);
// A safety net for the process's own stream: a lost change is shown within 15 s anyway. Behind nginx the
// channel gives a reconnecting page the newest view, and spectators must cost no request per change.
if (!root.dataset.live) { setInterval(refresh, 15000); }
