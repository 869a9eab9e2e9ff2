"""The wiring wizard's staff page: ``/staff/wiring``.

The board service runs the wizard (the panel never touches pins): the page
starts, steers and stops it with ``WIRING`` commands, and draws what the
service keeps in the database (:class:`store.wiring.WiringProgress`): the slot
to fill highlighted, the learned ones marked, the problems in words. A wizard
run by ``hautetension wiring learn`` on its own (no board service) is shown
too, without the controls. Like the slot test, it is service mode: refused
while a game is running (the wizard reads raw channels).

Writing the learned map into the configuration file is left to ``sudo
hautetension wiring apply`` on the Pi: the panel and the board service run as
users that cannot write ``/etc/hautetension`` (docs/hardware.md, "Wiring wizard").
"""

from __future__ import annotations

import time
from typing import Any

from flask import Blueprint, Response, jsonify, render_template

from store.commands import WIRING_ACTIONS, CommandKind
from store.wiring import WiringProgress
from webpanel import openapi
from webpanel.auth import staff_required
from webpanel.db import BOARD_GAME_RUNNING, board_state, game_running, get_db, service_running, submit
from webpanel.errors import ApiError, bad_field, json_object

bp = Blueprint("wiring", __name__)

DURING_GAME = "the wiring wizard is refused while a game is running: it reads raw slot readings"
LIVE_S = 5.0
"""A wizard whose row was written this recently is running (its runner writes it every 2 s at least)."""
MIN_HOLD_S, MAX_HOLD_S = 0.02, 5.0
"""How long the contacts must stay still, at least and at most (``start``'s ``hold``): the wizard's
own range (hardware.wiring.session.HOLD_RANGE, which the panel may not import), checked here so
that the API refuses what its document refuses."""
IN_SERVICE = "board service"
"""Who runs the wizard, when the board service does (``store.wiring``'s ``running``)."""


@bp.get("/staff/wiring")
@staff_required
def wiring_page() -> str:
    return render_template("staff/wiring.html")


@bp.get("/api/staff/wiring")
@staff_required
def api_wiring() -> Response:
    state = board_state()
    if game_running(state):
        raise ApiError(409, DURING_GAME, code=BOARD_GAME_RUNNING)
    record = WiringProgress(get_db()).load()
    running = service_running(state)
    # Whoever runs the wizard writes its row every few seconds at least: an older one was left behind.
    live = record is not None and record.running is not None and time.time() - record.updated_at < LIVE_S
    runner = record.running if live and record is not None else None
    where = None if runner is None else "service" if runner == IN_SERVICE else "command"
    return jsonify({
        "service": {"running": running, "backend": (state.public.get("backend") if state else None)},
        "running": None if where == "service" and not running else where,
        "runner": runner,
        "wizard": record.view if record is not None else None,
    })


@bp.post("/api/staff/wiring")
@staff_required
def api_wiring_action() -> Response:
    body = json_object(allowed={"action", "slot", "restart", "hold"}, required={"action"})
    action = body["action"]
    if not isinstance(action, str) or action not in WIRING_ACTIONS:
        raise bad_field("action", f"action must be one of {', '.join(WIRING_ACTIONS)}")
    if "slot" in body and not isinstance(body["slot"], str):
        raise bad_field("slot", "slot must be a slot name")
    if "restart" in body and not isinstance(body["restart"], bool):
        raise bad_field("restart", "restart must be true or false")
    hold = body.get("hold")
    if "hold" in body and (
        isinstance(hold, bool) or not isinstance(hold, int | float) or not MIN_HOLD_S <= hold <= MAX_HOLD_S
    ):
        raise bad_field("hold", f"hold must be a number of seconds from {MIN_HOLD_S} to {MAX_HOLD_S}")
    if action != "stop" and game_running(board_state()):
        raise ApiError(409, DURING_GAME, code=BOARD_GAME_RUNNING)
    command = submit(CommandKind.WIRING, dict(body))
    return jsonify({"ok": True, "result": command.result})


def _schema(properties: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "additionalProperties": False, "required": ["action"], "properties": properties}


openapi.add_paths({
    "/api/staff/wiring": {
        "get": {
            "summary": "The wiring wizard: who runs it, the slot to fill, the problems, the learned map "
                       "(refused during a game)",
            "responses": {
                "200": openapi.json_response("The wizard"),
                "409": openapi.error("A game is running (board_game_running)"),
            },
        },
        "post": {
            "summary": "Start (or resume), stop, redo a slot, leave out channels closed on the empty board, "
                       "or forget the progress",
            "requestBody": openapi.json_body(_schema({
                "action": {"enum": list(WIRING_ACTIONS)},
                "slot": {"type": "string", "description": "redo: the slot to learn again"},
                "restart": {"type": "boolean", "description": "start: forget the saved progress"},
                "hold": {"type": "number", "minimum": MIN_HOLD_S, "maximum": MAX_HOLD_S,
                         "description": "start: seconds the contacts must stay still (default 0.5)"},
            })),
            "responses": {
                "200": openapi.json_response("Done: the wizard's view"),
                "409": openapi.error(
                    "Refused: a game is running (board_game_running), or the service's reason "
                    "(service_refused)"
                ),
                "503": openapi.error("Board service not responding (service_not_responding)"),
            },
        },
    },
})
