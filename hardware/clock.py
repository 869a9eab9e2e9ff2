"""Time for the scanner: the real monotonic clock, or a simulated one for tests.

The scanner never calls :mod:`time` directly; it asks a :class:`Clock`. On the
Pi that is :class:`MonotonicClock`, whose :meth:`~MonotonicClock.wait` spins
for waits shorter than the kernel's sleep granularity (a multiplexer settles
in microseconds; ``time.sleep(10e-6)`` would take 50-100 µs). Tests and the
benchmarks use :class:`SimulatedClock`, where waiting just moves time on, so a
minute of scanning takes milliseconds and the virtual multiplexers' settle
delays still behave exactly.
"""

from __future__ import annotations

import time
from typing import Protocol

SPIN_BELOW = 0.002
"""Waits shorter than this spin on the clock instead of sleeping."""


class Clock(Protocol):
    def now(self) -> float:
        """Seconds, monotonic."""

    def wait(self, seconds: float) -> None:
        """Let *seconds* pass."""


class MonotonicClock:
    """Real time: ``time.monotonic`` for stamps, ``perf_counter`` spin for short waits."""

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

    def __init__(self, start: float = 1000.0) -> None:
        self._now = start

    def now(self) -> float:
        return self._now

    def wait(self, seconds: float) -> None:
        if seconds > 0:
            self._now += seconds

    def advance(self, seconds: float) -> None:
        self.wait(seconds)
