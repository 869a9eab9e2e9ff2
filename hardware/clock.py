"""Time for the scanner: the real monotonic clock, or a simulated one for tests.

The scanner never calls :mod:`time` directly; it asks a :class:`Clock`. On the
Pi that is :class:`MonotonicClock`, whose :meth:`~MonotonicClock.wait` spins
for waits shorter than the kernel's sleep granularity (a multiplexer settles
in microseconds; ``time.sleep(10e-6)`` would take 50-100 µs). Tests and the
benchmarks use :class:`SimulatedClock`, where waiting just moves time on, so a
minute of scanning takes milliseconds and the virtual multiplexers' settle
delays still behave exactly.

A clock's :attr:`~MonotonicClock.stopwatch` says how a short wait is waited:
on a real clock it is a fine counter (``time.perf_counter``), and the scanner
spins on it only for what remains of the settle time after a select write;
on a simulated clock it is ``None`` (time moves only when someone waits), and
the scanner waits the settle time whole, which costs one call and no spin.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Protocol

SPIN_BELOW = 0.002
"""Waits shorter than this spin on the clock instead of sleeping."""


class Clock(Protocol):
    def now(self) -> float:
        """Seconds, monotonic."""

    def wait(self, seconds: float) -> None:
        """Let *seconds* pass."""


def stopwatch_of(clock: Clock) -> Callable[[], float] | None:
    """The clock's fine real-time counter, or ``None`` if its time moves only when someone waits."""
    stopwatch: Callable[[], float] | None = getattr(clock, "stopwatch", None)
    return stopwatch


class MonotonicClock:
    """Real time: ``time.monotonic`` for stamps, ``perf_counter`` spin for short waits."""

    stopwatch: Callable[[], float] | None = staticmethod(time.perf_counter)
    """Real time passes by itself: what part of a short wait has passed can be measured."""

    def now(self) -> float:
        return time.monotonic()

    def wait(self, seconds: float) -> None:
        if seconds <= 0:
            return
        if seconds >= SPIN_BELOW:
            time.sleep(seconds)
            return
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            pass


class SimulatedClock:
    """Time that moves only when someone waits (or calls :meth:`advance`)."""

    stopwatch: Callable[[], float] | None = None
    """Nothing passes between two calls: a wait is always waited whole (and costs nothing)."""

    def __init__(self, start: float = 1000.0) -> None:
        self._now = start

    def now(self) -> float:
        return self._now

    def wait(self, seconds: float) -> None:
        if seconds > 0:
            self._now += seconds

    def advance(self, seconds: float) -> None:
        self.wait(seconds)
