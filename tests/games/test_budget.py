"""The computer players' thinking time: budgets, deadlines, the registry's levels and the matches' levels."""

from __future__ import annotations

import math
import random
import time

import pytest

import games.budget
from games.budget import FIXED, PI_SECONDS, PI_SLOWDOWN, Budget, TimedLevel, deadline, match_levels
from games.exc import GameError, ThinkingTimeError
from games.frame import AI_LEVELS, RandomPlayer, ai_player, load_builtin_games
from games.hop.ai import MctsPlayer


@pytest.mark.parametrize("seconds", [-1, -0.001, math.nan, math.inf, "1", True, None])
def test_a_thinking_time_must_be_a_number_of_seconds(seconds: object) -> None:
    with pytest.raises(ThinkingTimeError) as caught:
        Budget(seconds)  # type: ignore[arg-type]
    assert isinstance(caught.value, GameError) and isinstance(caught.value, ValueError)
    assert "thinking time" in str(caught.value)


@pytest.mark.parametrize("slowdown", [0, -2, math.nan])
def test_a_slowdown_must_be_positive(slowdown: float) -> None:
    with pytest.raises(ThinkingTimeError, match="slowdown"):
        Budget.pi_equivalent(slowdown=slowdown)
    with pytest.raises(ThinkingTimeError, match="slowdown"):
        match_levels({}, slowdown=slowdown)


def test_a_deadline_passes_when_the_seconds_are_spent(ticks) -> None:
    until = Budget(3, ticks).start()
    assert [until.passed() for _ in range(4)] == [False, False, True, True]
    assert Budget(0, ticks).start().passed()


def test_without_a_budget_the_deadline_never_passes() -> None:
    until = deadline(None)
    assert not any(until.passed() for _ in range(1000))


def test_play_reads_the_wall_clock_which_stands_still_in_tests() -> None:
    assert Budget(1).clock is None
    assert games.budget.wall_clock() == 0.0  # tests/conftest.py stops it: no test depends on timing
    assert not Budget(0.5).start().passed()


def test_matches_read_the_searching_threads_cpu_time() -> None:
    budget = Budget.pi_equivalent()
    assert budget.clock is time.thread_time
    assert budget.seconds == pytest.approx(PI_SECONDS / PI_SLOWDOWN) == pytest.approx(0.2)
    assert Budget.pi_equivalent(2.0, slowdown=4).seconds == pytest.approx(0.5)


def test_a_timed_level_thinks_its_seconds_unless_told_otherwise(ticks) -> None:
    level = TimedLevel(lambda rng, budget: MctsPlayer(rng, budget=budget), seconds=2.5)
    assert level.seconds == 2.5
    player = level(random.Random(1))
    assert isinstance(player, MctsPlayer) and player.budget == Budget(2.5)
    other = Budget(0.1, ticks)
    player = level(random.Random(1), other)
    assert isinstance(player, MctsPlayer) and player.budget is other
    untimed = level.untimed(random.Random(1))
    assert isinstance(untimed, MctsPlayer) and untimed.budget is None
    with pytest.raises(ThinkingTimeError):
        TimedLevel(lambda rng, budget: MctsPlayer(rng, budget=budget), seconds=-1)


def test_every_searching_level_is_timed_at_a_second_on_a_pi() -> None:
    load_builtin_games()
    timed = {(game, level) for game, levels in AI_LEVELS.items() for level, f in levels.items()
             if isinstance(f, TimedLevel)}
    assert timed == {("hypnosia", "expectimax"), ("hop", "mcts"), ("hop", "expert"),
                     ("hautetension", "ismcts")}
    for game, level in timed:
        factory = AI_LEVELS[game][level]
        assert isinstance(factory, TimedLevel) and factory.seconds == PI_SECONDS


def test_ai_player_passes_a_budget_to_the_searching_levels_only(ticks) -> None:
    budget = Budget(0.3, ticks)
    player = ai_player("hop", "mcts", rng=random.Random(1), budget=budget)
    assert isinstance(player, MctsPlayer) and player.budget is budget
    player = ai_player("hop", "mcts", rng=random.Random(1))
    assert isinstance(player, MctsPlayer) and player.budget == Budget(PI_SECONDS)
    assert isinstance(ai_player("hop", "random", rng=random.Random(1), budget=budget), RandomPlayer)


def test_matches_offer_each_searching_level_timed_on_the_cpu_and_fixed() -> None:
    level = TimedLevel(lambda rng, budget: MctsPlayer(rng, budget=budget))
    matched = match_levels({"random": RandomPlayer, "mcts": level}, slowdown=2)
    assert set(matched) == {"random", "mcts", "mcts" + FIXED}
    assert matched["random"] is RandomPlayer
    timed, fixed = matched["mcts"](random.Random(1)), matched["mcts" + FIXED](random.Random(1))
    assert isinstance(timed, MctsPlayer) and isinstance(fixed, MctsPlayer)
    assert timed.budget == Budget(0.5, time.thread_time) and fixed.budget is None
