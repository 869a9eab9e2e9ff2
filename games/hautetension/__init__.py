"""Haute-Tension: layouts, circuits and the game itself, without any I/O.

The public API, importable from here::

    from games.hautetension import Game, Seat, default_seats, load_layout

    game = Game(load_layout(), default_seats(["Ana", "Ben"]))
    game.push("a9", "attack")      # Ana, the first seat, places an attack pawn
"""

from __future__ import annotations

from games.hautetension.circuit import Circuit, CircuitState, evaluate, lit_lamps
from games.hautetension.draw import DrawRound, draw_first_player, draw_rounds
from games.hautetension.game import Game, Pawn
from games.hautetension.handicap import MAX_HANDICAP, handicap_plan, handicap_slots
from games.hautetension.layout import (
    BATTERY,
    DEFAULT_LAYOUT,
    Layout,
    Row,
    RowKind,
    available_layouts,
    load_layout,
    parse_layout,
    slot_name,
)
from games.hautetension.outcome import (
    BONUS_POINTS,
    NEVER_LIT_POINTS,
    RANK_POINTS,
    Elimination,
    Outcome,
    Placement,
    Termination,
)
from games.hautetension.pawn import ATTACK_PAWNS, DEFENSE_PAWNS, PawnKind
from games.hautetension.seats import DEFAULT_COLOURS, Seat, default_lamps, default_seats

__all__ = [
    "ATTACK_PAWNS",
    "BATTERY",
    "BONUS_POINTS",
    "DEFAULT_COLOURS",
    "DEFAULT_LAYOUT",
    "DEFENSE_PAWNS",
    "MAX_HANDICAP",
    "NEVER_LIT_POINTS",
    "RANK_POINTS",
    "Circuit",
    "CircuitState",
    "DrawRound",
    "Elimination",
    "Game",
    "Layout",
    "Outcome",
    "Pawn",
    "PawnKind",
    "Placement",
    "Row",
    "RowKind",
    "Seat",
    "Termination",
    "available_layouts",
    "default_lamps",
    "default_seats",
    "draw_first_player",
    "draw_rounds",
    "evaluate",
    "handicap_plan",
    "handicap_slots",
    "lit_lamps",
    "load_layout",
    "parse_layout",
    "slot_name",
]
