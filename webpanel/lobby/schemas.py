"""The lobby's request schemas, built from the registered games when the document is served.

As strict as the server: a body these schemas accept, the lobby accepts (a
game of that name, that many seats, known computer levels, options the game
takes for that many players), and one they refuse, the lobby refuses. Each
game's options are spelled out from the game's own constants (boards, levels,
dice, layouts), one branch per game and number of players.
"""

from __future__ import annotations

from typing import Any

from games.hautetension.digital import DEFAULT_ACTIONS
from games.hautetension.handicap import MAX_HANDICAP
from games.hautetension.layout import available_layouts
from games.hautetension.setup import LAMPS
from games.hop.board import board_names
from games.hop.board import load_board as load_hop_board
from games.hop.game import FIELDS, INTERACTIONS
from games.hop.rules import LEVELS
from games.hypnosia.board import DEFAULT_BOARD, available_boards
from games.hypnosia.board import load_board as load_hypnosia_board
from games.hypnosia.game import DICE_MODES
from webpanel.lobby.api import MAX_NAME, MAX_SEED, known_games
from webpanel.openapi import text_with_content

FALSY: list[Any] = [None, False, 0, "", [], {}]
"""What an option read with ``options.get(key) or default`` takes as "the default"."""

WHOLE = {"type": "integer", "minimum": 1}
SEED = {"anyOf": [{"type": "null"}, {"type": "integer", "minimum": 0, "maximum": MAX_SEED}],
        "description": "The game's random seed (null: drawn)"}


def seat_name() -> dict[str, Any]:
    return {"anyOf": [{"type": "null"}, {"const": ""}, text_with_content(MAX_NAME)],
            "description": f"Up to {MAX_NAME} characters, not all spaces; empty or null: a default name."}


def seat_schemas(levels: list[str]) -> list[dict[str, Any]]:
    human = {"type": "object", "required": ["kind"], "additionalProperties": False,
             "properties": {"kind": {"const": "human"}, "level": {"type": "null"}, "name": seat_name()}}
    if not levels:
        return [human]
    ai = {"type": "object", "required": ["kind", "level"], "additionalProperties": False,
          "properties": {"kind": {"const": "ai"}, "level": {"enum": levels}, "name": seat_name()}}
    return [human, ai]


def _object(properties: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"type": "object", "additionalProperties": False, "properties": properties, **extra}


def qttt_options(players: int) -> dict[str, Any]:
    return _object({}, description="Quantum tic-tac-toe takes no options.")


def hypnosia_options(players: int) -> dict[str, Any]:
    def for_board(board: str, *, named: bool) -> dict[str, Any]:
        colours = [c.name for c in load_hypnosia_board(board).colours]
        chosen = {"type": "array", "minItems": players, "maxItems": players, "uniqueItems": True,
                  "items": {"enum": colours}}
        properties = {"board": {"const": board}, "dice": {"enum": list(DICE_MODES)},
                      "stacks_cross": {"type": "boolean"}, "max_rounds": WHOLE,
                      "colours": {"anyOf": [{"enum": FALSY}, chosen]}}
        return _object(properties, required=["board"]) if named else _object(properties)


    branches = [for_board(b, named=True) for b in available_boards()]
    unnamed = for_board(DEFAULT_BOARD, named=False)
    unnamed["properties"].pop("board")
    return {"anyOf": [*branches, unnamed]}


def hop_options(players: int) -> dict[str, Any]:
    boards = [b for b in board_names() if load_hop_board(b).seats == players]
    common = {"board": {"enum": boards}, "max_rounds": WHOLE}
    bachelor = _object({**common, "level": {"const": "bachelor"}, "field": {"type": "null"},
                        "interaction": {"type": "null"}})
    higher = _object({**common, "level": {"enum": [lv for lv in LEVELS if lv != "bachelor"]},
                      "field": {"enum": [*FIELDS, "random"]},
                      "interaction": {"enum": [*INTERACTIONS, "random"]}}, required=["level"])
    return {"anyOf": [bachelor, higher],
            "description": "Bachelor (the default level) has no Hamiltonian: no field nor interaction."}


def hautetension_options(players: int) -> dict[str, Any]:
    handicap = {"type": "object", "additionalProperties": {"const": 0},
                "properties": {lamp: {"type": "integer", "minimum": 0, "maximum": MAX_HANDICAP}
                               for lamp in LAMPS},
                "description": "Lamp -> attack pawns placed before play."}
    return _object({
        **table_options(),
        "handicap": {"anyOf": [{"enum": FALSY}, handicap]},
        "first": {"anyOf": [{"type": "null"}, {"type": "integer", "minimum": 0, "maximum": players - 1}],
                  "description": "The seat that plays first; null: drawn."},
    })


def table_options() -> dict[str, Any]:
    """What staff choose for a tournament table's digital game (the table says the rest)."""
    return {
        "layout": {"enum": available_layouts()},
        "turn_timer": {"type": "number", "minimum": 0, "description": "Seconds per turn (0: none)."},
        "default_action": {"enum": list(DEFAULT_ACTIONS),
                           "description": "What the timer plays for a seat that ran out of time."},
    }


OPTIONS = {"qttt": qttt_options, "hypnosia": hypnosia_options, "hop": hop_options,
           "hautetension": hautetension_options}
"""Each game's options for a number of players; a game not listed takes an object, as it checks."""


def create_game() -> dict[str, Any]:
    """``POST /api/games``: one branch per game and number of players."""
    from games.frame import AI_LEVELS

    branches = []
    for name, cls in known_games().items():
        options = OPTIONS.get(name)
        for players in range(cls.min_players, cls.max_players + 1):
            branches.append(_object({
                "game": {"const": name},
                "seats": {"type": "array", "minItems": players, "maxItems": players,
                          "items": {"oneOf": seat_schemas(list(AI_LEVELS.get(name, {})))}},
                "options": options(players) if options else {"type": "object", "maxProperties": 0},
                "seed": SEED,
                "hot_seat": {"const": False} if cls.hidden_information else {"type": "boolean"},
            }, required=["game", "seats"]))
    return {"oneOf": branches,
            "description": "The game, its seats (one per player, in seat order) and its options. "
                           "`hot_seat`: the display plays every human seat (not for games that hide "
                           "each seat's secrets)."}


def table_game() -> dict[str, Any]:
    return _object(table_options())
