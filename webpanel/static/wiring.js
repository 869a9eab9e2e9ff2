/* The wiring wizard's page (staff/wiring.html): the board drawn with the slot to fill highlighted and
 * the learned slots marked, the task and the problems in words, and the buttons that steer the wizard
 * the board service runs (GET and POST /api/staff/wiring). */
import { _, api, byId, el, ngettext, showError } from "/static/panel.js";
import { draw } from "/static/layout-draw.js";

var slots = null;      // the drawn slots by name
var chosen = null;     // the slot picked on the drawing, to learn again
var last = null;       // the last answer of GET /api/staff/wiring

function channel(pair) {
  return _("multiplexer %(multiplexer)s channel %(channel)s", { multiplexer: pair[0], channel: pair[1] });
}

function channels(pairs) { return (pairs || []).map(channel).join(", "); }

function instruction(view) {
  var p = { slot: view.slot, leftover: view.leftover };
  if (view.task === "clear") { return _("Clear the board: lift every pawn."); }
  if (view.task === "done") {
    return view.leftover ? _("Every slot is learned. Lift the pawn from %(leftover)s.", p) : _("Every slot is learned.");
  }
  if (view.task === "attack") { return _("Replace the defense pawn on %(slot)s with an attack pawn.", p); }
  if (view.leftover) { return _("Lift the pawn from %(leftover)s, then place a defense pawn on %(slot)s.", p); }
  return _("Place a defense pawn on %(slot)s.", p);
}

/* A problem in words, from its kind; a kind this page does not know keeps the service's English words. */
function problemText(problem) {
  var p = {
    slot: problem.slot, channels: channels(problem.channels), others: (problem.others || []).join(", "),
    other: (problem.others || [])[0], num: problem.count
  };
  switch (problem.kind) {
    case "closed-on-empty-board":
      return _("%(channels)s read closed on a board that should be empty: lift any pawn still standing. A channel that stays closed is a contact stuck closed, or a spare channel tied to the active level: fix it, or leave it out.", p);
    case "pawn-left":
      return _("A pawn is still on %(others)s: lift it first.", p);
    case "still-closed":
      return _("%(channels)s closed before you were asked to fill %(slot)s: a pawn still stands somewhere. Lift it first.", p);
    case "slot-skipped":
      return _("The pawn closed the channels learned for %(other)s. If it stands on %(other)s, move it to %(slot)s. If it does stand on %(slot)s, %(other)s was learned from %(slot)s's contacts (was %(other)s skipped?): learn %(other)s again.", p);
    case "shared-channel":
      return _("The pawn on %(slot)s closed %(channels)s, already learned for %(others)s. If a pawn stands there too, lift it. If not, two slots are wired to one channel: check the wires of %(slot)s and %(others)s, then learn %(others)s again.", p);
    case "no-change":
      return _("Nothing new has closed for %(num)s s. Is the pawn on %(slot)s, and of the kind asked for? If it is, this contact of %(slot)s reaches no channel: check the contact and its wire.", p);
    case "too-many-channels":
      return _("More channels closed than the pawn closes (%(channels)s): an attack pawn instead of a defense pawn, a second pawn, or a short? Leave a single pawn of the kind asked for on %(slot)s.", p);
    case "presence-open":
      return _("%(channels)s closed, but not %(slot)s's presence channel: is the attack pawn on %(slot)s? If it is, its presence contact does not close with it: check the contact, then learn %(slot)s again.", p);
    case "bouncing":
      return _("%(channels)s bounces (%(num)s changes within a second): the contact is loose or dirty. Clean or bend it, and learn its slot again if it was learned while bouncing.", p);
    default:
      return null;
  }
}

function showProblems(problems) {
  var list = byId("wiring-problems");
  list.textContent = "";
  problems.forEach(function (problem) {
    var text = problemText(problem);
    list.appendChild(text === null ? el("li", { lang: "en" }, problem.message) : el("li", {}, text));
  });
}

function status(data) {
  var view = data.wizard;
  if (data.running === "service") { return _("The wizard is running on the board service."); }
  if (data.running === "command") {
    return _("The wizard is running from the command line (%(runner)s): follow it here, steer it there.",
      { runner: data.runner });
  }
  if (!data.service.running) {
    return _("The board service is not running: start it, or run hautetension wiring learn on the Pi.");
  }
  if (view && view.count) {
    return _("Stopped with %(count)s of %(total)s slots learned: Resume goes on from there.",
      { count: view.count, total: view.total });
  }
  return _("Not started. Clear the board, then press Start.");
}

function markBoard(view, running) {
  var learned = (view && view.learned) || {};
  var moved = (view && view.moved) || [];
  Object.keys(slots).forEach(function (name) {
    var g = slots[name];
    g.classList.toggle("learned", name in learned && moved.indexOf(name) < 0);
    g.classList.toggle("moved", moved.indexOf(name) >= 0);
    g.classList.toggle("target", !!running && !!view && view.slot === name);
    g.classList.toggle("lift", !!running && !!view && view.leftover === name);
    g.classList.toggle("chosen", chosen === name);
  });
}

function render(data) {
  last = data;
  var view = data.wizard;
  var running = data.running !== null;
  var steering = data.running === "service";
  byId("wiring-status").textContent = status(data);
  byId("wiring-instruction").textContent = running && view ? instruction(view) : "";
  showProblems(running && view ? view.problems : []);
  byId("wiring-progress").textContent = view
    ? _("%(count)s of %(total)s slots learned", { count: view.count, total: view.total }) : "";
  markBoard(view, running);
  var start = byId("wiring-start");
  start.textContent = view && view.count ? _("Resume") : _("Start");
  start.disabled = running || !data.service.running;
  byId("wiring-stop").disabled = !steering;
  byId("wiring-restart").disabled = running || !data.service.running;
  byId("wiring-redo").disabled = !steering || chosen === null;
  // On the simulated board nobody's hands are on the pawns: this button does what the wizard asks.
  byId("wiring-simulate").hidden = !(steering && data.service.backend === "sim" && view && view.slot);
  byId("wiring-accept").hidden = !(steering && view && view.problems.some(function (p) {
    return p.kind === "closed-on-empty-board";
  }));
  byId("wiring-selected").textContent = chosen === null ? _("Choose a slot on the drawing to learn it again.")
    : _("Chosen: %(slot)s", { slot: chosen });
  var done = !!view && view.complete;
  byId("wiring-done").hidden = !done;
  if (done) {
    byId("wiring-summary").textContent = view.moved.length
      ? ngettext("%(num)d slot is wired otherwise than the configuration says.",
        "%(num)d slots are wired otherwise than the configuration says.", view.moved.length)
      : _("Every slot is where the configuration says: there is nothing to write.");
  }
}

var refreshFailed = false;  // the message shown is the last refresh's error (the next good one clears it)

function pawn(slot, kind) { return api("POST", "/api/sim/slots/" + slot, { pawn: kind }); }

/* The next move the wizard asks for, made on the simulated board (its slots API): lift the pawn left
 * on the previous slot, place the defense pawn, or swap it for an attack pawn. */
async function simulate() {
  var view = last && last.wizard;
  if (!view || !view.slot) { return; }
  try {
    if (view.leftover) {
      await pawn(view.leftover, null);
    } else if (view.task === "defense") {
      await pawn(view.slot, "defense");
    } else if (view.task === "attack") {
      await pawn(view.slot, null).catch(function (err) { if (err.status !== 409) { throw err; } });
      await pawn(view.slot, "attack");
    }
    clearMessage();
  } catch (err) {
    showError(byId("wiring-msg"), err);
  }
}

function clearMessage() {
  var node = byId("wiring-msg");
  node.textContent = "";
  node.removeAttribute("lang");
}

// While a game runs the wizard is refused (it reads raw slot readings): the page waits, every control off.
function duringGame() {
  last = null;
  byId("wiring-status").textContent =
    _("A game is running: the wizard reads raw slot readings, so it waits for the game to end.");
  byId("wiring-instruction").textContent = "";
  showProblems([]);
  ["wiring-start", "wiring-stop", "wiring-restart", "wiring-redo"].forEach(function (id) {
    byId(id).disabled = true;
  });
  byId("wiring-accept").hidden = byId("wiring-simulate").hidden = true;
}

async function refresh() {
  try {
    render(await api("GET", "/api/staff/wiring"));
    if (refreshFailed) { clearMessage(); refreshFailed = false; }
  } catch (err) {
    if (err.status === 409) {
      duringGame();
      clearMessage();
    } else {
      showError(byId("wiring-msg"), err);
    }
    refreshFailed = true;
  }
}

async function act(body) {
  try {
    await api("POST", "/api/staff/wiring", body);
    clearMessage();
  } catch (err) {
    showError(byId("wiring-msg"), err);
  }
  refreshFailed = false;
  await refresh();
}

async function start() {
  var layout = await api("GET", "/api/layout");
  slots = draw(byId("wiring-board"), layout, {
    slotAttributes: function (name) {
      return { tabindex: "0", role: "button", "aria-label": _("Slot %(slot)s", { slot: name }) };
    },
    eachSlot: function (g, name) {
      var pick = function () {
        chosen = chosen === name ? null : name;
        if (last) { render(last); }
      };
      g.addEventListener("click", pick);
      g.addEventListener("keydown", function (e) { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); pick(); } });
    }
  }).slots;
  byId("wiring-start").addEventListener("click", function () { act({ action: "start" }); });
  byId("wiring-stop").addEventListener("click", function () { act({ action: "stop" }); });
  byId("wiring-restart").addEventListener("click", function () {
    if (window.confirm(_("Forget every slot learned so far and start over?"))) { act({ action: "start", restart: true }); }
  });
  byId("wiring-accept").addEventListener("click", function () { act({ action: "accept" }); });
  byId("wiring-simulate").addEventListener("click", simulate);
  byId("wiring-redo").addEventListener("click", function () {
    if (chosen !== null) { act({ action: "redo", slot: chosen }); }
  });
  await refresh();
  setInterval(refresh, 300);
}

if (byId("wiring-page")) { start(); }
