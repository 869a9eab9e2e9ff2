"""Fixtures for the hardware tests: the virtual board on a simulated clock.

Tests marked ``pin_paths(...)`` (a module's ``pytestmark`` or one test's own
mark) run once per way of reaching the virtual board's pins:

- ``gpiozero``: gpiozero's mock pin factory, one pin per call;
- ``lgpio-pins``: gpiozero's own lgpio factory on the virtual lgpio, one pin
  per call (an lgpio without group calls: the scanner's fallback);
- ``lgpio-group``: the same factory, the scanner reading through lgpio groups;
- ``sim-group``: the virtual board's own group claims (the ``sim`` backend's
  default): one group write per select step and one group read, answered at once.

The readings must not depend on the path. Unmarked tests run on ``gpiozero``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import ExitStack
from typing import Any

import pytest

from games.hautetension.layout import Layout
from hardware.backends.gpio import GpioBoard
from hardware.backends.sim import SimBoard
from hardware.clock import Clock, SimulatedClock
from hardware.events import BoardEvent
from hardware.settings import HardwareSettings
from hardware.virtual.board import VirtualBoard
from hardware.virtual.lgpio import PI5_LINES, VirtualLgpio, installed, lgpio_pin_factory

PIN_PATHS = ("gpiozero", "lgpio-pins", "lgpio-group", "sim-group")


class GrouplessLgpio(VirtualLgpio):
    """An lgpio without group calls, as the scanner would meet one: it must fall back to per-pin reads."""

    group_claim_input = None  # type: ignore[assignment]
    group_read = None  # type: ignore[assignment]


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "pin_paths(*paths): run the test once per way of reaching the pins "
                                       f"({', '.join(PIN_PATHS)})")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    marker = metafunc.definition.get_closest_marker("pin_paths")
    if "pin_path" in metafunc.fixturenames and marker is not None:
        unknown = set(marker.args) - set(PIN_PATHS)
        assert not unknown, f"unknown pin paths {unknown}"
        metafunc.parametrize("pin_path", marker.args, indirect=True)


@pytest.fixture
def pin_path(request: pytest.FixtureRequest) -> str:
    return str(getattr(request, "param", "gpiozero"))


@pytest.fixture
def pin_factory_for(pin_path: str) -> Iterator[Callable[[VirtualBoard], Any]]:
    """The pin factory that reaches a virtual board's pins the way *pin_path* does.

    The lgpio paths wire a virtual lgpio (gpiochip0, a Pi 5's 54 lines) to the
    board. gpiozero's lgpio factories share their pins process-wide, so making
    the next one closes the previous one (and what still uses it).
    """
    current = ExitStack()

    def make(board: VirtualBoard) -> Any:
        if pin_path in ("gpiozero", "sim-group"):
            return board.factory
        current.close()
        kind = VirtualLgpio if pin_path == "lgpio-group" else GrouplessLgpio
        current.enter_context(installed(kind({0: (PI5_LINES, board)})))
        factory = lgpio_pin_factory()
        current.callback(factory.close)
        return factory

    with current:
        yield make


class VirtualPinsBoard(GpioBoard):
    """The ``sim`` backend (:class:`SimBoard`) with its virtual board reached through *pin_factory*."""

    def __init__(self, settings: HardwareSettings, layout: Layout, virtual: VirtualBoard, *,
                 pin_factory: Any, clock: Clock, **options: Any) -> None:
        self.virtual_board = virtual
        try:
            super().__init__(settings, layout, pin_factory=pin_factory, clock=clock, name="sim", **options)
        except BaseException:
            virtual.close()
            raise

    def close(self) -> None:
        if not self._closed:
            super().close()
            self.virtual_board.close()


class Rig:
    """A :class:`SimBoard` (or one on another pin path) on simulated time, with helpers to let time pass."""

    def __init__(self, board: GpioBoard, clock: SimulatedClock) -> None:
        self.board = board
        self.clock = clock
        self.virtual: VirtualBoard = board.virtual_board  # type: ignore[attr-defined]

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
def make_rig(pinwheel: Layout, pin_path: str,
             pin_factory_for: Callable[[VirtualBoard], Any]) -> Iterator[Callable[..., Rig]]:
    rigs: list[Rig] = []

    def make(settings: HardwareSettings | None = None, *, layout: Layout | None = None,
             bounce_seconds: float = 0.0, seed: int = 0, bank_read: bool = False, **options: Any) -> Rig:
        clock = SimulatedClock()
        settings, layout = settings or HardwareSettings(), layout or pinwheel
        board: GpioBoard
        if pin_path in ("gpiozero", "sim-group") or bank_read:  # the virtual board's own factory
            options.setdefault("groups", pin_path == "sim-group")
            board = SimBoard(settings, layout, clock=clock, bounce_seconds=bounce_seconds, seed=seed,
                             bank_read=bank_read, **options)
        else:
            for previous in rigs:  # its pin factory is about to close (see pin_factory_for)
                previous.board.close()
            virtual = VirtualBoard(settings, layout, clock=clock, bounce_seconds=bounce_seconds, seed=seed)
            board = VirtualPinsBoard(settings, layout, virtual, pin_factory=pin_factory_for(virtual),
                                     clock=clock, **options)
        rig = Rig(board, clock)
        rigs.append(rig)
        return rig

    yield make
    for rig in rigs:
        rig.board.close()


@pytest.fixture
def rig(make_rig: Callable[..., Rig]) -> Rig:
    return make_rig()
