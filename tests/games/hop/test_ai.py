"""The computer players: legal moves, wins taken, threats blocked."""

from __future__ import annotations

import random

import pytest

from games.exc import GameOverError
from games.hop.ai import AI_LEVELS, GreedyPlayer, MctsPlayer, distances, evaluate
from games.hop.arena import match
from games.hop.game import Hop


@pytest.mark.parametrize("level", sorted(AI_LEVELS))
@pytest.mark.parametrize("game_level", ["bachelor", "master"])
def test_every_level_plays_legal_moves_to_the_end(level, game_level):
    game = Hop.new(["a", "b"], options={"level": game_level, "max_rounds": 6}, seed=8)
    player = AI_LEVELS[level](random.Random(2))
    if isinstance(player, MctsPlayer):
        player.iterations = 30
    while not game.is_over():
        move = player.choose(game)
        assert move in game.legal_moves()
        game.push(move)
    with pytest.raises(GameOverError):
        player.choose(game)


@pytest.mark.parametrize(
    "player", [GreedyPlayer(random.Random(1)), MctsPlayer(random.Random(1), iterations=50)]
)
def test_takes_a_win(arrange, player):
    game = arrange(electrons={"c4": {"up": "red"}, "e4": {"down": "red"}, "b2": {"up": "red", "down": "red"}})
    assert player.choose(game) == {"action": "hop", "from": "e4", "spin": "down", "to": "e5"}


@pytest.mark.parametrize(
    "player", [GreedyPlayer(random.Random(1)), MctsPlayer(random.Random(1), iterations=50)]
)
def test_blocks_an_electron_next_to_its_electrode(arrange, player):
    # Blue is about to move with an electron one hop from red's electrode: red blocks hopping.
    game = arrange(electrons={"a2": {"up": "blue"}, "c3": {"up": "red"}}, turn=1, phase="block")
    assert game.to_act == 0
    assert player.choose(game) == {"block": "hop"}


def test_mcts_blocks_a_two_hop_threat(arrange):
    # Blue's electron is two hops from red's electrode, with no line to tunnel or push along.
    game = arrange(
        electrons={"a3": {"up": "blue"}, "d4": {"down": "red"}, "b1": {"up": "red", "down": "red"}},
        turn=1,
        phase="block",
    )
    player = MctsPlayer(random.Random(3), iterations=300)
    assert player.choose(game) == {"block": "hop"}
    assert player.nodes > 300


def test_evaluation():
    game = Hop.new(["a", "b"], seed=1)
    red, blue = evaluate(game.state)
    assert red + blue == pytest.approx(1.0) and red > blue  # the first to move leads the race
    dist = distances(game.board)
    assert dist[0][game.board.index["e4"]] == 1 and dist[0][game.board.index["a1"]] == 8
    game.state.losers = (1,)
    game.state.phase = game.state.phase.OVER
    assert evaluate(game.state) == [1.0, 0.0]


def test_greedy_beats_random():
    tally = match(["greedy", "random"], 6)
    assert tally.wins.get("greedy", 0) >= 5


def test_reach_counts_tunnels_and_hops(arrange):
    from games.hop.ai import reach

    game = arrange(electrons={"e2": {"up": "red"}, "e3": {"up": "blue"}, "e4": {"up": "blue"}})
    assert reach(game.state, 0) == 1  # straight through the line into blue's electrode
    game = arrange(electrons={"c3": {"up": "red"}})
    game.state.stock[0][0] = 0
    assert reach(game.state, 0) == 4  # c3 -> d3 -> e3 -> e4 -> e5, or round the other way
    assert reach(game.state, 1) == 7  # more than the cap of 6 actions
    # Blue needs 8 hops to red's electrode, one saved by tunnelling over red's electron at c3.
    assert reach(game.state, 1, cap=10) == 7
    game.state.place[2 * game.board.index["c3"]] = -1
    game.state.stock[0][0] = 7
    assert reach(game.state, 1, cap=10) == 8
