"""Who sits at the table: each player's name, pawn colour and lamp.

Seats are listed clockwise around the board; that is the turn order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from games.exc import SetupError

MIN_PLAYERS = 2
MAX_PLAYERS = 4

_DEFAULT_LAMPS: dict[int, tuple[str, ...]] = {
    2: ("N", "S"),  # opposite lamps: no diagonal joins them directly
    3: ("N", "E", "S"),
    4: ("N", "E", "S", "W"),
}
DEFAULT_COLOURS = ("red", "blue", "black", "white")


@dataclass(frozen=True)
class Seat:
    """One player: a name, the colour of their pawns and the lamp that eliminates them."""

    name: str
    lamp: str
    colour: str


def default_lamps(n: int) -> tuple[str, ...]:
    """The lamps *n* players own (DESIGN §3): 2 → N, S; 3 → N, E, S; 4 → all four."""
    check_player_count(n)
    return _DEFAULT_LAMPS[n]


def default_seats(names: Sequence[str]) -> tuple[Seat, ...]:
    """Seats for these players, in this (clockwise) order, with the default lamps and colours."""
    lamps = default_lamps(len(names))
    return tuple(
        Seat(name=name, lamp=lamp, colour=colour)
        for name, lamp, colour in zip(names, lamps, DEFAULT_COLOURS, strict=False)
    )


def check_player_count(n: int) -> int:
    if not MIN_PLAYERS <= n <= MAX_PLAYERS:
        raise SetupError(f"Haute-Tension is played by {MIN_PLAYERS} to {MAX_PLAYERS} players, not {n}")
    return n
