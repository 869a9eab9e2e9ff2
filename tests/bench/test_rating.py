"""bench/rating.py: a smoke run of its seasons and counts (seeded games: the same on every machine)."""

from __future__ import annotations

import argparse
import importlib.util
import math
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("rating_bench", ROOT / "bench" / "rating.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_a_season_is_tournaments_of_the_rules_shape_played_to_the_end(bench: ModuleType) -> None:
    season = bench.play_season(5, 2, 8, bench.QUICK_PROFILES, 8)
    again = bench.play_season(5, 2, 8, bench.QUICK_PROFILES, 8)
    assert season == again  # seeded: the same games on every machine
    assert [p.week for p in season] == sorted(p.week for p in season) and {p.week for p in season} == {0, 1}
    for played in season:
        game = played.game
        assert 2 <= len(game.players) <= 4 and len(set(game.players)) == len(game.players)
        assert played.winners == tuple(s for s, r in enumerate(game.ranks) if r == 1) != ()
        # Never lit scores 4 at least: a winner has the most base points of the table.
        assert all(played.points[s] >= 4 for s in played.winners)
    # Each tournament's field of 8 plays its first (drawn) round entirely.
    first_rounds = [p for p in season if p.game.round == 1]
    assert sum(len(p.game.players) for p in first_rounds) == 16


def test_every_game_is_predicted_by_every_system_once(bench: ModuleType) -> None:
    seasons = [bench.play_season(k, 2, 8, bench.QUICK_PROFILES, 8) for k in range(2)]
    strength = bench.true_strength(seasons, bench.QUICK_PROFILES)
    assert set(strength) == {p.name for p in bench.QUICK_PROFILES}
    by_player = {p: strength[bench.QUICK_PROFILES[p % 4].name] for p in range(8)}
    evaluation = bench.evaluate(seasons, bench.Fitted(1.0), by_player, seed=7)
    played = [p for season in seasons for p in season]
    assert len(evaluation.tables) == len(played)
    assert {t.tournament for t in evaluation.tables} == {(7, s, w) for s in (0, 1) for w in (0, 1)}
    for table, game in zip(evaluation.tables, played, strict=True):
        assert set(table.scores) == set(bench.SYSTEMS)
        # The baseline knows nothing: 1/n for each seat, whatever happened.
        n, k = len(game.game.players), len(game.winners)
        assert table.metric("baseline", "log_loss") == pytest.approx(math.log(n))
        assert table.metric("baseline", "brier") == pytest.approx(k * (1 / n - 1 / k) ** 2 + (n - k) / n**2)
    assert set(evaluation.correlations["rating"]) == {1, 2}
    assert evaluation.correlations["baseline"][1] == [0.0, 0.0]


def test_a_difference_is_paired_and_its_error_counts_tournaments(bench: ModuleType) -> None:
    def table(tournament: int, a: float, b: float) -> object:
        return bench.Predicted((1, 0, tournament), 0, {"a": (a, 0.0, 0.0), "b": (b, 0.0, 0.0)})

    # Differences 1, 3 in one tournament and 2, 6 in the other: mean 3; the tournaments' sums of deviations
    # are −2 and +2, so the error is sqrt(2/1 × 8) / 4 = 1.
    tables = [table(0, 1, 0), table(0, 4, 1), table(1, 2, 0), table(1, 7, 1)]
    assert bench.difference(tables, "log_loss", "a", "b") == pytest.approx((3.0, 1.0))
    assert bench.difference(tables, "log_loss", "b", "a") == pytest.approx((-3.0, 1.0))
    mean, error = bench.difference(tables[:2], "log_loss", "a", "b")
    assert mean == 2.0 and math.isnan(error)  # one tournament says nothing of the spread


def test_rank_correlation(bench: ModuleType) -> None:
    assert bench.spearman([1, 2, 3], [10, 20, 30]) == pytest.approx(1.0)
    assert bench.spearman([3, 2, 1], [10, 20, 30]) == pytest.approx(-1.0)
    assert bench.spearman([1, 1, 1], [10, 20, 30]) == 0.0
    assert bench.spearman([1, 2, 2, 3], [1, 2, 3, 4]) == pytest.approx(0.9486832980505138)


def test_the_report_has_its_tables(bench: ModuleType) -> None:
    args = argparse.Namespace(
        quick=True, seasons=1, calibration=1, tournaments=1, field=8, pool=8, seeds=[3, 4], handicap=True
    )
    report = bench.run(args, lambda line: None)
    assert "| profile | win share |" in report
    assert "| **all** |" in report and "| tournaments | median games a player |" in report
    assert "2 seed(s) (3, 4)" in report and "| rating − points per game |" in report
