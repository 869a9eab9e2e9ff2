/* The board's records in words, in the page's language: anomalies, faults,
 * how a game ended, lamps that lit. The service writes them with a `kind` (and
 * an English `message` for its log); pages say them from the kind, so a new
 * message never repeats an older one and every language reads the same.
 * A kind this module does not know is shown with the service's English text,
 * marked lang="en" by the caller (see english()). */
import { LANGUAGE, _ } from "/static/panel.js";

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
  var problems = [];
  board.anomalies.map(function (a) { return { record: a, words: anomalyText(a) }; })
    .concat(board.faults.map(function (f) { return { record: f, words: faultText(f) }; }))
    .forEach(function (p) {
      var key = (p.record.kind || "") + "|" + (p.record.slot || "") + "|" + p.words.text;
      if (seen[key]) { return; }
      seen[key] = true;
      problems.push(p);
    });
  problems.sort(function (p, q) { return (Number(q.record.at) || 0) - (Number(p.record.at) || 0); });
  return problems;
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
