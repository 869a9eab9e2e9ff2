"""The rating: lamp order to ranks, OpenSkill updates in date order, inactivity, computers, chances."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.hautetension.outcome import Lighting
from tournaments.rating import (
    MU,
    SIGMA,
    RatedGame,
    Rater,
    RatingRules,
    ranks_by_points,
    ranks_of,
    rate_games,
    win_chances,
)

DAY = 86400.0


def game(
    at: float, players: tuple[int, ...], ranks: tuple[int, ...], *, computers: frozenset[int] = frozenset(),
    number: int = 1,
) -> RatedGame:
    return RatedGame(at, 1, number, 1, players, ranks, computers)


def test_the_lamp_order_ranks_never_lit_first_and_ties_lamps_lit_together() -> None:
    # Seat 2 lit first, seats 0 and 3 together next, seat 1 never lit.
    assert ranks_of(4, [Lighting((2,)), Lighting((0, 3), by=1)]) == (2, 1, 3, 2)
    assert ranks_of(2, [Lighting((0, 1), by=0)]) == (1, 1)
    assert ranks_of(3, []) == (1, 1, 1)
    assert ranks_by_points([0, 4, 3, 3]) == (4, 1, 2, 2)


def test_a_newcomer_shows_zero_and_the_winner_of_a_game_climbs_above_the_others() -> None:
    rules = RatingRules()
    assert rules.shown(MU, SIGMA) == pytest.approx(0.0)
    ratings = rate_games([game(0, (1, 2, 3, 4), (1, 2, 3, 4))], now=0)
    assert [line.player for line in ratings.lines] == [1, 2, 3, 4]
    assert [line.place for line in ratings.lines] == [1, 2, 3, 4]
    assert ratings.of(1).mu > MU > ratings.of(4).mu
    assert all(line.sigma < SIGMA and line.games == 1 for line in ratings.lines)
    assert ratings.of(9).games == 0 and ratings.of(9).value == pytest.approx(0.0)


def test_uncertainty_grows_with_inactivity_never_above_a_newcomers() -> None:
    games = [game(i * DAY, (1, 2), (1, 2), number=i) for i in range(20)]
    soon = rate_games(games, now=20 * DAY).of(1)
    later = rate_games(games, now=20 * DAY + 365 * DAY).of(1)
    much_later = rate_games(games, now=20 * DAY + 100 * 365 * DAY).of(1)
    assert soon.mu == later.mu and soon.sigma < later.sigma < much_later.sigma <= SIGMA
    assert later.value < soon.value
    assert RatingRules(drift=0).aged(2.0, 1000) == 2.0


def test_seats_a_computer_played_are_left_out() -> None:
    ratings = rate_games([game(0, (1, 2, 3), (3, 1, 2), computers=frozenset({1}))], now=0)
    # Player 2 did not play (a computer did): unrated; 3 finished ahead of 1 among the players.
    assert ratings.line(2) is None
    assert ratings.of(3).mu > ratings.of(1).mu
    alone = rate_games([game(0, (1, 2), (1, 2), computers=frozenset({1}))], now=0)
    assert alone.lines == []


def test_chances_favour_the_stronger_and_sum_to_one() -> None:
    ratings = rate_games([game(i, (1, 2, 3), (1, 2, 3), number=i) for i in range(10)], now=10)
    chances = ratings.chances([3, 1, 2, 7])
    assert sum(chances.win.values()) == pytest.approx(1.0)
    assert chances.win[1] > chances.win[2] > chances.win[3]
    assert chances.newcomers == (7,)
    with pytest.raises(ValueError, match="different players"):
        ratings.chances([1, 1])


def test_a_newcomer_at_a_table_of_rated_players() -> None:
    games = [game(i, (1, 2, 3), (1, 2, 3), number=i) for i in range(10)]
    ratings = rate_games(games, now=10)
    chances = ratings.chances([1, 2, 3, 9])
    assert chances.newcomers == (9,)
    # Never met, so of average mean: between the player who always won and the one who always lost.
    assert chances.win[1] > chances.win[9] > chances.win[3]
    assert sum(chances.win.values()) == pytest.approx(1.0)


def test_chances_are_the_plackett_luce_chances_averaged_over_the_uncertainty() -> None:
    # Two players: E[sigmoid((μ1 − μ2 + sZ) / β)], s² = σ1² + σ2², against a fine one-dimensional sum.
    (mu1, s1), (mu2, s2), beta = (31.0, 5.0), (24.0, 7.0), 10.0
    spread = math.hypot(s1, s2)
    steps = [-8 + 16 * k / 4000 for k in range(4001)]
    density = [math.exp(-z * z / 2) for z in steps]
    sigmoid = [1 / (1 + math.exp(-(mu1 - mu2 + spread * z) / beta)) for z in steps]
    expected = sum(d * p for d, p in zip(density, sigmoid, strict=True)) / sum(density)
    assert win_chances([(mu1, s1), (mu2, s2)], beta)[0] == pytest.approx(expected, abs=2e-4)
    # Known strengths (no uncertainty): the model's softmax itself.
    known = win_chances([(30.0, 0.0), (20.0, 0.0), (25.0, 0.0)], 10.0)
    weights = [math.exp(3.0), math.exp(2.0), math.exp(2.5)]
    assert known == pytest.approx([w / sum(weights) for w in weights])
    with pytest.raises(ValueError, match="positive"):
        win_chances([(25.0, 1.0), (25.0, 1.0)], 0.0)


def test_an_uncertain_newcomer_among_three_equal_players_may_be_far_above_them() -> None:
    # At a table of four an uncertain strength may be far above the others (a likely first place) or
    # far below (a last place, which costs no more than any other): its chance is above 1/4.
    win = win_chances([(25.0, 25 / 3), (25.0, 2.0), (25.0, 2.0), (25.0, 2.0)], 10.0)
    assert 0.25 < win[0] < 0.3
    assert win[1] == pytest.approx(win[2]) == pytest.approx(win[3])


RATINGS = st.tuples(st.floats(-20, 70), st.floats(0, 12))


@settings(max_examples=60, deadline=None)
@given(st.lists(RATINGS, min_size=2, max_size=4), st.floats(2, 20), st.randoms(use_true_random=False))
def test_chances_sum_to_one_and_follow_their_players_whatever_the_seats(
    table: list[tuple[float, float]], scale: float, rng: random.Random
) -> None:
    win = win_chances(table, scale)
    assert sum(win) == pytest.approx(1.0) and all(0 <= w <= 1 for w in win)
    order = list(range(len(table)))
    rng.shuffle(order)
    assert win_chances([table[k] for k in order], scale) == pytest.approx([win[k] for k in order])
    # Equal players, equal chances.
    same = win_chances([table[0]] * len(table), scale)
    assert same == pytest.approx([1 / len(table)] * len(table))


@settings(max_examples=60, deadline=None)
@given(RATINGS, RATINGS, st.floats(0.5, 6), st.floats(2, 20))
def test_a_stronger_mean_wins_more_and_a_less_certain_one_is_closer_to_even(
    one: tuple[float, float], other: tuple[float, float], more: float, scale: float
) -> None:
    (mu, sigma), rest = one, [other, (30.0, 4.0)]
    base = win_chances([one, *rest], scale)[0]
    assert win_chances([(mu + more, sigma), *rest], scale)[0] >= base
    # Between two players, more uncertainty brings the chance closer to even.
    duel = win_chances([one, other], scale)[0]
    unsure = win_chances([(mu, sigma + more), other], scale)[0]
    assert abs(unsure - 0.5) <= abs(duel - 0.5) + 1e-9


def test_every_step_is_kept_in_date_order_with_its_change() -> None:
    games = [game(2, (1, 2), (2, 1), number=2), game(1, (1, 2), (1, 2), number=1)]
    steps = rate_games(games, now=3).steps[1]
    assert [s.round for s in steps] == [1, 2]
    assert steps[0].change == pytest.approx(steps[0].value)  # from a newcomer's 0
    assert steps[1].change == pytest.approx(steps[1].value - steps[0].value)
    assert steps[1].mu < steps[0].mu


# -- properties -------------------------------------------------------------------------------------

PLAYERS = st.integers(min_value=1, max_value=8)


@st.composite
def tables(draw: st.DrawFn) -> tuple[tuple[int, ...], tuple[int, ...]]:
    players = tuple(draw(st.lists(PLAYERS, min_size=2, max_size=4, unique=True)))
    ranks = tuple(draw(st.lists(st.integers(1, 4), min_size=len(players), max_size=len(players))))
    return players, ranks


seasons = st.lists(tables(), max_size=25).map(
    lambda made: [game(float(i), players, ranks, number=i) for i, (players, ranks) in enumerate(made)]
)


@settings(max_examples=60, deadline=None)
@given(seasons, tables())
def test_a_player_who_beats_everyone_at_the_table_rises(
    season: list[RatedGame], table: tuple[tuple[int, ...], tuple[int, ...]]
) -> None:
    players, _ = table
    winner = players[0]
    ranks = (1, *([2] * (len(players) - 1)))
    rater = Rater()
    for played in season:
        rater.rate(played)
    at = float(len(season))
    before = rater.rating(winner, at)
    step = rater.rate(game(at, players, ranks, number=len(season)))[winner]
    assert step.mu > before.mu
    assert step.value > before.value


@settings(max_examples=60, deadline=None)
@given(seasons, tables())
def test_adding_a_game_never_changes_the_earlier_games_updates(
    season: list[RatedGame], table: tuple[tuple[int, ...], tuple[int, ...]]
) -> None:
    later = game(float(len(season)), *table, number=len(season))
    before = rate_games(season, now=later.at).steps
    after = rate_games([*season, later], now=later.at).steps
    for player, steps in before.items():
        assert after[player][: len(steps)] == steps


@settings(max_examples=60, deadline=None)
@given(seasons, tables(), st.data())
def test_ties_are_symmetric(
    season: list[RatedGame], table: tuple[tuple[int, ...], tuple[int, ...]], data: st.DataObject
) -> None:
    players, ranks = table
    rater = Rater()
    for played in season:
        rater.rate(played)
    # Two newcomers tied: the same update whatever their seats.
    a, b = 101, 102
    tied = data.draw(st.integers(1, 4))
    seated = (*players[:2], a, b)
    steps = rater.rate(game(1e9, seated, (*ranks[:2], tied, tied)))
    assert steps[a].mu == pytest.approx(steps[b].mu)
    assert steps[a].sigma == pytest.approx(steps[b].sigma)
    # Swapping two tied players' seats swaps nothing else.
    again = Rater()
    for played in season:
        again.rate(played)
    swapped = again.rate(game(1e9, (*players[:2], b, a), (*ranks[:2], tied, tied)))
    for player in seated:
        assert swapped[player].mu == pytest.approx(steps[player].mu)
