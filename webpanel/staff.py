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

from flask import Blueprint, Response, current_app, jsonify, redirect, render_template, request, url_for
from flask_babel import lazy_gettext

from games.exc import GameSetupError
from games.hautetension.handicap import MAX_HANDICAP
from games.hautetension.seats import MAX_PLAYERS, MIN_PLAYERS
from games.hautetension.setup import COLOURS, HEX_COLOUR, LAMPS, MAX_NAME, MAX_SEED, GameSetup
from store.commands import CommandKind
from store.journal import BoardState, Entry, Journal, JournalKind
from store.journal_game import read_game
from webpanel import auth, csrf, openapi
from webpanel.auth import staff_required
from webpanel.db import (
    BOARD_GAME_RUNNING,
    NO_BOARD_GAME,
    board_state,
    game_running,
    get_db,
    service_running,
    submit,
)
from webpanel.errors import BAD_QUERY, MAX_WHOLE, ApiError, define_code, json_object, query_int, require_bool
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

BAD_GAME_SETUP = define_code(
    "bad_game_setup", "The players, first player, seed or handicap cannot start a game."
)


# -- pages ------------------------------------------------------------------------


@bp.get("/staff")
def dashboard() -> Any:
    if not auth.is_staff():
        return redirect(url_for("staff.login_page"))
    if current_app.config.get("ROLE") == "event":  # no board of its own: staff's page is the event's
        return redirect(url_for("event.overview"))
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
    response = jsonify({"staff": True, "csrf_token": csrf.token()})
    auth.remember_device(response)
    return response


@bp.post("/api/staff/logout")
def api_logout() -> Response:
    """End this staff session (any copy of its cookie too); ``{"everywhere": true}`` ends all of them."""
    everywhere = False
    if request.content_length:
        everywhere = require_bool(json_object(allowed={"everywhere"}, required={"everywhere"}), "everywhere")
    auth.log_out(everywhere=everywhere)
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
        raise ApiError(409, message, code=BOARD_GAME_RUNNING)


# -- games ------------------------------------------------------------------------


@bp.post("/api/staff/game")
@staff_required
def api_new_game() -> tuple[Response, int]:
    payload = new_game_payload(
        json_object(allowed={"players", "first", "seed", "handicap", "pregame_check"}, required={"players"})
    )
    if game_running(board_state()):
        raise ApiError(409, f"{GAME_RUNNING}: abandon it first", code=BOARD_GAME_RUNNING)
    command = submit(CommandKind.NEW_GAME, payload, failed_status=422)
    return jsonify({"ok": True, "result": command.result}), 201


def new_game_payload(body: Mapping[str, Any]) -> dict[str, Any]:
    """The NEW_GAME command for a request body (the first player drawn unless the body says), or an
    :class:`ApiError` listing every bad field (the rules are :class:`GameSetup`'s, as the service's,
    and names in the characters the OpenAPI document lists, :data:`webpanel.openapi.NAME_BLOCKS`)."""
    try:
        payload = GameSetup.from_payload(body, first="draw").to_payload()
    except GameSetupError as exc:
        raise ApiError(400, str(exc), code=BAD_GAME_SETUP) from None
    _check_names(body.get("players"))
    return payload


def _check_names(players: Any) -> None:
    if not isinstance(players, list):
        return  # GameSetup says what is wrong
    for index, player in enumerate(players):
        name = player.get("name") if isinstance(player, dict) else player
        if isinstance(name, str) and not openapi.matches_name(name, MAX_NAME):
            raise ApiError(
                400,
                f"players[{index}].name must be 1 to {MAX_NAME} letters, digits, spaces, punctuation or "
                "symbols (Latin, Greek, Cyrillic, kana, CJK or Hangul)",
                code=BAD_GAME_SETUP,
            )


@bp.post("/api/staff/game/abandon")
@staff_required
def api_abandon() -> Response:
    if request.content_length:
        json_object(allowed=set())
    if not game_running(board_state()):
        raise ApiError(409, "no game is running", code=NO_BOARD_GAME)
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
        raise ApiError(400, "order must be oldest or newest", code=BAD_QUERY, params={"name": "order"})
    limit = query_int("limit", JOURNAL_PAGE, high=JOURNAL_PAGE)
    kinds = _query_kinds()
    game = query_int("game", 0) or None
    after, before = query_int("after", 0), query_int("before", 0) or None  # each checked, used or not
    journal = Journal(get_db())
    with_private = not game_running(journal.state())
    if order == "newest":
        entries = journal.newest(before, limit=limit, kinds=kinds, game_id=game)
    else:
        entries = journal.tail(after, limit=limit, kinds=kinds)
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
            code=BAD_QUERY,
            params={"name": "kind"},
        )
    return [JournalKind(name) for name in names] or None


def _players_of(games: set[int], journal: Journal) -> dict[str, list[str]]:
    """The players' names of each game (from its game-start entry), so journal lines can name them."""
    players = {}
    for game in sorted(games):
        start = read_game(journal.newest(kinds=[JournalKind.GAME_START], game_id=game, limit=1)).start
        if start is not None:
            players[str(game)] = [seat.name for seat in start.players]
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


# -- OpenAPI -------------------------------------------------------------------------

_command_errors = {
    "409": openapi.error("Refused (a game is running, or the service's reason)"),
    "503": openapi.error("Board service not responding"),
}
_name_schema = {**openapi.printable_name(MAX_NAME), "description": f"1 to {MAX_NAME} printable characters"}
_player_schema = {
    "anyOf": [
        _name_schema,
        {
            "type": "object",
            "required": ["name"],
            "additionalProperties": False,
            "properties": {
                "name": _name_schema,
                "colour": {
                    "anyOf": [{"enum": list(COLOURS)}, {"type": "string", "pattern": HEX_COLOUR.pattern}],
                    "description": "Default: red, blue, black, white in seat order",
                },
            },
        },
    ],
    "description": "A name, or a name and a colour. Names and colours are compared without case: "
    "no two players alike",
}


def _new_game_schema(players: int) -> dict[str, Any]:
    return {
        "type": "object",
        "required": ["players"],
        "additionalProperties": False,
        "properties": {
            "players": {"type": "array", "minItems": players, "maxItems": players, "items": _player_schema},
            "first": {
                "anyOf": [{"type": "integer", "minimum": 0, "maximum": players - 1}, {"const": "draw"}],
                "description": 'First seat, or "draw" (the default)',
            },
            "seed": {"type": "integer", "minimum": 0, "maximum": MAX_SEED},
            "handicap": {
                "anyOf": [
                    {"type": "null"},
                    {
                        "type": "object",
                        "propertyNames": {"enum": list(LAMPS)},
                        "additionalProperties": {"type": "integer", "minimum": 0, "maximum": MAX_HANDICAP},
                    },
                ],
                "description": "Lamp -> attack pawns placed before play",
            },
            "pregame_check": {
                "enum": ["ask", "skip"],
                "description": 'Lamps checked before play ("ask", the default) or skipped',
            },
        },
    }


_KINDS_PATTERN = "^,*(?:(?:{0})(?:,+(?:{0}))*,*)?$".format("|".join(JournalKind))
"""What _query_kinds takes: journal kinds separated by commas, empty names between them ignored
(the kinds are lowercase words and hyphens: nothing to escape)."""

_no_body = {
    "required": False,
    "content": {"application/json": {"schema": {"type": "object", "additionalProperties": False}}},
}
openapi.add_paths(
    {
        "/api/staff/login": {
            "post": {
                "summary": "Open a staff session with the staff PIN (rate-limited)",
                "description": "Wrong PINs are counted per address, per address block and per staff "
                "device, never in total: a guesser waits, nobody else (docs/webpanel.md).",
                "requestBody": openapi.json_body(
                    {
                        "type": "object",
                        "required": ["pin"],
                        "additionalProperties": False,
                        "properties": {"pin": {"type": "string", "minLength": 1}},
                    }
                ),
                "responses": {
                    "200": openapi.json_response(
                        "Logged in (and this device remembered: the hts_staff_device cookie)",
                        {
                            "type": "object",
                            "required": ["staff", "csrf_token"],
                            "additionalProperties": False,
                            "properties": {"staff": {"const": True}, "csrf_token": {"type": "string"}},
                        },
                    ),
                    "401": openapi.error("Wrong PIN (wrong_pin)"),
                    "403": openapi.error("No PIN set (no_pin_set), or missing CSRF token (csrf_failed)"),
                    "429": openapi.error(
                        "Too many wrong PINs from this address or device (too_many_wrong_pins)"
                    ),
                    "500": openapi.error("The stored PIN hash is damaged (pin_hash_damaged)"),
                    "503": openapi.error("The panel is busy checking PINs: retry (pin_check_busy)"),
                },
            }
        },
        "/api/staff/logout": {
            "post": {
                "summary": "End the staff session (every copy of its cookie); with everywhere, every "
                "staff session",
                "requestBody": {
                    "required": False,
                    "content": {
                        "application/json": {
                            "schema": {
                                "type": "object",
                                "required": ["everywhere"],
                                "additionalProperties": False,
                                "properties": {"everywhere": {"type": "boolean"}},
                            }
                        }
                    },
                },
                "responses": {"200": openapi.json_response("Logged out")},
            }
        },
        "/api/staff/health": {
            "get": {
                "summary": "Service heartbeat, backend health (link, scan rate, latency, faults, flicker, "
                "references, lamp feedback) and the public board",
                "responses": {"200": openapi.json_response("Health")},
            }
        },
        "/api/staff/slots": {
            "get": {
                "summary": "Slot test: raw presence and conduction per slot (refused during a game)",
                "responses": {
                    "200": openapi.json_response("Readings"),
                    "409": openapi.error("A game is running"),
                },
            }
        },
        "/api/staff/lamp-test": {
            "post": {
                "summary": "Light every lamp (on) or end the lamp test (refused during a game)",
                "requestBody": openapi.json_body(
                    {
                        "type": "object",
                        "required": ["on"],
                        "additionalProperties": False,
                        "properties": {"on": {"type": "boolean"}},
                    }
                ),
                "responses": {"200": openapi.json_response("Done"), **_command_errors},
            }
        },
        "/api/staff/self-test": {
            "post": {
                "summary": "Run the board's self-test (refused during a game)",
                "requestBody": _no_body,
                "responses": {
                    "200": openapi.json_response("The self-test result"),
                    **_command_errors,
                },
            }
        },
        "/api/staff/game": {
            "post": {
                "summary": "Start a new game",
                "requestBody": openapi.json_body(
                    {"oneOf": [_new_game_schema(n) for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)]}
                ),
                "responses": {
                    "201": openapi.json_response("Started"),
                    **_command_errors,
                    "422": openapi.error("The service could not set up this game (its reason)"),
                },
            }
        },
        "/api/staff/game/abandon": {
            "post": {
                "summary": "Abandon the running game",
                "requestBody": _no_body,
                "responses": {"200": openapi.json_response("Abandoned"), **_command_errors},
            }
        },
        "/api/staff/game/check/skip": {
            "post": {
                "summary": "Skip the pre-game check of the game being set up (journaled as skipped)",
                "requestBody": _no_body,
                "responses": {"200": openapi.json_response("Skipped"), **_command_errors},
            }
        },
        "/api/staff/journal": {
            "get": {
                "summary": "Read the journal (private payloads only when no game is running)",
                "parameters": [
                    {
                        "name": "after",
                        "in": "query",
                        "schema": {"type": "integer", "minimum": 0, "maximum": MAX_WHOLE},
                    },
                    {
                        "name": "limit",
                        "in": "query",
                        "schema": {"type": "integer", "minimum": 0, "maximum": JOURNAL_PAGE},
                    },
                    {"name": "before", "in": "query",
                     "schema": {"type": "integer", "minimum": 0, "maximum": MAX_WHOLE},
                     "description": "With order=newest: entries below this id"},
                    {"name": "order", "in": "query", "schema": {"enum": ["oldest", "newest"]}},
                    {"name": "kind", "in": "query", "schema": {"type": "string", "pattern": _KINDS_PATTERN},
                     "description": "One or several journal kinds, comma separated"},
                    {"name": "game", "in": "query",
                     "schema": {"type": "integer", "minimum": 0, "maximum": MAX_WHOLE}},
                ],
                "responses": {
                    "200": openapi.json_response("Entries"),
                    "400": openapi.error("Bad query"),
                },
            }
        },
        "/api/staff/slot-history": {
            "get": {
                "summary": "Each slot's faults over the last hour and its flicker count (the health page's "
                "drawing)",
                "responses": {"200": openapi.json_response("Fault history by slot")},
            }
        },
        "/api/staff/journal/export": {
            "get": {
                "summary": "The whole journal as JSON Lines (a download)",
                "responses": {
                    "200": {"description": "JSON Lines", "content": {"application/x-ndjson": {}}},
                },
            }
        },
    }
)
