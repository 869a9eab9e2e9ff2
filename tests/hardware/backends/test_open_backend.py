"""open_backend: the sim board, the gpio board on any pin factory, the serial delegation."""

from __future__ import annotations

import sys
import types
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory

from configuration import ConfigFile
from games.hautetension.layout import Layout
from games.hautetension.pawn import PawnKind
from hardware.backend import BoardBackend
from hardware.backends import make_pin_factory, open_backend
from hardware.backends.gpio import GpioBoard
from hardware.backends.sim import SimBoard
from hardware.exc import BoardClaimedError, HardwareConfigError, PinAccessError, UnknownBackendError


@pytest.mark.parametrize("kind", ["sim", "mock"])
def test_sim_backend_in_real_time(kind: str, pinwheel: Layout) -> None:
    import time

    backend = open_backend(kind, ConfigFile(), layout=pinwheel)
    try:
        assert isinstance(backend, BoardBackend) and isinstance(backend, SimBoard)
        assert backend.name == "sim"
        backend.virtual_board.place("c7", PawnKind.ATTACK)
        events: list[Any] = []
        deadline = time.monotonic() + 5
        while not events and time.monotonic() < deadline:
            events += backend.poll()
            time.sleep(backend.scan_period)
        assert [(e.slot, e.kind) for e in events] == [("c7", PawnKind.ATTACK)]
        health = backend.health()
        assert health["backend"] == "sim" and health["gpio_ops_per_scan"] == 32  # virtual line groups
        assert health["scan_count"] >= 3 and health["scans_per_second"] > 0
        assert set(health) >= {"last_scan_seconds", "faults", "flicker", "references", "lamp_feedback"}
    finally:
        backend.close()


def test_gpio_backend_on_a_given_pin_factory(pinwheel: Layout) -> None:
    factory = MockFactory()
    backend = open_backend("gpio", ConfigFile(), layout=pinwheel, pin_factory=factory)
    try:
        assert isinstance(backend, GpioBoard) and backend.name == "gpio"
        assert backend.poll() == []  # bare mock pins float high: every slot empty
        backend.set_lamps(frozenset({"E"}))
        assert factory.pin(16).state is True
    finally:
        backend.close()
    assert factory.pin(16).state is False


def test_pins_already_claimed(pinwheel: Layout) -> None:
    factory = MockFactory()
    first = open_backend("gpio", ConfigFile(), layout=pinwheel, pin_factory=factory)
    try:
        with pytest.raises(BoardClaimedError, match="already running"):  # a PinAccessError
            open_backend("gpio", ConfigFile(), layout=pinwheel, pin_factory=factory)
    finally:
        first.close()


def test_bad_config_is_refused_before_any_pin(pinwheel: Layout) -> None:
    factory = MockFactory()
    config = ConfigFile({"hardware": {"button_gpio": 4}})
    with pytest.raises(HardwareConfigError, match="GPIO 4 is used twice"):
        open_backend("gpio", config, layout=pinwheel, pin_factory=factory)
    assert factory.pins == {}


def test_unknown_backend(pinwheel: Layout) -> None:
    with pytest.raises(UnknownBackendError, match="no board backend 'usb'"):
        open_backend("usb", ConfigFile(), layout=pinwheel)


def test_unknown_pin_factory_name() -> None:
    with pytest.raises(PinAccessError, match="no pin factory 'gpiod'"):
        make_pin_factory("gpiod")


def test_serial_is_delegated(pinwheel: Layout, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    fake = types.ModuleType("hardware.backends.serial")
    fake.open_serial_backend = lambda config, *, layout, port: calls.append((config, layout, port)) or "link"
    monkeypatch.setitem(sys.modules, "hardware.backends.serial", fake)
    config = ConfigFile()
    assert open_backend("serial", config, layout=pinwheel, port="/dev/ttyACM0") == "link"
    assert calls == [(config, pinwheel, "/dev/ttyACM0")]


def test_boards_built_directly_check_their_wiring(pinwheel: Layout) -> None:
    from hardware.settings import HardwareSettings

    factory = MockFactory()
    bad = HardwareSettings(button_gpio=5)
    with pytest.raises(HardwareConfigError, match="GPIO 5 is used twice: select line S0 and test button"):
        GpioBoard(bad, pinwheel, pin_factory=factory)
    with pytest.raises(HardwareConfigError, match="GPIO 5 is used twice"):
        SimBoard(bad, pinwheel)
    assert factory.pins == {}


def test_named_pin_factory() -> None:
    factory = make_pin_factory("mock")
    try:
        assert type(factory).__name__ == "MockFactory"
    finally:
        factory.close()
