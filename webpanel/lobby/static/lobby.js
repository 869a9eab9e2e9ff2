/* The lobby: the games list and the form that creates a game. */
import { api, byId as $, el } from "/static/panel.js";

var catalogue = {};

function option(value, label, selected) {
  var o = el("option", { value: value }, label);
  if (selected) { o.selected = true; }
  return o;
}

function seatRow(number, levels) {
  var row = el("li", { "class": "seat-row row", "data-seat": number });
  var kind = el("select", { "class": "seat-kind", "aria-label": "Seat " + (number + 1) + " player" });
  kind.appendChild(option("human", "Human", true));
  if (levels.length) { kind.appendChild(option("ai", "Computer")); }
  var level = el("select", { "class": "seat-level", "aria-label": "Seat " + (number + 1) + " level" });
  levels.forEach(function (l, i) { level.appendChild(option(l, l, i === levels.length - 1)); });
  level.hidden = true;
  kind.addEventListener("change", function () { level.hidden = kind.value !== "ai"; });
  var name = el("input", { "class": "seat-name", "placeholder": "Name (optional)", "maxlength": "40",
    "aria-label": "Seat " + (number + 1) + " name", "autocomplete": "off" });
  row.appendChild(el("span", { "class": "seat-label" }, "Seat " + (number + 1)));
  row.appendChild(kind);
  row.appendChild(level);
  row.appendChild(name);
  return row;
}

function gameChanged() {
  var select = $("game");
  var chosen = select.options[select.selectedIndex];
  var min = Number(chosen.dataset.min), max = Number(chosen.dataset.max);
  var count = $("seat-count");
  count.textContent = "";
  for (var n = min; n <= max; n++) { count.appendChild(option(String(n), String(n), n === min)); }
  count.disabled = min === max;
  seatsChanged();
}

function seatsChanged() {
  var rows = $("seat-rows");
  var levels = (catalogue[$("game").value] || {}).levels || [];
  rows.textContent = "";
  for (var i = 0; i < Number($("seat-count").value); i++) { rows.appendChild(seatRow(i, levels)); }
}

async function create(event) {
  event.preventDefault();
  var msg = $("create-message");
  msg.textContent = "";
  var seats = Array.prototype.map.call(document.querySelectorAll(".seat-row"), function (row) {
    var seat = { kind: row.querySelector(".seat-kind").value };
    if (seat.kind === "ai") { seat.level = row.querySelector(".seat-level").value; }
    var name = row.querySelector(".seat-name").value.trim();
    if (name) { seat.name = name; }
    return seat;
  });
  var body = { game: $("game").value, seats: seats, hot_seat: $("hot-seat").checked };
  try {
    body.options = JSON.parse($("options").value || "{}");
  } catch (e) {
    msg.textContent = "The options must be a JSON object, like {}.";
    return;
  }
  var seed = $("seed").value.trim();
  if (seed) { body.seed = Number(seed); }
  try {
    var game = await api("POST", "/api/games", body);
    window.location.href = "/games/" + game.id;
  } catch (err) {
    msg.textContent = err.message;
  }
}

function describeSeats(game) {
  return game.seats.map(function (s) { return s.name; }).join(" vs ");
}

async function load() {
  var data = await api("GET", "/api/games");
  data.catalogue.forEach(function (c) { catalogue[c.game] = c; });
  var body = $("games");
  body.textContent = "";
  data.games.forEach(function (game) {
    var row = el("tr");
    var link = el("a", { href: "/games/" + game.id }, "#" + game.id);
    var cell = el("td");
    cell.appendChild(link);
    row.appendChild(cell);
    row.appendChild(el("td", {}, game.game));
    row.appendChild(el("td", {}, describeSeats(game)));
    row.appendChild(el("td", {}, String(game.moves)));
    row.appendChild(el("td", {}, game.status));
    body.appendChild(row);
  });
  $("no-games").hidden = data.games.length > 0;
}

document.addEventListener("DOMContentLoaded", function () {
  $("game").addEventListener("change", gameChanged);
  $("seat-count").addEventListener("change", seatsChanged);
  $("create").addEventListener("submit", create);
  load().then(gameChanged, function (err) { $("create-message").textContent = err.message; gameChanged(); });
});
