/* A player's own page (webpanel/event/players.py): on each `change` of /api/event/stream the page's main part
 * is fetched again (?part=main) and put in place, unless the player is typing; when a new table appears for
 * them, the phone alerts them: a sound, a vibration, and a notification when they allowed it. */
import { draw as drawLayout, showLamps, showPawns } from "/static/layout-draw.js";
import { api, byId } from "/static/panel.js";

var root = byId("player");
var layouts = {};
var audio = null;
var fetching = false;
var again = false;

function tableKey() {
  var state = byId("player-state");
  return state ? state.dataset.round + ":" + state.dataset.table : "";
}

async function layout(name) {
  if (!layouts[name]) { layouts[name] = api("GET", "/api/layouts/" + encodeURIComponent(name)); }
  return layouts[name];
}

async function drawBoard() {
  var figure = byId("live-board");
  if (!figure) { return; }
  var live = JSON.parse(figure.querySelector(".live-data").textContent);
  var seats = live.game && live.game.view ? live.game.view.seats : [];
  var drawn = drawLayout(figure.querySelector("svg"), await layout(live.layout || "pinwheel-80"), {});
  showPawns(drawn.slots, live.pawns || {}, seats);
  showLamps(drawn.lamps, live.lamps ? live.lamps.lit : [], seats);
}

function beep() {
  if (!audio) { return; }
  var now = audio.currentTime;
  [0, 0.25].forEach(function (at) {
    var osc = audio.createOscillator();
    var gain = audio.createGain();
    osc.frequency.value = 880;
    gain.gain.setValueAtTime(0.2, now + at);
    gain.gain.exponentialRampToValueAtTime(0.001, now + at + 0.2);
    osc.connect(gain).connect(audio.destination);
    osc.start(now + at);
    osc.stop(now + at + 0.2);
  });
}

function alertPlayer() {
  var state = byId("player-state");
  var text = state ? state.dataset.alert : "";
  if (navigator.vibrate) { navigator.vibrate([300, 150, 300]); }
  beep();
  if (window.Notification && Notification.permission === "granted" && document.visibilityState !== "visible") {
    try { new Notification(root.dataset.alertTitle, { body: text, tag: "table" }); } catch (_e) { /* not from a page */ }
  }
}

function typing() {
  var active = document.activeElement;
  return active && active.tagName === "INPUT" && root.contains(active) && active.value !== "";
}

var MIN_GAP_MS = 1500;  // a board's placements come quickly: one fetch for a burst of changes
var lastFetch = 0;
var waiting = null;

function refreshSoon() {
  if (waiting) { return; }
  var wait = Math.max(0, lastFetch + MIN_GAP_MS - Date.now());
  waiting = setTimeout(function () { waiting = null; refresh(); }, wait);
}

async function refresh() {
  if (fetching) { again = true; return; }
  fetching = true;
  lastFetch = Date.now();
  try {
    var before = tableKey();
    var response = await fetch(root.dataset.part, { headers: { Accept: "text/html" }, credentials: "same-origin" });
    if (response.ok && !typing()) {
      var html = await response.text();
      var main = byId("player-main");
      if (main.innerHTML !== html) {
        main.innerHTML = html;
        await drawBoard();
        var after = tableKey();
        if (after !== before && after !== ":") { alertPlayer(); }
      }
    }
  } catch (_e) {
    /* the next change tries again */
  } finally {
    fetching = false;
    if (again) { again = false; refreshSoon(); }
  }
}

var button = byId("alert-me");
function alertsOn() {
  button.textContent = button.dataset.on;
  button.setAttribute("aria-pressed", "true");
}
button.addEventListener("click", function () {
  var Context = window.AudioContext || window.webkitAudioContext;
  if (Context && !audio) { audio = new Context(); }  // a tap unlocks the sound for later
  if (window.Notification && Notification.permission === "default") { Notification.requestPermission(); }
  alertsOn();
  beep();
});

drawBoard();
/* The panel's own stream opens with the state this page shows; nginx's channel (/live/event) with the
 * message it keeps, older or newer than the page: there the first message is read as a change too
 * (one fetch of this player's page at most, never a change missed). */
var first = root.dataset.stream.indexOf("/live/") !== 0;
var lost = byId("player-conn");

/* One stream of the event's changes; a stream the server refused (busy: 503) or lost is opened again
 * after a few seconds, spread so that a hall of phones does not come back at once. */
function connect() {
  var source = new EventSource(root.dataset.stream);
  source.addEventListener("change", function () {
    lost.hidden = true;
    if (first) { first = false; return; }  // the panel's own stream: the state this page shows
    refreshSoon();
  });
  source.addEventListener("open", function () { lost.hidden = true; });
  source.addEventListener("error", function () {
    lost.hidden = false;
    if (source.readyState === EventSource.CLOSED) { setTimeout(connect, 3000 + Math.random() * 7000); }
  });
}
connect();
