"""Fixtures of the Hypnosia tests: games set up in hand-worked positions."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import pytest

from games.hypnosia.game import Hypnosia
from games.hypnosia.rules import CAPTURED

Arrange = Callable[..., Hypnosia]


def place(game: Hypnosia, where: Mapping[str, str]) -> None:
    """Put pawns on squares ("o5"), in the centre ("centre", in this order) or off the game ("captured")."""
    position = game.position
    board = game.board
    for name, square in where.items():
        pawn = game.pawn_number(name)
        old = position.pos[pawn]
        if old >= 0:
            position.occ[old] = tuple(p for p in position.occ[old] if p != pawn)
        if pawn in position.arrivals:
            position.arrivals.remove(pawn)
        if square == "captured":
            position.pos[pawn] = CAPTURED
        elif square == "centre":
            position.pos[pawn] = board.centre
            position.arrivals.append(pawn)
        else:
            position.pos[pawn] = board.index[square]
            position.occ[board.index[square]] += (pawn,)
    position._legal = None


@pytest.fixture
def arrange() -> Arrange:
    """A game with entered dice where seat 0 won the opening, pawns placed, and (optionally) dice rolled."""

    def make(
        pawns: Mapping[str, str] | None = None,
        dice: tuple[int, int] | None = None,
        *,
        players: int = 2,
        **options: Any,
    ) -> Hypnosia:
        game = Hypnosia.new(
            [f"player {k + 1}" for k in range(players)], options={"dice": "entered", **options}, seed=1
        )
        game.push({"roll": [6, 6]})
        for _ in range(players - 1):
            game.push({"roll": [1, 2]})
        place(game, pawns or {})
        if dice is not None:
            game.push({"roll": list(dice)})
        return game

    return make
