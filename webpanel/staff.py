"""Staff service mode: health, slot and lamp tests, games, self-test and the journal.

Everything here is behind the staff PIN (see :mod:`webpanel.auth`). The raw
slot readings (which pawn conducts) and the journal's private payloads are
shown only while no game is running: a running game excludes service mode's
view of the pawns, so staff cannot learn, or let slip, a player's secret.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Mapping
from typing import Any

from flask import Blueprint, Response, jsonify, redirect, render_template, request, url_for
from flask_babel import lazy_gettext

from games.exc import GameSetupError
from games.hautetension.handicap import MAX_HANDICAP
from games.hautetension.seats import MAX_PLAYERS, MIN_PLAYERS
from games.hautetension.setup import COLOURS, HEX_COLOUR, LAMPS, MAX_NAME, GameSetup
from store.commands import CommandKind
from store.journal import BoardState, Entry, Journal, JournalKind
from webpanel import auth, csrf, openapi
from webpanel.auth import staff_required
from webpanel.db import board_state, game_running, get_db, service_running, submit
from webpanel.errors import ApiError, json_object, require_bool
from webpanel.view import public_board

bp = Blueprint("staff", __name__)

JOURNAL_PAGE = 200
GAME_RUNNING = "a game is running"
COLOUR_NAMES = {
    "red": lazy_gettext("red"),
    "blue": lazy_gettext("blue"),
    "black": lazy_gettext("black"),
    "white": lazy_gettext("white"),
    "green": lazy_gettext("green"),
    "yellow": lazy_gettext("yellow"),
    "orange": lazy_gettext("orange"),
    "purple": lazy_gettext("purple"),
}
"""The players' colours (games.hautetension.setup.COLOURS) as the staff's form names them."""


# -- pages ------------------------------------------------------------------------


@bp.get("/staff")
def dashboard() -> Any:
    if not auth.is_staff():
        return redirect(url_for("staff.login_page"))
    return render_template("staff/health.html")


@bp.get("/staff/login")
def login_page() -> str:
    return render_template("staff/login.html")


@bp.get("/staff/tests")
@staff_required
def tests_page() -> str:
    return render_template("staff/tests.html")


@bp.get("/staff/game")
@staff_required
def game_page() -> str:
    return render_template("staff/game.html", colours=COLOURS, colour_names=COLOUR_NAMES, lamps=LAMPS)


@bp.get("/staff/journal")
@staff_required
def journal_page() -> str:
    return render_template("staff/journal.html")


# -- session ------------------------------------------------------------------------


@bp.post("/api/staff/login")
def api_login() -> Response:
    body = json_object(allowed={"pin"}, required={"pin"})
    auth.log_in(body["pin"])

    return jsonify({"staff": True, "csrf_token": csrf.token()})


@bp.post("/api/staff/logout")
def api_logout() -> Response:
    auth.log_out()
    return jsonify({"staff": False})


# -- health and tests -----------------------------------------------------------


@bp.get("/api/staff/health")
@staff_required
def api_health() -> Response:
    state = board_state()
    running = service_running(state)
    return jsonify(
        {
            "service": {
                "running": running,
                "heartbeat_age": None if state is None else round(time.time() - state.updated_at, 3),
            },
            "game_running": game_running(state),
            "health": state.health if state else None,
            "board": public_board(
                state.public if state else None,
                journal_id=state.journal_id if state else 0,
                service_running=running,
            ),
        }
    )


@bp.get("/api/staff/slots")
@staff_required
def api_slots() -> Response:
    state = board_state()
    _refuse_during_game(state, "the slot test is refused while a game is running")
    return jsonify({"id": state.journal_id if state else 0, "slots": slot_readings(state)})


def slot_readings(state: BoardState | None) -> dict[str, dict[str, bool]]:
    """Presence and conduction per occupied slot, from the service's private state."""
    if state is None:
        return {}
    private = state.private or {}
    raw = private.get("slots")
    if isinstance(raw, Mapping):
        return {
            str(slot): {"presence": bool(r.get("presence")), "conduction": bool(r.get("conduction"))}
            for slot, r in raw.items()
            if isinstance(r, Mapping)
        }
    kinds = next((v for v in (private.get("board"), private.get("pawns")) if isinstance(v, Mapping)), {})
    readings = {}
    for slot in sorted(set(state.public.get("pawns") or {}) | set(kinds)):
        kind = kinds.get(slot)
        if isinstance(kind, Mapping):
            kind = kind.get("kind")
        readings[str(slot)] = {"presence": True, "conduction": kind == "attack"}
    return readings


@bp.post("/api/staff/lamp-test")
@staff_required
def api_lamp_test() -> Response:
    body = json_object(allowed={"on"}, required={"on"})
    on = require_bool(body, "on")
    _refuse_during_game(board_state(), "the lamp test is refused while a game is running")
    submit(CommandKind.LAMP_TEST, {"on": on})
    return jsonify({"ok": True, "on": on})


@bp.post("/api/staff/self-test")
@staff_required
def api_self_test() -> Response:
    if request.content_length:
        json_object(allowed=set())
    _refuse_during_game(board_state(), "the self-test flashes the lamps: refused while a game is running")
    command = submit(CommandKind.SELF_TEST)
    return jsonify({"ok": True, "result": command.result})


def _refuse_during_game(state: BoardState | None, message: str) -> None:
    if game_running(state):
        raise ApiError(409, message)


# -- games ------------------------------------------------------------------------


@bp.post("/api/staff/game")
@staff_required
def api_new_game() -> tuple[Response, int]:
    payload = new_game_payload(
        json_object(allowed={"players", "first", "seed", "handicap", "pregame_check"}, required={"players"})
    )
    if game_running(board_state()):
        raise ApiError(409, f"{GAME_RUNNING}: abandon it first")
    command = submit(CommandKind.NEW_GAME, payload, failed_status=422)
    return jsonify({"ok": True, "result": command.result}), 201


def new_game_payload(body: Mapping[str, Any]) -> dict[str, Any]:
    """The NEW_GAME command for a request body (the first player drawn unless the body says), or an
    :class:`ApiError` listing every bad field (the rules are :class:`GameSetup`'s, as the service's)."""
    try:
        return GameSetup.from_payload(body, first="draw").to_payload()
    except GameSetupError as exc:
        raise ApiError(400, str(exc)) from None


@bp.post("/api/staff/game/abandon")
@staff_required
def api_abandon() -> Response:
    if request.content_length:
        json_object(allowed=set())
    if not game_running(board_state()):
        raise ApiError(409, "no game is running")
    submit(CommandKind.ABANDON_GAME)
    return jsonify({"ok": True})


@bp.post("/api/staff/game/check/skip")
@staff_required
def api_skip_check() -> Response:
    """Staff skip the pre-game check of the game being set up (journaled as skipped)."""
    if request.content_length:
        json_object(allowed=set())
    command = submit(CommandKind.PREGAME_CHECK, {"action": "skip"})
    return jsonify({"ok": True, "check": (command.result or {}).get("check")})


# -- journal ---------------------------------------------------------------------


@bp.get("/api/staff/journal")
@staff_required
def api_journal() -> Response:
    """Oldest first after ``after`` (a program following the journal), or newest first below
    ``before`` with ``order=newest`` (what the journal page reads); ``kind`` (one or several, comma
    separated) and ``game`` filter."""
    order = request.args.get("order", "oldest")
    if order not in ("oldest", "newest"):
        raise ApiError(400, "order must be oldest or newest")
    limit = _query_int("limit", JOURNAL_PAGE, high=JOURNAL_PAGE)
    kinds = _query_kinds()
    game = _query_int("game", 0) or None
    journal = Journal(get_db())
    with_private = not game_running(journal.state())
    if order == "newest":
        before = _query_int("before", 0) or None
        entries = journal.newest(before, limit=limit, kinds=kinds, game_id=game)
    else:
        entries = journal.tail(_query_int("after", 0), limit=limit, kinds=kinds)
        entries = [e for e in entries if game is None or e.game_id == game]
    return jsonify(
        {
            "entries": [_entry(e, with_private) for e in entries],
            "last_id": journal.last_id(),
            "last_game": journal.max_game_id(),
            "players": _players_of({e.game_id for e in entries if e.game_id is not None}, journal),
            "private_shown": with_private,
        }
    )


def _query_kinds() -> list[JournalKind] | None:
    raw = request.args.get("kind") or ""
    names = [name for name in raw.split(",") if name]
    unknown = [name for name in names if name not in set(JournalKind)]
    if unknown:
        raise ApiError(
            400,
            f"kind must be one of {', '.join(JournalKind)} (several: comma separated),"
            f" not {unknown[0][:32]!r}",
        )
    return [JournalKind(name) for name in names] or None


def _players_of(games: set[int], journal: Journal) -> dict[str, list[str]]:
    """The players' names of each game (from its game-start entry), so journal lines can name them."""
    players = {}
    for game in sorted(games):
        start = journal.newest(kinds=[JournalKind.GAME_START], game_id=game, limit=1)
        names = start[0].public.get("players") if start else None
        if isinstance(names, list):
            players[str(game)] = [str(p.get("name") if isinstance(p, Mapping) else p) for p in names]
    return players


FAULT_HISTORY_SECONDS = 3600


@bp.get("/api/staff/slot-history")
@staff_required
def api_slot_history() -> Response:
    """Each slot's faults over the last hour (from the journal) and its flicker count now (from the
    backend's health): the health page colours the board drawing with it. Faults without a slot
    (a dead multiplexer, a reference channel, the link) are listed apart."""
    journal = Journal(get_db())
    since = time.time() - FAULT_HISTORY_SECONDS
    slots: dict[str, dict[str, Any]] = {}
    board_faults: dict[str, int] = {}
    for entry in journal.newest(kinds=[JournalKind.FAULT], since=since, limit=5000):
        kind = str(entry.public.get("kind") or "fault")
        slot = entry.public.get("slot")
        if isinstance(slot, str) and slot:
            counts = slots.setdefault(slot, {"faults": {}, "flicker": 0})["faults"]
            counts[kind] = counts.get(kind, 0) + 1
        else:
            board_faults[kind] = board_faults.get(kind, 0) + 1
    state = journal.state()
    flicker = (state.health or {}).get("flicker") if state else None
    if isinstance(flicker, Mapping):
        for slot, count in flicker.items():
            if isinstance(count, int) and count > 0:
                slots.setdefault(str(slot), {"faults": {}, "flicker": 0})["flicker"] = count
    return jsonify({"seconds": FAULT_HISTORY_SECONDS, "slots": slots, "board": board_faults})


@bp.get("/api/staff/journal/export")
@staff_required
def api_journal_export() -> Response:
    conn = get_db()
    journal = Journal(conn)
    with_private = not game_running(journal.state())
    upto = journal.last_id()

    def lines() -> Iterator[str]:
        after = 0
        while after < upto:
            batch = [e for e in journal.tail(after, limit=500) if e.id <= upto]
            if not batch:
                break
            for entry in batch:
                yield json.dumps(_entry(entry, with_private), separators=(",", ":")) + "\n"
            after = batch[-1].id

    # Built before returning: the request's connection closes at teardown.
    text = "".join(lines())
    response = Response(text, mimetype="application/x-ndjson")
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    response.headers["Content-Disposition"] = f'attachment; filename="hautetension-journal-{stamp}.jsonl"'
    return response


def _entry(entry: Entry, with_private: bool) -> dict[str, Any]:
    out: dict[str, Any] = {
        "id": entry.id,
        "at": entry.at,
        "kind": entry.kind,
        "game_id": entry.game_id,
        "public": entry.public,
    }
    if with_private:
        out["private"] = entry.private
    return out


def _query_int(name: str, default: int, *, high: int = 2**62) -> int:
    raw = request.args.get(name)
    if raw is None or raw == "":
        return default
    if not raw.isdigit() or len(raw) > 18 or not 0 <= int(raw) <= high:
        raise ApiError(400, f"{name} must be a whole number from 0 to {high}")
    return int(raw)


# -- OpenAPI -------------------------------------------------------------------------

_staff = {
    "401": openapi.error("Not logged in as staff"),
    "403": openapi.error("Missing or wrong CSRF token"),
}
_command_errors = {
    "409": openapi.error("Refused (a game is running, or the service's reason)"),
    "503": openapi.error("Board service not responding"),
}
_bad = {"400": openapi.error("Malformed body or field"), "415": openapi.error("Body is not JSON")}
_csrf = [openapi.CSRF_PARAMETER]
_player_schema = {
    "type": "object",
    "required": ["name"],
    "additionalProperties": False,
    "properties": {
        "name": {"type": "string", "minLength": 1, "maxLength": MAX_NAME},
        "colour": {"anyOf": [{"enum": list(COLOURS)}, {"type": "string", "pattern": HEX_COLOUR.pattern}],
                   "description": "Default: red, blue, black, white in seat order"},
    },
    "description": "Names and colours are compared without case: no two players alike",
}
openapi.add_paths(
    {
        "/api/staff/login": {
            "post": {
                "summary": "Open a staff session with the staff PIN (rate-limited)",
                "parameters": _csrf,
                "requestBody": openapi.json_body(
                    {"type": "object", "required": ["pin"], "properties": {"pin": {"type": "string"}}}
                ),
                "responses": {
                    "200": openapi.json_response("Logged in"),
                    "401": openapi.error("Wrong PIN"),
                    "403": openapi.error("No PIN set, or missing CSRF token"),
                    "429": openapi.error("Too many wrong PINs; see Retry-After"),
                    **_bad,
                },
            }
        },
        "/api/staff/logout": {
            "post": {
                "summary": "End the staff session",
                "parameters": _csrf,
                "responses": {
                    "200": openapi.json_response("Logged out"),
                    "403": openapi.error("Missing CSRF token"),
                },
            }
        },
        "/api/staff/health": {
            "get": {
                "summary": "Service heartbeat, backend health (link, scan rate, latency, faults, flicker, "
                "references, lamp feedback) and the public board",
                "responses": {"200": openapi.json_response("Health"), **_staff},
            }
        },
        "/api/staff/slots": {
            "get": {
                "summary": "Slot test: raw presence and conduction per slot (refused during a game)",
                "responses": {
                    "200": openapi.json_response("Readings"),
                    **_staff,
                    "409": openapi.error("A game is running"),
                },
            }
        },
        "/api/staff/lamp-test": {
            "post": {
                "summary": "Light every lamp (on) or end the lamp test (refused during a game)",
                "parameters": _csrf,
                "requestBody": openapi.json_body(
                    {"type": "object", "required": ["on"], "properties": {"on": {"type": "boolean"}}}
                ),
                "responses": {"200": openapi.json_response("Done"), **_staff, **_bad, **_command_errors},
            }
        },
        "/api/staff/self-test": {
            "post": {
                "summary": "Run the board's self-test (refused during a game)",
                "parameters": _csrf,
                "responses": {
                    "200": openapi.json_response("The self-test result"),
                    **_staff,
                    **_command_errors,
                },
            }
        },
        "/api/staff/game": {
            "post": {
                "summary": "Start a new game",
                "parameters": _csrf,
                "requestBody": openapi.json_body(
                    {
                        "type": "object",
                        "required": ["players"],
                        "additionalProperties": False,
                        "properties": {
                            "players": {
                                "type": "array",
                                "minItems": MIN_PLAYERS,
                                "maxItems": MAX_PLAYERS,
                                "items": _player_schema,
                            },
                            "first": {
                                "anyOf": [{"type": "integer", "minimum": 0}, {"const": "draw"}],
                                "description": 'First seat, or "draw" (the default)',
                            },
                            "seed": {"type": "integer", "minimum": 0},
                            "handicap": {
                                "type": "object",
                                "additionalProperties": {
                                    "type": "integer",
                                    "minimum": 0,
                                    "maximum": MAX_HANDICAP,
                                },
                            },
                            "pregame_check": {
                                "enum": ["ask", "skip"],
                                "description": 'Lamps checked before play ("ask", the default) or skipped',
                            },
                        },
                    }
                ),
                "responses": {
                    "201": openapi.json_response("Started"),
                    **_staff,
                    **_bad,
                    **_command_errors,
                    "422": openapi.error("The service could not set up this game (its reason)"),
                },
            }
        },
        "/api/staff/game/abandon": {
            "post": {
                "summary": "Abandon the running game",
                "parameters": _csrf,
                "responses": {"200": openapi.json_response("Abandoned"), **_staff, **_command_errors},
            }
        },
        "/api/staff/game/check/skip": {
            "post": {
                "summary": "Skip the pre-game check of the game being set up (journaled as skipped)",
                "parameters": _csrf,
                "responses": {"200": openapi.json_response("Skipped"), **_staff, **_command_errors},
            }
        },
        "/api/staff/journal": {
            "get": {
                "summary": "Read the journal (private payloads only when no game is running)",
                "parameters": [
                    {"name": "after", "in": "query", "schema": {"type": "integer", "minimum": 0}},
                    {
                        "name": "limit",
                        "in": "query",
                        "schema": {"type": "integer", "minimum": 0, "maximum": JOURNAL_PAGE},
                    },
                    {"name": "before", "in": "query", "schema": {"type": "integer", "minimum": 0},
                     "description": "With order=newest: entries below this id"},
                    {"name": "order", "in": "query", "schema": {"enum": ["oldest", "newest"]}},
                    {"name": "kind", "in": "query", "schema": {"type": "string"},
                     "description": "One or several journal kinds, comma separated"},
                    {"name": "game", "in": "query", "schema": {"type": "integer", "minimum": 0}},
                ],
                "responses": {
                    "200": openapi.json_response("Entries"),
                    **_staff,
                    "400": openapi.error("Bad query"),
                },
            }
        },
        "/api/staff/slot-history": {
            "get": {
                "summary": "Each slot's faults over the last hour and its flicker count (the health page's "
                "drawing)",
                "responses": {"200": openapi.json_response("Fault history by slot"), **_staff},
            }
        },
        "/api/staff/journal/export": {
            "get": {
                "summary": "The whole journal as JSON Lines (a download)",
                "responses": {
                    "200": {"description": "JSON Lines", "content": {"application/x-ndjson": {}}},
                    **_staff,
                },
            }
        },
    }
)
