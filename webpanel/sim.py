"""The simulated board: a hand placing and lifting pawns, for the sim backend only.

A click here does what a hand does on the real board: the service's sim
backend sees a pawn appear in (or leave) a slot and the service takes it from
there exactly as it would from the sensors. The response never depends on the
kind of pawn placed, so this page reveals no more than the real board does.
"""

from __future__ import annotations

from flask import Blueprint, Response, abort, jsonify, render_template

from games.exc import GameError
from games.hautetension.game import Game
from games.hautetension.layout import DEFAULT_LAYOUT, load_layout
from games.hautetension.pawn import PawnKind
from store.commands import CommandKind
from webpanel import openapi
from webpanel.db import board_state, submit
from webpanel.errors import ApiError, bad_field, define_code, json_object, require_bool

bp = Blueprint("sim", __name__)

PAWN_VALUES = [kind.value for kind in PawnKind]
NOT_SIMULATED = define_code("not_simulated", "The board service is not running the simulated board.")
NO_SUCH_SLOT = define_code("no_such_slot", "The board has no slot of this name.")


def _require_sim() -> None:
    state = board_state()
    if state is None or state.public.get("backend") != "sim":
        raise ApiError(404, "the board service is not running the simulated board", code=NOT_SIMULATED)


@bp.get("/sim")
def sim_page() -> str:
    state = board_state()
    if state is None or state.public.get("backend") != "sim":
        abort(404)
    return render_template("sim.html")


@bp.post("/api/sim/slots/<slot>")
def place(slot: str) -> Response:
    _require_sim()
    state = board_state()
    layout = load_layout(str((state.public.get("layout") if state else None) or DEFAULT_LAYOUT))
    if slot not in layout.slot_positions:
        raise ApiError(404, f"no slot named {slot[:16]!r} on the {layout.name} board", code=NO_SUCH_SLOT)
    body = json_object(allowed={"pawn"}, required={"pawn"})
    pawn = body["pawn"]
    if pawn is not None and pawn not in PAWN_VALUES:
        raise bad_field("pawn", f"pawn must be one of {', '.join(PAWN_VALUES)} or null (to lift it)")
    submit(CommandKind.SIM_SLOT, {"slot": slot, "pawn": pawn})
    # The same answer for an attack and a defense pawn: the kind stays with the hand that placed it.
    return jsonify({"ok": True, "slot": slot})


@bp.get("/api/sim/hand")
def hand() -> Response:
    """The pawns the player to move still holds, by kind: the simulated board stands for the players'
    hands, so its page shows what a player sees in their own hand (never on a real board)."""
    _require_sim()
    state = board_state()
    public = state.public if state else {}
    game = public.get("game") if isinstance(public.get("game"), dict) else None
    view = game.get("view") if game else None
    to_move = view.get("to_move") if isinstance(view, dict) else None
    saved = (state.private or {}).get("game") if state else None
    running = game is not None and game.get("status") == "running"
    if not running or not isinstance(to_move, int) or not isinstance(saved, dict):
        return jsonify({"player": None, "name": None, "stock": None})
    try:
        replayed = Game.from_json(saved)
        attack, defense = replayed.stock(to_move)
    except GameError:
        return jsonify({"player": None, "name": None, "stock": None})
    name = replayed.seats[to_move].name
    return jsonify({"player": to_move, "name": name, "stock": {"attack": attack, "defense": defense}})


@bp.post("/api/sim/button")
def button() -> Response:
    _require_sim()
    body = json_object(allowed={"held"}, required={"held"})
    held = require_bool(body, "held")
    submit(CommandKind.SIM_BUTTON, {"held": held})
    return jsonify({"ok": True, "held": held})


_errors = {
    "400": openapi.error("Malformed body (says which field and why)"),
    "403": openapi.error("Missing or wrong CSRF token"),
    "404": openapi.error("Not the sim backend, or no such slot"),
    "409": openapi.error("The board service refused it (its reason)"),
    "415": openapi.error("Body is not JSON"),
    "503": openapi.error("Board service not responding"),
}
openapi.add_paths(
    {
        "/api/sim/slots/{slot}": {
            "post": {
                "summary": "Place a pawn in a slot of the simulated board as the current player, or lift it",
                "parameters": [
                    {
                        "name": "slot",
                        "in": "path",
                        "required": True,
                        "schema": {"type": "string", "example": "a9"},
                    },
                    openapi.CSRF_PARAMETER,
                ],
                "requestBody": openapi.json_body(
                    {
                        "type": "object",
                        "required": ["pawn"],
                        "additionalProperties": False,
                        "properties": {"pawn": {"enum": [*PAWN_VALUES, None]}},
                    }
                ),
                "responses": {
                    "200": openapi.json_response("Done (the same answer whatever the pawn)"),
                    **_errors,
                },
            }
        },
        "/api/sim/hand": {
            "get": {
                "summary": "The pawns the player to move still holds, by kind (sim backend only: "
                "the simulated board stands for the players' own hands)",
                "responses": {
                    "200": openapi.json_response(
                        "The hand (all null outside a running game)",
                        {
                            "type": "object",
                            "properties": {
                                "player": {"type": ["integer", "null"]},
                                "name": {"type": ["string", "null"]},
                                "stock": {
                                    "type": ["object", "null"],
                                    "properties": {
                                        "attack": {"type": "integer"},
                                        "defense": {"type": "integer"},
                                    },
                                },
                            },
                        },
                    ),
                    "404": openapi.error("Not the sim backend"),
                },
            }
        },
        "/api/sim/button": {
            "post": {
                "summary": "Press or release the simulated test push-button",
                "parameters": [openapi.CSRF_PARAMETER],
                "requestBody": openapi.json_body(
                    {
                        "type": "object",
                        "required": ["held"],
                        "additionalProperties": False,
                        "properties": {"held": {"type": "boolean"}},
                    }
                ),
                "responses": {"200": openapi.json_response("Done"), **_errors},
            }
        },
    }
)
