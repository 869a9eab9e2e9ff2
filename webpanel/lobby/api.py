"""The lobby's JSON API: create, list, show, play, join, abandon and follow digital games.

Every refusal is a 4xx ``{"error": ...}`` and changes nothing: a move is
checked by the engine on a copy of the game and saved only if it passes,
with the version it was played against.

Looking at a game does not replay it: the panel keeps loaded games by
version (:mod:`webpanel.lobby.cache`), and each answer a version gives a
caller is computed once and sent as stored bytes to every request with the
same caller rights (seat, host) and computer state.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Hashable, Iterator
from typing import Any

from flask import Response, current_app, jsonify, request, url_for

from games import frame
from games.exc import GameError, GameOverError, IllegalMoveError
from games.frame import AI_LEVELS, CHANCE, GAMES, BadOptionsError, DigitalGame, UnknownGameError
from store.games import (
    ENDED_WORDS,
    OPEN,
    GameEndedError,
    GameNotFoundError,
    GameRecord,
    JoinError,
    OpenGameLimits,
    SeatRecord,
    SeatSpec,
    StaleGameError,
    TooManyGamesError,
)
from store.move_requests import MAX_REQUEST_ID, MoveRequests, is_request_id
from webpanel.auth import is_staff
from webpanel.errors import ApiError, bad_field, json_object, require_int, whole_number
from webpanel.hub import ChangeHub, Notice, game_topic, hub_of
from webpanel.live import LiveStream
from webpanel.lobby.blueprint import bp, games, lobby_settings, runner, store
from webpanel.lobby.cache import LoadedGame
from webpanel.lobby.clock import watch_game
from webpanel.lobby.codes import (
    BAD_OPTIONS,
    BAD_SEATS,
    CODE_NOT_FOUND,
    COMPUTER_TURN,
    ENDED_CODES,
    GAME_MOVED_ON,
    GAME_NOT_FOUND,
    GAME_OVER,
    HOST_ONLY,
    ILLEGAL_MOVE,
    LOBBY_FULL,
    NO_HOT_SEAT,
    NO_SEAT,
    NO_SUCH_POSITION,
    NOT_HOST,
    NOT_YOUR_TURN,
    SEAT_TAKEN,
    TOO_MANY_GAMES_HERE,
    UNKNOWN_GAME,
)
from webpanel.lobby.names import default_seat_name
from webpanel.lobby.runner import computer_to_act, dice_entered, settle_chance
from webpanel.seats import (
    Caller,
    client_address,
    guess,
    host_cookie,
    identify,
    right_guess,
    seat_cookie,
    set_token_cookie,
)
from webpanel.stream import BoardFollower, last_event_id, sse, sse_response, take_place

MAX_NAME = 40
MAX_SEED = 2**32 - 1
LIST_LIMIT = 50


# -- shared helpers -------------------------------------------------------------------


def known_games() -> dict[str, type[DigitalGame]]:
    frame.load_builtin_games()  # the games that ship with the project register on import
    return dict(sorted(GAMES.items()))


def load_game(game_id: int) -> LoadedGame:
    """The game as stored now (from memory when this version is loaded already), or 404.

    A game nobody touched for ``[lobby] expire_idle_hours`` ends as expired when it is looked at.
    """
    try:
        loaded = games().load(store(), game_id)
        idle_since = time.time() - lobby_settings().expire_idle_seconds
        if loaded.record.is_open() and loaded.record.updated_at < idle_since \
                and store().expire_idle(before=idle_since, game_id=game_id):
            loaded = games().load(store(), game_id)
    except GameNotFoundError as exc:
        raise ApiError(404, str(exc), code=GAME_NOT_FOUND) from None
    return loaded


def load_record(game_id: int) -> GameRecord:
    return load_game(game_id).record


def game_ended(status: str) -> ApiError:
    """The refusal of a move, join or abandon in a game that ended (over, abandoned, expired)."""
    return ApiError(409, ENDED_WORDS.get(status, "the game is not running"),
                    code=ENDED_CODES.get(status, GAME_OVER))


def ended_since(game_id: int) -> ApiError:
    """:func:`game_ended` for a game that ended while the request was being answered."""
    return game_ended(store().head(game_id).status)


def cached_json(loaded: LoadedGame, key: Hashable, build: Callable[[DigitalGame], Any]) -> Response:
    """A JSON answer computed from this version of the game once per *key*, then sent as stored.

    *key* must name everything the answer depends on besides the game's version: for a view,
    the caller's seat and rights (one seat's view is never sent to another).
    """
    body: bytes = loaded.answer(key, lambda game: jsonify(build(game)).get_data())
    return current_app.response_class(body, mimetype="application/json")


def tell_pages(record: GameRecord) -> None:
    """Wake the pages following the game at once (the hub's watcher would hear of it a moment later)."""
    hub = hub_of(current_app.extensions)
    hub.publish(game_topic(record.id), version=record.version, status=record.status)


def poke_if_computer(record: GameRecord, to_act: int | None, *, watch: bool = True) -> None:
    """Wake the game's computer players if one is to act; with *watch*, let the game watch know of it."""
    if record.is_open() and computer_to_act(record, to_act) is not None:
        runner().poke(record.id, version=record.version)
    if watch:
        watch_game(record)  # turn timer and tournament result (webpanel/lobby/clock.py)


def look_after(loaded: LoadedGame) -> None:
    """:func:`poke_if_computer` for a kept version, on every look at it: the computers at each look (a
    lock in memory), the watch at the first look at each version only (it reads the tournament tables,
    and what it acts on -- a timer, a tournament table, an end -- changes only with a new version)."""
    to_act = loaded.answer("to_act", lambda game: game.to_act)
    poke_if_computer(loaded.record, to_act, watch=loaded.first_look())


def has_default_name(seat: SeatRecord) -> bool:
    """Whether the seat was created without a name (pages then name it in their own language)."""
    return seat.name == default_seat_name(seat.kind, seat.level, seat.seat)


def seat_json(record: GameRecord, caller: Caller) -> list[dict[str, Any]]:
    seats = []
    for seat in record.seats:
        entry: dict[str, Any] = {"seat": seat.seat, "name": seat.name, "kind": seat.kind, "level": seat.level,
                                 "joined": seat.joined, "you": caller.seat == seat.seat,
                                 "default_name": has_default_name(seat)}
        if caller.host and seat.join_code and not seat.joined and record.is_open():
            # Only the display that created the game shows the way in.
            entry["join_code"] = seat.join_code
            entry["join_url"] = url_for("lobby.join_page", code=seat.join_code)
            entry["qr_url"] = url_for("lobby.join_qr", code=seat.join_code)
        seats.append(entry)
    return seats


def enters_dice(record: GameRecord, game: DigitalGame, caller: Caller) -> bool:
    """Whether this caller may enter the real dice the game waits for.

    The display that created the game enters any roll (hot seat, computer
    seats); a tablet enters the rolls of its own seat (the view's ``rolling``).
    """
    if game.to_act != CHANCE or not dice_entered(game) or not record.is_open():
        return False
    if caller.host:
        return True
    return caller.seat is not None and caller.seat == game.view().get("rolling")


def game_json(record: GameRecord, game: DigitalGame, caller: Caller, *, live: bool = True,
              computer: tuple[bool, str | None] | None = None) -> dict[str, Any]:
    """The game as this caller may see it; legal moves only for the one who acts.

    The move list is the game's own business (in ``view``): a game with
    secrets shows each seat only what it may know of the past. *computer* is
    (thinking, failure) of the game's computer players, read now if not given.
    """
    to_act = game.to_act
    may_move = live and (caller.acts_for(record, to_act) or enters_dice(record, game, caller)) \
        and record.is_open()
    thinking, failure = computer or computer_state(record.id)
    view = game.view(caller.view_seat(record, to_act))
    view.pop("legal_moves", None)
    outcome = game.outcome()
    return {
        "id": record.id,
        "game": record.game,
        "status": record.status,
        "version": record.version,
        "hot_seat": record.hot_seat,
        "created_at": record.created_at,
        "seats": seat_json(record, caller),
        "you": {"seat": caller.seat, "host": caller.host},
        "to_act": to_act,
        "can_move": may_move,
        "legal_moves": game.legal_moves() if may_move else None,
        "ai_thinking": thinking,
        "ai_error": failure,
        "outcome": None if outcome is None else outcome.to_json(),
        "moves": len(game.history),
        "view": view,
    }


def computer_state(game_id: int) -> tuple[bool, str | None]:
    """Whether the game's computer players think now, and why they failed (if they did)."""
    return runner().is_thinking(game_id), runner().failure(game_id)


def state_response(loaded: LoadedGame, caller: Caller, *, at: int | None = None) -> Response:
    """The game (or with *at* its position after that many moves) as *caller* may see it."""
    record = loaded.record
    computer = computer_state(record.id)
    key = ("state", at, caller.seat, caller.host, computer)  # all a state answer depends on
    if at is None:
        return cached_json(loaded, key, lambda game: game_json(record, game, caller, computer=computer))

    def past(game: DigitalGame) -> dict[str, Any]:
        position = type(game).from_json({**game.to_json(), "moves": game.history[:at]})
        payload = game_json(record, position, caller, live=False, computer=computer)
        payload["at"] = at
        payload["total_moves"] = len(game.history)
        return payload

    return cached_json(loaded, key, past)


def summary_json(record: GameRecord) -> dict[str, Any]:
    return {
        "id": record.id, "game": record.game, "status": record.status, "version": record.version,
        "hot_seat": record.hot_seat, "created_at": record.created_at,
        "seats": [{"seat": s.seat, "name": s.name, "kind": s.kind, "level": s.level, "joined": s.joined,
                   "default_name": has_default_name(s)} for s in record.seats],
        "moves": len(record.state.get("moves", [])),
    }


# -- creating ---------------------------------------------------------------------------


def _seat_specs(game_name: str, raw: Any) -> list[SeatSpec]:
    cls = known_games()[game_name]
    if not isinstance(raw, list):
        raise ApiError(400, "seats must be a list of {kind, level, name}", code=BAD_SEATS)
    if not cls.min_players <= len(raw) <= cls.max_players:
        low, high = cls.min_players, cls.max_players
        span = f"{low}-{high}" if low != high else str(low)
        raise ApiError(400, f"{game_name} is played by {span} players, not {len(raw)}", code=BAD_SEATS)
    levels = AI_LEVELS.get(game_name, {})
    specs = []
    for number, seat in enumerate(raw):
        where = f"seat {number}"
        if not isinstance(seat, dict):
            raise ApiError(400, f"{where} must be an object {{kind, level, name}}", code=BAD_SEATS)
        unknown = sorted(set(seat) - {"kind", "level", "name"})
        if unknown:
            raise ApiError(400, f"{where}: unknown field(s): {', '.join(unknown)}", code=BAD_SEATS)
        kind = seat.get("kind")
        if kind not in ("human", "ai"):
            raise ApiError(400, f"{where}: kind must be \"human\" or \"ai\"", code=BAD_SEATS)
        level = seat.get("level")
        if kind == "ai":
            if not isinstance(level, str) or level not in levels:
                known = ", ".join(levels) or "none"
                raise ApiError(400, f"{where}: the computer level must be one of {known}", code=BAD_SEATS)
        elif level is not None:
            raise ApiError(400, f"{where}: a human seat has no level", code=BAD_SEATS)
        name = seat.get("name")
        if name is None or name == "":
            name = default_seat_name(kind, level, number)
        if not isinstance(name, str) or len(name.strip()) == 0 or len(name) > MAX_NAME:
            raise ApiError(400, f"{where}: the name must be text of 1 to {MAX_NAME} characters",
                           code=BAD_SEATS)
        specs.append(SeatSpec(kind=kind, name=name.strip(), level=level))
    return specs


@bp.post("/api/games")
def api_create() -> Response:
    body = json_object(allowed={"game", "seats", "options", "seed", "hot_seat"}, required={"game", "seats"})
    name = body["game"]
    if not isinstance(name, str) or name not in known_games():
        raise ApiError(400, f"unknown game {name!r} (known: {', '.join(known_games())})", code=UNKNOWN_GAME)
    specs = _seat_specs(name, body["seats"])
    options = body.get("options", {})
    if not isinstance(options, dict):
        raise ApiError(400, "options must be a JSON object", code=BAD_OPTIONS)
    seed = body.get("seed")
    if seed is not None:
        seed = require_int(seed, "seed", low=0, high=MAX_SEED)
    hot_seat = body.get("hot_seat", False)
    if not isinstance(hot_seat, bool):
        raise bad_field("hot_seat", "hot_seat must be true or false")
    if hot_seat and known_games()[name].hidden_information:
        raise ApiError(400, f"{name} hides each seat's secrets: it cannot be played hot seat, "
                            "join the seats from phones or tablets", code=NO_HOT_SEAT)
    try:
        game = known_games()[name].new([s.name for s in specs], options=options, seed=seed)
        settle_chance(game)
    except (BadOptionsError, UnknownGameError) as exc:
        code = UNKNOWN_GAME if isinstance(exc, UnknownGameError) else BAD_OPTIONS
        raise ApiError(400, str(exc), code=code) from None
    except GameError as exc:
        raise ApiError(400, f"cannot start this game: {exc}", code=BAD_OPTIONS) from None
    record, host_token = create_game(game, specs, hot_seat=hot_seat)
    poke_if_computer(record, game.to_act)
    return created_response(record, game, host_token, url_for("lobby.api_game", game_id=record.id))


def create_game(game: DigitalGame, specs: list[SeatSpec], *, hot_seat: bool,
                limits: OpenGameLimits | None = None) -> tuple[GameRecord, str]:
    """Store a new game if the caps on open games allow it (idle games expire first); 503 when the
    lobby is full, 429 when this device has its share open already."""
    settings = lobby_settings()
    if limits is None:
        # Staff (tournament tables) are trusted with more than a device's share, not with the whole lobby.
        per_device = None if is_staff() else settings.max_open_games_per_device
        limits = OpenGameLimits(total=settings.max_open_games, per_device=per_device)
    games_store = store()
    games_store.expire_idle(before=time.time() - settings.expire_idle_seconds)
    try:
        return games_store.create(game, specs, hot_seat=hot_seat, creator=client_address(), limits=limits)
    except TooManyGamesError as exc:
        if exc.per_device:
            raise ApiError(429, str(exc), code=TOO_MANY_GAMES_HERE) from None
        raise ApiError(503, str(exc), code=LOBBY_FULL, headers={"Retry-After": "60"}) from None


def created_response(record: GameRecord, game: DigitalGame, host_token: str, location: str,
                     **extra: Any) -> Response:
    """201 for a game just made: the host's view, its host token (also as its cookie: this
    device is the host), and *extra* fields."""
    payload = game_json(record, game, Caller(seat=None, host=True, seat_token=None))
    payload["host_token"] = host_token
    payload.update(extra)
    response = jsonify(payload)
    response.status_code = 201
    response.headers["Location"] = location
    set_token_cookie(response, host_cookie(record.id), host_token)
    return response


# -- reading ------------------------------------------------------------------------------


@bp.get("/api/games")
def api_list() -> Response:
    store().expire_idle(before=time.time() - lobby_settings().expire_idle_seconds)
    listed = [summary_json(r) for r in store().recent(limit=LIST_LIMIT)]
    catalogue = [{"game": n, "min_players": c.min_players, "max_players": c.max_players,
                  "levels": list(AI_LEVELS.get(n, {}))} for n, c in known_games().items()]
    return jsonify({"games": listed, "catalogue": catalogue})


@bp.get("/api/games/<id:game_id>")
def api_game(game_id: int) -> Response:
    loaded = load_game(game_id)
    record = loaded.record
    caller = identify(record)
    look_after(loaded)
    raw_at = request.args.get("at")
    if raw_at is None:
        return state_response(loaded, caller)
    # Replay: the position after the first `at` moves, as this caller may see it.
    at = whole_number(raw_at, "at")
    if at > record.moves:
        raise ApiError(404, f"there is no position after {at} moves: the game has {record.moves}",
                       code=NO_SUCH_POSITION)
    return state_response(loaded, caller, at=at)


# -- playing --------------------------------------------------------------------------------


@bp.post("/api/games/<id:game_id>/moves")
def api_move(game_id: int) -> Response:
    """Play a move. With a ``request_id`` (the page's own id for this move) the same move sent again (its
    answer lost, or refused 503 and retried) is played once: the second answer is the game as it is."""
    loaded = load_game(game_id)
    record = loaded.record
    body = json_object(allowed={"move", "version", "request_id"}, required={"move"})
    request_id = _request_id(body.get("request_id"))
    caller = identify(record)
    expected = body.get("version")
    # A move played already made a newer version than the one it was sent against: one sent against this
    # version was not played yet (no need to look it up).
    fresh = isinstance(expected, int) and not isinstance(expected, bool) and expected == record.version
    if request_id is not None and not fresh and MoveRequests(store().conn).played(record.id, request_id) \
            is not None:
        return state_response(loaded, caller)  # played already: the game as it is now
    if not record.is_open():
        raise game_ended(record.status)
    if expected is not None and require_int(expected, "version", low=0, high=2**62) != record.version:
        raise ApiError(409, f"the game moved on (version {record.version}, not {expected}): reload it",
                       code=GAME_MOVED_ON)
    game = loaded.copy()
    _check_turn(record, game, caller)
    try:
        game.push(body["move"])
        settle_chance(game)
    except GameOverError as exc:
        raise ApiError(409, str(exc), code=GAME_OVER) from None
    except IllegalMoveError as exc:
        raise ApiError(422, f"illegal move: {exc}", code=ILLEGAL_MOVE) from None
    try:
        record = store().save(record.id, game, expected_version=record.version, request_id=request_id,
                              played_on=record)
    except StaleGameError as exc:
        if request_id is not None and MoveRequests(store().conn).played(record.id, request_id) is not None:
            return state_response(load_game(record.id), caller)  # the same move, sent twice at once
        raise ApiError(409, str(exc), code=GAME_MOVED_ON) from None
    except GameEndedError:
        raise ended_since(record.id) from None
    # Kept as the new version: the other seats' looks neither read it back nor replay the move, and the
    # mover's answer is its view of that version, stored like any other.
    loaded = games().played(record, game)
    tell_pages(record)
    look_after(loaded)
    return state_response(loaded, caller)


def _request_id(raw: Any) -> str | None:
    if raw is None:
        return None
    if not is_request_id(raw):
        raise bad_field("request_id", f"request_id must be 1 to {MAX_REQUEST_ID} letters, digits or ._:-")
    return raw


def _check_turn(record: GameRecord, game: DigitalGame, caller: Caller) -> None:
    to_act = game.to_act
    if to_act is None:
        raise ApiError(409, "the game is over", code=GAME_OVER)
    acting = record.seats[to_act] if 0 <= to_act < len(record.seats) else None
    if caller.acts_for(record, to_act) or enters_dice(record, game, caller):
        return
    whose = f"seat {to_act} ({acting.name})" if acting is not None else "the game"
    if to_act == CHANCE:
        whose = "the roll of another seat"  # entered dice: the rolling seat or the display enters them
    if acting is not None and acting.is_ai:
        raise ApiError(409, f"not your turn: the computer plays {whose}", code=COMPUTER_TURN)
    if caller.seat is not None:
        raise ApiError(409, f"not your turn: {whose} is to play", code=NOT_YOUR_TURN)
    if record.hot_seat:
        raise ApiError(403, "only the display that created this hot-seat game plays it", code=HOST_ONLY)
    raise ApiError(403, "you hold no seat in this game: join one with its code first", code=NO_SEAT)


@bp.post("/api/games/<id:game_id>/join")
def api_join(game_id: int) -> Response:
    record = load_record(game_id)
    body = json_object(allowed={"code"}, required={"code"})
    code = body["code"]
    if not isinstance(code, str) or not code or len(code) > 32:
        raise bad_field("code", "code must be the seat's join code (text)")
    if not record.is_open():
        raise game_ended(record.status)
    caller = identify(record)
    attempt = guess()
    try:
        seat, token = store().join(record.id, code.strip().lower(), held_token=caller.seat_token)
    except JoinError as exc:
        if "does not open" in str(exc):
            raise ApiError(404, str(exc), code=CODE_NOT_FOUND) from None
        right_guess(attempt)  # the code was right: the seat is taken, or this device holds one
        raise ApiError(409, str(exc), code=SEAT_TAKEN) from None
    except GameEndedError:
        right_guess(attempt)  # the code was right (or the game would not have been looked at)
        raise ended_since(record.id) from None
    right_guess(attempt)
    loaded = games().load(store(), record.id)
    tell_pages(loaded.record)
    caller = Caller(seat=seat, host=caller.host, seat_token=token)
    payload = loaded.read(lambda game: game_json(loaded.record, game, caller))
    payload["seat"] = seat
    payload["token"] = token
    response = jsonify(payload)
    set_token_cookie(response, seat_cookie(record.id), token)
    return response


@bp.post("/api/games/<id:game_id>/abandon")
def api_abandon(game_id: int) -> Response:
    """The host gives the game up: it ends without a result, and stops counting as open."""
    record = load_record(game_id)
    caller = identify(record)
    if not caller.host:
        raise ApiError(403, "only the display that created this game may abandon it", code=NOT_HOST)
    if not record.is_open():
        raise game_ended(record.status)
    try:
        store().abandon(record.id)
    except GameEndedError:
        raise ended_since(record.id) from None
    loaded = games().load(store(), record.id)
    tell_pages(loaded.record)
    return jsonify(loaded.read(lambda game: game_json(loaded.record, game, caller)))


# -- following -------------------------------------------------------------------------------


class GameStream(LiveStream):
    """An SSE body: a ``game`` event with the version each time the game changes.

    Pages then fetch the game (each caller sees its own view: a seat's view of
    a game with secrets is never in the stream). Woken by the process's change
    hub (:mod:`webpanel.hub`), never polling; bounded like every stream
    (:mod:`webpanel.live`). It starts from the game as the request read it
    (or newer, if the hub heard of a change since) and ends when the game ends.
    """

    def __init__(self, follower: BoardFollower, hub: ChangeHub, record: GameRecord, *,
                 last_version: int | None) -> None:
        super().__init__(follower, hub, [game_topic(record.id)])
        self.game_id = record.id
        self.current = (record.version, record.status)
        self.sent = last_version

    def opening(self, before: list[Notice]) -> Iterator[str]:
        for notice in before:
            self._take(notice)
        yield from self._send()

    def changed(self, notice: Notice) -> Iterator[str]:
        self._take(notice)
        yield from self._send()

    def _take(self, notice: Notice) -> None:
        if notice.version is not None and notice.version > self.current[0]:
            self.current = (notice.version, notice.status or OPEN)

    def _send(self) -> Iterator[str]:
        version, status = self.current
        if version != self.sent:
            self.sent = version
            yield sse("game", json.dumps({"version": version, "status": status}), version)
        if status != OPEN:
            self.finished = True  # over, abandoned or expired: nothing more will happen


@bp.get("/api/games/<id:game_id>/events")
def api_events(game_id: int) -> Response:
    record = load_record(game_id)
    last = last_event_id("since")
    follower: BoardFollower = current_app.extensions["board_follower"]
    take_place(follower, retry_after="2")
    return sse_response(GameStream(follower, hub_of(current_app.extensions), record, last_version=last))
