"""Fixtures for the hardware tests: the virtual board on a simulated clock."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from games.hautetension.layout import Layout
from hardware.backends import SimBoard
from hardware.clock import SimulatedClock
from hardware.events import BoardEvent
from hardware.settings import HardwareSettings


class Rig:
    """A :class:`SimBoard` on simulated time, with helpers to let time pass."""

    def __init__(self, board: SimBoard, clock: SimulatedClock) -> None:
        self.board = board
        self.clock = clock
        self.virtual = board.virtual_board

    def scans(self, count: int) -> list[BoardEvent]:
        """Run *count* scan cycles, one scan period apart; return every event."""
        events: list[BoardEvent] = []
        for _ in range(count):
            self.clock.advance(self.board.scan_period)
            events += self.board.poll()
        return events

    def run(self, seconds: float) -> list[BoardEvent]:
        return self.scans(max(1, round(seconds / self.board.scan_period)))


@pytest.fixture
def make_rig(pinwheel: Layout) -> Iterator[Callable[..., Rig]]:
    rigs: list[Rig] = []

    def make(settings: HardwareSettings | None = None, *, layout: Layout | None = None,
             **options: Any) -> Rig:
        clock = SimulatedClock()
        board = SimBoard(settings or HardwareSettings(), layout or pinwheel, clock=clock, **options)
        rig = Rig(board, clock)
        rigs.append(rig)
        return rig

    yield make
    for rig in rigs:
        rig.board.close()


@pytest.fixture
def rig(make_rig: Callable[..., Rig]) -> Rig:
    return make_rig()
