"""The computer players: legal moves, wins taken, threats blocked."""

from __future__ import annotations

import random

import pytest

from games.arena import HOP
from games.budget import Budget
from games.exc import GameOverError
from games.hop.ai import AI_LEVELS, GreedyPlayer, MctsPlayer, distances, evaluate, winning_action
from games.hop.game import Hop
from games.hop.rules import Phase, State


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
    tally = HOP.match(["greedy", "random"], 6)
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


def _searched_position() -> State:
    """A Master position after a few greedy moves where the search has a real choice."""
    game = Hop.new(["a", "b"], options={"level": "master"}, seed=8)
    greedy = GreedyPlayer(random.Random(5))
    for _ in range(4):
        game.push(greedy.choose(game))
    state = game.state
    actions = state.legal_actions()
    assert len(actions) > 1 and (state.phase == Phase.BLOCK or winning_action(state, actions) is None)
    return state


def test_mcts_stops_at_its_budget_with_the_best_action_so_far(ticks) -> None:
    state = _searched_position()
    timed = MctsPlayer(random.Random(4), budget=Budget(25, ticks))
    action = timed.choose_action(state.copy())
    # One reading starts the clock, then one before each iteration: 24 ran, the 25th found it spent.
    assert (timed.searched, timed.cut, ticks.readings) == (24, 1, 26)
    fixed = MctsPlayer(random.Random(4), iterations=24)
    assert fixed.choose_action(state.copy()) == action and fixed.cut == 0
    assert action in state.legal_actions()


def test_mcts_without_time_plays_its_best_evaluated_action(ticks) -> None:
    state = _searched_position()
    player = MctsPlayer(random.Random(4), budget=Budget(0, ticks))
    action = player.choose_action(state.copy())
    assert (player.searched, player.cut) == (0, 1)
    assert action in state.legal_actions()


def test_mcts_short_of_time_still_plays_a_whole_game_legally(ticks) -> None:
    game = Hop.new(["a", "b", "c", "d"], options={"max_rounds": 4}, seed=3)
    player = MctsPlayer(random.Random(1), budget=Budget(6, ticks))
    while not game.is_over():
        move = player.choose(game)
        assert move in game.legal_moves()
        game.push(move)
    assert player.cut > 0 and player.searched > 0


def test_the_arena_refuses_a_slowdown_that_is_not_positive(capsys) -> None:
    with pytest.raises(SystemExit):
        HOP.main(["mcts", "mcts-fixed", "--slowdown", "0"])
    assert "slowdown" in capsys.readouterr().err
