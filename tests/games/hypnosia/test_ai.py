"""The computer players of Hypnosia and the arena that measures them."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

import games.hypnosia  # noqa: F401  (registers the game)
from games.arena import HYPNOSIA
from games.budget import Budget
from games.frame import CHANCE, ai_player, game_class
from games.hypnosia.ai import ExpectimaxPlayer, GreedyPlayer, distances, evaluate, hit_chance, threat, turns
from games.hypnosia.exc import NotationError
from games.hypnosia.game import Hypnosia
from games.hypnosia.rules import Phase

Arrange = Callable[..., Hypnosia]


def test_the_game_and_its_levels_are_registered() -> None:
    assert game_class("hypnosia") is Hypnosia
    for level in ("random", "greedy", "expectimax"):
        player = ai_player("hypnosia", level, rng=random.Random(1))
        game = Hypnosia.new(["a", "b", "c"], seed=9)
        for _ in range(12):
            move = player.choose(game)
            assert move in game.legal_moves()
            game.push(move)


def test_levels_play_whole_games_to_their_end() -> None:
    game = HYPNOSIA.play_game(["greedy", "random", "greedy"], seed=4)
    outcome = game.outcome()
    assert outcome is not None and outcome.scores is not None and len(outcome.scores) == 3


def test_greedy_captures_when_it_can(arrange: Arrange) -> None:
    game = arrange({"red1": "o5", "red2": "o20", "blue1": "o9"}, (4, 1))
    assert GreedyPlayer(random.Random(0)).choose(game) == {"die": 0, "pawn": "red1"}


def test_greedy_enters_the_centre(arrange: Arrange) -> None:
    game = arrange({"red1": "i5", "red2": "o20"}, (1, 2))
    game.push(GreedyPlayer(random.Random(0)).choose(game))
    assert game.view()["pawns"]["red1"] == "centre"


def test_the_search_weighs_the_next_players_dice(arrange: Arrange) -> None:
    # Same pawns, same progress: red1 either 6 squares ahead of blue1 (a 6, or 1+5, 2+4, ... takes it)
    # or 6 squares behind it (blue cannot move backwards).
    danger = arrange({"red1": "o16", "blue1": "o10"})
    safe = arrange({"red1": "o16", "blue1": "o22"})
    search = ExpectimaxPlayer(random.Random(0))
    assert evaluate(danger.position, 0) == pytest.approx(evaluate(safe.position, 0), abs=0.5)
    danger.position.seat = safe.position.seat = 1  # blue rolls next
    assert search.expectation(danger.position, 0) < search.expectation(safe.position, 0) - 0.2
    assert search.stats.nodes > 21


def test_turns_lists_each_way_to_end_the_turn_once(arrange: Arrange) -> None:
    game = arrange({"red1": "o5", "red2": "o5"}, (2, 2))
    options = turns(game.position)
    ends = [tuple(p.pos) for _, p in options]
    assert len(ends) == len(set(ends))
    assert all(p.phase != Phase.MOVE for _, p in options)


def test_distances_count_the_steps_to_the_centre() -> None:
    board = Hypnosia.new(["a", "b"]).board
    dist, far = distances(board)
    assert dist[board.index["i5"]] == 1
    assert dist[board.index["i4"]] == 2
    assert dist[board.index["red-s4"]] == 4 + dist[board.index["o0"]]
    assert far == max(dist) and min(dist) == 0


def test_players_refuse_other_games() -> None:
    qttt = game_class("qttt")
    with pytest.raises(NotationError, match="cannot play"):
        GreedyPlayer().choose(qttt.new(["x", "o"], seed=1))


def test_players_roll_the_program_dice() -> None:
    game = Hypnosia.new(["a", "b"], seed=3)
    assert game.to_act == CHANCE
    move = ExpectimaxPlayer(random.Random(0)).choose(game)
    assert move == game.legal_moves()[0]


def test_the_arena_reports_win_rates(capsys: pytest.CaptureFixture[str]) -> None:
    assert HYPNOSIA.main(["greedy", "random", "--games", "4", "--seed", "10"]) == 0
    out = capsys.readouterr().out
    assert "4 games, 2 players: greedy vs random" in out
    assert "greedy" in out and "random" in out and "endings:" in out


def test_hit_chance_counts_dice_and_sums() -> None:
    assert hit_chance(1 << 6) == pytest.approx(16 / 36)  # a six on either die, or 1+5, 2+4, 3+3
    assert hit_chance(1 << 12) == pytest.approx(1 / 36)
    assert hit_chance(0) == 0


def test_threats_count_only_the_pawns_a_unit_may_take(arrange: Arrange) -> None:
    game = arrange({"red1": "o10", "blue1": "o16", "blue2": "o12", "blue3": "o12"})
    # red1 alone may take blue1 (6 ahead), not the stack two ahead; a red stack may take both.
    assert threat(game.position, 0) == pytest.approx(16 / 36)
    game = arrange({"red1": "o10", "red2": "o10", "blue1": "o16", "blue2": "o12", "blue3": "o12"})
    assert threat(game.position, 0) == pytest.approx(16 / 36 + 2 * hit_chance(1 << 2))


def _searched_position() -> Hypnosia:
    """A two-player game after a few greedy turns, with a pawn to move and at least four distinct turns."""
    game = Hypnosia.new(["a", "b"], seed=5)
    greedy = GreedyPlayer(random.Random(5))
    while True:
        if game.to_act != CHANCE and len(turns(game.position)) >= 4 and len(game.history) > 12:
            return game
        game.push(greedy.choose(game))


def test_expectimax_stops_at_its_budget_with_the_best_turn_searched(ticks) -> None:
    game = _searched_position()
    position = game.position
    assert all(after.phase == Phase.ROLL for _first, after in turns(position))
    # Each turn's expectation reads the clock before each of the 21 rolls: the budget lets three finish.
    timed = ExpectimaxPlayer(random.Random(3), budget=Budget(1 + 3 * 21, ticks))
    step = timed.pick(position)
    assert timed.stats.cut == 1 and ticks.readings == 1 + 3 * 21 + 1
    assert step == ExpectimaxPlayer(random.Random(3), width=3).pick(position)
    assert game.step_to_move(step) in game.legal_moves()


def test_expectimax_without_time_plays_greedys_best_turn(ticks) -> None:
    game = _searched_position()
    me = game.position.seat
    player = ExpectimaxPlayer(random.Random(3), budget=Budget(0, ticks))
    step = player.pick(game.position)
    assert player.stats.cut == 1
    best = max(evaluate(after, me) for _first, after in turns(game.position))
    assert any(first == step and evaluate(after, me) == best for first, after in turns(game.position))


def test_the_arena_refuses_a_slowdown_that_is_not_positive(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        HYPNOSIA.main(["expectimax", "expectimax-fixed", "--slowdown", "-1"])
    assert "slowdown" in capsys.readouterr().err
