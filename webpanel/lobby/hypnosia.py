"""What the Hypnosia board page needs beyond the game's view: the board's geometry,
the move log and where each legal move lands.

Hypnosia hides nothing (docs/hypnosia.md): anyone who may look at the game may
read these, like its view. The landing squares are found by playing each legal
move on a copy of the game, so the page highlights exactly what the engine
accepts; that and the seat of every roll cost a replay and a copy per legal
move, so they are computed once per version of the game and then sent as
stored (the same bytes for every caller: there is nothing to hide).
"""

from __future__ import annotations

from typing import Any

from flask import Response

from games.frame import CHANCE, DigitalGame
from games.hypnosia.board import load_board
from games.hypnosia.game import Hypnosia
from webpanel import openapi
from webpanel.errors import ApiError
from webpanel.lobby.api import cached_json, load_game
from webpanel.lobby.apidoc import GAME_ID, HOST_TOKEN, SEAT_TOKEN
from webpanel.lobby.blueprint import bp
from webpanel.lobby.codes import WRONG_GAME_KIND
from webpanel.openapi import error, json_response
from webpanel.seats import identify


def landings(game: Hypnosia) -> list[dict[str, Any]] | None:
    """Each legal pawn move of the seat to act with the square it lands on and the pawns it takes.

    None while the game waits for dice or is over.
    """
    to_act = game.to_act
    if to_act is None or to_act == CHANCE:
        return None
    before = game.view()["pawns"]
    result = []
    for move in game.legal_moves():
        if "roll" in move:
            continue  # dice are the chance actor's, never listed while a seat acts
        after = game.copy()
        after.push(move)
        pawns = after.view()["pawns"]
        taken = sorted(p for p, where in pawns.items() if where == "captured" and before[p] != "captured")
        result.append({"move": move, "to": pawns[move["pawn"]], "captures": taken})
    return result


def rollers(game: Hypnosia) -> list[int | None]:
    """For each move so far, the seat whose dice it rolled (None for a pawn move: its pawn says whose)."""
    replay = Hypnosia.from_json({**game.to_json(), "moves": []})
    seats: list[int | None] = []
    for move in game.history:
        seats.append(replay.view()["rolling"] if replay.to_act == CHANCE else None)
        replay.push(move)
    return seats


def page_data(game: DigitalGame, version: int) -> dict[str, Any]:
    if not isinstance(game, Hypnosia):
        raise ApiError(404, f"game {game.name!r} is not Hypnosia", code=WRONG_GAME_KIND)
    return {
        "version": version,
        "board": load_board(game.options["board"]).to_dict(),
        "moves": list(game.history),
        "rolled_by": rollers(game),
        "landings": landings(game),
    }


@bp.get("/api/games/<id:game_id>/hypnosia")
def api_hypnosia(game_id: int) -> Response:
    loaded = load_game(game_id)
    identify(loaded.record)  # a token sent that is not this game's is refused, as everywhere
    if loaded.record.game != Hypnosia.name:
        raise ApiError(404, f"game {loaded.record.id} is not Hypnosia", code=WRONG_GAME_KIND)
    return cached_json(loaded, "hypnosia", lambda game: page_data(game, loaded.record.version))


openapi.add_paths({
    "/api/games/{game_id}/hypnosia": {
        "get": {
            "summary": "A Hypnosia game's board geometry, move log and where each legal move lands",
            "description": "For the board page: `board` is the board file (circles with each square's "
                           "next square counter-clockwise, bridges, colours with entry and start "
                           "squares); `moves` every move so far in the game's notation; `landings` "
                           "(null while dice are awaited or the game is over) each legal pawn move of "
                           "the seat to act with the square it lands on (`to`: a square, `centre`) "
                           "and the pawns it captures. Hypnosia has no secrets: anyone may read it.",
            "parameters": [GAME_ID, SEAT_TOKEN, HOST_TOKEN],
            "responses": {
                "200": json_response("The board page's data", {
                    "type": "object",
                    "properties": {
                        "version": {"type": "integer"},
                        "board": {"type": "object"},
                        "moves": {"type": "array", "items": {"$ref": "#/components/schemas/Move"}},
                        "rolled_by": {"type": "array", "items": {"type": ["integer", "null"]},
                                      "description": "For each move, the seat whose dice it rolled "
                                                     "(null for a pawn move)."},
                        "landings": {"type": ["array", "null"], "items": {
                            "type": "object",
                            "properties": {"move": {"$ref": "#/components/schemas/Move"},
                                           "to": {"type": "string"},
                                           "captures": {"type": "array", "items": {"type": "string"}}}}},
                    },
                }),
                "403": error("A token that is not this game's"),
                "404": error("No such game, or not a Hypnosia game"),
                "429": error("Too many wrong tokens"),
            },
        },
    },
})
