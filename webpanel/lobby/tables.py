"""Digital Haute-Tension as a table of a tournament round: the panel's routes.

Staff create the table's game from the lobby's API: one human seat per
player of the table, named as the tournament names them, in the table's
seat order, with the table's first player and handicap. Computer seats are
not made at creation: a tournament table seats registered players, and its
points count in their standings; the organiser may hand the seat of a player
who did not come to a computer later (:mod:`webpanel.lobby.remote`). The
players join from their own phones or tablets (the staff device that created
the game is its host and shows the join codes).

The link between the game and its table, and entering its points when it
ends, belong to the store (:mod:`store.tournament_tables`).
"""

from __future__ import annotations

import math
from typing import Any

from flask import Response, flash, jsonify, make_response, redirect, request, url_for
from flask.typing import ResponseReturnValue
from flask_babel import gettext as _

from games.frame import BadOptionsError, DigitalGame, game_class
from games.hautetension.seats import default_lamps
from store.games import GameRecord, OpenGameLimits, SeatSpec
from store.tournament_tables import TournamentTables
from store.tournaments import TournamentNotFoundError, Tournaments
from tournaments.exc import TournamentError
from webpanel import openapi
from webpanel.auth import staff_required
from webpanel.codes import RESULT_EXISTS, TABLE_NOT_FOUND, TOURNAMENT_NOT_FOUND
from webpanel.db import get_db
from webpanel.errors import ApiError, json_object
from webpanel.ids import path_id
from webpanel.lobby import remote
from webpanel.lobby.api import create_game, created_response
from webpanel.lobby.blueprint import bp, lobby_settings
from webpanel.lobby.codes import BAD_OPTIONS, LAYOUT_NOT_FOUND, NOT_A_TABLE, TABLE_BEING_PLAYED
from webpanel.openapi import CSRF_PARAMETER, error, json_body, json_response
from webpanel.refusals import refusal_text
from webpanel.seats import host_cookie, set_token_cookie

TABLE_OPTIONS = {"turn_timer", "default_action", "layout"}
"""What staff may choose for a table's game; seats, first player and handicap come from the table."""


def create_table_game(
    tid: int, number: int, table: int, chosen: dict[str, Any]
) -> tuple[GameRecord, DigitalGame, str]:
    """Create a table's game: (record, game, host token); an ApiError says why not."""
    conn = get_db()
    try:
        tournament = Tournaments(conn).load(tid)
        seated = tournament.round(number).table(table)
    except TournamentNotFoundError as exc:
        raise ApiError(404, str(exc), code=TOURNAMENT_NOT_FOUND) from None
    except TournamentError as exc:
        raise ApiError(404, str(exc), code=TABLE_NOT_FOUND) from None
    if tournament.result(number, table) is not None:
        raise ApiError(409, f"round {number} table {table} already has a result", code=RESULT_EXISTS)
    links = TournamentTables(conn)
    running = links.running_game(tid, number, table)
    if running is not None:
        raise ApiError(409, f"round {number} table {table} is being played as digital game {running}",
                       code=TABLE_BEING_PLAYED)
    names = [tournament.names[p] for p in seated.seats]
    # The table's handicap is per lamp of its seats; the digital game gives seats their default lamps.
    lamps = default_lamps(len(names))
    handicap = {lamps[i]: seated.handicap.get(lamp, 0) for i, lamp in enumerate(seated.lamps)}
    timer = chosen.get("turn_timer", 0)
    if isinstance(timer, float) and not math.isfinite(timer):
        raise ApiError(400, "turn_timer is a number of seconds (0: none)", code=BAD_OPTIONS)
    options = {**chosen, "first": seated.first, "handicap": handicap}
    try:
        game = game_class("hautetension").new(names, options=options)
    except BadOptionsError as exc:
        raise ApiError(400, str(exc), code=BAD_OPTIONS) from None
    # Staff may open more tables than a device's share of the lobby, but not more than the lobby holds.
    limits = OpenGameLimits(total=lobby_settings().max_open_games, per_device=None)
    record, host_token = create_game(game, [SeatSpec(kind="human", name=n) for n in names], hot_seat=False,
                                     limits=limits)
    links.link(record.id, tid, number, table)
    return record, game, host_token


class LobbyTableGames:
    """The lobby's :class:`~webpanel.table_games.TableGames`: what the event server's online rounds ask of
    it (provided by the lobby's ``init_app``)."""

    def create(self, tid: int, number: int, table: int, options: dict[str, Any]) -> tuple[GameRecord, str]:
        record, _game, host_token = create_table_game(tid, number, table, options)
        return record, host_token

    def give_to_computer(self, record: GameRecord, level: Any, seats: list[int] | None) -> GameRecord:
        return remote.give_to_computer(record, level, seats)

    def seat_link(self, code: str) -> dict[str, str]:
        return remote.seat_link(code)


@bp.post("/api/tournaments/<id:tid>/rounds/<id:number>/tables/<id:table>/digital")
@staff_required
def api_table_game(tid: int, number: int, table: int) -> Response:
    """Create the digital Haute-Tension game of a tournament table (staff)."""
    body = json_object(allowed=TABLE_OPTIONS)
    record, game, host_token = create_table_game(tid, number, table, body)
    return created_response(record, game, host_token, url_for("lobby.game_page", game_id=record.id),
                            tournament={"id": tid, "round": number, "table": table})


@bp.post("/tournaments/<id:tid>/rounds/<id:number>/tables/<id:table>/digital")
@staff_required
def table_game_form(tid: int, number: int, table: int) -> ResponseReturnValue:
    """The table page's button: create the game, then show it (with its QR codes) on this device."""
    raw = (request.form.get("turn_timer") or "0").strip()
    try:
        timer = float(raw)
        if not math.isfinite(timer):
            raise ValueError(raw)
        record, _game, host_token = create_table_game(tid, number, table, {"turn_timer": timer})
    except ValueError:
        flash(_("The turn timer is a number of seconds, not %(value)s.", value=raw[:20]), "error")
    except ApiError as exc:
        flash(refusal_text(exc), "error")
    else:
        response = make_response(redirect(url_for("lobby.game_page", game_id=record.id), code=303))
        set_token_cookie(response, host_cookie(record.id), host_token)
        return response
    return redirect(url_for("tournaments.entry", tid=tid, number=number, table=table), code=303)


@bp.get("/api/games/<id:game_id>/tournament")
def api_game_tournament(game_id: int) -> Response:
    """Which tournament table a digital game plays, and whether its result was entered."""
    link = TournamentTables(get_db()).get(game_id)
    if link is None:
        raise ApiError(404, f"game {game_id} is not a tournament table", code=NOT_A_TABLE)
    return jsonify({
        "tournament": link.tournament_id, "round": link.round, "table": link.table,
        "entered": link.entered_at is not None, "refused": link.refused,
    })


@bp.get("/api/layouts/<name>")
def api_layout_named(name: str) -> Response:
    """A shipped board layout by name (a digital game's board may use another than the live board's)."""
    from games.hautetension.layout import available_layouts, load_layout

    if name not in available_layouts():
        raise ApiError(404, f"there is no layout {name!r} (known: {', '.join(available_layouts())})",
                       code=LAYOUT_NOT_FOUND)
    return jsonify(load_layout(name).to_dict())


openapi.add_paths({
    "/api/tournaments/{tid}/rounds/{number}/tables/{table}/digital": {
        "post": {
            "summary": "Staff: create the table's digital Haute-Tension game (its players' seats, first "
                       "player and handicap); its points are entered into the tournament when it ends",
            "parameters": [path_id("tid"), path_id("number"), path_id("table"), CSRF_PARAMETER],
            "requestBody": json_body({"$ref": "#/components/schemas/TableGame"}),
            "responses": {"201": json_response("The new game, with host_token and tournament"),
                          "400": error("Bad options"), "401": error("Staff only"),
                          "404": error("No such tournament, round or table"),
                          "409": error("The table has a result or a running digital game")},
        },
    },
    "/api/games/{game_id}/tournament": {
        "get": {
            "summary": "The tournament table a digital game plays, and whether its result was entered",
            "parameters": [path_id("game_id")],
            "responses": {"200": json_response("tournament, round, table, entered, refused"),
                          "404": error("Not a tournament table")},
        },
    },
    "/api/layouts/{name}": {
        "get": {
            "summary": "A shipped board layout by name, for drawing a digital game's board",
            "parameters": [{"name": "name", "in": "path", "required": True,
                            "schema": {"type": "string"}}],
            "responses": {"200": json_response("The layout in its file format"),
                          "404": error("No such layout")},
        },
    },
})
