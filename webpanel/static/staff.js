/* Staff service mode pages: login, health, slot/lamp tests, games, journal. */
import { api, byId, el, showError } from "/static/panel.js";

function shown(value) { return value === null || value === undefined ? "—" : String(value); }

function tableRow(cells) {
  var tr = el("tr");
  cells.forEach(function (c) { tr.appendChild(el("td", {}, shown(c))); });
  return tr;
}

function fillTable(id, rows) {
  var body = byId(id).querySelector("tbody");
  body.textContent = "";
  rows.forEach(function (cells) { body.appendChild(tableRow(cells)); });
}

function every(ms, fn) { fn(); return setInterval(fn, ms); }

// -- login
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

// -- health
if (byId("health-page")) {
  every(1000, async function () {
    try {
      var h = await api("GET", "/api/staff/health");
      var health = h.health || {};
      var summary = byId("health-summary");
      summary.textContent = "";
      var service = health.service || {};
      var latency = function (stats) {
        if (!stats || stats.median_ms === null || stats.median_ms === undefined) { return "—"; }
        return "median " + stats.median_ms + " ms, p99 " + stats.p99_ms + " ms (" + stats.count + ")";
      };
      var link = "direct GPIO" + (health.pin_factory ? " (" + health.pin_factory + ")" : "");
      if (health.link) {
        link = health.link.state + (health.link.port ? " on " + health.link.port : "") +
          (health.link.bad_frames ? ", " + health.link.bad_frames + " bad frames" : "");
      } else if ((health.backend || h.board.backend) === "sim") {
        link = "simulated board";
      }
      var items = [
        ["Board service", h.service.running ? "running" : "NOT RUNNING"],
        ["Heartbeat age (s)", h.service.heartbeat_age],
        ["Status", service.status],
        ["Backend", health.backend || h.board.backend],
        ["Link", link],
        ["Scans per second", health.scans_per_second],
        ["Scan time (s)", health.last_scan_seconds],
        ["Event → lamp latency", latency(service.event_to_lamp)],
        ["Event → journal latency", latency(service.event_to_journal)],
        ["Scanner faulted", health.faulted === undefined ? h.board.scanner_faulted : health.faulted],
        ["Game running", h.game_running ? "yes" : "no"]
      ];
      items.forEach(function (kv) {
        var value = typeof kv[1] === "number" ? Number(kv[1].toPrecision(4)) : kv[1];
        summary.appendChild(el("dt", {}, kv[0]));
        summary.appendChild(el("dd", {}, shown(value)));
      });
      var faults = (health.faults || []).concat(h.board.faults || []);
      fillTable("faults", faults.map(function (f) { return [f.kind, f.slot, f.message]; }));
      var flicker = health.flicker || {};
      if (typeof flicker === "object") {
        fillTable("flicker", Object.keys(flicker).sort().map(function (s) { return [s, flicker[s]]; }));
      } else {
        fillTable("flicker", [["—", String(flicker)]]);  // e.g. hidden during a game
      }
      fillTable("references", (health.references || []).map(function (r) {
        return [r.multiplexer, r.channel, r.expected, r.read, r.ok ? "yes" : "NO"];
      }));
      byId("lamp-feedback").textContent = JSON.stringify(health.lamp_feedback || null, null, 2);
      byId("health-raw").textContent = JSON.stringify(health, null, 2);
    } catch (err) {
      byId("health-summary").textContent = err.message;
    }
  });
}

// -- slot and lamp tests
if (byId("tests-page")) {
  every(500, async function () {
    try {
      var r = await api("GET", "/api/staff/slots");
      byId("slots-msg").textContent = Object.keys(r.slots).length + " slot(s) occupied";
      fillTable("slot-readings", Object.keys(r.slots).sort().map(function (s) {
        return [s, r.slots[s].presence ? "yes" : "no", r.slots[s].conduction ? "conducts" : "does not conduct"];
      }));
    } catch (err) {
      byId("slots-msg").textContent = err.message;
      fillTable("slot-readings", []);
    }
  });
  var say = function (t) { byId("tests-msg").textContent = t; };
  byId("lamps-on").addEventListener("click", async function () {
    try { await api("POST", "/api/staff/lamp-test", { on: true }); say("Lamp test: every lamp on."); } catch (e) { say(e.message); }
  });
  byId("lamps-off").addEventListener("click", async function () {
    try { await api("POST", "/api/staff/lamp-test", { on: false }); say("Lamp test over."); } catch (e) { say(e.message); }
  });
  byId("self-test").addEventListener("click", async function () {
    say("Self-test running…");
    try {
      var r = await api("POST", "/api/staff/self-test");
      say("Self-test done.");
      byId("self-test-result").textContent = JSON.stringify(r.result, null, 2);
    } catch (e) { say(e.message); }
  });
}

// -- games
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
  var msg = function (t) { byId("game-msg").textContent = t; };
  gameForm.addEventListener("submit", async function (e) {
    e.preventDefault();
    var n = Number(count.value);
    var players = [];
    for (var i = 0; i < n; i++) {
      players.push({ name: gameForm.elements["name" + i].value, colour: gameForm.elements["colour" + i].value });
    }
    var first = gameForm.elements.first.value;
    try {
      var handicap = {};
      ["N", "E", "S", "W"].forEach(function (lamp) {
        var field = gameForm.elements["handicap" + lamp];
        if (field && Number(field.value) > 0) { handicap[lamp] = Number(field.value); }
      });
      await api("POST", "/api/staff/game", {
        players: players, first: first === "draw" ? "draw" : Number(first), handicap: handicap
      });
      msg("Game started.");
    } catch (err) { msg(err.message); }
  });
  byId("abandon").addEventListener("click", async function () {
    if (!window.confirm("Abandon the running game?")) { return; }
    try { await api("POST", "/api/staff/game/abandon"); msg("Game abandoned."); } catch (err) { msg(err.message); }
  });
}

// -- journal
if (byId("journal-page")) {
  var after = 0;
  var load = async function () {
    try {
      var r = await api("GET", "/api/staff/journal?after=" + after);
      var body = byId("journal").querySelector("tbody");
      r.entries.forEach(function (entry) {
        body.appendChild(tableRow([entry.id, new Date(entry.at * 1000).toLocaleString(), entry.kind,
          entry.game_id, JSON.stringify(entry.public)]));
        after = entry.id;
      });
      byId("journal-msg").textContent = "Showing entries up to #" + after + " of " + r.last_id +
        (r.private_shown ? "" : " (private payloads hidden: a game is running)");
    } catch (err) { byId("journal-msg").textContent = err.message; }
  };
  byId("journal-more").addEventListener("click", load);
  load();
}
