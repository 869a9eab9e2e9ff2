"""Properties of random Doctorate games: conservation laws (ionization aside), one electron per
place, a market that only reorders its cards, and games that end."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from games.hop.effects import ACTION_TOKENS, MARKET_COSTS, connected, token_sites
from games.hop.game import Hop
from games.hop.rules import ELECTRONS, EMPTY, ENERGY_TOKENS, SITE_CARDS, Phase


def check(game: Hop, market: list[int]) -> None:
    state = game.state
    for colour in range(state.players):
        # Electrons are conserved, except those an ionization removed from the game.
        assert state.electrons(colour) + state.ionized[colour] == ELECTRONS
    assert all(state.place[2 * e] == EMPTY == state.place[2 * e + 1] for e in game.board.electrodes)
    assert sum(state.energy) + state.bank == ENERGY_TOKENS
    assert min(state.energy) >= 0 and state.bank >= 0
    assert sorted(state.market) == sorted(market) and len(state.market) == len(MARKET_COSTS)
    assert len(state.traps) <= 3 and all(not game.board.is_electrode(n) for n in state.traps)
    # During a defense the defender acts, except when an effect waits for a superposed electron's owner.
    if state.defending:
        assert state.to_act == (state.turn if state.pending is None else state._collapsing()[1])
    # The crystalline network: action tokens never share a card nor touch an electrode; 3 tokens a type.
    action_sites = [n for t in state.tokens if t[0] in ACTION_TOKENS for n in token_sites(t)]
    assert len(action_sites) == len(set(action_sites))
    assert not any(game.board.is_electrode(n) for n in action_sites)
    for card in {t[0] for t in state.tokens}:
        assert sum(1 for t in state.tokens if t[0] == card) <= 3
    # Removed cards hold nothing, and the board stays connected.
    assert all(state.place[2 * n] == EMPTY == state.place[2 * n + 1] for n in state.removed)
    assert connected(state, state.removed)
    # A superposed electron sits on one place of its site, the other kept empty; a pending movement
    # waits for its owner.
    nodes = [n for n, _ in state.superposed]
    assert len(nodes) == len(set(nodes))
    for n in nodes:
        assert (state.place[2 * n] == EMPTY) != (state.place[2 * n + 1] == EMPTY) and n not in state.removed
    if (state.pending is not None or state.token_wait >= 0) and state.phase != Phase.OVER:
        assert state.to_act == state._collapsing()[1]
    # The board grows only by the box's spare site cards, and every node has its two places.
    assert len(state.place) == 2 * len(game.board.nodes)
    assert len(game.board.sites) - len(state.removed) <= SITE_CARDS
    assert game.board.nodes[: len(game.start_board.nodes)] == game.start_board.nodes


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(2, 4), rounds=st.integers(1, 30))
def test_random_doctorate_games_keep_every_invariant(seed, players, rounds):
    game = Hop.new(
        [f"p{k}" for k in range(players)], options={"level": "doctorate", "max_rounds": rounds}, seed=seed
    )
    rng = random.Random(seed)
    market = list(game.state.market)
    check(game, market)
    pushed = 0
    while not game.is_over():
        moves = game.legal_moves()
        assert moves, "a game that is not over always has a move"
        state = game.state
        before_turn = state.turns
        game.push(rng.choice(moves))
        check(game, market)
        if game.state.turns != before_turn and game.state.phase != Phase.OVER:
            assert not any(game.state.used)  # the market has slid: no card is marked used
        pushed += 1
        # A block, then at most 2 + 1 movement actions, each defense with at most 7 cards and its end.
        assert pushed <= players * rounds * (1 + 3 * 9)
    outcome = game.outcome()
    assert outcome is not None
    assert outcome.draw == (game.state.turns >= players * rounds and not game.state.losers)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), cut=st.integers(0, 80))
def test_doctorate_replay_gives_the_same_game(seed, cut):
    game = Hop.new(["a", "b"], options={"level": "doctorate"}, seed=seed)
    rng = random.Random(seed)
    while not game.is_over() and len(game.history) < cut:
        game.push(rng.choice(game.legal_moves()))
    assert Hop.from_json(game.to_json()).view() == game.view()
