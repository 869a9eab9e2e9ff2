/* The lobby: the games list and the form that creates a game, in the page's language.
 * Each game's options are controls drawn by the page (webpanel/lobby/options.py); this script
 * shows the chosen game's, and reads them into the game's options. */
import { _, api, byId as $, el, ngettext, pgettext } from "/static/panel.js";
import { listOf } from "/static/describe.js";
import { gameTitle, keepWords, levelAlgorithm, levelName, seatName, showRefusal } from "./words.js";

var catalogue = {};

function option(value, label, selected) {
  var o = el("option", { value: value }, label);
  if (selected) { o.selected = true; }
  return o;
}

function seatRow(number, game, levels) {
  var row = el("li", { "class": "seat-row", "data-seat": number });
  var seat = { num: number + 1 };
  var kind = el("select", { "class": "seat-kind", "aria-label": _("Seat %(num)d: who plays", seat) });
  kind.appendChild(option("human", pgettext("seat", "A person"), true));
  if (levels.length) { kind.appendChild(option("ai", pgettext("seat", "The computer"))); }
  var level = el("select", { "class": "seat-level", "aria-label": _("Seat %(num)d: computer level", seat) });
  levels.forEach(function (l, i) {
    var choice = option(l, levelName(game, l), i === Math.min(1, levels.length - 1));
    choice.title = levelAlgorithm(game, l);
    level.appendChild(choice);
  });
  var why = el("p", { "class": "hint seat-level-hint" });
  function levelChanged() { why.textContent = levelAlgorithm(game, level.value); level.title = why.textContent; }
  level.addEventListener("change", levelChanged);
  levelChanged();
  var name = el("input", { "class": "seat-name", "placeholder": _("Name (optional)"), "maxlength": "40",
    "aria-label": _("Seat %(num)d: name", seat), "autocomplete": "off" });
  function kindChanged() {
    var computer = kind.value === "ai";
    level.hidden = !computer;
    why.hidden = !computer;
  }
  kind.addEventListener("change", kindChanged);
  kindChanged();
  row.appendChild(el("span", { "class": "seat-label" }, _("Seat %(num)d", seat)));
  row.appendChild(kind);
  row.appendChild(level);
  row.appendChild(name);
  row.appendChild(why);
  return row;
}

function chosen() {
  var select = $("game");
  return select.options[select.selectedIndex];
}

function gameChanged() {
  var picked = chosen();
  var min = Number(picked.dataset.min), max = Number(picked.dataset.max);
  var count = $("seat-count");
  var before = Number(count.value);
  count.textContent = "";
  for (var n = min; n <= max; n++) { count.appendChild(option(String(n), String(n), n === Math.max(min, Math.min(max, before)))); }
  count.disabled = min === max;
  var rules = $("game-rules");
  rules.hidden = !picked.dataset.rules;
  if (picked.dataset.rules) {
    rules.href = picked.dataset.rules;
    rules.textContent = _("How to play %(game)s", { game: gameTitle(picked.value) });
  }
  var secret = picked.dataset.secret === "true";
  $("hot-seat").disabled = secret;
  if (secret) { $("hot-seat").checked = false; }
  $("hot-seat-note").hidden = !secret;
  document.querySelectorAll(".game-options").forEach(function (set) { set.hidden = set.dataset.game !== picked.value; });
  seatsChanged();
}

function seatsChanged() {
  var rows = $("seat-rows");
  var game = $("game").value;
  var levels = (catalogue[game] || {}).levels || [];
  var kept = Array.prototype.map.call(rows.children, function (row) {
    return { kind: row.querySelector(".seat-kind").value, name: row.querySelector(".seat-name").value };
  });
  rows.textContent = "";
  for (var i = 0; i < Number($("seat-count").value); i++) {
    var row = seatRow(i, game, levels);
    if (kept[i] && rows.dataset.game === game) {
      row.querySelector(".seat-name").value = kept[i].name;
      var kind = row.querySelector(".seat-kind");
      kind.value = kept[i].kind;
      kind.dispatchEvent(new Event("change"));
    }
    rows.appendChild(row);
  }
  rows.dataset.game = game;
  mySeatChanged();
  optionsChanged();
}

/* Which seat the person creating the game takes on this device: the first free one unless they say
 * otherwise (another seat, or none to watch). A hot-seat game is played here whole: no choice. */
function mySeatChanged() {
  var select = $("my-seat");
  var before = select.value;
  select.textContent = "";
  select.appendChild(option("first", select.dataset.first, true));
  document.querySelectorAll(".seat-row").forEach(function (row) {
    if (row.querySelector(".seat-kind").value !== "human") { return; }
    var number = Number(row.dataset.seat);
    select.appendChild(option(String(number), _("Seat %(num)d", { num: number + 1 }), before === String(number)));
  });
  select.appendChild(option("watch", select.dataset.watch, before === "watch"));
  $("my-seat-choice").hidden = $("hot-seat").checked;
}

/* The seat the creator takes in *game* (the creation's answer, which shows the host each free seat's
 * code): null to watch, or when no seat is free. */
function seatToTake(game) {
  var choice = $("my-seat").value;
  if (game.hot_seat || choice === "watch") { return null; }
  var free = game.seats.filter(function (s) { return s.kind === "human" && !s.joined && s.join_code; });
  var wanted = choice === "first" ? free[0] : free.find(function (s) { return String(s.seat) === choice; });
  return wanted || null;
}

// -- the options' controls --------------------------------------------------------------------

function activeOptions() {
  var set = document.querySelector(".game-options[data-game='" + $("game").value + "']");
  return set ? Array.prototype.slice.call(set.querySelectorAll(".option")) : [];
}

function byKey(options, key) {
  return options.find(function (o) { return o.dataset.option === key; }) || null;
}

function inputValue(node) {
  var input = node.querySelector(".option-input");
  if (node.dataset.control === "toggle") { return input.checked ? JSON.parse(input.dataset.on) : undefined; }
  if (node.dataset.control === "number") { return input.value === "" ? undefined : Number(input.value); }
  return JSON.parse(input.value);
}

function isShown(node, options) {
  if (!node.dataset.shownWhen) { return true; }
  var rule = JSON.parse(node.dataset.shownWhen);
  var other = byKey(options, rule[0]);
  if (!other || !isShown(other, options)) { return false; }
  var value = inputValue(other);
  return rule[1].length ? rule[1].indexOf(value) >= 0 : Boolean(value);
}

// What the controls ask for with this many players: a board for as many, as many seats, lamps.
function optionsChanged() {
  var options = activeOptions();
  var players = Number($("seat-count").value);
  options.forEach(function (node) {
    node.hidden = !isShown(node, options);
    node.querySelectorAll("option[data-players]").forEach(function (o) {
      o.hidden = o.disabled = o.dataset.players.split(" ").indexOf(String(players)) < 0;
    });
    var select = node.querySelector("select.option-input");
    if (select && select.selectedOptions.length && select.selectedOptions[0].disabled) {
      var first = Array.prototype.find.call(select.options, function (o) { return !o.disabled; });
      if (first) { select.value = first.value; }
    }
    node.querySelectorAll("[data-seat]").forEach(function (seat) {
      if (seat.tagName === "SELECT") { return; }
      seat.hidden = Number(seat.dataset.seat) >= players;
      if (seat.tagName === "OPTION") { seat.disabled = seat.hidden; }
    });
  });
}

// The game's options as the controls say them, or an error message for the player.
function readOptions() {
  var options = activeOptions();
  var players = Number($("seat-count").value);
  var result = {};
  for (var i = 0; i < options.length; i++) {
    var node = options[i];
    if (node.hidden) { continue; }
    var key = node.dataset.option, control = node.dataset.control;
    if (control === "json") {
      try { result = JSON.parse(node.querySelector(".option-input").value || "{}"); } catch (e) { result = null; }
      if (!result || typeof result !== "object" || Array.isArray(result)) {
        return { error: _("The options must be a JSON object, like {}.") };
      }
    } else if (control === "colours") {
      var ticked = Array.prototype.filter.call(node.querySelectorAll(".option-colour"), function (b) { return b.checked; })
        .map(function (b) { return JSON.parse(b.value); });
      if (ticked.length && ticked.length !== players) {
        return { error: ngettext("Tick %(num)d colour, or none.", "Tick %(num)d colours, or none.", players, { num: players }) };
      }
      if (ticked.length) { result[key] = ticked; }
    } else if (control === "handicap") {
      var lamps = JSON.parse(node.dataset.lamps)[String(players)] || [];
      var handicap = {};
      node.querySelectorAll(".option-handicap").forEach(function (select) {
        var seat = Number(select.dataset.seat);
        if (seat < lamps.length && Number(select.value) > 0) { handicap[lamps[seat]] = Number(select.value); }
      });
      if (Object.keys(handicap).length) { result[key] = handicap; }
    } else {
      var value = inputValue(node);
      var input = node.querySelector(".option-input");
      if (control === "number" && (value === undefined || !input.checkValidity())) {
        return { error: _("%(option)s: a whole number from %(min)s to %(max)s.", {
          option: node.querySelector("label").textContent, min: input.min, max: input.max }) };
      }
      if (value !== undefined && value !== null) { result[key] = value; }
    }
  }
  return { options: result };
}

async function create(event) {
  event.preventDefault();
  var msg = $("create-message");
  showRefusal(msg, null);
  var seats = Array.prototype.map.call(document.querySelectorAll(".seat-row"), function (row) {
    var seat = { kind: row.querySelector(".seat-kind").value };
    if (seat.kind === "ai") { seat.level = row.querySelector(".seat-level").value; }
    var name = row.querySelector(".seat-name").value.trim();
    if (name) { seat.name = name; }
    return seat;
  });
  var read = readOptions();
  if (read.error) { msg.textContent = read.error; return; }
  var body = { game: $("game").value, seats: seats, hot_seat: $("hot-seat").checked, options: read.options };
  var seed = $("seed").value.trim();
  if (seed) {
    if (!/^\d+$/.test(seed)) { msg.textContent = _("The seed is a whole number, or blank."); return; }
    body.seed = Number(seed);
  }
  $("create-button").disabled = true;
  try {
    var game = await api("POST", "/api/games", body);
    var seat = seatToTake(game);
    if (seat) {
      // Seated at once: the board is this device's to play as soon as the page opens.
      try { await api("POST", "/api/games/" + game.id + "/join", { code: seat.join_code }); }
      catch (err) { /* the game exists: its page offers the seats' codes */ }
    }
    window.location.href = "/games/" + game.id;
  } catch (err) {
    showRefusal(msg, err);
    $("create-button").disabled = false;
  }
}

// -- the games list ---------------------------------------------------------------------------

var STATUS = {
  running: function () { return pgettext("game status", "running"); },
  over: function () { return pgettext("game status", "over"); },
  abandoned: function () { return pgettext("game status", "abandoned"); },
  expired: function () { return pgettext("game status", "expired"); }
};

function describeSeats(game) {
  return listOf(game.seats.map(function (s) { return seatName(s, game.game); }));
}

function cell(label, content) {
  var td = el("td", { "data-label": label });
  if (typeof content === "string") { td.textContent = content; } else { td.appendChild(content); }
  return td;
}

async function load() {
  var data = await api("GET", "/api/games");
  data.catalogue.forEach(function (c) { catalogue[c.game] = c; });
  var body = $("games");
  body.textContent = "";
  data.games.forEach(function (game) {
    var row = el("tr", { "data-game": game.id });
    row.appendChild(cell("#", el("a", { href: "/games/" + game.id }, "#" + game.id)));
    row.appendChild(cell(pgettext("kind of game", "Game"), keepWords(gameTitle(game.game))));
    row.appendChild(cell(_("Players"), describeSeats(game)));
    row.appendChild(cell(_("Moves"), String(game.moves)));
    row.appendChild(cell(_("Status"), STATUS[game.status] ? STATUS[game.status]() : game.status));
    body.appendChild(row);
  });
  $("no-games").hidden = data.games.length > 0;
}

document.addEventListener("DOMContentLoaded", function () {
  $("game").addEventListener("change", gameChanged);
  $("seat-count").addEventListener("change", seatsChanged);
  $("hot-seat").addEventListener("change", mySeatChanged);
  $("seat-rows").addEventListener("change", function (event) {
    if (event.target.classList.contains("seat-kind")) { mySeatChanged(); }
  });
  $("create").addEventListener("submit", create);
  $("create").addEventListener("change", function (event) {
    if (event.target.closest(".game-options")) { optionsChanged(); }
  });
  load().then(gameChanged, function (err) { showRefusal($("create-message"), err); gameChanged(); });
});
