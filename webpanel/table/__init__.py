"""The event's table on the board's display: who plays here next, one touch to start, "I agree".

A board that is part of an event (its uplink runs) shows the table the event
server assigned it: the players in seat order with their colours and lamps,
who starts, where the handicap pawns go, and a button that starts that game
on the board. When the game ends each seat taps "I agree" (or staff confirm
for everyone); the confirmation goes to the event server through the outbox
like every journal entry. The board's home page is this page whenever there
is something to do here (a table to start, a result to confirm).

Like every page of the board's display it is public and reveals nothing the
table does not show: the data is the assignment and the public board view.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Flask, Response, jsonify, render_template, url_for

from store.commands import CommandKind
from store.outbox import Outbox
from store.slot_health import SlotHealthStore
from webpanel import openapi, translation_marks
from webpanel.auth import STAFF_ONLY, is_staff
from webpanel.db import BOARD_GAME_RUNNING, board_state, game_running, get_db, submit
from webpanel.errors import ApiError, define_code, json_object, require_int
from webpanel.table.state import NEEDS_THE_TABLE_PAGE, start_payload, table_state
from webpanel.translation_marks import _

NO_TABLE_TO_START = define_code(
    "no_table_to_start", "The event has assigned this board no table to start now."
)
BAD_CONFIRMATION = define_code(
    "bad_confirmation", 'A result is agreed to with {"seat": n} (one seat) or {"all": true} (staff).'
)

bp = Blueprint(
    "table", __name__, template_folder="templates", static_folder="static", static_url_path="/table/static"
)


def current() -> dict[str, Any]:
    return table_state(Outbox(get_db()), board_state())


@bp.get("/table")
def page() -> str:
    return render_template("table/table.html", state=current(), health_check=health_check())


def health_check() -> bool:
    """Whether to offer staff the self-test here: the board's slot health asks for a check (which part is
    for staff pages only), and no game runs."""
    return not game_running(board_state()) and bool(SlotHealthStore(get_db()).findings(limit=1))


@bp.get("/api/table")
def api_table() -> Response:
    return jsonify(current())


@bp.post("/api/table/start")
def api_start() -> tuple[Response, int]:
    """Start the assigned table's game on the board (anyone at the table may: one touch)."""
    json_object(allowed=set())
    state = current()
    if state["phase"] != "assigned":
        raise ApiError(
            409, _("there is no table to start on this board now (%(phase)s)", phase=state["phase"]),
            code=NO_TABLE_TO_START,
        )
    if game_running(board_state()):
        raise ApiError(409, _("a game is running on the board: finish or abandon it first"),
                       code=BOARD_GAME_RUNNING)
    command = submit(CommandKind.NEW_GAME, start_payload(state["assignment"]), failed_status=409)
    return jsonify({"game": (command.result or {}).get("game")}), 201


@bp.post("/api/table/confirm")
def api_confirm() -> Response:
    """One seat agrees to the result (``{"seat": n}``), or staff for everyone (``{"all": true}``)."""
    body = json_object(allowed={"seat", "all"})
    if set(body) == {"all"} and body["all"] is True:
        if not is_staff():
            raise ApiError(401, _("only staff confirm a result for every player: log in first"),
                           code=STAFF_ONLY)
        game = current()["game"] or {}
        payload = {"seats": list(range(len(game.get("seats") or []))), "by": "staff"}
    elif set(body) == {"seat"}:
        payload = {"seats": [require_int(body["seat"], "seat", low=0, high=3)], "by": "player"}
    else:
        raise ApiError(400, _('send {"seat": n} for one seat, or {"all": true} (staff)'),
                       code=BAD_CONFIRMATION)
    command = submit(CommandKind.CONFIRM_RESULT, payload, failed_status=409)
    return jsonify(command.result or {})


def _home() -> str | None:
    """The board's home page is the table page while there is something to do at the table."""
    return url_for("table.page") if current()["phase"] in NEEDS_THE_TABLE_PAGE else None


def init_app(app: Flask) -> None:
    translation_marks.install(app)
    app.extensions["home_page"] = _home


_TABLE_SCHEMA = {
    "type": "object",
    "required": ["phase", "event", "assignment", "game"],
    "properties": {
        "phase": {
            "type": "string",
            "enum": ["no-event", "waiting", "assigned", "playing", "confirm", "confirmed"],
        },
        "event": {
            "type": ["object", "null"],
            "description": "The event this board reports to: its id, this board's id, whether the link is up,"
            " the last acknowledgement and how many rows wait to be sent",
        },
        "assignment": {
            "type": ["object", "null"],
            "description": "The table assigned (docs/event-network.md)",
        },
        "game": {"type": ["object", "null"], "description": "The game on the board, public view"},
    },
}
openapi.add_schemas({"Table": _TABLE_SCHEMA})
openapi.add_paths(
    {
        "/api/table": {
            "get": {
                "summary": "The event's table on this board: assignment, game, confirmation",
                "responses": {
                    "200": openapi.json_response("The table", {"$ref": "#/components/schemas/Table"})
                },
            }
        },
        "/api/table/start": {
            "post": {
                "summary": "Start the assigned table's game on the board (its players, who starts, handicap)",
                "requestBody": openapi.json_body({"type": "object", "additionalProperties": False}),
                "responses": {
                    "201": openapi.json_response("Started: {game}"),
                    "409": openapi.error(
                        "No table to start (no_table_to_start), a game running (board_game_running), or "
                        "the board service's refusal, such as the board not empty (service_refused)"
                    ),
                    "503": openapi.error("The board service is not responding (service_not_responding)"),
                },
            }
        },
        "/api/table/confirm": {
            "post": {
                "summary": "A seat agrees to the finished game's result, or staff for every seat",
                "requestBody": openapi.json_body(
                    {
                        "oneOf": [
                            {
                                "type": "object",
                                "required": ["seat"],
                                "additionalProperties": False,
                                "properties": {"seat": {"type": "integer", "minimum": 0, "maximum": 3}},
                            },
                            {
                                "type": "object",
                                "required": ["all"],
                                "additionalProperties": False,
                                "properties": {"all": {"const": True}},
                            },
                        ]
                    }
                ),
                "responses": {
                    "200": openapi.json_response("Confirmed so far: {game, confirmed}"),
                    "400": openapi.error("Neither a seat nor all (bad_confirmation), or a bad body"),
                    "401": openapi.error("Only staff confirm for everyone (staff_only)"),
                    "409": openapi.error("No event game's result to confirm (service_refused)"),
                    "503": openapi.error("The board service is not responding (service_not_responding)"),
                },
            }
        },
    }
)
