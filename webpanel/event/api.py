"""The event server's JSON API (``/api/event/...``), described in the OpenAPI document."""

from __future__ import annotations

from typing import Any

from flask import Response, current_app, jsonify, request

from store.event.assignments import AssignmentError, Assignments
from store.event.boards import MAX_LABEL, BoardNotFoundError, Boards
from store.event.quarantine import Quarantine
from store.event.results import ResultNotFoundError, Results, ResultStateError
from store.tournaments import TournamentNotFoundError
from webpanel import openapi
from webpanel.auth import actor, staff_required
from webpanel.codes import TOURNAMENT_NOT_FOUND
from webpanel.db import get_db
from webpanel.errors import (
    MAX_WHOLE,
    NOT_FOUND,
    ApiError,
    bad_field,
    define_code,
    json_object,
    whole_number,
)
from webpanel.event import present
from webpanel.event.blueprint import bp
from webpanel.event.follow import ChangeStream, EventFollower
from webpanel.hub import hub_of
from webpanel.ids import path_id
from webpanel.stream import sse_response, take_place

RESULT_ACTIONS = ("confirm", "use-board", "dismiss")

BOARD_NOT_FOUND = define_code("board_not_found", "The event has not heard from a board of this id.")
BAD_LABEL = define_code(
    "bad_label",
    f"A board's label is 1 to {MAX_LABEL} letters, digits, spaces, punctuation or symbols, not only spaces.",
)
ASSIGNMENT_NOT_FOUND = define_code("assignment_not_found", "No table assignment has this id.")
ASSIGNMENT_REFUSED = define_code(
    "assignment_refused",
    "The tables cannot go to boards so: no round made yet, the table has its result, a game of it "
    "started, or the board is not accepted into the event.",
)
RESULT_NOT_FOUND = define_code("result_not_found", "No board sent a result for this game.")
RESULT_STATE = define_code("result_state", "The result is not in a state this action applies to.")


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
    label = body["label"]
    if not isinstance(label, str):
        raise bad_field("label", "label must be a string")
    if not openapi.matches_name(label, MAX_LABEL, openapi.LABEL_BLOCKS):
        raise ApiError(422, f"a label is 1 to {MAX_LABEL} letters, digits, spaces, punctuation or symbols, "
                            "like “Table 3”", code=BAD_LABEL)
    try:
        accepted = Boards(get_db()).accept(board, label, actor=actor())
    except BoardNotFoundError as exc:
        raise ApiError(404, str(exc), code=BOARD_NOT_FOUND) from None
    except ValueError as exc:
        raise ApiError(422, str(exc), code=BAD_LABEL) from None
    return jsonify(present.board_view(accepted, None, with_live=False))


@bp.get("/api/event/wall")
def api_wall() -> Response:
    raw = request.args.get("t")  # when given, a whole number: an empty one is refused, as documented
    tid = whole_number(raw, "t") if raw is not None else 0
    return jsonify(present.wall_view(get_db(), tid or None))


@bp.get("/api/event/ingest")
def api_ingest() -> Response:
    """What this server process took from the broker so far (counts only; each process answers for
    itself: behind the front server, the one that served the request)."""
    counts = current_app.extensions.get("ingest_counts")
    if counts is None:
        raise ApiError(404, "this panel takes no board messages (it is not a running event server)",
                       code=NOT_FOUND)
    # The messages refused, per board, over the whole event (every process's, from the database).
    return jsonify({**counts(), "quarantined": Quarantine(get_db()).counts()})


@bp.get("/api/event/stream")
def api_stream() -> Response:
    follower: EventFollower = current_app.extensions["event_follower"]
    take_place(follower, retry_after="5")
    return sse_response(ChangeStream(follower, hub_of(current_app.extensions)))


@bp.post("/api/event/tournaments/<id:tid>/assignments")
@staff_required
def api_assign(tid: int) -> tuple[Response, int]:
    """Propose boards for the current round's tables that have none, and send them to the boards."""
    json_object(allowed=set())
    try:
        assignments = Assignments(get_db()).assign_round(tid)
    except TournamentNotFoundError as exc:
        raise ApiError(404, str(exc), code=TOURNAMENT_NOT_FOUND) from None
    except AssignmentError as exc:
        raise ApiError(409, str(exc), code=ASSIGNMENT_REFUSED) from None
    return jsonify([_assignment(a) for a in assignments]), 201


@bp.post("/api/event/assignments/<assignment>")
@staff_required
def api_move(assignment: str) -> Response:
    """Give a table to another board (``{"board": id}``) or to none (``{"board": null}``)."""
    body = json_object(allowed={"board"}, required={"board"})
    board = body["board"]
    if board is not None and not isinstance(board, str):
        raise bad_field("board", "board must be a board id or null")
    assignments = Assignments(get_db())
    if assignments.get(assignment) is None:
        raise ApiError(404, f"no table assignment {assignment[:40]!r}", code=ASSIGNMENT_NOT_FOUND)
    try:
        moved = assignments.move(assignment, board)
    except BoardNotFoundError as exc:
        raise ApiError(404, str(exc), code=BOARD_NOT_FOUND) from None
    except AssignmentError as exc:
        raise ApiError(409, str(exc), code=ASSIGNMENT_REFUSED) from None
    return jsonify([_assignment(a) for a in moved])


@bp.get("/api/event/results")
@staff_required
def api_results() -> Response:
    return jsonify([r.to_json() for r in Results(get_db()).all()])


@bp.post("/api/event/results/<id:game>/<action>")
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
            raise ApiError(404, f"no such action {action[:20]!r} (one of {', '.join(RESULT_ACTIONS)})",
                           code=NOT_FOUND)
    except ResultNotFoundError as exc:
        raise ApiError(404, str(exc), code=RESULT_NOT_FOUND) from None
    except ResultStateError as exc:
        raise ApiError(409, str(exc), code=RESULT_STATE) from None
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
        "two_places": {
            "type": "boolean",
            "description": "Two uplinks report with its id lately (a copied SD card): staff switch one off",
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
_ID = {"in": "path", "required": True, "schema": {"type": "string", "pattern": "^[^/]+$"}}
_ASSIGNMENT_SCHEMA = {
    "type": "object",
    "required": ["id", "tournament", "round", "table", "board", "done"],
    "properties": {
        "id": {"type": "string"},
        "tournament": {"type": "integer"},
        "round": {"type": "integer"},
        "table": {"type": "integer"},
        "board": {"type": ["string", "null"], "description": "The board that plays the table (null: none)"},
        "done": {"type": "boolean", "description": "The table has its result"},
    },
}
_COUNT = {"type": "integer", "minimum": 0}
_TIME = {"type": ["number", "null"]}
_INGEST = {
    "type": "object",
    "required": ["instance", "alive", "restarts", "connected", "received", "stored", "batches", "duplicates",
                 "store_errors", "refused", "faults", "last_batch_at", "last_turn_at", "last_error",
                 "quarantined"],
    "additionalProperties": False,
    "properties": {
        "instance": {"type": "string"},
        "alive": {"type": "boolean", "description": "The ingest's loop is running (not ended, not waiting"
                  " to be started again)"},
        "restarts": {**_COUNT, "description": "Times its supervisor started the loop again"},
        "connected": {"type": "boolean"},
        "received": _COUNT,
        "stored": _COUNT,
        "batches": {**_COUNT, "description": "Batches of messages taken into the database"},
        "duplicates": _COUNT,
        "store_errors": {**_COUNT, "description": "Batches the database failed to take (sent again)"},
        "refused": {**_COUNT, "description": "Messages this process refused and quarantined"},
        "faults": {**_COUNT, "description": "Unforeseen errors caught (a batch split, a turn lost)"},
        "last_batch_at": _TIME,
        "last_turn_at": _TIME,
        "last_error": {
            "type": ["object", "null"],
            "required": ["at", "message"],
            "additionalProperties": False,
            "properties": {"at": {"type": "number"}, "message": {"type": "string"}},
        },
        "quarantined": {
            "type": "object",
            "description": "Messages refused per board over the whole event",
            "additionalProperties": _COUNT,
        },
    },
}
_ASSIGNMENTS = {"type": "array", "items": {"$ref": "#/components/schemas/EventAssignment"}}
openapi.add_schemas({"EventBoard": _BOARD_SCHEMA, "EventAssignment": _ASSIGNMENT_SCHEMA})
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
                "parameters": [{"name": "board", **_ID}],
                "requestBody": openapi.json_body(
                    {
                        "type": "object",
                        "required": ["label"],
                        "additionalProperties": False,
                        "properties": {"label": openapi.printable_name(MAX_LABEL, openapi.LABEL_BLOCKS)},
                    }
                ),
                "responses": {
                    "200": openapi.json_response("The board", {"$ref": "#/components/schemas/EventBoard"}),
                    "404": openapi.error("The event never heard from that board (board_not_found)"),
                    "422": openapi.error(
                        f"A label that cannot be used: only spaces, longer than {MAX_LABEL} characters, or "
                        "a character outside the ones the label's pattern lists (bad_label)"
                    ),
                },
            }
        },
        "/api/event/wall": {
            "get": {
                "summary": "The wall display: every accepted board live (public views), the standings, the"
                " round's tables and where each stands, the next round's proposal",
                "parameters": [
                    {
                        "name": "t",
                        "in": "query",
                        "required": False,
                        "schema": {"type": "integer", "minimum": 0, "maximum": MAX_WHOLE},
                        "description": "The tournament to show (0 or none: the event's own choice)",
                    }
                ],
                "responses": {
                    "200": openapi.json_response("The wall"),
                    "400": openapi.error("t is not a whole number (bad_query)"),
                },
            }
        },
        "/api/event/ingest": {
            "get": {
                "summary": "This server process's intake: its instance, whether its loop is alive and"
                " connected to the broker, the messages it received, the rows it stored, the copies it"
                " discarded, the messages it refused, its last batch and last error; and the messages"
                " refused per board over the whole event",
                "responses": {
                    "200": openapi.json_response("The counts", _INGEST),
                    "404": openapi.error("Not a running event server (no intake)"),
                },
            }
        },
        "/api/event/stream": {
            "get": {
                "summary": "Server-Sent Events: `change` ({version}) whenever the event changes",
                "responses": {
                    "200": {"description": "The event stream", "content": {"text/event-stream": {}}},
                    "503": openapi.error(
                        "Too many open streams; retry after Retry-After seconds (too_many_streams)"
                    ),
                    "429": openapi.error(
                        "Too many open streams from this address; retry after Retry-After seconds"
                        " (too_many_streams_from_address)"
                    ),
                },
            }
        },
        "/api/event/tournaments/{tid}/assignments": {
            "post": {
                "summary": "Give the current round's tables to boards (proposed: label order, online boards"
                " first) and send each board its table",
                "parameters": [path_id("tid")],
                "requestBody": openapi.json_body({"type": "object", "additionalProperties": False}),
                "responses": {
                    "201": openapi.json_response("The round's assignments", _ASSIGNMENTS),
                    "404": openapi.error("No such tournament (tournament_not_found)"),
                    "409": openapi.error("No round made yet (assignment_refused)"),
                },
            }
        },
        "/api/event/assignments/{assignment}": {
            "post": {
                "summary": "Move a table to another board (two tables swap boards) or to none",
                "parameters": [{"name": "assignment", **_ID}],
                "requestBody": openapi.json_body(
                    {
                        "type": "object",
                        "required": ["board"],
                        "additionalProperties": False,
                        "properties": {"board": {"type": ["string", "null"]}},
                    }
                ),
                "responses": {
                    "200": openapi.json_response("The round's assignments", _ASSIGNMENTS),
                    "404": openapi.error(
                        "No such assignment or board (assignment_not_found, board_not_found)"
                    ),
                    "409": openapi.error(
                        "A game of either table has started, the table has its result, or the board is "
                        "not accepted (assignment_refused)"
                    ),
                },
            }
        },
        "/api/event/results": {
            "get": {
                "summary": "Every result the boards sent: waiting, confirmed, entered, clash, refused,"
                " dismissed",
                "responses": {
                    "200": openapi.json_response(
                        "The results", {"type": "array", "items": {"type": "object"}}
                    )
                },
            }
        },
        "/api/event/results/{game}/{action}": {
            "post": {
                "summary": "confirm (for the players), use-board (correct the table with the board's result"
                " after a clash) or dismiss (keep the tournament as it is)",
                "parameters": [
                    path_id("game"),
                    {
                        "name": "action",
                        "in": "path",
                        "required": True,
                        "schema": {"type": "string", "enum": list(RESULT_ACTIONS)},
                    },
                ],
                "requestBody": openapi.json_body({"type": "object", "additionalProperties": False}),
                "responses": {
                    "200": openapi.json_response("The result"),
                    "404": openapi.error(
                        "No such action (not_found), or no result from a board for that game "
                        "(result_not_found)"
                    ),
                    "409": openapi.error(
                        "The result is not in a state that action applies to (result_state)"
                    ),
                },
            }
        },
    }
)
