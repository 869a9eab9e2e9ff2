"""Thinking time per decision of a computer player, as the benchmarks report it.

A :class:`Timed` player wraps a searching player, measures the CPU time of
each of its decisions in the searching thread (``time.thread_time``: the
machine is shared, and other processes' load does not count), and keeps only
the decisions that searched (``searched()`` grew: a forced move costs
nothing). :func:`table` prints the distribution per player — median, 95th
percentile, worst — with the worst translated to a Raspberry Pi (3-5 times
slower per core, games.budget).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from games.budget import PI_SLOWDOWN
from games.frame import DigitalGame, Move, Player

PI_FAST = 3.0
"""The fast end of a Pi core's slowdown against the development machine (the slow end is PI_SLOWDOWN)."""


@dataclass
class Timed:
    """A player whose searching decisions are timed; ``searched`` reads its work counter."""

    player: Player
    searched: Callable[[], int]
    cut: Callable[[], int] = lambda: 0
    seconds: list[float] = field(default_factory=list)

    def choose(self, game: DigitalGame) -> Move:
        before = self.searched()
        started = time.thread_time()
        move = self.player.choose(game)
        elapsed = time.thread_time() - started
        if self.searched() != before:
            self.seconds.append(elapsed)
        return move


def percentile(values: Sequence[float], share: float) -> float:
    """The value below which ``share`` of ``values`` lie (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))]


HEADER = (
    f"  {'player':<40} {'decisions':>9} {'median ms':>10} {'p95 ms':>8} {'max ms':>8} "
    f"{'max on a Pi':>13} {'cut':>5}"
)


def row(name: str, timed: Timed) -> str:
    """One line of the table: the distribution of ``timed``'s decisions (CPU ms)."""
    s = timed.seconds
    if not s:
        return f"  {name:<40} {0:>9}"
    worst = max(s)
    pi = f"{PI_FAST * worst:.1f}-{PI_SLOWDOWN * worst:.1f} s"
    return (
        f"  {name:<40} {len(s):>9} {1000 * statistics.median(s):>10.1f} {1000 * percentile(s, 0.95):>8.1f} "
        f"{1000 * worst:>8.1f} {pi:>13} {timed.cut():>5}"
    )
