"""The rating: lamp order to ranks, OpenSkill updates in date order, inactivity, computers, chances."""

from __future__ import annotations

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
