"""A round's tables played online: each player at home, on their own device, by their seat's link.

Staff make the digital Haute-Tension game of every table of the round that
has no board and no result yet (one click), then send each player their
seat's link privately (by mail, by message: the page lists them, seat by
seat, for staff only). A table whose player does not come may have that seat
played by a computer pseudo-player, when the organiser allows it (a button
per table, or for the whole round); the tournament result then says which
seats the computer played. The turn timer keeps a game moving when a player
vanishes; a player whose connection dropped comes back to their seat by
opening the page again (the seat's cookie), and one who lost the device gets
a new link from staff.
"""

from __future__ import annotations

import math
from typing import Any

from flask import Response, abort, flash, jsonify, make_response, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue
from flask_babel import gettext as _
from flask_babel import lazy_gettext
from werkzeug.wrappers import Response as WerkzeugResponse

from games.frame import AI_LEVELS
from store.event.assignments import Assignments
from store.games import GameEndedError, GameNotFoundError, GameRecord, GameStore, JoinError
from store.tournament_tables import TournamentTables
from store.tournaments import TournamentNotFoundError, Tournaments
from tournaments.exc import TournamentError
from tournaments.tournament import Tournament
from webpanel import openapi
from webpanel.auth import staff_required
from webpanel.codes import TABLE_NOT_FOUND, TOURNAMENT_NOT_FOUND
from webpanel.db import get_db
from webpanel.errors import ApiError, bad_field, json_object
from webpanel.event.blueprint import bp
from webpanel.refusals import refusal_text
from webpanel.seats import host_cookie, set_token_cookie
from webpanel.table_games import table_games

LEVEL_NAMES = {
    "random": lazy_gettext("random moves"),
    "heuristic": lazy_gettext("a good player"),
    "ismcts": lazy_gettext("a strong player (search)"),
}
"""The computer levels of digital Haute-Tension, as staff read them."""

DEFAULT_TURN_TIMER = 90.0
"""Seconds a remote player has for a move before the timer plays for them (the form's default)."""


def _tournament(tid: int) -> Tournament:
    try:
        return Tournaments(get_db()).load(tid)
    except TournamentNotFoundError as exc:
        raise ApiError(404, str(exc), code=TOURNAMENT_NOT_FOUND) from None


def _games_of_round(tid: int, number: int) -> dict[int, GameRecord]:
    """Each table's latest digital game (any status)."""
    found: dict[int, GameRecord] = {}
    for table, game_id in TournamentTables(get_db()).games_of_round(tid, number):
        try:
            found[table] = GameStore(get_db()).get(game_id)
        except GameNotFoundError:
            continue
    return found


def online_tables(tid: int, number: int) -> list[dict[str, Any]]:
    """The round's tables as staff see them: board or game, and every seat's way in."""
    t = _tournament(tid)
    try:
        made = t.round(number)
    except TournamentError as exc:
        raise ApiError(404, str(exc), code=TABLE_NOT_FOUND) from None
    boards = {a.table: a.board for a in Assignments(get_db()).of_round(tid, number)}
    played = _games_of_round(tid, number)
    tables = []
    for table in made.tables:
        record = played.get(table.number)
        entry: dict[str, Any] = {
            "table": table.number,
            "players": [t.names[p] for p in table.seats],
            "board": boards.get(table.number),
            "result": t.result(number, table.number) is not None,
            "game": None,
        }
        if record is not None:
            entry["game"] = {
                "id": record.id,
                "status": record.status,
                "url": url_for("lobby.game_page", game_id=record.id),
                "seats": [_seat(record, s.seat) for s in record.seats],
            }
        tables.append(entry)
    return tables


def _seat(record: GameRecord, number: int) -> dict[str, Any]:
    seat = record.seats[number]
    entry: dict[str, Any] = {
        "seat": number,
        "name": seat.name,
        "kind": seat.kind,
        "level": seat.level,
        "joined": seat.joined,
    }
    if record.is_open() and not seat.is_ai and not seat.joined and seat.join_code:
        entry.update(table_games().seat_link(seat.join_code))
    return entry


def to_play_online(tables: list[dict[str, Any]]) -> list[int]:
    """Tables with no board, no result and no open game."""
    return [
        e["table"]
        for e in tables
        if e["board"] is None and not e["result"] and (e["game"] is None or e["game"]["status"] != "running")
    ]


def make_online(tid: int, number: int, turn_timer: float) -> tuple[list[int], list[tuple[int, str]]]:
    """Create the games of the round's tables to play online: (tables made, their host tokens)."""
    made: list[int] = []
    tokens: list[tuple[int, str]] = []
    for table in to_play_online(online_tables(tid, number)):
        record, host_token = table_games().create(tid, number, table, {"turn_timer": turn_timer})
        made.append(table)
        tokens.append((record.id, host_token))
    return made, tokens


def fill_round(tid: int, number: int, level: Any, table: int | None = None) -> int:
    """Computers for the empty seats of the round's running games (or one table's); how many seats."""
    filled = 0
    for entry in online_tables(tid, number):
        game = entry["game"]
        if game is None or game["status"] != "running" or (table is not None and entry["table"] != table):
            continue
        record = GameStore(get_db()).get(game["id"])
        empty = [s.seat for s in record.seats if not s.is_ai and not s.joined]
        if empty:
            table_games().give_to_computer(record, level, empty)
            filled += len(empty)
    return filled


def _timer(raw: Any) -> float:
    if isinstance(raw, bool) or not isinstance(raw, int | float) or not math.isfinite(raw) or raw < 0:
        raise bad_field("turn_timer", "turn_timer is a number of seconds (0: none)")
    return float(raw)


# -- the API ---------------------------------------------------------------------------------------


@bp.get("/api/event/tournaments/<id:tid>/rounds/<id:number>/online")
@staff_required
def api_online(tid: int, number: int) -> Response:
    return jsonify(online_tables(tid, number))


@bp.post("/api/event/tournaments/<id:tid>/rounds/<id:number>/online")
@staff_required
def api_make_online(tid: int, number: int) -> tuple[Response, int]:
    """``{"turn_timer": 90}``: the games of every table with no board, no result and no open game."""
    body = json_object(allowed={"turn_timer"})
    made, tokens = make_online(tid, number, _timer(body.get("turn_timer", DEFAULT_TURN_TIMER)))
    response = jsonify({"made": made, "tables": online_tables(tid, number)})
    for game_id, token in tokens:
        set_token_cookie(response, host_cookie(game_id), token)
    return response, 201


@bp.post("/api/event/tournaments/<id:tid>/rounds/<id:number>/computers")
@staff_required
def api_fill(tid: int, number: int) -> Response:
    """``{"level": "heuristic", "table": 2}``: computers play the seats nobody took (one table, or all)."""
    body = json_object(allowed={"level", "table"}, required={"level"})
    table = body.get("table")
    if table is not None and (isinstance(table, bool) or not isinstance(table, int)):
        raise bad_field("table", "table must be a table number")
    filled = fill_round(tid, number, body["level"], table)
    return jsonify({"seats": filled, "tables": online_tables(tid, number)})


# -- the page --------------------------------------------------------------------------------------


@bp.get("/event/tournaments/<id:tid>/rounds/<id:number>/online")
@staff_required
def online_page(tid: int, number: int) -> str:
    try:
        info = Tournaments(get_db()).get(tid)
        tables = online_tables(tid, number)
    except (TournamentNotFoundError, ApiError):
        abort(404)
    return render_template(
        "event/online.html",
        info=info,
        number=number,
        tables=tables,
        can_make=bool(to_play_online(tables)),
        levels={level: LEVEL_NAMES.get(level, level) for level in AI_LEVELS.get("hautetension", {})},
        timer=int(DEFAULT_TURN_TIMER),
    )


def _back(tid: int, number: int) -> WerkzeugResponse:
    return redirect(url_for("event.online_page", tid=tid, number=number), code=303)


@bp.post("/event/tournaments/<id:tid>/rounds/<id:number>/online")
@staff_required
def make_online_form(tid: int, number: int) -> ResponseReturnValue:
    response = make_response(_back(tid, number))
    try:
        raw = (request.form.get("turn_timer") or "0").strip()
        try:
            timer = _timer(float(raw))
        except ValueError:
            flash(_("The turn timer is a number of seconds."), "error")
            return response
        made, tokens = make_online(tid, number, timer)
        for game_id, token in tokens:
            set_token_cookie(response, host_cookie(game_id), token)
        flash(_("%(n)s table(s) to play online: send each player their seat's link.", n=len(made)), "ok")
    except ApiError as exc:
        flash(refusal_text(exc), "error")
    return response


@bp.post("/event/tournaments/<id:tid>/rounds/<id:number>/computers")
@staff_required
def fill_form(tid: int, number: int) -> ResponseReturnValue:
    raw = request.form.get("table", "")
    try:
        filled = fill_round(tid, number, request.form.get("level", ""), int(raw) if raw.isdigit() else None)
        flash(_("The computer plays %(n)s seat(s).", n=filled), "ok")
    except ApiError as exc:
        flash(refusal_text(exc), "error")
    return _back(tid, number)


@bp.post("/event/tournaments/<id:tid>/rounds/<id:number>/games/<id:game_id>/seats/<id:seat>/link")
@staff_required
def new_link_form(tid: int, number: int, game_id: int, seat: int) -> ResponseReturnValue:
    link = TournamentTables(get_db()).get(game_id)
    if link is None or (link.tournament_id, link.round) != (tid, number):
        flash(_("That game is not a table of this round."), "error")
        return _back(tid, number)
    try:
        GameStore(get_db()).new_join_code(game_id, seat)
        flash(
            _("A new link for seat %(n)s: send it to its player; the old one no longer works.", n=seat + 1),
            "ok",
        )
    except (JoinError, GameEndedError) as exc:
        flash(refusal_text(exc), "error")
    return _back(tid, number)


_PATH = [
    {"name": "tid", "in": "path", "required": True, "schema": {"type": "integer"}},
    {"name": "number", "in": "path", "required": True, "schema": {"type": "integer"}},
]
openapi.add_paths(
    {
        "/api/event/tournaments/{tid}/rounds/{number}/online": {
            "get": {
                "summary": "Staff: the round's tables, their board or digital game, and each seat's link",
                "parameters": _PATH,
                "responses": {
                    "200": openapi.json_response("The tables"),
                    "401": openapi.error("Staff only"),
                    "404": openapi.error("No such tournament or round"),
                },
            },
            "post": {
                "summary": "Staff: make the digital games of the round's tables without a board or result",
                "parameters": [*_PATH, openapi.CSRF_PARAMETER],
                "requestBody": openapi.json_body(
                    {
                        "type": "object",
                        "additionalProperties": False,
                        "properties": {"turn_timer": {"type": "number", "minimum": 0}},
                    }
                ),
                "responses": {
                    "201": openapi.json_response("made (table numbers) and the tables"),
                    "400": openapi.error("A bad turn timer"),
                    "401": openapi.error("Staff only"),
                    "404": openapi.error("No such tournament or round"),
                    "503": openapi.error("The lobby is full"),
                },
            },
        },
        "/api/event/tournaments/{tid}/rounds/{number}/computers": {
            "post": {
                "summary": "Staff: computer pseudo-players for the seats nobody took,"
                " in one table or every table",
                "parameters": [*_PATH, openapi.CSRF_PARAMETER],
                "requestBody": openapi.json_body(
                    {
                        "type": "object",
                        "required": ["level"],
                        "additionalProperties": False,
                        "properties": {
                            "level": {"type": "string", "description": "A computer level (another: 409)"},
                            "table": {"type": "integer", "minimum": 1},
                        },
                    }
                ),
                "responses": {
                    "200": openapi.json_response("seats (how many) and the tables"),
                    "400": openapi.error("Unknown level"),
                    "401": openapi.error("Staff only"),
                    "404": openapi.error("No such tournament or round"),
                },
            }
        },
    }
)
