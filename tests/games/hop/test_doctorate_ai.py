"""The computer players at the Doctorate level: they defend theses, buy and play effects."""

from __future__ import annotations

import random

import pytest

from games.hop.ai import AI_LEVELS, GreedyPlayer, MctsPlayer
from games.hop.effects import IONIZATION, MOBILITY_EDGE, QUANTUM_TUNNEL
from games.hop.game import Hop


@pytest.mark.parametrize("level", ["random", "greedy", "mcts"])
def test_every_level_plays_legal_doctorate_moves_to_the_end(level):
    game = Hop.new(["a", "b"], options={"level": "doctorate", "max_rounds": 8}, seed=4)
    players = [AI_LEVELS[level](random.Random(k)) for k in range(2)]
    for player in players:
        if isinstance(player, MctsPlayer):
            player.iterations = 40
    while not game.is_over():
        move = players[game.to_act].choose(game)
        assert move in game.legal_moves()
        game.push(move)


def test_random_games_between_computer_players_buy_effects():
    bought = 0
    for seed in range(6):
        game = Hop.new(["a", "b"], options={"level": "doctorate", "max_rounds": 15}, seed=seed)
        players = [GreedyPlayer(random.Random(seed)), AI_LEVELS["random"](random.Random(seed))]
        while not game.is_over():
            move = players[game.to_act].choose(game)
            bought += "effect" in move
            game.push(move)
    assert bought > 0


def set_market(game, cards):
    """``cards`` on the cheapest positions, the other dealt cards after them."""
    market = game.state.market
    market[:] = list(cards) + [c for c in market if c not in cards]
    del market[7:]


def defending(arrange, cards, **kwargs):
    game = arrange(level="doctorate", **kwargs)
    set_market(game, cards)
    game.push({"action": "thesis-defense"})
    return game


@pytest.mark.parametrize(
    "player", [GreedyPlayer(random.Random(1)), MctsPlayer(random.Random(1), iterations=60)]
)
def test_takes_a_win_through_the_quantum_tunnel_card(arrange, player):
    game = defending(
        arrange,
        [QUANTUM_TUNNEL, IONIZATION, MOBILITY_EDGE],
        electrons={"e3": {"up": "red"}, "e4": {"up": "blue"}},
        energy=[3, 1],
        bank=4,
    )
    assert player.choose(game) == {"effect": "quantum-tunnel", "from": "e3", "spin": "up", "to": "e5"}


def test_greedy_blocks_the_thesis_defense_when_the_tunnel_card_would_win(arrange):
    # Blue's only winning action: the quantum tunnel card, from a3 through red's a2 into a1.
    game = arrange(
        level="doctorate",
        electrons={"a3": {"up": "blue"}, "a2": {"up": "red"}},
        energy=[1, 3],
        bank=4,
        turn=1,
        phase="block",
    )
    set_market(game, [QUANTUM_TUNNEL, IONIZATION, MOBILITY_EDGE])
    assert GreedyPlayer(random.Random(0)).choose(game) == {"block": "thesis-defense"}


def test_greedy_chooses_the_spin_a_token_waits_for_by_what_follows(arrange):
    from games.hop.effects import CAVITY

    # Red superposed blue's electron on c3; a cavity c3 -> c4 acts after red's turn. With c4's up
    # place taken, "down" lets the cavity carry blue one card further from red's electrode.
    game = arrange(level="doctorate", electrons={"c3": {"up": "blue"}, "c4": {"up": "red"}}, energy=[6, 1])
    board = game.board
    game.state.superposed.append((board.index["c3"], 0))
    game.state.tokens.append((CAVITY, board.index["c3"], board.index["c4"], -1, -1))
    for move in ({"action": "thesis-defense"}, {"end_defense": True}) * 2:
        game.push(move)
    assert game.view()["phase"] == "block" and game.view()["collapse"] == {"at": "c3", "move": None}
    for seed in range(8):
        assert GreedyPlayer(random.Random(seed)).choose(game) == {"collapse": "down", "at": "c3"}
