"""Properties of every game: electrons and energy tokens are conserved, one electron per place,
the Hamiltonian's books balance, and every game ends."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from games.hop.game import Hop
from games.hop.rules import ELECTRONS, EMPTY, ENERGY_TOKENS


def check(game: Hop, start_books: int) -> None:
    state = game.state
    board = game.board
    for colour in range(state.players):
        assert state.electrons(colour) == ELECTRONS
    # One electron per place: the view shows each site's two places, and their
    # electrons plus the electrodes' account for every electron exactly once.
    view = game.view()
    on_sites = sum(1 for spins in view["sites"].values() for c in spins.values() if c is not None)
    in_electrodes = sum(sum(row.values()) for row in view["electrodes"].values())
    assert on_sites + in_electrodes == ELECTRONS * state.players
    assert all(state.place[2 * e] == EMPTY == state.place[2 * e + 1] for e in board.electrodes)
    assert sum(state.energy) + state.bank == ENERGY_TOKENS
    assert min(state.energy) >= 0 and state.bank >= 0
    # What the board's energy gained, the bank gained: the movers paid or took the difference.
    assert state.board_energy() - state.bank == start_books


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    players=st.integers(2, 4),
    level=st.sampled_from(["bachelor", "master"]),
    rounds=st.integers(1, 40),
)
def test_random_games_keep_every_invariant(seed, players, level, rounds):
    game = Hop.new(
        [f"p{k}" for k in range(players)], options={"level": level, "max_rounds": rounds}, seed=seed
    )
    rng = random.Random(seed)
    books = game.state.board_energy() - game.state.bank
    check(game, books)
    pushed = 0
    while not game.is_over():
        moves = game.annotated_moves()
        assert moves, "a game that is not over always has a move"
        entry = rng.choice(moves)
        mover = game.to_act
        before = list(game.state.energy)
        game.push(entry["move"])
        assert game.state.energy[mover] == before[mover] - entry["energy_change"]
        check(game, books)
        pushed += 1
        assert pushed <= 3 * players * rounds  # a block and at most two movements per turn
    outcome = game.outcome()
    assert outcome is not None
    assert outcome.draw == (game.state.turns >= players * rounds and not game.state.losers)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), cut=st.integers(0, 60))
def test_replay_gives_the_same_game(seed, cut):
    game = Hop.new(["a", "b"], options={"level": "master"}, seed=seed)
    rng = random.Random(seed)
    while not game.is_over() and len(game.history) < cut:
        game.push(rng.choice(game.legal_moves()))
    assert Hop.from_json(game.to_json()).view() == game.view()
