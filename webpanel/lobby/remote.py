"""Remote seats: computers for the seats nobody took, and a new link for a player who lost theirs.

Players far apart join a game each on their own device by the link of their
seat. When a player does not come (or leaves for good), the organiser -- the
display that created the game, or staff -- may let a computer pseudo-player
play that seat (« on pourra jouer en réseau contre des joueurs humains, ou
contre un, deux, ou trois pseudo joueurs dirigés par l'ordinateur »); when a
player lost the device or the link, a new link for the same seat (the old
one, and the device that held the seat, stop working). A player whose
connection merely dropped needs neither: the seat's cookie brings them back.
"""

from __future__ import annotations

from typing import Any

from flask import Response, jsonify, url_for

from games.frame import AI_LEVELS
from store.games import GameEndedError, GameRecord, JoinError
from webpanel import openapi
from webpanel.auth import is_staff
from webpanel.errors import NOT_FOUND, ApiError, bad_field, define_code, json_object
from webpanel.lobby.api import game_ended, game_json, load_record, poke_if_computer
from webpanel.lobby.blueprint import bp, games, store
from webpanel.lobby.codes import GAME_OVER
from webpanel.lobby.pages import public_root
from webpanel.seats import Caller, identify

ORGANISER_ONLY = define_code(
    "organiser_only", "Only the display that created this game, or staff, may change its seats."
)
NO_SUCH_COMPUTER = define_code("no_such_computer", "This game has no computer player of that level.")
NOT_A_HUMAN_SEAT = define_code("not_a_human_seat", "That seat is not a human's seat nobody took.")
NO_EMPTY_SEAT = define_code("no_empty_seat", "Every human seat is taken: name the seats for the computer.")



def _organiser(record: GameRecord) -> Caller:
    caller = identify(record)
    if not (caller.host or is_staff()):
        raise ApiError(403, "only the display that created this game, or staff, may change its seats",
                       code=ORGANISER_ONLY)
    if not record.is_open():
        raise game_ended(record.status)
    return caller


def empty_seats(record: GameRecord) -> list[int]:
    """Human seats no device has taken."""
    return [s.seat for s in record.seats if not s.is_ai and not s.joined]


def seat_link(code: str) -> dict[str, str]:
    """A seat's way in: the code, the whole address to send the player, and its QR code."""
    return {
        "join_code": code,
        "join_url": public_root() + url_for("lobby.join_page", code=code.lower()).lstrip("/"),
        "qr_url": url_for("lobby.join_qr", code=code),
    }


def give_to_computer(record: GameRecord, level: Any, seats: list[int] | None) -> GameRecord:
    """Let the computer (*level*) play *seats* (None: every empty seat); an ApiError says why not."""
    levels = AI_LEVELS.get(record.game, {})
    if not isinstance(level, str) or level not in levels:
        known = ", ".join(levels) or "none: this game has no computer"
        raise ApiError(409, f"level must be one of {known}", code=NO_SUCH_COMPUTER)
    chosen = empty_seats(record) if seats is None else seats
    if not chosen:
        raise ApiError(409, "every human seat is taken: name the seats to give to the computer",
                       code=NO_EMPTY_SEAT)
    try:
        changed = store().give_to_computer(record.id, chosen, level)
    except JoinError as exc:
        raise ApiError(409, str(exc), code=NOT_A_HUMAN_SEAT) from None
    except GameEndedError as exc:
        raise ApiError(409, str(exc), code=GAME_OVER) from None
    loaded = games().load(store(), changed.id)
    poke_if_computer(loaded.record, loaded.answer("to_act", lambda game: game.to_act))
    return loaded.record


@bp.post("/api/games/<id:game_id>/computers")
def api_computers(game_id: int) -> Response:
    """``{"level": "heuristic", "seats": [2]}``: computers play these seats (default: the empty ones)."""
    record = load_record(game_id)
    caller = _organiser(record)
    body = json_object(allowed={"level", "seats"}, required={"level"})
    seats = body.get("seats")
    if seats is not None and (
        not isinstance(seats, list) or not all(isinstance(s, int) and not isinstance(s, bool) for s in seats)
    ):
        raise bad_field("seats", "seats must be a list of seat numbers")
    changed = give_to_computer(record, body["level"], seats)
    loaded = games().load(store(), changed.id)
    return jsonify(loaded.read(lambda game: game_json(loaded.record, game, caller)))


@bp.post("/api/games/<id:game_id>/seats/<seat>/link")
def api_new_link(game_id: int, seat: str) -> Response:
    """A new link for a human seat; the old one and the device that held the seat stop working."""
    record = load_record(game_id)
    _organiser(record)
    json_object(allowed=set())
    if not (seat.isascii() and seat.isdigit()) or len(seat) > 3:
        raise ApiError(404, f"seat {seat[:10]!r} is not a seat number", code=NOT_FOUND)
    try:
        code = store().new_join_code(record.id, int(seat))
    except JoinError as exc:  # no such seat, or not a human's: nothing at that address to relink
        raise ApiError(404, str(exc), code=NOT_FOUND) from None
    except GameEndedError as exc:
        raise ApiError(409, str(exc), code=GAME_OVER) from None
    return jsonify({"seat": int(seat), **seat_link(code)})


_GAME_ID = {"name": "game_id", "in": "path", "required": True, "schema": {"type": "integer"}}
openapi.add_paths(
    {
        "/api/games/{game_id}/computers": {
            "post": {
                "summary": "The host or staff: computer pseudo-players play these seats"
                " (default: those nobody took)",
                "parameters": [_GAME_ID, openapi.CSRF_PARAMETER],
                "requestBody": openapi.json_body(
                    {
                        "type": "object",
                        "required": ["level"],
                        "additionalProperties": False,
                        "properties": {
                            "level": {"type": "string", "description": "A computer level (another: 409)"},
                            "seats": {"type": "array", "items": {"type": "integer", "minimum": 0}},
                        },
                    }
                ),
                "responses": {
                    "200": openapi.json_response("The game"),
                    "400": openapi.error("Unknown level, or not a human seat"),
                    "403": openapi.error("Neither the host nor staff"),
                    "404": openapi.error("No such game"),
                    "409": openapi.error("The game ended, or no seat is empty"),
                },
            }
        },
        "/api/games/{game_id}/seats/{seat}/link": {
            "post": {
                "summary": "The host or staff: a new link for a human seat"
                " (the old link and device stop working)",
                "parameters": [
                    _GAME_ID,
                    {"name": "seat", "in": "path", "required": True, "schema": {"type": "integer"}},
                    openapi.CSRF_PARAMETER,
                ],
                "requestBody": openapi.json_body({"type": "object", "additionalProperties": False}),
                "responses": {
                    "200": openapi.json_response("seat, join_code, join_url, qr_url"),
                    "403": openapi.error("Neither the host nor staff"),
                    "404": openapi.error("No such game, or no human seat of that number"),
                    "409": openapi.error("The game ended"),
                },
            }
        },
    }
)
