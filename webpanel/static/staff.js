/* Staff service mode pages: login, health, slot/lamp tests and self-test, games, journal.
 * Everything a volunteer reads is a sentence or a drawing in the page's
 * language; the service's own English words (its messages) are shown beside,
 * marked lang="en". Raw JSON is only ever a download. */
import { backendName, checkNews, faultText, journalLine, kindName, listOf, seatItem } from "/static/describe.js";
import { draw as drawLayout } from "/static/layout-draw.js";
import { _, api, byId, el, formatNumber, formatTime, ngettext, showError } from "/static/panel.js";

function every(ms, fn) { fn(); return setInterval(fn, ms); }

// A table body from rows of cells: a cell is text, or {text, lang, cls}; each cell carries its column's name.
function fillTable(id, rows) {
  var table = byId(id);
  var names = Array.prototype.map.call(table.querySelectorAll("thead th"), function (th) { return th.textContent; });
  var body = table.querySelector("tbody");
  body.textContent = "";
  rows.forEach(function (cells) {
    var tr = el("tr");
    cells.forEach(function (cell, i) {
      var c = cell !== null && typeof cell === "object" ? cell : { text: cell };
      var attrs = { "data-label": names[i] || "" };
      if (c.lang) { attrs.lang = c.lang; }
      if (c.cls) { attrs["class"] = c.cls; }
      tr.appendChild(el("td", attrs, c.text === null || c.text === undefined ? "—" : String(c.text)));
    });
    body.appendChild(tr);
  });
  table.hidden = rows.length === 0;
  return rows.length;
}

function yes(value) { return value ? _("yes") : _("no"); }

function level(value) { return value === "high" ? _("high") : value === "low" ? _("low") : value; }

// Open the board's event stream; call onBoard(board) with every state.
function follow(onBoard) {
  var source = new EventSource("/api/events");
  source.addEventListener("board", function (e) { onBoard(JSON.parse(e.data)); });
  return source;
}

function gameRunning(board) { return !!(board && board.game && board.game.status === "running"); }

// -- login ----------------------------------------------------------------------------------

var loginForm = byId("login-form");
if (loginForm) {
  loginForm.addEventListener("submit", async function (e) {
    e.preventDefault();
    try {
      await api("POST", "/api/staff/login", { pin: byId("pin").value });
      var next = new URLSearchParams(window.location.search).get("next");
      window.location.href = next && next.charAt(0) === "/" && next.charAt(1) !== "/" ? next : "/staff";
    } catch (err) {
      showError(byId("login-msg"), err);
    }
  });
}

// -- health ---------------------------------------------------------------------------------

function latency(stats) {
  if (!stats || stats.median_ms === null || stats.median_ms === undefined) { return "—"; }
  return ngettext("median %(median)s ms, 99th percentile %(p99)s ms (%(num)d event)",
    "median %(median)s ms, 99th percentile %(p99)s ms (%(num)d events)", stats.count || 0,
    { median: formatNumber(stats.median_ms), p99: formatNumber(stats.p99_ms) });
}

function linkText(health, backend) {
  if (health.link) {
    var text = health.link.state + (health.link.port ? " — " + health.link.port : "");
    if (health.link.bad_frames) {
      text += " — " + ngettext("%(num)d bad frame", "%(num)d bad frames", health.link.bad_frames);
    }
    return { text: text, lang: "en" };
  }
  return { text: backend === "sim" ? _("none (simulated board)") : _("direct GPIO") };
}

/* What the board service says it is doing (its heartbeat's "status" line, hardware/service/loop.py),
 * said again from the figures it is made of, in the page's language; its own English line only for a
 * service too old to send them. */
function serviceStatus(h, service) {
  if (!service.status) { return "—"; }
  var board = h.board || {};
  if (typeof service.scanner_faulted !== "boolean" || !("game" in service)) { return { text: service.status, lang: "en" }; }
  if (service.scanner_faulted) { return _("scanner faulted: the lamps are off"); }
  var id = service.game;
  if (id === null) { return _("%(board)s ready, no game", { board: backendName((h.health || {}).backend || board.backend) }); }
  if (service.game_status === "over") { return _("game %(id)s over", { id: id }); }
  if (service.game_status === "abandoned") { return _("game %(id)s abandoned", { id: id }); }
  var anomalies = (board.anomalies || []).length;
  if (anomalies) {
    return ngettext("game %(id)s paused: %(num)d anomaly", "game %(id)s paused: %(num)d anomalies", anomalies, { id: id });
  }
  var game = board.game && board.game.view ? board.game : null;
  var seat = game && game.view.to_move !== null ? game.view.seats[game.view.to_move] : null;
  return seat ? _("game %(id)s: %(name)s to play", { id: id, name: seat.name }) : _("game %(id)s running", { id: id });
}

function summaryItems(h) {
  var health = h.health || {};
  var service = health.service || {};
  var backend = health.backend || h.board.backend;
  var faulted = health.faulted === undefined ? h.board.scanner_faulted : health.faulted;
  return [
    [_("Board service"), h.service.running ? { text: _("running"), cls: "good" } : { text: _("not running"), cls: "bad" }],
    [_("Last heartbeat"), typeof h.service.heartbeat_age === "number"
      ? _("%(seconds)s s ago", { seconds: formatNumber(h.service.heartbeat_age, { maximumFractionDigits: 1 }) }) : "—"],
    [_("Service status"), serviceStatus(h, service)],
    [_("Board"), backend ? backendName(backend) : "—"],
    [_("Link"), linkText(health, backend)],
    [_("Scans per second"), typeof health.scans_per_second === "number" ? formatNumber(health.scans_per_second) : "—"],
    [_("Scan time"), typeof health.last_scan_seconds === "number"
      ? _("%(ms)s ms", { ms: formatNumber(health.last_scan_seconds * 1000, { maximumFractionDigits: 2 }) }) : "—"],
    [_("Pawn → lamp"), latency(service.event_to_lamp)],
    [_("Pawn → journal"), latency(service.event_to_journal)],
    [_("Scanner faulted"), faulted ? { text: _("yes: the lamps are off for safety"), cls: "bad" } : { text: _("no"), cls: "good" }],
    [_("Game running"), yes(h.game_running)]
  ];
}

function showSummary(h) {
  var summary = byId("health-summary");
  summary.textContent = "";
  summaryItems(h).forEach(function (item) {
    var value = typeof item[1] === "object" ? item[1] : { text: item[1] };
    summary.appendChild(el("dt", {}, item[0]));
    var attrs = {};
    if (value.lang) { attrs.lang = value.lang; }
    if (value.cls) { attrs["class"] = value.cls; }
    summary.appendChild(el("dd", attrs, value.text));
  });
}

function showHealthTables(h) {
  var health = h.health || {};
  var faults = (health.faults || []).concat(h.board.faults || []);
  var seen = {};
  faults = faults.filter(function (f) {
    var key = f.kind + "|" + f.slot + "|" + f.message;
    if (seen[key]) { return false; }
    seen[key] = true;
    return true;
  });
  byId("no-faults").hidden = fillTable("faults", faults.map(function (f) {
    return [faultText(f).text, f.slot || "—", { text: f.message || "—", lang: "en" }];
  })) > 0;
  byId("no-references").hidden = fillTable("references", (health.references || []).map(function (r) {
    return [r.multiplexer, r.channel, level(r.expected), level(r.read),
      r.ok ? { text: _("yes"), cls: "good" } : { text: _("NO"), cls: "bad" }];
  })) > 0;
  // Lamp feedback: only boards with current inputs have any; the others say so.
  var feedback = health.lamp_feedback && typeof health.lamp_feedback === "object" ? health.lamp_feedback : {};
  byId("no-feedback").hidden = fillTable("lamp-feedback", Object.keys(feedback).sort().map(function (lamp) {
    var f = feedback[lamp] || {};
    var right = !!f.on === !!f.current;
    return [lamp, yes(f.on), yes(f.current), right ? { text: _("yes"), cls: "good" } : { text: _("NO"), cls: "bad" }];
  })) > 0;
}

var faultSlots = null;

function severity(history) {
  if (!history) { return "clean"; }
  var faults = Object.keys(history.faults || {}).filter(function (k) { return k !== "flicker"; });
  var flickers = (history.flicker || 0) + ((history.faults || {}).flicker || 0);
  if (faults.length || flickers >= 5) { return "fault"; }
  return flickers > 0 ? "flicker" : "clean";
}

function slotTrouble(slot, history) {
  var parts = [];
  var flickers = (history.flicker || 0) + ((history.faults || {}).flicker || 0);
  if (flickers) { parts.push(ngettext("flickered %(num)d time", "flickered %(num)d times", flickers)); }
  Object.keys(history.faults || {}).forEach(function (kind) {
    if (kind !== "flicker") { parts.push(faultText({ kind: kind, slot: slot }).text); }
  });
  return slot + " (" + parts.join("; ") + ")";
}

async function showFaultHistory() {
  var history = await api("GET", "/api/staff/slot-history");
  var slots = history.slots || {};
  Object.keys(faultSlots).forEach(function (name) {
    var g = faultSlots[name];
    var level = severity(slots[name]);
    g.setAttribute("data-trouble", level);
  });
  var worst = Object.keys(slots).filter(function (s) { return faultSlots[s] && severity(slots[s]) !== "clean"; })
    .sort(function (a, b) { return (severity(slots[b]) === "fault") - (severity(slots[a]) === "fault") || (a < b ? -1 : 1); });
  byId("to-check").textContent = worst.length
    ? ngettext("%(num)d contact to check: %(slots)s.", "%(num)d contacts to check: %(slots)s.", worst.length,
      { slots: worst.map(function (s) { return slotTrouble(s, slots[s]); }).join(", ") })
    : _("Every contact behaved over the last hour.");
  var boardFaults = Object.keys(history.board || {});
  byId("board-faults").textContent = boardFaults.length
    ? _("Also over the last hour: %(faults)s", { faults: listOf(boardFaults.map(function (k) { return faultText({ kind: k }).text; })) })
    : "";
}

if (byId("health-page")) {
  api("GET", "/api/layout").then(function (layout) {
    faultSlots = drawLayout(byId("fault-board"), layout, {}).slots;
    every(10000, function () { showFaultHistory().catch(function () {}); });
  });
  every(2000, async function () {
    try {
      var h = await api("GET", "/api/staff/health");
      showSummary(h);
      showHealthTables(h);
    } catch (err) {
      showError(byId("health-summary"), err);
    }
  });
}

// -- slot, lamp and self-test ---------------------------------------------------------------------

var testSlots = null;

function showReadings(readings) {
  var present = 0, conducting = 0, faulty = [];
  Object.keys(testSlots).forEach(function (name) {
    var r = readings[name] || { presence: false, conduction: false };
    var state = r.presence ? (r.conduction ? "conducts" : "present") : (r.conduction ? "fault" : "empty");
    testSlots[name].setAttribute("data-reading", state);
    if (r.presence) { present += 1; }
    if (r.presence && r.conduction) { conducting += 1; }
    if (state === "fault") { faulty.push(name); }
  });
  var text = ngettext("%(num)d slot holds a pawn", "%(num)d slots hold a pawn", present) + ", " +
    ngettext("%(num)d of them conducts.", "%(num)d of them conduct.", conducting);
  if (faulty.length) {
    text += " " + _("Conducting without a pawn: %(slots)s.", { slots: listOf(faulty) });
  }
  byId("slots-summary").textContent = text;
}

/* While no game runs, the readings are read twice a second; a running game
 * refuses them, and then the page waits for the game to end (the board's
 * event stream says so) instead of asking again and again. */
function runSlotTest() {
  var timer = null;
  var waiting = null;
  var msg = byId("slots-msg");
  async function read() {
    try {
      var r = await api("GET", "/api/staff/slots");
      msg.textContent = _("Live readings: place and lift pawns to test each slot.");
      showReadings(r.slots);
    } catch (err) {
      if (err.status === 409) { wait(); return; }
      showError(msg, err);
    }
  }
  function poll() { clearInterval(timer); timer = every(500, read); }
  function wait() {
    clearInterval(timer);
    timer = null;
    msg.textContent = _("A game is running: the slot test waits for it to end.");
    showReadings({});
    if (waiting) { return; }
    waiting = follow(function (board) {
      if (!gameRunning(board)) { waiting.close(); waiting = null; poll(); }
    });
  }
  poll();
}

function checkName(name) {
  var names = {
    references: _("Reference channels"), stability: _("Stable readings"), multiplexers: _("Multiplexers"),
    contacts: _("Contacts"), lamps: _("Lamps"), faults: _("Active faults"), link: _("Link to the board")
  };
  if (names[name]) { return names[name]; }
  var lamp = /^lamp (\w+)$/.exec(name);
  return lamp ? _("Lamp %(lamp)s", { lamp: lamp[1] }) : name;
}

/* A check's detail (hardware/selftest.py) by its code, in the page's language; a check without a code
 * (another backend's report) keeps its English sentence, marked as English. */
function selfTestDetail(c) {
  var v = c.values || {};
  var n = typeof v.n === "number" ? v.n : 0;
  switch (c.code) {
    case "references-none": return _("No reference channels configured: a dead multiplexer holding few pawns cannot be told from an empty one.");
    case "references-wrong": return _("Reference channels not at their level: %(channels)s.", v);
    case "references-ok": return ngettext("%(num)d reference channel reads its expected level.", "%(num)d reference channels read their expected level.", n);
    case "stability-unstable": return ngettext("%(num)d channel unstable: %(channels)s.", "%(num)d channels unstable: %(channels)s.", n, { channels: v.channels });
    case "stability-ok": return ngettext("%(num)d channel reads the same on two scans, as settled.", "%(num)d channels read the same on two scans, as settled.", n);
    case "multiplexers-dead": return _("Dead multiplexer(s): %(multiplexers)s; check the power, the signal wires and the ribbon cable.", v);
    case "multiplexers-uniform": return _("Every channel reads one level despite its references: multiplexer(s) %(multiplexers)s.", v);
    case "multiplexers-ok": return ngettext("%(num)d multiplexer answers.", "%(num)d multiplexers answer.", n);
    case "contacts-bad": return _("Conduction without presence in %(slots)s.", v);
    case "contacts-ok": return _("No slot conducts without a pawn.");
    case "lamps-no-feedback": return _("No lamp feedback inputs configured: check the lamps by eye with the test button.");
    case "lamp-dark": return _("Lamp %(lamp)s draws no current when on (bulb, fuse or driver).", v);
    case "lamp-leaks": return _("Lamp %(lamp)s draws current when off (stuck relay or shorted driver).", v);
    case "lamps-ok": return ngettext("%(num)d lamp draws current only when on.", "%(num)d lamps draw current only when on.", n);
    case "faults-none": return _("No active fault.");
    case "faults-active": return { text: v.faults || c.message, lang: "en" };
    case "link-trusted": return _("Readings trusted.");
    case "link-untrusted": return _("Readings cannot be trusted.");
    default: return { text: c.message || "—", lang: "en" };
  }
}

function showSelfTest(report) {
  var checks = report.checks || [];
  var failed = checks.filter(function (c) { return !c.ok; }).length;
  var verdict = byId("self-test-verdict");
  verdict.className = "verdict " + (report.ok ? "good" : "bad");
  verdict.textContent = report.ok
    ? ngettext("Self-test passed: %(num)d check, all good.", "Self-test passed: %(num)d checks, all good.", checks.length)
    : ngettext("Self-test failed: %(num)d check failed.", "Self-test failed: %(num)d checks failed.", failed);
  fillTable("self-test-checks", checks.map(function (c) {
    var result = !c.ok ? { text: _("failed"), cls: "bad" } : (c.warning ? { text: _("warning"), cls: "bad" } : { text: _("passed"), cls: "good" });
    return [checkName(c.name), result, selfTestDetail(c)];
  }));
  byId("self-test-report").hidden = false;
}

if (byId("tests-page")) {
  api("GET", "/api/layout").then(function (layout) {
    testSlots = drawLayout(byId("slot-board"), layout, {}).slots;
    runSlotTest();
  });
  var msg = byId("tests-msg");
  var say = function (t) { msg.removeAttribute("lang"); msg.textContent = t; };
  byId("lamps-on").addEventListener("click", async function () {
    try { await api("POST", "/api/staff/lamp-test", { on: true }); say(_("Lamp test: every lamp on.")); }
    catch (e) { showError(msg, e); }
  });
  byId("lamps-off").addEventListener("click", async function () {
    try { await api("POST", "/api/staff/lamp-test", { on: false }); say(_("Lamp test over.")); }
    catch (e) { showError(msg, e); }
  });
  byId("self-test").addEventListener("click", async function () {
    say(_("Self-test running…"));
    try {
      var r = await api("POST", "/api/staff/self-test");
      say("");
      showSelfTest(r.result || {});
    } catch (e) { showError(msg, e); }
  });
}

// -- games ----------------------------------------------------------------------------------

function showRunningGame(board) {
  var game = board.game;
  var running = gameRunning(board);
  var summary = byId("running-summary");
  var list = byId("running-seats");
  list.textContent = "";
  byId("abandon").hidden = !running;
  var news = running ? checkNews(game.check) : null;
  byId("skip-check").hidden = !news;
  byId("running-check").hidden = !news;
  byId("running-check").textContent = news || "";
  byId("new-game-note").hidden = !running;
  byId("new-game").querySelector("button[type=submit]").disabled = running;
  // The heading follows the game: a finished one is the last game, not a running one.
  byId("running-title").textContent = running ? _("Running game") : (game ? _("Last game") : _("No game running"));
  if (!game) { summary.textContent = _("No game has been played since the board service started."); return; }
  var view = game.view;
  var seats = view.seats || [];
  var moves = (view.moves || []).length;
  var status = running
    ? (board.paused ? _("paused: put the board right") : (seats[view.to_move] ? _("%(name)s to play", { name: seats[view.to_move].name }) : ""))
    : (game.status === "abandoned" ? _("abandoned") : _("over"));
  // Nothing to say of its state (the pre-game check, before anyone is to play): no separator left dangling.
  summary.textContent = status
    ? ngettext("Game %(game)s · %(num)d move · %(status)s", "Game %(game)s · %(num)d moves · %(status)s",
      moves, { game: game.id, status: status })
    : ngettext("Game %(game)s · %(num)d move", "Game %(game)s · %(num)d moves", moves, { game: game.id });
  seats.forEach(function (s, i) {
    list.appendChild(seatItem(s, i, game, { toMove: running && view.to_move === i, seatNumber: true }));
  });
}

var gameForm = byId("new-game");
if (gameForm) {
  var count = byId("player-count");
  var showSeats = function () {
    document.querySelectorAll("fieldset.player").forEach(function (fs) {
      fs.hidden = Number(fs.getAttribute("data-index")) >= Number(count.value);
    });
  };
  count.addEventListener("change", showSeats);
  showSeats();
  var gameMsg = byId("game-msg");
  var refresh = function () { api("GET", "/api/board").then(showRunningGame).catch(function (err) { showError(gameMsg, err); }); };
  refresh();
  follow(showRunningGame);
  gameForm.addEventListener("submit", async function (e) {
    e.preventDefault();
    var n = Number(count.value);
    var players = [];
    for (var i = 0; i < n; i++) {
      players.push({ name: gameForm.elements["name" + i].value, colour: gameForm.elements["colour" + i].value });
    }
    var first = gameForm.elements.first.value;
    var handicap = {};
    ["N", "E", "S", "W"].forEach(function (lamp) {
      var field = gameForm.elements["handicap" + lamp];
      if (field && Number(field.value) > 0) { handicap[lamp] = Number(field.value); }
    });
    try {
      await api("POST", "/api/staff/game", {
        players: players, first: first === "draw" ? "draw" : Number(first), handicap: handicap,
        pregame_check: gameForm.elements.skip_check.checked ? "skip" : "ask"
      });
      gameMsg.removeAttribute("lang");
      gameMsg.textContent = _("Game started.");
      refresh();
    } catch (err) { showError(gameMsg, err); }
  });
  var act = async function (url, done) {
    try {
      await api("POST", url);
      gameMsg.removeAttribute("lang");
      gameMsg.textContent = done;
      refresh();
    } catch (err) { showError(gameMsg, err); }
  };
  byId("skip-check").addEventListener("click", function () {
    act("/api/staff/game/check/skip", _("Pre-game check skipped by staff."));
  });
  byId("abandon").addEventListener("click", function () {
    if (!window.confirm(_("Abandon the running game?"))) { return; }
    act("/api/staff/game/abandon", _("Game abandoned."));
  });
}

// -- journal --------------------------------------------------------------------------------

function journalItem(entry, players) {
  var line = journalLine(entry, players);
  var li = el("li", { "class": "journal-line kind-" + entry.kind, "data-id": String(entry.id) });
  var head = el("span", { "class": "journal-head" });
  head.appendChild(el("time", { datetime: new Date(entry.at * 1000).toISOString() }, formatTime(entry.at)));
  head.appendChild(el("span", { "class": "journal-kind" }, kindName(entry.kind)));
  if (entry.game_id) { head.appendChild(el("span", { "class": "journal-game" }, _("game %(game)s", { game: entry.game_id }))); }
  li.appendChild(head);
  li.appendChild(el("span", { "class": "journal-text" }, line.text));
  if (line.detail) { li.appendChild(el("span", { "class": "journal-detail", lang: "en" }, line.detail)); }
  return li;
}

if (byId("journal-page")) {
  var list = byId("journal");
  var kindField = byId("journal-kind");
  var gameField = byId("journal-game");
  var more = byId("journal-more");
  var oldest = null;   // the id below which older entries are read
  var newest = 0;      // the newest id shown (newer ones are added on top)
  var query = function (extra) {
    var q = "?limit=100" + extra;
    if (kindField.value) { q += "&kind=" + encodeURIComponent(kindField.value); }
    if (gameField.value) { q += "&game=" + encodeURIComponent(gameField.value); }
    return "/api/staff/journal" + q;
  };
  var showGames = function (last) {
    for (var g = gameField.options.length; g <= last; g++) {
      gameField.appendChild(el("option", { value: String(g) }, _("game %(game)s", { game: g })));
    }
  };
  var note = function (r) {
    var msg = byId("journal-msg");
    msg.textContent = r.private_shown ? "" : _("A game is running: which pawns conduct is hidden until it ends.");
  };
  var older = async function () {
    try {
      var r = await api("GET", query("&order=newest" + (oldest ? "&before=" + oldest : "")));
      r.entries.forEach(function (entry) {
        list.appendChild(journalItem(entry, r.players));
        oldest = entry.id;
        newest = Math.max(newest, entry.id);
      });
      if (r.entries.length === 0 && newest === 0) { newest = r.last_id; }
      more.hidden = r.entries.length < 100;
      if (!list.children.length) { list.appendChild(el("li", { "class": "empty-note" }, _("No entry."))); }
      showGames(r.last_game);
      note(r);
    } catch (err) { showError(byId("journal-msg"), err); }
  };
  var newer = async function () {
    if (!newest) { return; }
    try {
      var r = await api("GET", query("&order=oldest&after=" + newest));
      r.entries.forEach(function (entry) {
        var empty = list.querySelector(".empty-note");
        if (empty) { empty.remove(); }
        list.insertBefore(journalItem(entry, r.players), list.firstChild);
      });
      newest = Math.max(newest, r.last_id);
      showGames(r.last_game);
      note(r);
    } catch (err) { /* shown by the next reading */ }
  };
  var restart = function () { list.textContent = ""; oldest = null; newest = 0; older(); };
  kindField.addEventListener("change", restart);
  gameField.addEventListener("change", restart);
  more.addEventListener("click", older);
  older();
  setInterval(newer, 3000);
}
