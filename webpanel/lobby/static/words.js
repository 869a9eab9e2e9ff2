/* What the lobby's pages call things, in the page's language: the games, their computer levels,
 * the pieces' colours and the seats (webpanel/lobby/names.py puts the names in the page as the
 * JSON block #lobby-names), and how a page says an API refusal. */
import { _, errorText } from "/static/panel.js";

var NAMES = read();

function read() {
  var block = document.getElementById("lobby-names");
  try {
    var data = block ? JSON.parse(block.textContent) : null;
    if (data && data.titles) { return data; }
  } catch (e) { /* a broken block: the engine's names below */ }
  return { titles: {}, levels: {}, colours: {}, hop: {} };
}

export function gameTitle(game) { return NAMES.titles[game] || game; }

function level(game, name) { return (NAMES.levels[game] || {})[name] || null; }

// "easy", "strong"… (the engine's name for a level the page does not know).
export function levelName(game, name) { var found = level(game, name); return found ? found.name : name; }

// How the level chooses its moves: the tooltip of its name.
export function levelAlgorithm(game, name) { var found = level(game, name); return found ? found.algorithm : ""; }

// A piece's colour by the engine's name (red, yellow…), in words.
export function colourName(colour) { return NAMES.colours[colour] || colour; }

/* *text* with its hyphenated words kept whole ("ci-dessous", "micro-ondes", "tic-tac-toe"): a
 * narrow column breaks a line between words, never at a hyphen. */
export function keepWords(text) { return String(text).replace(/([^\s-])-(?=[^\s-])/g, "$1\u2011"); }

// A |Hop> movement action or effect card by the engine's name ("spin-flip"), or "" when unknown.
export function hopTitle(name) { return (NAMES.hop || {})[name] || ""; }

/* A seat as the page names it: its own name, or, for a seat created without one (the API's
 * English "Computer (random)", "Player 2"), that name in the page's language. */
export function seatName(seat, game) {
  if (!seat) { return ""; }
  if (!seat.default_name) { return seat.name; }
  if (seat.kind === "ai") { return _("Computer (%(level)s)", { level: levelName(game, seat.level) }); }
  return _("Player %(num)d", { num: seat.seat + 1 });
}

/* Say an API refusal in *node*: the text of its code in the page's language; a game's own reason
 * (the engine's English sentence) follows it, marked as English; an error without a known code is
 * the API's English sentence, marked so. */
export function showRefusal(node, err) {
  node.textContent = "";
  node.removeAttribute("lang");
  if (!err) { return; }
  var text = errorText(err);
  if (text === err.message) {
    node.setAttribute("lang", "en");
    node.textContent = text;
    return;
  }
  node.textContent = text;
  var reason = err.code === "illegal_move" || err.code === "bad_options"
    ? String(err.message || "").replace(/^illegal move: /, "") : "";
  if (reason) {
    node.appendChild(document.createTextNode(" "));
    var detail = document.createElement("span");
    detail.setAttribute("lang", "en");
    detail.className = "reason";
    detail.textContent = "(" + reason + ")";
    node.appendChild(detail);
  }
}
