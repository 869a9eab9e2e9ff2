"""The live board for players, tablets and the connected display, and its public API."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from flask import Blueprint, Response, current_app, jsonify, redirect, render_template, url_for
from flask.typing import ResponseReturnValue

from games.hautetension.layout import DEFAULT_LAYOUT, load_layout
from store.commands import CommandKind
from webpanel import csrf, openapi
from webpanel.auth import is_staff
from webpanel.db import board_state, service_running, submit
from webpanel.errors import bad_field, json_object
from webpanel.hub import BOARD, ChangeHub, Notice, hub_of
from webpanel.live import LiveStream
from webpanel.openapi import sse_events
from webpanel.stream import BoardFollower, last_event_id, sse, sse_response, take_place
from webpanel.view import public_board

bp = Blueprint("board", __name__)

STREAM_RETRY_AFTER = "5"


def current_board() -> dict[str, Any]:
    state = board_state()
    if state is None:
        return public_board(None, journal_id=0, service_running=False)
    return public_board(state.public, journal_id=state.journal_id, service_running=service_running(state))


@bp.get("/")
def home() -> ResponseReturnValue:
    """The simulated board on the sim backend (what ``make run`` opens), else the live board; unless
    an area says the home page is elsewhere now (the event's table, the event server's overview)."""
    elsewhere = current_app.extensions.get("home_page")
    target = elsewhere() if callable(elsewhere) else None
    if target:
        return redirect(target)
    state = board_state()
    if state is not None and state.public.get("backend") == "sim":
        return render_template("sim.html")
    return render_template("board.html")


@bp.get("/board")
def live_page() -> ResponseReturnValue:
    """The board of this panel's board service; the event server has none (its boards are on the
    wall display), so there it is the wall."""
    if current_app.config.get("ROLE") == "event":
        return redirect(url_for("event.wall"))
    return render_template("board.html")


@bp.get("/api/board")
def api_board() -> Response:
    return jsonify(current_board())


@bp.post("/api/board/check")
def api_check_confirm() -> Response:
    """The players' answer to the pre-game check, at the board's display: the lamps they did not see
    light (none: every lamp lit). The check takes it only right after a hold of the test button."""
    body = json_object(allowed={"not_lit"}, required={"not_lit"})
    not_lit = body["not_lit"]
    if not isinstance(not_lit, list) or not all(isinstance(lamp, str) for lamp in not_lit):
        raise bad_field("not_lit", "not_lit must be a list of lamp names")
    command = submit(CommandKind.PREGAME_CHECK, {"action": "confirm", "not_lit": not_lit})
    return jsonify({"ok": True, "check": (command.result or {}).get("check")})


@bp.get("/api/layout")
def api_layout() -> Response:
    state = board_state()
    name = (state.public.get("layout") if state else None) or DEFAULT_LAYOUT
    return jsonify(load_layout(str(name)).to_dict())


@bp.get("/api/session")
def api_session() -> Response:
    return jsonify({"csrf_token": csrf.token(), "staff": is_staff()})


class BoardStream(LiveStream):
    """The board's stream: ``board`` events (the public view, with its journal id as the event's id)
    and ``service`` events (whether the board service runs), as they change; woken by the process's
    change hub (its ``board`` topic: the view is built once per state, for every page)."""

    def __init__(self, follower: BoardFollower, hub: ChangeHub, *, last_event_id: int | None) -> None:
        super().__init__(follower, hub, [BOARD])
        self.sent_id = last_event_id
        """The journal id of the board the page shows (``Last-Event-ID``: it is not sent again)."""
        self.sent_running: bool | None = None

    def opening(self, before: list[Notice]) -> Iterator[str]:
        return self._tell(before)

    def changed(self, notice: Notice) -> Iterator[str]:
        return self._tell([notice])

    def _tell(self, notices: Iterable[Notice]) -> Iterator[str]:
        for notice in notices:
            if notice.public is not None and notice.version != self.sent_id:
                yield sse("board", notice.public, notice.version)
                self.sent_id = notice.version
            running = notice.status == "running"
            if running != self.sent_running:
                yield sse("service", json.dumps({"running": running}))
                self.sent_running = running


@bp.get("/api/events")
def api_events() -> Response:
    last_event_id = _last_event_id()
    follower: BoardFollower = current_app.extensions["board_follower"]
    take_place(follower, retry_after=STREAM_RETRY_AFTER)
    return sse_response(BoardStream(follower, hub_of(current_app.extensions), last_event_id=last_event_id))


def _last_event_id() -> int | None:
    return last_event_id("last_event_id")


_BOARD_SCHEMA = {
    "type": "object",
    "description": "The public board: occupancy with owners, lit lamps, the game's public view. "
    "Never pawn kinds.",
    "properties": {
        "id": {"type": "integer", "description": "Journal id of this state"},
        "service": {"type": "object", "properties": {"running": {"type": "boolean"}}},
        "layout": {"type": ["string", "null"]},
        "backend": {"type": ["string", "null"], "enum": ["sim", "gpio", "serial", None]},
        "game": {"type": ["object", "null"]},
        "pawns": {
            "type": "object",
            "additionalProperties": {
                "type": "object",
                "properties": {"owner": {"type": ["integer", "null"]}},
            },
        },
        "lamps": {
            "type": "object",
            "properties": {
                "lit": {"type": "array", "items": {"type": "string"}},
                "test": {"type": "boolean"},
            },
        },
        "anomalies": {"type": "array", "items": {"type": "object"}},
        "faults": {"type": "array", "items": {"type": "object"}},
        "scanner_faulted": {"type": "boolean"},
    },
}
_EVENT_ID = {"type": "string", "pattern": "^([0-9]{1,18})?$", "description": "A journal id (empty: none)"}
openapi.add_schemas({"Board": _BOARD_SCHEMA})
openapi.add_paths(
    {
        "/api/board": {
            "get": {
                "summary": "The public board state",
                "responses": {
                    "200": openapi.json_response("The board", {"$ref": "#/components/schemas/Board"})
                },
            }
        },
        "/api/board/check": {
            "post": {
                "summary": "The players confirm the pre-game check: the lamps they did not see light",
                "parameters": [openapi.CSRF_PARAMETER],
                "requestBody": openapi.json_body(
                    {
                        "type": "object",
                        "required": ["not_lit"],
                        "properties": {"not_lit": {"type": "array", "items": {"type": "string"}}},
                        "additionalProperties": False,
                    }
                ),
                "responses": {
                    "200": openapi.json_response("The check after the answer"),
                    "400": openapi.error("Not a list of lamp names"),
                    "403": openapi.error("Missing or wrong CSRF token"),
                    "409": openapi.error("No check waits for the players' answer now"),
                    "415": openapi.error("Body is not JSON"),
                    "503": openapi.error("Board service not responding"),
                },
            }
        },
        "/api/layout": {
            "get": {
                "summary": "The board layout (slot and lamp positions, rows) for drawing it",
                "responses": {"200": openapi.json_response("The layout in its file format")},
            }
        },
        "/api/session": {
            "get": {
                "summary": "This session's CSRF token and whether it is a staff session",
                "responses": {
                    "200": openapi.json_response(
                        "Session",
                        {
                            "type": "object",
                            "properties": {"csrf_token": {"type": "string"}, "staff": {"type": "boolean"}},
                        },
                    )
                },
            }
        },
        "/api/events": {
            "get": {
                "summary": "Server-Sent Events: `board` (id = journal id, data = Board), `service` "
                "({running}), `reconnect` before the server ends the stream",
                "parameters": [
                    {"name": "Last-Event-ID", "in": "header", "required": False, "schema": _EVENT_ID},
                    {
                        "name": "last_event_id",
                        "in": "query",
                        "required": False,
                        "schema": _EVENT_ID,
                        "description": "Same as the header, for clients that cannot set it",
                    },
                ],
                "responses": {
                    "200": {
                        "description": "The event stream",
                        "content": {
                            "text/event-stream": {"schema": sse_events("board", "service", "reconnect")}
                        },
                    },
                    "400": openapi.error("Last-Event-ID is not a journal id (bad_query)"),
                    "503": openapi.error("Too many open streams; retry after Retry-After (too_many_streams)"),
                    "429": openapi.error(
                        "Too many open streams from this address; retry after Retry-After"
                        " (too_many_streams_from_address)"
                    ),
                },
            }
        },
    }
)
