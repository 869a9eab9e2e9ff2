/* A digital game's page: seats, join codes, live updates, move list and replay.
 * The board itself is drawn by the game's own module, which registers with
 * GamePage.register(name, board): board.init(ctx), board.render(state, ctx),
 * optional board.describe(move, index, history), board.status(state) and
 * board.history(state) (the move list, when the game's view has none; the
 * board calls ctx.redrawHistory() once it has fetched it). A board module
 * imports GamePage from this one; the page starts once every module has run.
 * Everything it writes is in the page's language (docs/webpanel.md, "Languages"). */
import { _, api, byId as $, el, ngettext, pgettext } from "/static/panel.js";
import { listOf } from "/static/describe.js";
import { levelAlgorithm, levelName, seatName as nameOfSeat, showRefusal } from "./words.js";

var boards = {};
var page, gameId, gameName, board, ctx;
var live = null;      // the latest state of the game
var replayAt = null;  // null: following the live game; n: showing the position after n moves
var stream = null;
var moving = null;    // the move being posted: its answer brings this seat's new view
var MOVE_TRIES = 3;   // a move refused 503 (busy) is sent again, the same, this many times in all

// A message under the board: a text of the page's own, or an API error (err) said by its code.
function message(text, err) {
  var node = $("message");
  if (err) { showRefusal(node, err); return; }
  node.removeAttribute("lang");
  node.textContent = text || "";
}

function fail(err) { message(null, err); }

function seatName(state, seat) {
  var s = state && state.seats ? state.seats[seat] : null;
  return s ? nameOfSeat(s, state.game) : _("seat %(num)d", { num: seat + 1 });
}

function names(state, seats) { return listOf(seats.map(function (s) { return seatName(state, s); })); }

// A game that ended otherwise than by its rules (its host abandoned it, nobody played it) says so.
function endedStatus(state) {
  if (state.status === "abandoned") { return _("Abandoned by its host"); }
  if (state.status === "expired") { return _("Expired: nobody played it for too long"); }
  return null;
}

function defaultStatus(state) {
  if (state.outcome) {
    if (state.outcome.draw || !state.outcome.winners.length) { return _("Game over: a draw"); }
    return ngettext("Game over: %(names)s wins", "Game over: %(names)s win", state.outcome.winners.length,
      { names: names(state, state.outcome.winners) });
  }
  if (state.to_act === null || state.to_act === undefined) { return ""; }
  var acting = state.seats[state.to_act];
  if (acting && acting.kind === "ai") { return _("%(name)s is thinking…", { name: seatName(state, state.to_act) }); }
  if (state.can_move) {
    return state.you.seat === null ? _("%(name)s, your move", { name: seatName(state, state.to_act) }) : _("Your move");
  }
  return _("%(name)s to play", { name: seatName(state, state.to_act) });
}

async function fetchState(at) {
  var url = "/api/games/" + gameId + (at === null || at === undefined ? "" : "?at=" + at);
  return api("GET", url);
}

// Answers may cross (an event, a move's answer): never go back to an older version.
function newer(state) { return !live || state.version >= live.version; }

async function refresh() {
  var state;
  try {
    state = await fetchState(null);
  } catch (err) {
    fail(err);
    window.setTimeout(refresh, 2000);  // a dropped answer must not leave the screen behind
    return;
  }
  if (!newer(state)) { return; }
  live = state;
  if (replayAt !== null) {
    renderHistory();
    return;
  }
  show(live);
  if (live.status !== "running" && stream) { stream.close(); stream = null; setConn(live.status); }
}

function show(state) {
  page.dataset.version = String(live.version);  // what this screen shows (tests and kiosks wait on it)
  page.dataset.status = live.status;
  var replaying = replayAt !== null;
  ctx.replay = replaying;
  $("status").textContent = replaying
    ? _("Replay: after move %(num)d of %(total)d", { num: replayAt, total: live.moves })
    : endedStatus(live) || (board.status ? board.status(state) : null) || defaultStatus(state);
  board.render(state, ctx);
  renderSeats(live);
  renderHistory();
  $("rematch").hidden = !(live.outcome && live.you.host);
  $("abandon").hidden = !(live.you.host && live.status === "running");
  if (!replaying && live.ai_error) { message(_("A computer player failed: its move is not played (the panel’s log says why).")); }
}

function seatKind(state, seat) {
  if (seat.kind === "ai") { return _("computer, %(level)s", { level: levelName(state.game, seat.level) }); }
  if (state.hot_seat) { return _("on this display"); }
  return seat.joined ? _("seated") : _("free seat");
}

function renderSeats(state) {
  var list = $("seats");
  list.textContent = "";
  state.seats.forEach(function (seat) {
    var item = el("li", { "class": "lobby-seat", "data-seat": seat.seat });
    if (state.to_act === seat.seat && !state.outcome && state.status === "running") { item.classList.add("to-move"); }
    var name = seatName(state, seat.seat);
    item.appendChild(el("span", { "class": "seat-name" }, name));
    var kind = el("span", { "class": "seat-kind" }, " (" + (seat.you ? _("%(kind)s, you", { kind: seatKind(state, seat) })
      : seatKind(state, seat)) + ")");
    if (seat.kind === "ai") { item.title = levelAlgorithm(state.game, seat.level); }
    // A computer's own name says it already ("Computer (medium)"): not said twice.
    if (!(seat.kind === "ai" && seat.default_name)) { item.appendChild(kind); }
    if (seat.join_url) {
      var join = el("div", { "class": "join" });
      join.appendChild(el("img", { "src": seat.qr_url, "alt": _("QR code to join as %(name)s", { name: name }), "class": "qr" }));
      join.appendChild(el("a", { "href": seat.join_url, "class": "join-link" },
        _("code %(code)s", { code: seat.join_code.toUpperCase() })));
      if (state.you.seat === null) {
        var here = el("button", { "type": "button", "class": "play-here", "data-code": seat.join_code },
          _("Play this seat here"));
        here.addEventListener("click", function () { joinHere(seat.join_code); });
        join.appendChild(here);
      }
      item.appendChild(join);
    }
    list.appendChild(item);
  });
}

function historyOf(state) {
  if (board && board.history) { return board.history(state); }  // a board that fetches its own log
  return (state && state.view && Array.isArray(state.view.history)) ? state.view.history : null;
}

function renderHistory() {
  var list = $("history");
  var moves = historyOf(live) || [];
  list.textContent = "";
  moves.forEach(function (move, i) {
    var item = el("li");
    var label = board.describe ? board.describe(move, i, moves) : JSON.stringify(move);
    var button = el("button", { "type": "button", "class": "link history-move", "data-at": i + 1 }, label);
    if (replayAt === i + 1) { button.classList.add("current"); button.setAttribute("aria-current", "step"); }
    button.addEventListener("click", function () { replay(i + 1); });
    item.appendChild(button);
    list.appendChild(item);
  });
  var note = $("replay-note");
  note.hidden = replayAt === null;
  note.textContent = replayAt === null ? ""
    : _("Replaying move %(num)d of %(total)d.", { num: replayAt, total: live.moves });
  var current = list.querySelector(".current");
  if (current && current.scrollIntoView) { current.scrollIntoView({ block: "nearest" }); }
}

async function replay(at) {
  if (!live) { return; }
  if (at === null || at >= live.moves) {
    replayAt = null;
    show(live);
    return;
  }
  replayAt = Math.max(0, at);
  try {
    show(await fetchState(replayAt));
  } catch (err) {
    fail(err);
  }
}

// The page's own id for a move: the same move sent again (an answer lost, a busy server) is played once.
function requestId() {
  if (window.crypto && window.crypto.randomUUID) { return window.crypto.randomUUID(); }
  return Date.now().toString(36) + "-" + Math.random().toString(36).slice(2);
}

// A busy server (503) or a lost answer: the same move again, with the same id, after Retry-After.
async function postMove(body) {
  for (var attempt = 1; ; attempt++) {
    try {
      return await api("POST", "/api/games/" + gameId + "/moves", body);
    } catch (err) {
      var busy = err.status === 503 || err.status === undefined;
      if (!busy || attempt >= MOVE_TRIES) { throw err; }
      var wait = Number((err.params || {}).retry_after) || 1;
      await new Promise(function (done) { window.setTimeout(done, wait * 1000); });
    }
  }
}

async function play(move) {
  message("");
  try {
    moving = postMove({ move: move, version: live.version, request_id: requestId() });
    var state = await moving;
    replayAt = null;
    if (newer(state)) { live = state; }
    show(live);
    return true;
  } catch (err) {
    fail(err);
    await refresh();
    return false;
  } finally {
    moving = null;
  }
}

// The same game and seats again (the display that created this one hosts the next).
async function rematch() {
  var seats = live.seats.map(function (s) {
    var seat = s.kind === "ai" ? { kind: "ai", level: s.level } : { kind: "human" };
    if (!s.default_name) { seat.name = s.name; }  // a default name is made again, in its own words
    return seat;
  });
  try {
    var game = await api("POST", "/api/games", { game: live.game, seats: seats, hot_seat: live.hot_seat });
    window.location.href = "/games/" + game.id;
  } catch (err) {
    fail(err);
  }
}

async function joinHere(code) {
  message("");
  try {
    await api("POST", "/api/games/" + gameId + "/join", { code: code });
  } catch (err) {
    fail(err);
  }
  await refresh();
}

async function abandon() {
  if (!window.confirm(_("Abandon this game? Nobody will be able to play it any more."))) { return; }
  message("");
  try {
    await api("POST", "/api/games/" + gameId + "/abandon");
  } catch (err) {
    fail(err);
  }
  await refresh();
}

function setConn(state) {
  var conn = $("conn");
  conn.dataset.state = state;
  var words = {
    live: pgettext("connection", "live"),
    connecting: _("connecting…"),
    over: _("game over"),
    polling: _("updating"),
    abandoned: _("abandoned"),
    expired: _("expired")
  };
  conn.textContent = words[state] || state;
}

function follow() {
  if (!window.EventSource) {
    setConn("polling");
    window.setInterval(refresh, 2000);
    return;
  }
  // Behind nginx the page subscribes to the game's channel there (data-live); else to the panel's stream.
  stream = new EventSource(page.dataset.live || "/api/games/" + gameId + "/events");
  stream.addEventListener("open", function () { setConn("live"); });
  stream.addEventListener("error", function () { if (stream) { setConn("connecting"); } });
  stream.addEventListener("game", function (event) {
    var data = JSON.parse(event.data);
    // The event of this seat's own move comes with (or before) the move's answer: one fetch, never two.
    var settled = moving ? moving.catch(function () { return null; }) : Promise.resolve(null);
    settled.then(function () { if (!live || data.version > live.version) { refresh(); } });
  });
}

function register(name, impl) { boards[name] = impl; }

function start() {
  page = $("game-page");
  if (!page) { return; }
  gameId = page.dataset.id;
  gameName = page.dataset.game;
  board = boards[gameName] || boards.generic;
  ctx = {
    play: play,
    message: message,
    fail: fail,
    replay: false,
    game: gameName,
    seatName: function (s) { return seatName(live, s); },
    redrawHistory: renderHistory
  };
  board.init(ctx);
  $("replay-first").addEventListener("click", function () { replay(0); });
  $("replay-prev").addEventListener("click", function () {
    replay((replayAt === null ? live.moves : replayAt) - 1);
  });
  $("replay-next").addEventListener("click", function () { if (replayAt !== null) { replay(replayAt + 1); } });
  $("replay-live").addEventListener("click", function () { replay(null); });
  $("rematch").addEventListener("click", rematch);
  $("abandon").addEventListener("click", abandon);
  refresh().then(function () { if (!live || live.status === "running") { follow(); } else { setConn(live.status); } });
}

// Any game without a board page of its own: its view as text, moves typed as JSON.
register("generic", {
  init: function (c) {
    var form = $("generic-move");
    if (!form) { return; }
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var raw = $("generic-input").value;
      var move;
      try { move = JSON.parse(raw); } catch (e) { c.message(_("The move must be written in JSON, like [0, 1].")); return; }
      c.play(move);
    });
  },
  render: function (state, c) {
    var view = $("generic-view");
    if (view) { view.textContent = JSON.stringify(state.view, null, 2); }
    var form = $("generic-move");
    if (form) { form.hidden = !state.can_move || c.replay; }
  }
});

export const GamePage = Object.freeze({ register: register });
document.addEventListener("DOMContentLoaded", start);
