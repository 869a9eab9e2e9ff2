"""The JSON API of the ranking and the player registry (``/api/ranking…``, ``/api/players…``)."""

from __future__ import annotations

import re
from typing import Any

from flask import Response, jsonify, request

from games.exc import GameError
from store.players import PlayerError, PlayerNotFoundError, Players
from store.tournaments import TournamentNotFoundError
from webpanel import openapi
from webpanel.auth import actor, staff_required
from webpanel.db import get_db
from webpanel.errors import BAD_QUERY, MAX_WHOLE, ApiError, bad_field, define_code, json_object, whole_number
from webpanel.ranking import present, rating_present
from webpanel.ranking.blueprint import bp, season

PLAYER_FIELDS = {"name", "club", "city"}
PLAYER_NOT_FOUND = define_code("player_not_found", "No registered player (or tournament) has this id.")
PLAYER_REFUSED = define_code("player_refused", "The registry refuses this player (the error says why).")
TOURNAMENT_REFUSED = define_code("tournament_refused", "The tournament refuses this entry (see the error).")
SAME_PLAYER_TWICE = define_code("same_player_twice", "The same player is named twice for one table.")
MAX_TABLE = 4
PLAYER_ID_LIST = rf" *[0-9]{{1,12}} *(, *[0-9]{{1,12}} *){{1,{MAX_TABLE - 1}}}"
"""A table's players for the handicap: 2 to 4 ids, comma-separated (ASCII digits: "²" is no id)."""
PLAYER_LIST = re.compile(PLAYER_ID_LIST, re.ASCII)
_WHOLE = {"type": "integer", "minimum": 0, "maximum": MAX_WHOLE}


def _player_id(raw: str) -> int:
    if not (raw.isascii() and raw.isdigit()) or len(raw) > 12:
        raise ApiError(404, f"there is no registered player {raw[:20]!r}", code=PLAYER_NOT_FOUND)
    return int(raw)


def _refusal(exc: Exception) -> ApiError:
    if isinstance(exc, PlayerNotFoundError | TournamentNotFoundError):
        return ApiError(404, str(exc), code=PLAYER_NOT_FOUND)
    if isinstance(exc, PlayerError):
        return ApiError(422, str(exc), code=PLAYER_REFUSED)
    # the tournament refused: registration closed, a name taken, …
    return ApiError(409, str(exc), code=TOURNAMENT_REFUSED)


REFUSED = (PlayerError, PlayerNotFoundError, TournamentNotFoundError, GameError)


@bp.get("/api/ranking")
def api_ranking() -> Response:
    """The general ranking: ranked players first, then the provisional ones."""
    return jsonify(present.ranking_json(season()))


@bp.get("/api/ranking/players/<raw>")
def api_ranking_player(raw: str) -> Response:
    """One player's line and every game of theirs the event server knows."""
    players = Players(get_db())
    try:
        player = players.kept(_player_id(raw))
    except PlayerNotFoundError as exc:
        raise ApiError(404, str(exc), code=PLAYER_NOT_FOUND) from None
    now = season()
    line = now.line(player.id)
    return jsonify(
        {
            "player": player.to_json(),
            "line": None if line is None else present.line_json(now, line),
            "games": [present.game_json(now, g) for g in reversed(now.games_of(player.id))],
            # The rating beside the points: now, and after each game (oldest first).
            **rating_present.player_rating(now, player.id),
        }
    )


def table_players() -> list[int]:
    """The table a query names: ``?players=3,8,12`` (registered ids, 2 to 4), each as the registry keeps it
    (a duplicate merged away reads as the player kept), all different."""
    raw = request.args.get("players", "")
    # What the document's pattern says, exactly: an empty list is no table (2 to 4 players), so 400.
    if not PLAYER_LIST.fullmatch(raw):
        raise ApiError(400, "players is a list of 2 to 4 registered player ids, comma-separated",
                       code=BAD_QUERY)
    players = Players(get_db())
    try:
        kept = [players.kept(int(p)).id for p in raw.split(",")]
    except PlayerNotFoundError as exc:
        raise ApiError(404, str(exc), code=PLAYER_NOT_FOUND) from None
    if len(set(kept)) != len(kept):
        raise ApiError(400, "a table has different players", code=SAME_PLAYER_TWICE)
    return kept


@bp.get("/api/ranking/handicap")
def api_handicap() -> Response:
    """The handicap the ranking proposes for a table: ``?players=3,8,12`` (registered ids, 2 to 4)."""
    kept = table_players()
    now = season()
    return jsonify(present.handicap_json(now, now.handicap(kept)))


@bp.get("/api/players")
def api_players() -> Response:
    """The registry: every registered player (duplicates merged away are left out)."""
    return jsonify([p.to_json() for p in Players(get_db()).all()])


@bp.post("/api/players")
@staff_required
def api_create_player() -> tuple[Response, int]:
    body = json_object(allowed=PLAYER_FIELDS, required={"name"})
    try:
        player = Players(get_db()).create(
            body["name"], club=body.get("club"), city=body.get("city"), actor=actor()
        )
    except REFUSED as exc:
        raise _refusal(exc) from None
    return jsonify(player.to_json()), 201


@bp.get("/api/players/<id:raw>")
def api_player(raw: int) -> Response:
    try:
        return jsonify(Players(get_db()).get(raw).to_json())
    except PlayerNotFoundError as exc:
        raise ApiError(404, str(exc), code=PLAYER_NOT_FOUND) from None


@bp.post("/api/players/<id:raw>")
@staff_required
def api_edit_player(raw: int) -> Response:
    """Change a player's name, club or city (fields left out are kept)."""
    body = json_object(allowed=PLAYER_FIELDS)
    try:
        player = Players(get_db()).edit(raw, **{k: body.get(k) for k in PLAYER_FIELDS}, actor=actor())
    except REFUSED as exc:
        raise _refusal(exc) from None
    return jsonify(player.to_json())


@bp.post("/api/players/<id:raw>/merge")
@staff_required
def api_merge_player(raw: int) -> Response:
    """``{"into": id}``: this player is a duplicate of that one."""
    body = json_object(allowed={"into"}, required={"into"})
    into = body["into"]
    if isinstance(into, bool) or not isinstance(into, int) or not 0 <= into <= MAX_WHOLE:
        raise bad_field("into", "into must be a registered player's id")
    try:
        kept = Players(get_db()).merge(raw, into, actor=actor())
    except REFUSED as exc:
        raise _refusal(exc) from None
    return jsonify(kept.to_json())


@bp.get("/api/players/audit")
@staff_required
def api_player_audit() -> Response:
    """The registry's audit trail, newest first (``?player=id``: one player's, oldest first)."""
    raw = request.args.get("player")
    # A player's id, as documented (anything else is a bad query, 400; an id nobody holds has no entries).
    player = None if raw is None else whole_number(raw, "player")
    return jsonify([a.to_json() for a in Players(get_db()).audit(player)])


@bp.post("/api/event/tournaments/<id:tid>/players")
@staff_required
def api_enter_player(tid: int) -> tuple[Response, int]:
    """``{"player": id, "request_id": "…"}``: register a registered player in the tournament."""
    body = json_object(allowed={"player", "request_id"}, required={"player"})
    player, request_id = body["player"], body.get("request_id")
    if isinstance(player, bool) or not isinstance(player, int) or not 0 <= player <= MAX_WHOLE:
        raise bad_field("player", "player must be a registered player's id")
    if request_id is not None and (not isinstance(request_id, str) or not 0 < len(request_id) <= 64):
        raise bad_field("request_id", "request_id must be a string of 1 to 64 characters")
    try:
        recorded = Players(get_db()).enter(tid, player, actor=actor(), request_id=request_id)
    except REFUSED as exc:
        raise _refusal(exc) from None
    event: Any = recorded.entry.event
    answer = {
        "tournament": tid,
        "number": event["player"],
        "name": event["name"],
        "player": player,
        "duplicate": recorded.duplicate,
    }
    return jsonify(answer), 200 if recorded.duplicate else 201


@bp.post("/api/event/tournaments/<id:tid>/players/link")
@staff_required
def api_link_players(tid: int) -> Response:
    """``{}``: link every player the tournament registered by name (to the registered player of that
    name, or a new one); ``{"number": n, "player": id}``: link that one to that registered player."""
    body = json_object(allowed={"number", "player"})
    players = Players(get_db())
    try:
        if not body:
            adopted = players.adopt(tid, actor=actor())
            return jsonify(
                {"linked": adopted.linked, "created": adopted.created, "ambiguous": adopted.ambiguous}
            )
        number, player = body.get("number"), body.get("player")
        if any(isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= MAX_WHOLE
               for v in (number, player)):
            raise bad_field("number", "number and player are both needed, as whole numbers")
        assert isinstance(number, int) and isinstance(player, int)
        entrant = players.link(tid, number, player, actor=actor())
    except REFUSED as exc:
        raise _refusal(exc) from None
    return jsonify({"linked": [[entrant.player, entrant.player_id]], "created": [], "ambiguous": []})


_ID = {"in": "path", "required": True, "schema": {"type": "integer"}}
_PLAYER = {
    "type": "object",
    "required": ["id", "name", "club", "city"],
    "properties": {
        "id": {"type": "integer"},
        "name": {"type": "string", "maxLength": 24},
        "club": {"type": "string"},
        "city": {"type": "string"},
        "merged_into": {"type": ["integer", "null"]},
    },
}
_FIELDS = {"type": "object", "properties": {k: {"type": "string"} for k in PLAYER_FIELDS}}
openapi.add_schemas({"RegisteredPlayer": _PLAYER})
_REF = {"$ref": "#/components/schemas/RegisteredPlayer"}
_EVENT_QUERY = {
    "name": "event",
    "in": "query",
    "required": False,
    "schema": {"type": "string"},
    "description": "An event's id: the ranking of that event's counting tournaments alone",
}
_NO_EVENT = openapi.error("No such event (event_not_found)")
openapi.add_paths(
    {
        "/api/ranking": {
            "get": {
                "summary": "The general ranking of the tournaments that count: points per game over the"
                " window, games, best results (ranked first, then provisional)",
                "parameters": [_EVENT_QUERY],
                "responses": {
                    "200": openapi.json_response("at, rules, event (null: every event) and the ranking"),
                    "404": _NO_EVENT,
                },
            }
        },
        "/api/ranking/players/{raw}": {
            "get": {
                "summary": "A registered player's ranking line and games (in the tournaments that count)",
                "parameters": [{"name": "raw", **_ID}, _EVENT_QUERY],
                "responses": {
                    "200": openapi.json_response(
                        "player, line (null: no game in the window), games, rating (PlayerRating) and"
                        " history (the rating after each game, oldest first)"
                    ),
                    "404": openapi.error("No such registered player, or no such event"),
                },
            }
        },
        "/api/ranking/handicap": {
            "get": {
                "summary": "The handicap the ranking proposes for a table of 2 to 4 registered players",
                "parameters": [
                    {
                        "name": "players",
                        "in": "query",
                        "required": True,
                        "schema": {"type": "string", "pattern": f"^{PLAYER_ID_LIST}$"},
                        "description": "2 to 4 registered player ids, comma-separated (an empty list is"
                        " no table: 400)",
                    },
                    _EVENT_QUERY,
                ],
                "responses": {
                    "200": openapi.json_response("pawns per player, carriers, lead, over, unranked"),
                    "400": openapi.error("Not 2 to 4 different ids"),
                    "404": openapi.error("No such registered player, or no such event"),
                },
            }
        },
        "/api/players": {
            "get": {
                "summary": "Every registered player",
                "responses": {"200": openapi.json_response("The players", {"type": "array", "items": _REF})},
            },
            "post": {
                "summary": "Register a player (staff)",
                "parameters": [openapi.CSRF_PARAMETER],
                "requestBody": openapi.json_body({**_FIELDS, "required": ["name"]}),
                "responses": {
                    "201": openapi.json_response("The player", _REF),
                    "401": openapi.error("Staff only"),
                    "422": openapi.error("A bad name, club or city, or the player is registered"),
                },
            },
        },
        "/api/players/{raw}": {
            "get": {
                "summary": "A registered player",
                "parameters": [{"name": "raw", **_ID}],
                "responses": {
                    "200": openapi.json_response("The player", _REF),
                    "404": openapi.error("No such player"),
                },
            },
            "post": {
                "summary": "Change a player's name, club or city (staff)",
                "parameters": [{"name": "raw", **_ID}, openapi.CSRF_PARAMETER],
                "requestBody": openapi.json_body(_FIELDS),
                "responses": {
                    "200": openapi.json_response("The player", _REF),
                    "401": openapi.error("Staff only"),
                    "404": openapi.error("No such player"),
                    "422": openapi.error("A bad value, a merged player, or the same as another"),
                },
            },
        },
        "/api/players/{raw}/merge": {
            "post": {
                "summary": "Merge a duplicate into the player kept (staff)",
                "parameters": [{"name": "raw", **_ID}, openapi.CSRF_PARAMETER],
                "requestBody": openapi.json_body(
                    {
                        "type": "object",
                        "required": ["into"],
                        "additionalProperties": False,
                        "properties": {"into": _WHOLE},
                    }
                ),
                "responses": {
                    "200": openapi.json_response("The player kept", _REF),
                    "401": openapi.error("Staff only"),
                    "404": openapi.error("No such player"),
                    "422": openapi.error("Already merged, itself, or both play in one tournament"),
                },
            }
        },
        "/api/players/audit": {
            "get": {
                "summary": "The registry's audit trail (staff)",
                "parameters": [
                    {
                        "name": "player",
                        "in": "query",
                        "required": False,
                        "schema": {"type": "integer", "minimum": 0, "maximum": MAX_WHOLE},
                    }
                ],
                "responses": {
                    "200": openapi.json_response(
                        "The entries, newest first (one player's: oldest first)",
                        {"type": "array", "items": {"type": "object"}},
                    ),
                    "400": openapi.error("player is not a whole number (bad_query)"),
                    "401": openapi.error("Staff only"),
                },
            }
        },
        "/api/event/tournaments/{tid}/players": {
            "post": {
                "summary": "Register a registered player in a tournament (staff)",
                "parameters": [{"name": "tid", **_ID}, openapi.CSRF_PARAMETER],
                "requestBody": openapi.json_body(
                    {
                        "type": "object",
                        "required": ["player"],
                        "additionalProperties": False,
                        "properties": {
                            "player": _WHOLE,
                            "request_id": {"type": "string", "minLength": 1, "maxLength": 64},
                        },
                    }
                ),
                "responses": {
                    "201": openapi.json_response("tournament, number, name, player"),
                    "200": openapi.json_response("The same request_id again: recorded once"),
                    "401": openapi.error("Staff only"),
                    "404": openapi.error("No such tournament or player"),
                    "409": openapi.error("The tournament refused: registration closed, name taken"),
                    "422": openapi.error("A merged player"),
                },
            }
        },
        "/api/event/tournaments/{tid}/players/link": {
            "post": {
                "summary": "Link the tournament's players registered by name to the registry (staff)",
                "parameters": [{"name": "tid", **_ID}, openapi.CSRF_PARAMETER],
                "requestBody": openapi.json_body(
                    {
                        "type": "object",
                        "additionalProperties": False,
                        "properties": {"number": _WHOLE, "player": _WHOLE},
                        "dependentRequired": {"number": ["player"], "player": ["number"]},
                    }
                ),
                "responses": {
                    "200": openapi.json_response("linked, created, ambiguous"),
                    "401": openapi.error("Staff only"),
                    "404": openapi.error("No such tournament or player"),
                    "422": openapi.error("No such player in the tournament"),
                },
            }
        },
    }
)
