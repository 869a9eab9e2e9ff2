/* The board's records in words, in the page's language: anomalies, faults,
 * how a game ended, lamps that lit. The service writes them with a `kind` (and
 * an English `message` for its log); pages say them from the kind, so a new
 * message never repeats an older one and every language reads the same.
 * A kind this module does not know is shown with the service's English text,
 * marked lang="en" by the caller (see english()). */
import { BOARD } from "/static/layout-draw.js";
import { LANGUAGE, _, el, ngettext, outlineOn, svg } from "/static/panel.js";

// A slot does not match the game (hardware/service/referee.py, AnomalyKind).
var ANOMALIES = {
  "out-of-turn": function (slot) { return _("A pawn was placed on %(slot)s while nobody had the turn: lift it.", { slot: slot }); },
  "two-pawns": function (slot) { return _("A second pawn was placed on %(slot)s in the same turn: lift it.", { slot: slot }); },
  "lifted": function (slot) { return _("The pawn on %(slot)s was lifted: put it back.", { slot: slot }); },
  "changed": function (slot) { return _("The pawn on %(slot)s is not the one placed there: put the right pawn back.", { slot: slot }); },
  "refused": function (slot) { return _("The pawn on %(slot)s cannot be placed now: lift it.", { slot: slot }); },
  "no-game": function (slot) { return _("A pawn was placed on %(slot)s while no game is running: lift it.", { slot: slot }); },
  "handicap": function (slot) { return _("A handicap pawn belongs on %(slot)s: place it.", { slot: slot }); },
  "changed-while-down": function (slot) { return _("%(slot)s changed while the board service was stopped: put it back as it was.", { slot: slot }); }
};

// Something is wrong with the board or its link (hardware/events.py, FaultKind).
var FAULTS = {
  "conduction-without-presence": function (slot) { return _("%(slot)s conducts without a pawn: clean the contact.", { slot: slot }); },
  "flicker": function (slot) { return _("The contact of %(slot)s flickers: clean it.", { slot: slot }); },
  "reference-mismatch": function () { return _("A reference channel reads the wrong level."); },
  "dead-multiplexer": function () { return _("A multiplexer does not answer: check its power and wires."); },
  "disconnected": function () { return _("The board is disconnected."); },
  "link-error": function () { return _("The link to the board has errors."); },
  "lamp-feedback": function () { return _("A lamp does not draw the current it should."); }
};

// How a game ended (games/hautetension/outcome.py, Termination names).
var TERMINATIONS = {
  LAST_PLAYER_STANDING: function () { return _("last player standing"); },
  SIMULTANEOUS_ELIMINATION: function () { return _("the last players' lamps lit together"); },
  FEWER_THAN_TWO_UNLIT_LAMPS: function () { return _("fewer than two lamps unlit"); },
  NO_FREE_SLOT: function () { return _("no free slot"); },
  NO_PAWN_LEFT: function () { return _("no pawn left"); }
};

/* A record in words: {text, english}; english is true when the text is the
 * service's own English message (a kind not known here). */
function said(table, record, argument) {
  var say = table[record.kind];
  if (say) { return { text: say(argument), english: false }; }
  return { text: (record.slot ? record.slot + ": " : "") + (record.message || record.kind || ""), english: true };
}

export function anomalyText(a) { return said(ANOMALIES, a, a.slot); }

export function faultText(f) { return said(FAULTS, f, f.slot); }

export function terminationText(outcome) {
  var say = outcome && TERMINATIONS[outcome.termination];
  return say ? { text: say(), english: false } : { text: (outcome && outcome.reason) || "", english: true };
}

// Names joined as the language does ("Ada, Bob and Cleo").
export function listOf(names) {
  return new Intl.ListFormat(LANGUAGE, { style: "long", type: "conjunction" }).format(names);
}

/* The current problems of a board, each once, newest first: the anomalies and
 * faults of the public board (the full history is in the staff journal). */
export function currentProblems(board) {
  var seen = {};
  var all = board.anomalies.map(function (a) { return { record: a, words: anomalyText(a) }; })
    .concat(board.faults.map(function (f) { return { record: f, words: faultText(f) }; }));
  all.sort(function (p, q) { return (Number(q.record.at) || 0) - (Number(p.record.at) || 0); });
  return all.filter(function (p) {
    var key = (p.record.kind || "") + "|" + (p.record.slot || "") + "|" + p.words.text;
    if (seen[key]) { return false; }
    seen[key] = true;
    return true;
  });
}

/* The lamps lit by the game's last placement, as a sentence naming who is
 * out (the alliance, when a diagonal put out two at once), or null. */
export function lampNews(view) {
  var eliminations = view.eliminations || [];
  var moves = view.moves || [];
  if (!eliminations.length || !moves.length) { return null; }
  var last = eliminations[eliminations.length - 1].move;
  var together = eliminations.filter(function (e) { return e.move === last; });
  var seats = view.seats || [];
  var names = together.map(function (e) { return seats[e.player] ? seats[e.player].name : "?"; });
  var lamps = together.map(function (e) { return e.lamp; });
  var text;
  if (together.length === 1) {
    text = _("Lamp %(lamp)s lit: %(name)s is out.", { lamp: lamps[0], name: names[0] });
  } else {
    text = _("Lamps %(lamps)s lit together: the alliance of %(names)s is out.",
      { lamps: listOf(lamps), names: listOf(names) });
  }
  return { move: last, current: last === moves.length, text: text };
}

/* A seat of a game as a list item: its colour (outlined where it would not
 * show), name, lamp, whether it is out, pawns left, or its points once the
 * game is over. options.toMove marks the player to move; options.seatNumber
 * adds "seat N" (the staff's view). */
export function seatItem(seat, index, game, options) {
  options = options || {};
  var li = el("li", { "class": "seat" + (seat.eliminated ? " out" : "") + (options.toMove ? " to-move" : "") });
  var dot = svg("svg", { "class": "dot", viewBox: "0 0 2 2", width: "1em", height: "1em", "aria-hidden": "true" });
  dot.appendChild(svg("circle", { cx: 1, cy: 1, r: 0.85, fill: seat.colour,
    stroke: outlineOn(seat.colour, BOARD) || "none", "stroke-width": 0.2 }));
  li.appendChild(dot);
  var facts = options.seatNumber ? [_("seat %(num)d", { num: index + 1 })] : [];
  facts.push(_("lamp %(lamp)s", { lamp: seat.lamp }));
  if (seat.eliminated) { facts.push(_("out")); }
  var points = game.points && typeof game.points[index] === "number" ? game.points[index] : null;
  if (points !== null) { facts.push(ngettext("%(num)d point", "%(num)d points", points)); }
  else if (typeof seat.pawns_left === "number") {
    facts.push(ngettext("%(num)d pawn left", "%(num)d pawns left", seat.pawns_left));
  }
  var text = el("span", { "class": "seat-text" });
  text.appendChild(el("span", { "class": "seat-name" }, seat.name));
  text.appendChild(el("span", { "class": "seat-facts" }, facts.join(" · ")));
  li.appendChild(text);
  return li;
}

// -- the journal, for staff ----------------------------------------------------------------------

// What reads the board (the service's backends).
export function backendName(name) {
  var names = { sim: _("simulated board"), gpio: _("GPIO board"), serial: _("microcontroller on the serial link") };
  return names[name] || name || "?";
}

/* The pre-game check (hardware/service/pregame.py): what the display asks of the players while it
 * waits, or null once it is over (passed or skipped). */
export function checkNews(check) {
  if (!check) { return null; }
  if (check.status === "waiting") {
    return check.short ? _("Hold the test button longer: every lamp must light.")
      : _("Before play: hold the test button; every lamp must light.");
  }
  if (check.status === "holding") { return _("Keep holding: every lamp should be lit now."); }
  if (check.status === "confirm") {
    return ngettext("Did lamp %(lamps)s light? Say what you saw.", "Did lamps %(lamps)s light? Say what you saw.",
      check.ask.length, { lamps: listOf(check.ask) });
  }
  if (check.status === "failed") { return checkVerdict("failed", check.failed); }
  return null;
}

/* A check's verdict in words (the journal and the replay say it too); *by*: who skipped a skipped
 * one (staff, or the demo game of make run, where nobody is at the board to hold the button). */
export function checkVerdict(result, failed, by) {
  if (result === "passed") { return _("Pre-game check passed: every lamp lit."); }
  if (result === "skipped" && by === "demo") {
    return _("Pre-game check skipped by the demo game: nobody holds the simulated board's test button.");
  }
  if (result === "skipped") { return _("Pre-game check skipped by staff."); }
  var lamps = failed || [];
  return ngettext("Lamp %(lamps)s did not light: look at its bulb, fuse and driver, then hold the test button again.",
    "Lamps %(lamps)s did not light: look at their bulbs, fuses and drivers, then hold the test button again.",
    lamps.length, { lamps: listOf(lamps) });
}

// A short name for each journal kind (store/journal.py, JournalKind).
var KIND_NAMES = {
  "service-start": function () { return _("Service"); },
  "service-stop": function () { return _("Service"); },
  "scanner": function () { return _("Scanner"); },
  "slot": function () { return _("Slot"); },
  "placement": function () { return _("Move"); },
  "anomaly": function () { return _("Anomaly"); },
  "anomaly-resolved": function () { return _("Anomaly"); },
  "game-start": function () { return _("Game"); },
  "game-resumed": function () { return _("Game"); },
  "game-end": function () { return _("Game"); },
  "lamps": function () { return _("Lamps"); },
  "lamp-test": function () { return _("Lamp test"); },
  "button": function () { return _("Button"); },
  "button-long-press": function () { return _("Button"); },
  "self-test": function () { return _("Self-test"); },
  "fault": function () { return _("Fault"); },
  "fault-cleared": function () { return _("Fault"); },
  "command-refused": function () { return _("Refused"); },
  "pregame-check": function () { return _("Pre-game check"); }
};

export function kindName(kind) { return KIND_NAMES[kind] ? KIND_NAMES[kind]() : kind; }

function seatName(players, game, seat) {
  var names = players[String(game)] || [];
  return typeof seat === "number" ? (names[seat] || _("seat %(num)d", { num: seat + 1 })) : "?";
}

function lampsText(lamps) { return listOf((lamps || []).map(String)); }

var JOURNAL = {
  "service-start": function (p) {
    return p.resumed ? _("The board service started again; game %(game)s goes on.", { game: p.game })
      : _("The board service started (%(backend)s).", { backend: backendName(p.backend) });
  },
  "service-stop": function () { return _("The board service stopped."); },
  "scanner": function (p) {
    return p.faulted ? _("The scanner is faulted: the lamps are off for safety.") : _("The scanner reads the board again.");
  },
  "slot": function (p, entry) {
    var kind = entry.private && entry.private.kind;
    if (p.event === "lifted") { return _("A pawn was lifted from %(slot)s.", { slot: p.slot }); }
    if (kind === "attack") { return _("An attack pawn was placed on %(slot)s.", { slot: p.slot }); }
    if (kind === "defense") { return _("A defense pawn was placed on %(slot)s.", { slot: p.slot }); }
    return _("A pawn was placed on %(slot)s.", { slot: p.slot });
  },
  "placement": function (p, entry, players) {
    var text = typeof p.move === "number"
      ? _("Move %(move)s: %(name)s placed a pawn on %(slot)s.",
        { move: p.move, name: seatName(players, p.game || entry.game_id, p.player), slot: p.slot })
      : _("The pawn on %(slot)s is in the game.", { slot: p.slot });
    if (p.lit && p.lit.length) {
      text += " " + ngettext("Lamp %(lamps)s lit.", "Lamps %(lamps)s lit.", p.lit.length, { lamps: lampsText(p.lit) });
    }
    if (p.eliminated && p.eliminated.length) {
      var out = p.eliminated.map(function (s) { return seatName(players, p.game, s); });
      text += " " + _("Out: %(names)s.", { names: listOf(out) });
    }
    return text;
  },
  "lamps": function (p) {
    if (p.safe) { return _("Lamps off for safety."); }
    var text = p.lit && p.lit.length ? _("Lamps lit: %(lamps)s.", { lamps: lampsText(p.lit) }) : _("Every lamp is off.");
    return p.test ? text + " " + _("(lamp test)") : text;
  },
  "anomaly": function (p) { return anomalyText(p).text; },
  "anomaly-resolved": function (p) { return _("The anomaly on %(slot)s is resolved.", { slot: p.slot }); },
  "game-start": function (p) {
    var names = (p.players || []).map(function (x) { return x && x.name ? x.name : String(x); });
    return _("Game %(game)s started: %(names)s.", { game: p.game, names: listOf(names) });
  },
  "game-resumed": function (p, entry, players) {
    return _("Game %(game)s goes on: %(name)s to play.", { game: p.game, name: seatName(players, p.game, p.to_move) });
  },
  "game-end": function (p, entry, players) {
    var game = p.game || entry.game_id;
    if (p.status === "abandoned") {
      return ngettext("Game %(game)s abandoned after %(num)d move.", "Game %(game)s abandoned after %(num)d moves.",
        p.moves || 0, { game: game });
    }
    var names = ((p.outcome && p.outcome.winners) || []).map(function (s) { return seatName(players, game, s); });
    var result = names.length === 1 ? _("%(name)s wins", { name: names[0] })
      : (names.length ? _("Tie: %(names)s", { names: listOf(names) }) : _("No winner"));
    return _("Game %(game)s over: %(result)s.", { game: game, result: result });
  },
  "fault": function (p) { return faultText(p).text; },
  "fault-cleared": function (p) { return _("Over: %(fault)s", { fault: faultText(p).text }); },
  "button": function (p) { return p.held ? _("Test button pressed.") : _("Test button released."); },
  "button-long-press": function (p) {
    return p.selftest === "run" ? _("Test button held long: self-test.")
      : _("Test button held long: self-test refused during a game.");
  },
  "lamp-test": function (p) { return p.on ? _("Lamp test: every lamp on.") : _("Lamp test over."); },
  "self-test": function (p) {
    return p.ok ? ngettext("Self-test passed (%(num)d check).", "Self-test passed (%(num)d checks).", p.checks || 0)
      : ngettext("Self-test failed (%(num)d check).", "Self-test failed (%(num)d checks).", p.checks || 0);
  },
  "command-refused": function (p) { return _("The board service refused a command (%(command)s).", { command: p.command || "?" }); },
  "pregame-check": function (p) { return checkVerdict(p.result, p.failed, p.by); }
};

/* A journal entry as a line for staff: {text, detail}; detail is the service's
 * own English words (a reason, a message) when they say more, else null. */
export function journalLine(entry, players) {
  var p = entry.public || {};
  var say = JOURNAL[entry.kind];
  var text = say ? say(p, entry, players || {}) : String(entry.kind);
  var detail = null;
  if (entry.kind === "command-refused" && p.reason) { detail = String(p.reason); }
  else if ((entry.kind === "fault" || entry.kind === "scanner") && p.message) { detail = String(p.message); }
  else if (!say) { detail = JSON.stringify(p); }
  return { text: text, detail: detail };
}
