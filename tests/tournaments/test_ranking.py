"""The general ranking's counting: points per game over the window, places, best results, handicap."""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.ranking import (
    DAY,
    Placing,
    PlayedGame,
    RankingLine,
    RankingRules,
    general_ranking,
    proposed_handicap,
)

NOW = 1000 * DAY
RULES = RankingRules(window_days=100, min_games=2)


def game(player: int, points: int, *, days_ago: float = 1, tournament: int = 1) -> PlayedGame:
    return PlayedGame(player, NOW - days_ago * DAY, points, tournament, 1, 1)


def test_points_per_game_over_the_window_only() -> None:
    games = [game(1, 4), game(1, 2), game(1, 12, days_ago=101), game(2, 3), game(2, 3), game(2, 3)]
    lines = general_ranking(games, [], now=NOW, rules=RULES)
    # The game of 101 days ago no longer counts: 3 a game each, and the one with more games is ahead.
    assert [(line.player, line.games, line.points, line.place) for line in lines] == [
        (2, 3, 9, 1),
        (1, 2, 6, 2),
    ]
    assert lines[0].per_game == lines[1].per_game == 3


def test_equal_lines_share_a_place_and_the_next_place_skips() -> None:
    games = [game(p, pts) for p, pts in [(1, 4), (1, 4), (2, 4), (2, 4), (3, 2), (3, 2)]]
    lines = general_ranking(games, [], now=NOW, rules=RULES)
    assert [(line.player, line.place) for line in lines] == [(1, 1), (2, 1), (3, 3)]


def test_players_with_too_few_games_are_provisional_and_listed_after() -> None:
    games = [game(1, 12), game(2, 0), game(2, 2)]
    lines = general_ranking(games, [], now=NOW, rules=RULES)
    assert [(line.player, line.is_ranked, line.place) for line in lines] == [(2, True, 1), (1, False, 1)]


def test_best_results_are_the_best_places_in_the_window() -> None:
    games = [game(1, 4), game(1, 4)]
    placings = [
        Placing(1, 1, NOW - DAY, 3, 8),
        Placing(1, 2, NOW - DAY, 1, 4),
        Placing(1, 3, NOW - DAY, 1, 16),
        Placing(1, 4, NOW - 200 * DAY, 1, 64),  # outside the window
        Placing(1, 5, NOW - DAY, 5, 16),
    ]
    (line,) = general_ranking(games, placings, now=NOW, rules=RankingRules(window_days=100, best_results=3))
    assert [(p.tournament, p.place, p.field) for p in line.best] == [(3, 1, 16), (2, 1, 4), (1, 3, 8)]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(1, 6), st.sampled_from([0, 2, 3, 4, 8, 12]), st.floats(0, 150)), max_size=40
    )
)
def test_ranking_against_a_plain_count(raw: list[tuple[int, int, float]]) -> None:
    games = [game(p, pts, days_ago=ago) for p, pts, ago in raw]
    lines = general_ranking(games, [], now=NOW, rules=RULES)
    counted: dict[int, list[int]] = {}
    for p, pts, ago in raw:
        if ago <= 100:
            counted.setdefault(p, []).append(pts)
    assert {line.player: (line.games, line.points) for line in lines} == {
        p: (len(v), sum(v)) for p, v in counted.items()
    }
    ranked = [line for line in lines if line.is_ranked]
    assert all(line.games >= 2 for line in ranked)
    assert lines[: len(ranked)] == ranked  # the ranked come first
    for before, after in zip(ranked, ranked[1:], strict=False):
        assert (before.per_game, before.games) >= (after.per_game, after.games)
        assert before.place <= after.place
        # A place is shared exactly when the lines are equal.
        same = (before.per_game, before.games, before.best_game) == (
            after.per_game,
            after.games,
            after.best_game,
        )
        assert (before.place == after.place) == same
        if not same:
            assert after.place == ranked.index(after) + 1


def ranked(per_game: dict[int, tuple[int, int]]) -> dict[int, RankingLine]:
    """Ranking lines with these (points, games) per player."""
    games = [game(p, 0) for p, (_, n) in per_game.items() for _ in range(n)]
    lines = general_ranking(games, [], now=NOW, rules=RULES)
    return {line.player: dataclasses.replace(line, points=per_game[line.player][0]) for line in lines}


@pytest.mark.parametrize(
    ("table", "pawns"),
    [
        ({1: (40, 10), 2: (35, 10)}, {1: 1, 2: 0}),  # 4.0 vs 3.5: a lead of 0.5, one step
        ({1: (41, 10), 2: (35, 10)}, {1: 2, 2: 0}),  # 0.6: a second step started
        ({1: (60, 10), 2: (30, 10), 3: (30, 10)}, {1: 3, 2: 0, 3: 0}),  # 3.0 ahead: at most three
        ({1: (40, 10), 2: (40, 10), 3: (30, 10)}, {1: 2, 2: 2, 3: 0}),  # level best players share it
        ({1: (30, 10), 2: (30, 10)}, {1: 0, 2: 0}),  # all level: nobody carries
        ({1: (7, 2), 2: (10, 3)}, {1: 1, 2: 0}),  # 3.5 vs 3.33…: exact, not rounded away
    ],
)
def test_handicap_follows_the_tournament_rule_on_points_per_game(
    table: dict[int, tuple[int, int]], pawns: dict[int, int]
) -> None:
    proposal = proposed_handicap(ranked(table), list(table), rules=RULES)
    assert dict(proposal.pawns) == pawns
    assert proposal.unranked == ()
    if any(pawns.values()):
        top = max(Fraction(*v) for v in table.values())
        assert proposal.lead == top - max(Fraction(*v) for v in table.values() if Fraction(*v) < top)


def test_no_handicap_while_a_player_of_the_table_is_not_ranked() -> None:
    lines = ranked({1: (40, 10), 2: (0, 1)})
    proposal = proposed_handicap(lines, [1, 2, 3], rules=RULES)
    assert proposal.unranked == (2, 3)
    assert set(proposal.pawns.values()) == {0}


@pytest.mark.parametrize("players", [[1], [1, 1]])
def test_a_table_needs_two_different_players(players: list[int]) -> None:
    with pytest.raises(ValueError, match="two to four"):
        proposed_handicap({}, players)


@pytest.mark.parametrize(
    "rules",
    [
        {"window_days": 0},
        {"min_games": 0},
        {"best_results": -1},
        {"handicap_step": Fraction(0)},
    ],
)
def test_rules_out_of_bounds_are_refused(rules: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        RankingRules(**rules)
