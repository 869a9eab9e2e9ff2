"""The event server's JSON API (``/api/event/...``), described in the OpenAPI document."""

from __future__ import annotations

from typing import Any

from flask import Response, current_app, jsonify

from store.event.assignments import AssignmentError, Assignments
from store.event.boards import BoardNotFoundError, Boards
from store.event.results import ResultNotFoundError, Results, ResultStateError
from store.tournaments import TournamentNotFoundError
from webpanel import openapi
from webpanel.auth import staff_required
from webpanel.db import get_db
from webpanel.errors import ApiError, json_object
from webpanel.event import present
from webpanel.event.blueprint import actor, bp, requested_tournament
from webpanel.event.follow import ChangeStream, EventFollower
from webpanel.stream import sse_response

RESULT_ACTIONS = ("confirm", "use-board", "dismiss")


@bp.get("/api/event/boards")
def api_boards() -> Response:
    """Every board of the event, accepted or waiting (a JSON list)."""
    open_by_board = {a.board: a for a in Assignments(get_db()).open() if a.board}
    return jsonify(
        [present.board_view(b, open_by_board.get(b.id), with_live=False) for b in Boards(get_db()).all()]
    )


@bp.post("/api/event/boards/<board>")
@staff_required
def api_accept(board: str) -> Response:
    body = json_object(allowed={"label"}, required={"label"})
    if not isinstance(body["label"], str):
        raise ApiError(400, "label must be a string")
    try:
        accepted = Boards(get_db()).accept(board, body["label"], actor=actor())
    except BoardNotFoundError as exc:
        raise ApiError(404, str(exc)) from None
    except ValueError as exc:
        raise ApiError(422, str(exc)) from None
    return jsonify(present.board_view(accepted, None, with_live=False))


@bp.get("/api/event/wall")
def api_wall() -> Response:
    return jsonify(present.wall_view(get_db(), requested_tournament()))


@bp.get("/api/event/stream")
def api_stream() -> Response:
    follower: EventFollower = current_app.extensions["event_follower"]
    if not follower.try_open_stream():
        raise ApiError(503, "too many live pages open: retrying shortly", headers={"Retry-After": "5"})
    return sse_response(ChangeStream(follower))


@bp.post("/api/event/tournaments/<int:tid>/assignments")
@staff_required
def api_assign(tid: int) -> tuple[Response, int]:
    """Propose boards for the current round's tables that have none, and send them to the boards."""
    json_object(allowed=set())
    try:
        assignments = Assignments(get_db()).assign_round(tid)
    except TournamentNotFoundError as exc:
        raise ApiError(404, str(exc)) from None
    except AssignmentError as exc:
        raise ApiError(409, str(exc)) from None
    return jsonify([_assignment(a) for a in assignments]), 201


@bp.post("/api/event/assignments/<assignment>")
@staff_required
def api_move(assignment: str) -> Response:
    """Give a table to another board (``{"board": id}``) or to none (``{"board": null}``)."""
    body = json_object(allowed={"board"}, required={"board"})
    board = body["board"]
    if board is not None and not isinstance(board, str):
        raise ApiError(400, "board must be a board id or null")
    try:
        moved = Assignments(get_db()).move(assignment, board)
    except BoardNotFoundError as exc:
        raise ApiError(404, str(exc)) from None
    except AssignmentError as exc:
        raise ApiError(409, str(exc)) from None
    return jsonify([_assignment(a) for a in moved])


@bp.get("/api/event/results")
@staff_required
def api_results() -> Response:
    return jsonify([r.to_json() for r in Results(get_db()).all()])


@bp.post("/api/event/results/<int:game>/<action>")
@staff_required
def api_result_action(game: int, action: str) -> Response:
    """Staff on a board's result: confirm it for the players, take the board's result over a hand entry,
    or keep the tournament as it is."""
    json_object(allowed=set())
    results = Results(get_db())
    try:
        if action == "confirm":
            result = results.confirm(game, actor=actor())
        elif action == "use-board":
            result = results.use_board_result(game, actor=actor())
        elif action == "dismiss":
            result = results.dismiss(game, actor=actor())
        else:
            raise ApiError(404, f"no such action {action[:20]!r} (one of {', '.join(RESULT_ACTIONS)})")
    except ResultNotFoundError as exc:
        raise ApiError(404, str(exc)) from None
    except ResultStateError as exc:
        raise ApiError(409, str(exc)) from None
    return jsonify(result.to_json())


def _assignment(a: Any) -> dict[str, Any]:
    return {
        "id": a.id,
        "tournament": a.tournament_id,
        "round": a.round,
        "table": a.table,
        "board": a.board,
        "done": a.is_done,
    }


_BOARD_SCHEMA = {
    "type": "object",
    "required": ["id", "label", "online", "game", "last_seen"],
    "properties": {
        "id": {"type": "string", "description": "The board's id (its MQTT user name)"},
        "label": {"type": "string", "description": "What staff call it; empty until accepted"},
        "name": {"type": "string", "description": "The label, or the id while it has none"},
        "accepted": {"type": "boolean", "description": "False: a new board waiting for staff"},
        "online": {
            "type": "boolean",
            "description": "Its retained status (false once the broker sent its will)",
        },
        "game": {
            "type": ["object", "null"],
            "description": "The game on the board: id, status, assignment, players, to_move (a name), paused,"
            " moves, lit, points, confirmed",
        },
        "last_seen": {"type": "number", "description": "Unix time of its last message"},
        "faults": {"type": "array", "items": {"type": "object"}, "description": "From its health report"},
        "acked": {
            "type": "integer",
            "description": "Its rows stored by the server, contiguous, up to this seq",
        },
        "table": {"type": ["object", "null"], "description": "The table it plays now: round, table"},
    },
}
_ID = {"in": "path", "required": True, "schema": {"type": "string"}}
_INT = {"in": "path", "required": True, "schema": {"type": "integer"}}
openapi.add_schemas({"EventBoard": _BOARD_SCHEMA})
openapi.add_paths(
    {
        "/api/event/boards": {
            "get": {
                "summary": "Every board of the event (a list), accepted or waiting for staff",
                "responses": {
                    "200": openapi.json_response(
                        "The boards", {"type": "array", "items": {"$ref": "#/components/schemas/EventBoard"}}
                    )
                },
            }
        },
        "/api/event/boards/{board}": {
            "post": {
                "summary": "Accept a board into the event with a label (or change its label)",
                "parameters": [{"name": "board", **_ID}, openapi.CSRF_PARAMETER],
                "requestBody": openapi.json_body(
                    {"type": "object", "required": ["label"], "properties": {"label": {"type": "string"}}}
                ),
                "responses": {
                    "200": openapi.json_response("The board", {"$ref": "#/components/schemas/EventBoard"}),
                    "401": openapi.error("Staff only"),
                    "404": openapi.error("The event never heard from that board"),
                    "422": openapi.error("A label that cannot be used"),
                },
            }
        },
        "/api/event/wall": {
            "get": {
                "summary": "The wall display: every accepted board live (public views), the standings, the"
                " round's tables and where each stands, the next round's proposal",
                "parameters": [
                    {"name": "t", "in": "query", "required": False, "schema": {"type": "integer"}}
                ],
                "responses": {"200": openapi.json_response("The wall")},
            }
        },
        "/api/event/stream": {
            "get": {
                "summary": "Server-Sent Events: `change` ({version}) whenever the event changes",
                "responses": {
                    "200": {"description": "The event stream", "content": {"text/event-stream": {}}},
                    "503": openapi.error("Too many open streams; retry after Retry-After seconds"),
                },
            }
        },
        "/api/event/tournaments/{tid}/assignments": {
            "post": {
                "summary": "Give the current round's tables to boards (proposed: label order, online boards"
                " first) and send each board its table",
                "parameters": [{"name": "tid", **_INT}, openapi.CSRF_PARAMETER],
                "requestBody": openapi.json_body({"type": "object", "additionalProperties": False}),
                "responses": {
                    "201": openapi.json_response("The round's assignments"),
                    "401": openapi.error("Staff only"),
                    "404": openapi.error("No such tournament"),
                    "409": openapi.error("No round made yet"),
                },
            }
        },
        "/api/event/assignments/{assignment}": {
            "post": {
                "summary": "Move a table to another board (two tables swap boards) or to none",
                "parameters": [{"name": "assignment", **_ID}, openapi.CSRF_PARAMETER],
                "requestBody": openapi.json_body(
                    {
                        "type": "object",
                        "required": ["board"],
                        "properties": {"board": {"type": ["string", "null"]}},
                    }
                ),
                "responses": {
                    "200": openapi.json_response("The round's assignments"),
                    "401": openapi.error("Staff only"),
                    "404": openapi.error("No such board"),
                    "409": openapi.error("A game of either table has started, or the table has its result"),
                },
            }
        },
        "/api/event/results": {
            "get": {
                "summary": "Every result the boards sent: waiting, confirmed, entered, clash, refused,"
                " dismissed",
                "responses": {
                    "200": openapi.json_response("The results"),
                    "401": openapi.error("Staff only"),
                },
            }
        },
        "/api/event/results/{game}/{action}": {
            "post": {
                "summary": "confirm (for the players), use-board (correct the table with the board's result"
                " after a clash) or dismiss (keep the tournament as it is)",
                "parameters": [
                    {"name": "game", **_INT},
                    {
                        "name": "action",
                        "in": "path",
                        "required": True,
                        "schema": {"type": "string", "enum": list(RESULT_ACTIONS)},
                    },
                    openapi.CSRF_PARAMETER,
                ],
                "requestBody": openapi.json_body({"type": "object", "additionalProperties": False}),
                "responses": {
                    "200": openapi.json_response("The result"),
                    "401": openapi.error("Staff only"),
                    "404": openapi.error("No such action, or no result from a board for that game"),
                    "409": openapi.error("The result is not in a state that action applies to"),
                },
            }
        },
    }
)
