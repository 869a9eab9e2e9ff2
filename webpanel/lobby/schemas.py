"""The lobby's request schemas, built from the registered games when the document is served.

As strict as the server: a body these schemas accept, the lobby accepts (a
game of that name, that many seats, known computer levels, options the game
takes for that many players), and one they refuse, the lobby refuses. Each
game's options are written from the game's own declaration of them
(``known_options``, games/options.py), one branch per game and number of
players; an option whose values depend on another's (|Hop>'s Hamiltonian
cards on the level, Hypnosia's colours on the board) splits the options into
one branch per value of that other option (values that allow the same merged).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from games.frame import DigitalGame
from games.options import Kind, Option, Table
from webpanel.lobby.api import MAX_NAME, MAX_SEED, known_games
from webpanel.lobby.tables import TABLE_OPTIONS
from webpanel.openapi import text_with_content

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


NOTES = {
    "qttt": "Quantum tic-tac-toe takes no options.",
    "hop": "Bachelor (the default level) has no Hamiltonian: no field nor interaction.",
}
"""What the API's document says of a game's options as a whole."""


def _choice(option: Option, table: Table) -> dict[str, Any]:
    return {"enum": option.allowed(table)}


def _bounded(type_: str) -> Callable[[Option, Table], dict[str, Any]]:
    def schema(option: Option, table: Table) -> dict[str, Any]:
        bounds = {"minimum": option.minimum, "maximum": option.maximum}
        return {"type": type_, **{k: v for k, v in bounds.items() if v is not None}}

    return schema


def _flag(option: Option, table: Table) -> dict[str, Any]:
    return {"type": "boolean"}


def _seat(option: Option, table: Table) -> dict[str, Any]:
    return {"anyOf": [{"type": "null"}, {"type": "integer", "minimum": 0, "maximum": table.players - 1}]}


def _colours(option: Option, table: Table) -> dict[str, Any]:
    return {"type": "array", "minItems": table.players, "maxItems": table.players, "uniqueItems": True,
            "items": {"enum": option.allowed(table)}}


def _pawns(option: Option, table: Table) -> dict[str, Any]:
    count = _bounded("integer")(option, table)
    return {"type": "object", "additionalProperties": {"const": 0},
            "properties": {key: count for key in option.allowed(table)}}


KINDS: dict[Kind, Callable[[Option, Table], dict[str, Any]]] = {
    Kind.CHOICE: _choice, Kind.WHOLE: _bounded("integer"), Kind.NUMBER: _bounded("number"), Kind.FLAG: _flag,
    Kind.SEAT: _seat, Kind.COLOURS: _colours, Kind.PAWNS: _pawns,
}
"""The schema of a value of each kind of option, at a table."""

FALSY: list[Any] = [None, False, 0, "", [], {}]
"""What an option read with ``options.get(key) or default`` takes as "the default"."""


def option_schema(option: Option, table: Table) -> dict[str, Any]:
    """What the game accepts for *option* at *table*: null where the option does not exist there."""
    if not option.is_on(table):
        return {"type": "null"}
    schema = KINDS[option.kind](option, table)
    if option.about:
        schema["description"] = option.about
    # An empty list or map (or null, false, 0, "") stands for the default.
    return {"anyOf": [{"enum": FALSY}, schema]} if option.kind.is_empty_default else schema


def _properties(options: Sequence[Option], table: Table) -> dict[str, Any]:
    return {option.name: option_schema(option, table) for option in options}


def game_options(cls: type[DigitalGame], players: int) -> dict[str, Any]:
    """``options`` of a game for *players* players: the options it declares, as it checks them."""
    declared, table = cls.known_options, Table(players, {})
    note = {"description": NOTES[cls.name]} if cls.name in NOTES else {}
    rulers = [o for o in declared if any(other.governed_by == o.name for other in declared)]
    if not rulers:
        return _object(_properties(declared, table), **note)
    (ruler,) = rulers  # the shipped games have at most one option that others depend on
    others = [o for o in declared if o is not ruler]
    groups: list[tuple[list[str], dict[str, Any]]] = []  # the ruler's values that allow the same
    for value in ruler.allowed(table):
        properties = _properties(others, Table(players, {ruler.name: value}))
        same = next((values for values, seen in groups if seen == properties), None)
        if same is None:
            groups.append(([value], properties))
        else:
            same.append(value)
    branches = []
    for values, properties in groups:
        ruled = {ruler.name: {"const": values[0]} if len(values) == 1 else {"enum": values}}
        # Left out, the ruler takes its default: the branch of its default does not require it.
        required = {} if ruler.default_for(table) in values else {"required": [ruler.name]}
        branches.append(_object({**ruled, **properties}, **required))
    return {"anyOf": branches, **note}


def create_game() -> dict[str, Any]:
    """``POST /api/games``: one branch per game and number of players."""
    from games.frame import AI_LEVELS

    branches = []
    for name, cls in known_games().items():
        for players in range(cls.min_players, cls.max_players + 1):
            branches.append(_object({
                "game": {"const": name},
                "seats": {"type": "array", "minItems": players, "maxItems": players,
                          "items": {"oneOf": seat_schemas(list(AI_LEVELS.get(name, {})))}},
                "options": game_options(cls, players),
                "seed": SEED,
                "hot_seat": {"const": False} if cls.hidden_information else {"type": "boolean"},
            }, required=["game", "seats"]))
    return {"oneOf": branches,
            "description": "The game, its seats (one per player, in seat order) and its options. "
                           "`hot_seat`: the display plays every human seat (not for games that hide "
                           "each seat's secrets)."}


def table_game() -> dict[str, Any]:
    """What staff choose for a tournament table's digital game (the table says the rest)."""
    from games.frame import game_class

    cls = game_class("hautetension")
    chosen = [option for option in cls.known_options if option.name in TABLE_OPTIONS]
    return _object(_properties(chosen, Table(cls.min_players, {})))
