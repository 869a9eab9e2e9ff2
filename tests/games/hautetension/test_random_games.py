"""Random full games always end, with a result consistent with the board."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.exc import GameOverError
from games.hautetension import (
    ATTACK_PAWNS,
    DEFENSE_PAWNS,
    Game,
    PawnKind,
    Termination,
    default_seats,
    evaluate,
    load_layout,
)

PINWHEEL = load_layout("pinwheel-80")
NAMES = ("Rouge", "Bleu", "Noir", "Blanc")
POSSIBLE_POINTS = {0, 2, 3, 4, 4 + 4, 4 + 8, 0 + 4, 0 + 8, 2 + 4, 3 + 4}

handicaps = st.dictionaries(
    st.sampled_from(["N", "E", "S", "W"]), st.integers(min_value=1, max_value=3), max_size=4
)


def expected_next(game: Game, after: int) -> int:
    n = len(game.seats)
    for step in range(1, n + 1):
        seat = (after + step) % n
        if not game.is_eliminated(seat) and game.pawns_left(seat):
            return seat
    raise AssertionError("nobody can move")


def check_consistent(game: Game) -> None:
    attack = {slot for slot, (_owner, kind) in game.pawns.items() if kind is PawnKind.ATTACK}
    assert game.lit == evaluate(PINWHEEL, attack).lit
    for slot, (_owner, kind) in game.pawns.items():
        if kind is PawnKind.DEFENSE:  # every row through a defense pawn stays open
            assert not {PINWHEEL.rows[i].id for i in PINWHEEL.rows_of_slot[slot]} & game.closed_rows
    for seat in range(len(game.seats)):
        placed = [game.pawns[p.slot][1] for p in game.history if p.player == seat]
        assert game.stock(seat) == (
            ATTACK_PAWNS - placed.count(PawnKind.ATTACK),
            DEFENSE_PAWNS - placed.count(PawnKind.DEFENSE),
        )
        assert game.is_eliminated(seat) == (game.seats[seat].lamp in game.lit)
    assert [e.player for e in game.eliminated] == [
        p for placement in game.history for p in placement.eliminated
    ]


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(min_value=2, max_value=4),
    seed=st.integers(min_value=0, max_value=2**32),
    first=st.integers(min_value=0, max_value=3),
    handicap=handicaps,
)
def test_random_games_end_consistently(n: int, seed: int, first: int, handicap: dict[str, int]) -> None:
    rng = random.Random(seed)
    game = Game(PINWHEEL, default_seats(NAMES[:n]), first=first % n, handicap=handicap)
    assert game.to_move == first % n
    while not game.is_over():
        mover = game.to_move
        assert mover is not None and not game.is_eliminated(mover) and game.pawns_left(mover) > 0
        game.push(rng.choice(game.free_slots()), rng.choice(game.legal_kinds()))
        check_consistent(game)  # the incremental circuit agrees with a full evaluation
        if not game.is_over():
            assert game.to_move == expected_next(game, mover)

    outcome = game.outcome()
    assert outcome is not None and game.to_move is None
    survivors = tuple(i for i in range(n) if not game.is_eliminated(i))
    if outcome.termination is Termination.SIMULTANEOUS_ELIMINATION:
        assert (
            survivors == () and outcome.winners == game.history[-1].eliminated and len(outcome.winners) >= 2
        )
    else:
        assert outcome.winners == survivors
    if outcome.termination is Termination.LAST_PLAYER_STANDING:
        assert len(survivors) == 1
    if outcome.termination is Termination.NO_FREE_SLOT:
        assert game.free_slots() == []
    if outcome.termination is Termination.NO_PAWN_LEFT:
        assert all(game.pawns_left(i) == 0 for i in survivors)
    assert outcome.termination is not Termination.FEWER_THAN_TWO_UNLIT_LAMPS  # implied by ownership

    points = game.points()
    assert set(points) <= POSSIBLE_POINTS and max(points) <= 12
    for seat in survivors:
        assert points[seat] >= 4
    first_out = (
        [e.player for e in game.eliminated if e.move == game.eliminated[0].move] if game.eliminated else []
    )
    for seat in first_out:
        assert points[seat] in (0, 4, 8)  # first rank, plus a bonus if they lit opponents too
    with pytest.raises(GameOverError):
        game.push(game.free_slots()[0] if game.free_slots() else "a9", "attack")
