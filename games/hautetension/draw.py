"""Who plays first, drawn the way the rules describe ("Attribution du trait").

Every player picks one pawn at random among the 25 of the player on their
right and looks underneath. Whoever draws a defense pawn plays first. If
several do, they draw again among themselves in the same way; if nobody does,
everyone draws again. Pawns go back before each round, so every pick is from a
full set of 22 attack and 3 defense pawns.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from games.hautetension.pawn import ATTACK_PAWNS, DEFENSE_PAWNS
from games.hautetension.seats import check_player_count

PAWNS_PER_PLAYER = ATTACK_PAWNS + DEFENSE_PAWNS


@dataclass(frozen=True)
class DrawRound:
    """One round of the draw: who drew, and who among them found a defense pawn."""

    drawing: tuple[int, ...]
    drew_defense: tuple[int, ...]


def draw_rounds(n: int, seed: int | str | None = None) -> tuple[DrawRound, ...]:
    """Play out the draw for *n* players; the last round has exactly one defense pawn."""
    check_player_count(n)
    rng = random.Random(seed)
    drawing = tuple(range(n))
    rounds: list[DrawRound] = []
    while True:
        # Position < DEFENSE_PAWNS stands for one of the neighbour's 3 defense pawns.
        defense = tuple(p for p in drawing if rng.randrange(PAWNS_PER_PLAYER) < DEFENSE_PAWNS)
        rounds.append(DrawRound(drawing=drawing, drew_defense=defense))
        if len(defense) == 1:
            return tuple(rounds)
        if defense:
            drawing = defense


def draw_first_player(n: int, seed: int | str | None = None) -> int:
    """Seat index of the first player for *n* players, drawn from *seed* as the rules describe."""
    return draw_rounds(n, seed)[-1].drew_defense[0]
