"""How long a computer player may think over one decision: its time budget.

The searching levels (Hypnosia ``expectimax``, |Hop> ``mcts`` and ``expert``,
Haute-Tension ``ismcts``) are *anytime*: they hold a best move at every
moment, and stop at their budget or at their own cap of work (iterations,
candidate turns), whichever comes first, with the best move found so far. The
cap keeps a level's strength where time allows; the budget keeps a player
from waiting where a position is expensive or the machine slow.

A budget is seconds on a clock:

* in play, the wall clock (:func:`wall_clock`): the person at the table waits
  in wall-clock time, so a computer seat thinks at most its seconds however
  busy the machine is (it then searches less);
* in win-rate matches on a shared machine, the CPU time of the searching
  thread (:meth:`Budget.on_cpu`), scaled from the Pi (:meth:`Budget.pi_equivalent`):
  other processes' load then changes neither how much a player searches nor
  how well it plays;
* in tests, a clock the test injects (a counter), so that stopping at the
  budget is checked without depending on timing.

The default: :data:`PI_SECONDS` (1 s) a decision on a Raspberry Pi, the
product's machine. A Pi 4 core runs this Python 3 to 5 times slower than the
development machine (the figure docs and README use; not measured on a Pi);
taking the slow end, 1 s on a Pi is the work of ``1 / 5 = 0.2`` s of CPU here
(:data:`PI_SLOWDOWN`), which is the budget the win-rate matches give each
decision. On a faster Pi the searches are simply cut less often.
"""

from __future__ import annotations

import argparse
import math
import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Final, Generic, TypeAlias, TypeVar

from games.exc import ThinkingTimeError

# The frame's computer players, which this module leaves unnamed: the frame imports it.
P = TypeVar("P")

Clock: TypeAlias = Callable[[], float]
"""Seconds since any fixed point: only differences are read."""

PI_SECONDS: Final = 1.0
"""The default thinking time of a searching level, in seconds on a Raspberry Pi."""
PI_SLOWDOWN: Final = 5.0
"""How many times slower a Pi core runs the searches than the development machine (the slow end of 3-5)."""


def wall_clock() -> float:
    """The clock of thinking time in play: the player waits in wall-clock time.

    Looked up at each decision, so the test suite can stop it (tests/conftest.py)
    and no test depends on how fast the machine is.
    """
    return time.monotonic()


@dataclass(frozen=True)
class Budget:
    """At most ``seconds`` of ``clock`` per decision; ``clock`` None is :func:`wall_clock`."""

    seconds: float
    clock: Clock | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.seconds, int | float) or isinstance(self.seconds, bool):
            raise ThinkingTimeError(f"a thinking time is a number of seconds, not {self.seconds!r}")
        if not math.isfinite(self.seconds) or self.seconds < 0:
            raise ThinkingTimeError(f"a thinking time must be 0 seconds or more, not {self.seconds!r}")

    @classmethod
    def on_cpu(cls, seconds: float) -> Budget:
        """``seconds`` of CPU time of the searching thread (matches on a shared machine)."""
        return cls(seconds, time.thread_time)

    @classmethod
    def pi_equivalent(cls, pi_seconds: float = PI_SECONDS, *, slowdown: float = PI_SLOWDOWN) -> Budget:
        """The CPU time on this machine that does the work of ``pi_seconds`` on a Pi."""
        if not slowdown > 0:
            raise ThinkingTimeError(f"a slowdown is a positive factor, not {slowdown!r}")
        return cls.on_cpu(pi_seconds / slowdown)

    def start(self) -> Deadline:
        """The end of thinking for a decision that starts now."""
        clock = self.clock if self.clock is not None else wall_clock
        return Deadline(clock, clock() + self.seconds)


class Deadline:
    """When one decision must stop thinking."""

    __slots__ = ("clock", "end")

    def __init__(self, clock: Clock, end: float) -> None:
        self.clock = clock
        self.end = end

    def passed(self) -> bool:
        return self.clock() >= self.end


def _never() -> float:
    return 0.0


def deadline(budget: Budget | None) -> Deadline:
    """A decision's deadline; without a budget one that never passes (the work cap alone stops it)."""
    return Deadline(_never, math.inf) if budget is None else budget.start()


class TimedLevel(Generic[P]):
    """A searching level in a game's registry: how to make its player, and its thinking time.

    Called with a random source like any :data:`~games.frame.PlayerFactory`,
    it makes a player that thinks at most ``seconds`` of wall clock a decision
    (by default :data:`PI_SECONDS`); pass a :class:`Budget` to change that
    (:func:`games.frame.ai_player` does, for a setting of the panel).
    """

    def __init__(
        self, make: Callable[[random.Random, Budget | None], P], *, seconds: float = PI_SECONDS
    ) -> None:
        self.make = make
        self.budget = Budget(seconds)

    @property
    def seconds(self) -> float:
        return self.budget.seconds

    def __call__(self, rng: random.Random, budget: Budget | None = None) -> P:
        return self.make(rng, budget if budget is not None else self.budget)

    def untimed(self, rng: random.Random) -> P:
        """The level without a time budget: its work cap alone stops it (the fixed-iteration search)."""
        return self.make(rng, None)

    def pi_equivalent(self, rng: random.Random, *, slowdown: float = PI_SLOWDOWN) -> P:
        """The level thinking the CPU time on this machine that its seconds buy on a Pi."""
        return self.make(rng, Budget.pi_equivalent(self.seconds, slowdown=slowdown))


FIXED: Final = "-fixed"
"""The suffix of a searching level's name without a time budget, in matches."""


def match_levels(
    levels: Mapping[str, Callable[[random.Random], P]], *, slowdown: float = PI_SLOWDOWN
) -> dict[str, Callable[[random.Random], P]]:
    """The levels as win-rate matches play them on a shared machine.

    Each searching level thinks its Pi seconds in CPU time of this machine
    (:meth:`TimedLevel.pi_equivalent`), and is also offered as ``LEVEL-fixed``,
    without a budget, to measure what the budget costs.
    """
    Budget.pi_equivalent(slowdown=slowdown)  # a bad slowdown is refused now, not at the first decision
    matched: dict[str, Callable[[random.Random], P]] = {}
    for name, factory in levels.items():
        if isinstance(factory, TimedLevel):
            timed = factory

            def on_cpu(rng: random.Random, timed: TimedLevel[P] = timed) -> P:
                return timed.pi_equivalent(rng, slowdown=slowdown)

            matched[name] = on_cpu
            matched[name + FIXED] = timed.untimed
        else:
            matched[name] = factory
    return matched


def add_slowdown_option(parser: argparse.ArgumentParser) -> None:
    """A match command's ``--slowdown``: searching levels think their Pi seconds divided by it."""

    def factor(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not value > 0 or not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"a slowdown is a positive factor, not {text!r}")
        return value

    parser.add_argument(
        "--slowdown",
        type=factor,
        default=PI_SLOWDOWN,
        help=f"how many times slower a Pi runs the searches than this machine (default {PI_SLOWDOWN:g}): "
        "a searching level thinks its seconds on a Pi divided by this, in CPU time here",
    )
