"""|Hop> in the panel: the energy change of each legal move, and the API's schemas.

A |Hop> game is played through the lobby's paths (``/api/games/...``); its
view holds everything the board page draws (the board's nodes with their
positions, lines and electrodes, every spin place, the energy of each player
and of the bank, the movement board and the blocked action). The legal moves
with their energy change come from ``/api/games/<id>/hop/moves``, only for the
caller who may move now, like the lobby's ``legal_moves``. The schemas say
what ``move`` and ``view`` hold for a game whose ``game`` is ``"hop"``
(docs/hop.md has the rules' reading).
"""

from __future__ import annotations

from typing import Any, Final

from flask import Response

from games.hop.effects import EFFECT_TITLES, IMPURITY
from games.hop.game import Hop
from games.hop.rules import ACTION_NAMES, ACTION_TITLES, SPIN_FLIP
from webpanel import openapi
from webpanel.errors import ApiError
from webpanel.lobby.api import cached_json, load_game
from webpanel.lobby.apidoc import GAME_ID, HOST_TOKEN, SEAT_TOKEN
from webpanel.lobby.blueprint import bp
from webpanel.lobby.codes import WRONG_GAME_KIND
from webpanel.openapi import error, json_response
from webpanel.seats import identify

ACTIONS: Final = list(ACTION_NAMES.values())
NODE: Final = {"type": "string", "example": "b1",
               "description": "A node by name: a site card (\"c3\") or an electrode by its corner"}
SPIN: Final = {"enum": ["up", "down"]}
COLOUR: Final = {"type": "string", "example": "red"}


def _effect(names: list[str], **targets: Any) -> dict[str, Any]:
    return {"type": "object", "required": ["effect", *targets], "additionalProperties": False,
            "properties": {"effect": {"enum": names}, **targets}}


DOCTORATE_MOVES: Final[list[dict[str, Any]]] = [
    {"type": "object", "required": ["action"], "additionalProperties": False,
     "description": "Doctorate: opens a thesis defense (exempt from the Hamiltonian), in which effects "
                    "are bought.",
     "properties": {"action": {"const": "thesis-defense"}}},
    {"type": "object", "required": ["end_defense"], "additionalProperties": False,
     "properties": {"end_defense": {"const": True}}},
    {"type": "object", "required": ["heat_exchange", "at"], "additionalProperties": False,
     "description": "After a turn: whether the heat source at `at` exchanges its two electrons.",
     "properties": {"heat_exchange": {"type": "boolean"}, "at": NODE}},
    {"type": "object", "required": ["collapse", "at"], "additionalProperties": False,
     "description": "The owner of the superposed electron at `at` chooses its spin (a movement needs it).",
     "properties": {"collapse": SPIN, "at": NODE}},
    _effect(["ionization", "superposition"], at=NODE, spin=SPIN),
    _effect(["penning-trap", "heat-source"], at=NODE),
    _effect(["dead-short"], player={"type": "integer", "description": "The seat robbed of 1 energy."}),
    _effect(["mobility-edge", "zero-point-energy"]),
    _effect(["quantum-tunnel", "long-range-hopping", "diffusion"],
            **{"from": NODE, "spin": SPIN, "to": NODE}),
    _effect(["microwave-cavity"], **{"from": NODE, "to": NODE}),
    _effect(["resistance"], between={"type": "array", "items": NODE, "minItems": 2, "maxItems": 2}),
    _effect(["vortex"], sites={"type": "array", "items": NODE, "minItems": 4, "maxItems": 4},
            turning={"enum": ["clockwise", "counterclockwise"]}),
    _effect(["impurity-vacancy"], remove=NODE),
    _effect(["impurity-vacancy"], add=NODE),
]
"""The Doctorate's moves: the thesis defense, the effect cards (docs/hop.md, Doctorate)."""

HOP_MOVE: Final[dict[str, Any]] = {
    "description": "A |Hop> move. The blocker (the seat after the active player) blocks one action; the "
                   "active player then makes two movement actions, or passes when none is possible.",
    "oneOf": [
        {"type": "object", "required": ["block"], "additionalProperties": False,
         "properties": {"block": {"enum": ACTIONS}}},
        {"type": "object", "required": ["action", "from", "spin", "to"], "additionalProperties": False,
         "description": "hop: to the same spin of an adjacent site (out of the own electrode: onto the spin "
                        "given); cradle: `to` is where the line's last electron lands; tunnel: `to` is where "
                        "the tunnelling electron lands.",
         "properties": {"action": {"enum": ["hop", "cradle", "tunnel"]},
                        "from": NODE, "spin": SPIN, "to": NODE}},
        {"type": "object", "required": ["action", "from", "to"], "additionalProperties": False,
         "properties": {"action": {"const": "doublon"}, "from": NODE, "to": NODE}},
        {"type": "object", "required": ["action", "at", "spin"], "additionalProperties": False,
         "description": "`spin` is the spin the electron leaves.",
         "properties": {"action": {"const": "spin-flip"}, "at": NODE, "spin": SPIN}},
        {"type": "object", "required": ["pass"], "additionalProperties": False,
         "properties": {"pass": {"const": True}}},
        *DOCTORATE_MOVES,
    ],
    "example": {"action": "hop", "from": "a1", "spin": "up", "to": "b1"},
}

HOP_VIEW: Final[dict[str, Any]] = {
    "type": "object",
    "description": "The `view` of a |Hop> game (the same for every seat: |Hop> hides nothing). "
                   "The legal moves are in the game's `legal_moves` and, with their energy change, "
                   "in `/api/games/{game_id}/hop/moves`.",
    "properties": {
        "players": {"type": "array", "items": {"type": "object", "properties": {
            "name": {"type": "string"}, "colour": COLOUR, "team": {"type": "integer"},
            "energy": {"type": "integer", "description": "The player's energy tokens."}}}},
        "level": {"enum": ["bachelor", "master", "doctorate"]},
        "hamiltonian": {"type": ["object", "null"], "description": "Master only.", "properties": {
            "field": {"enum": ["positive", "negative"]},
            "interaction": {"enum": ["attractive", "repulsive"]}}},
        "board": {"type": "object", "description": "The board's geometry, drawn by the page.", "properties": {
            "name": {"type": "string"}, "description": {"type": "string"},
            "nodes": {"type": "object", "description": "Node name -> [x, y] (y counts rows from the bottom).",
                      "additionalProperties": {"type": "array", "items": {"type": "number"}}},
            "lines": {"type": "array", "items": {"type": "array", "items": {"type": "string"}},
                      "description": "Straight lines of nodes: adjacency, the cradle's and tunnel's paths."},
            "electrodes": {"type": "array", "items": {"type": "object", "properties": {
                "colour": COLOUR, "node": NODE, "team": {"type": "integer"}}}}}},
        "sites": {"type": "object", "description": "Site -> {up, down}: the colour of the electron on each "
                                                   "spin place, or null.",
                  "additionalProperties": {"type": "object", "properties": {
                      "up": {"type": ["string", "null"]}, "down": {"type": ["string", "null"]}}}},
        "electrodes": {"type": "object", "description": "Electrode colour -> {electron colour: count}.",
                       "additionalProperties": {"type": "object",
                                                "additionalProperties": {"type": "integer"}}},
        "bank": {"type": "integer", "description": "Energy tokens in the bank."},
        "board_energy": {"type": "integer"},
        "movement_board": {"type": "array", "items": {"enum": ACTIONS}},
        "turn": {"type": "integer", "description": "The active player's seat."},
        "turns_played": {"type": "integer"}, "max_turns": {"type": "integer"},
        "phase": {"enum": ["block", "first", "second", "over"]},
        "blocker": {"type": "integer"},
        "blocked": {"type": ["string", "null"], "description": "The action blocked this turn."},
        "not_blockable": {"type": ["string", "null"],
                          "description": "The action blocked on the active player's previous turn."},
        "to_act": {"type": ["integer", "null"]},
        "outcome": {"type": ["object", "null"]},
        "history": {"type": "array", "items": {"$ref": "#/components/schemas/HopMove"}},
        "market": {"type": "array", "description": "Doctorate: the effects board, cheapest position first.",
                   "items": {"type": "object", "properties": {
                       "effect": {"type": "string"}, "cost": {"type": "integer"},
                       "used": {"type": "boolean", "description": "Played this turn."}}}},
        "defending": {"type": "boolean", "description": "Doctorate: a thesis defense is open."},
        "extra_actions": {"type": "integer",
                          "description": "Doctorate: movement actions added (mobility edge)."},
        "tokens": {"type": "array", "description": "Doctorate: the effect tokens on the board, in the order "
                   "placed (each with `at`, `from`/`to`, `between` or `sites` and `turning`).",
                   "items": {"type": "object"}},
        "removed": {"type": "array", "items": NODE,
                    "description": "Doctorate: site cards a vacancy removed."},
        "spare_cards": {"type": "integer", "description": "Doctorate: site cards left in the box (36 in "
                        "all), which an impurity may put beside the board."},
        "ionized": {"type": "object",
                    "description": "Doctorate: colour -> electrons ionized out of the game.",
                    "additionalProperties": {"type": "integer"}},
        "superposed": {"type": "array", "description": "Doctorate: superposed electrons (site, owner's seat, "
                       "the place it is drawn on).", "items": {"type": "object"}},
        "collapse": {"type": ["object", "null"],
                     "description": "Doctorate: the superposed electron whose spin its owner chooses now, "
                                    "and the movement or effect card waiting for it (`move`; null when a "
                                    "token waits for it after a turn)."},
        "after_turn": {"type": "array", "items": {"type": "object"},
                       "description": "Doctorate: each electron the tokens moved after the last turn "
                                      "(`effect`, `from`, `spin` it had, `to`; a heat source: from = to)."},
        "heat_exchange": {"type": ["string", "null"],
                          "description": "Doctorate: the heat source whose exchange the last player "
                                         "decides now."},
        "titles": {"type": "object", "description": "What the page calls each action of the movement board "
                   "and (Doctorate) each effect card, by its name in the notation.",
                   "additionalProperties": {"type": "string"},
                   "example": {"spin-flip": ACTION_TITLES[SPIN_FLIP],
                               "impurity-vacancy": EFFECT_TITLES[IMPURITY]}},
    },
}

openapi.add_schemas({
    "HopMove": HOP_MOVE,
    "HopAnnotatedMove": {
        "type": "object",
        "description": "A legal move with the board's energy change: the mover pays it to the bank when "
                       "positive, takes it from the bank when negative (Master level).",
        "properties": {"move": {"$ref": "#/components/schemas/HopMove"},
                       "energy_change": {"type": "integer"},
                       "energy_paid": {"type": "integer", "description": "Doctorate: what the mover pays "
                                       "(negative: takes), ΔE less the resistances crossed."}},
    },
    "HopView": HOP_VIEW,
})


@bp.get("/api/games/<id:game_id>/hop/moves")
def api_hop_moves(game_id: int) -> Response:
    """The legal moves with their energy change, for the caller who may move now (else ``null``)."""
    loaded = load_game(game_id)
    record = loaded.record
    caller = identify(record)  # a token that is not this game's is refused, as everywhere
    if record.game != Hop.name:
        raise ApiError(404, f"game {record.id} is not |Hop>", code=WRONG_GAME_KIND)
    to_act = loaded.answer("to_act", lambda game: game.to_act)
    may_move = record.is_open() and caller.acts_for(record, to_act)
    # |Hop> hides nothing: the answer depends only on whether the caller may move now.
    return cached_json(loaded, ("hop-moves", may_move), lambda game: {
        "version": record.version,
        "to_act": game.to_act,
        "moves": game.annotated_moves() if may_move and isinstance(game, Hop) else None,
    })


openapi.add_paths({
    "/api/games/{game_id}/hop/moves": {
        "get": {
            "summary": "A |Hop> game's legal moves with the energy change of each",
            "description": "For the seat that acts now (its seat token, or the host of a hot-seat game): "
                           "every legal move with `energy_change`, the board's ΔE (the mover pays it to the "
                           "bank when positive, takes it when negative). Anyone else gets `moves: null`, as "
                           "with the game's `legal_moves`. `version` is the game's, to match the game.",
            "parameters": [GAME_ID, SEAT_TOKEN, HOST_TOKEN],
            "responses": {
                "200": json_response("The legal moves", {
                    "type": "object",
                    "properties": {
                        "version": {"type": "integer"},
                        "to_act": {"type": ["integer", "null"]},
                        "moves": {"type": ["array", "null"],
                                  "items": {"$ref": "#/components/schemas/HopAnnotatedMove"}},
                    },
                }),
                "403": error("A token that is not this game's"),
                "404": error("No such game, or not a |Hop> game"),
                "429": error("Too many wrong tokens"),
            },
        },
    },
})
