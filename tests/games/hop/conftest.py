"""Fixtures of the |Hop> tests: games set up in hand-worked positions."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import pytest

from games.hop.game import Hop
from games.hop.rules import ACTION_KINDS, ELECTRONS, EMPTY, SPINS, Phase

Arrange = Callable[..., Hop]


def arrange_game(
    *,
    players: int = 2,
    level: str = "bachelor",
    field: str | None = None,
    interaction: str | None = None,
    electrons: Mapping[str, Mapping[str, str]] | None = None,
    energy: list[int] | None = None,
    bank: int | None = None,
    turn: int = 0,
    blocked: str | None = None,
    phase: str = "first",
    max_rounds: int = 100,
) -> Hop:
    """A game where seat ``turn`` is about to move (``blocked`` already blocked).

    ``electrons`` maps sites to {"up": colour, "down": colour}; every electron
    not on a site waits in its own electrode, so electrons are conserved.
    """
    options: dict[str, Any] = {"level": level, "max_rounds": max_rounds}
    if level != "bachelor":
        options.update(field=field or "positive", interaction=interaction or "attractive")
    game = Hop.new([f"player{k + 1}" for k in range(players)], options=options, seed=1)
    state = game.state
    board = game.board
    state.place[:] = [EMPTY] * len(state.place)
    placed = [0] * players
    for site, spins in (electrons or {}).items():
        for spin, colour in spins.items():
            c = board.colours.index(colour)
            state.place[2 * board.index[site] + SPINS.index(spin)] = c
            placed[c] += 1
    for c in range(players):
        state.stock[c] = [0] * players
    for c in range(players):
        state.stock[c][c] = ELECTRONS - placed[c]
    if energy is not None:
        state.energy[:] = energy
    if bank is not None:
        state.bank = bank
    state.turn = turn
    state.phase = Phase[phase.upper()]
    state.blocked = ACTION_KINDS[blocked] if blocked else -1
    return game


@pytest.fixture
def arrange() -> Arrange:
    return arrange_game


def moves_of(game: Hop, action: str) -> list[dict[str, Any]]:
    return [m for m in game.legal_moves() if m.get("action") == action]


@pytest.fixture
def of_kind() -> Callable[[Hop, str], list[dict[str, Any]]]:
    return moves_of
