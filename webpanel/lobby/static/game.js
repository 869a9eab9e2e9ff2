/* A digital game's page: seats, join codes, live updates, move list and replay.
 * The board itself is drawn by the game's own module, which registers with
 * GamePage.register(name, board): board.init(ctx), board.render(state, ctx),
 * optional board.describe(move, index, history), board.status(state) and
 * board.history(state) (the move list, when the game's view has none; the
 * board calls ctx.redrawHistory() once it has fetched it). A board module
 * imports GamePage from this one; the page starts once every module has run. */
import { api, byId as $, el } from "/static/panel.js";

var boards = {};
var page, gameId, board, ctx;
var live = null;      // the latest state of the game
var replayAt = null;  // null: following the live game; n: showing the position after n moves
var stream = null;

function message(text) { $("message").textContent = text || ""; }

function seatName(state, seat) {
  var s = state.seats[seat];
  return s ? s.name : "seat " + seat;
}

// A game its host abandoned, or that nobody played for too long, says so whatever its board would.
function endedStatus(state) {
  return { abandoned: "Abandoned by its host", expired: "Expired: nobody played it for too long" }[state.status];
}

function defaultStatus(state) {
  if (state.outcome) {
    if (state.outcome.draw) { return "Game over: a draw"; }
    return "Game over: " + state.outcome.winners.map(function (w) { return seatName(state, w); }).join(", ") + " won";
  }
  if (state.to_act === null || state.to_act === undefined) { return ""; }
  var acting = state.seats[state.to_act];
  if (acting && acting.kind === "ai") { return acting.name + " is thinking…"; }
  if (state.can_move) { return state.you.seat === null ? acting.name + ", your move" : "Your move"; }
  return (acting ? acting.name : "") + " to play";
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
    message(err.message);
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
  var replaying = replayAt !== null;
  ctx.replay = replaying;
  $("status").textContent = replaying ? "Replay: after move " + replayAt + " of " + live.moves
    : endedStatus(live) || (board.status ? board.status(state) : null) || defaultStatus(state);
  board.render(state, ctx);
  renderSeats(live);
  renderHistory();
  $("rematch").hidden = !(live.outcome && live.you.host);
  $("abandon").hidden = !(live.you.host && live.status === "running");
  if (!replaying && live.ai_error) { message(live.ai_error); }
}

function renderSeats(state) {
  var list = $("seats");
  list.textContent = "";
  state.seats.forEach(function (seat) {
    var item = el("li", { "class": "lobby-seat", "data-seat": seat.seat });
    if (state.to_act === seat.seat && state.status === "running") { item.classList.add("to-move"); }
    var kind = seat.kind === "ai" ? "computer, " + seat.level : (state.hot_seat ? "on this display"
      : seat.joined ? "seated" : "free seat");
    item.appendChild(el("span", { "class": "seat-name" }, seat.name));
    item.appendChild(el("span", { "class": "seat-kind" }, " (" + kind + (seat.you ? ", you" : "") + ")"));
    if (seat.join_url) {
      var join = el("div", { "class": "join" });
      var img = el("img", { "src": seat.qr_url, "alt": "QR code to join as " + seat.name, "class": "qr" });
      join.appendChild(img);
      var link = el("a", { "href": seat.join_url, "class": "join-link" }, "code " + seat.join_code);
      join.appendChild(link);
      if (state.you.seat === null) {
        var here = el("button", { "type": "button", "class": "big play-here", "data-code": seat.join_code },
          "Play this seat here");
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
    if (replayAt === i + 1) { button.classList.add("current"); }
    button.addEventListener("click", function () { replay(i + 1); });
    item.appendChild(button);
    list.appendChild(item);
  });
  var note = $("replay-note");
  note.hidden = replayAt === null;
  note.textContent = replayAt === null ? "" : "Replaying move " + replayAt + " of " + live.moves + ".";
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
    message(err.message);
  }
}

async function play(move) {
  message("");
  try {
    var state = await api("POST", "/api/games/" + gameId + "/moves", { move: move, version: live.version });
    replayAt = null;
    if (newer(state)) { live = state; }
    show(live);
    return true;
  } catch (err) {
    message(err.message);
    await refresh();
    return false;
  }
}

// The same game and seats again (the display that created this one hosts the next).
async function rematch() {
  var seats = live.seats.map(function (s) {
    return s.kind === "ai" ? { kind: "ai", level: s.level, name: s.name } : { kind: "human", name: s.name };
  });
  try {
    var game = await api("POST", "/api/games", { game: live.game, seats: seats, hot_seat: live.hot_seat });
    window.location.href = "/games/" + game.id;
  } catch (err) {
    message(err.message);
  }
}

async function joinHere(code) {
  message("");
  try {
    await api("POST", "/api/games/" + gameId + "/join", { code: code });
  } catch (err) {
    message(err.message);
  }
  await refresh();
}

async function abandon() {
  if (!window.confirm("Abandon this game? Nobody will be able to play it any more.")) { return; }
  message("");
  try {
    await api("POST", "/api/games/" + gameId + "/abandon");
  } catch (err) {
    message(err.message);
  }
  await refresh();
}

function setConn(state) {
  var conn = $("conn");
  conn.dataset.state = state;
  conn.textContent = { live: "live", connecting: "connecting…", over: "game over", polling: "updating",
    abandoned: "abandoned", expired: "expired" }[state] || state;
}

function follow() {
  if (!window.EventSource) {
    setConn("polling");
    window.setInterval(refresh, 2000);
    return;
  }
  stream = new EventSource("/api/games/" + gameId + "/events");
  stream.addEventListener("open", function () { setConn("live"); });
  stream.addEventListener("error", function () { if (stream) { setConn("connecting"); } });
  stream.addEventListener("game", function (event) {
    var data = JSON.parse(event.data);
    if (!live || data.version !== live.version) { refresh(); }
  });
}

function register(name, impl) { boards[name] = impl; }

function start() {
  page = $("game-page");
  if (!page) { return; }
  gameId = page.dataset.id;
  board = boards[page.dataset.game] || boards.generic;
  ctx = { play: play, message: message, replay: false, seatName: function (s) { return seatName(live, s); },
    redrawHistory: renderHistory };
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
      try { move = JSON.parse(raw); } catch (e) { c.message("the move must be JSON"); return; }
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
