"""End to end: the board service drives a board whose slots a microcontroller scans."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from firmware_bridge.simulator import SimulatedDevice
from hardware.backends.serial import open_serial_backend
from hardware.service import BoardService, BoardSettings
from tests.firmware_bridge.helpers import fast_config


def run(service: BoardService, seconds: float, until: Callable[[], bool]) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        service.step()
        if until():
            return True
        time.sleep(service.backend.scan_period)
    return until()


@pytest.fixture
def device(tmp_path: Path) -> Iterator[SimulatedDevice]:
    with SimulatedDevice(link=tmp_path / "ttyACM0") as dev:  # a stable name that survives replugging
        yield dev


def test_a_closed_row_lights_its_lamp_on_the_device_and_a_pulled_cable_is_survived(
    device: SimulatedDevice, pinwheel: Any
) -> None:
    backend = open_serial_backend(fast_config(), layout=pinwheel, port=device.port)
    with BoardService(backend, pinwheel, journal=None, settings=BoardSettings(settle=0.05)) as service:
        service.start()
        west_row = [pinwheel.slots.index(s) for s in ("a9", "b9", "c9", "d9", "e9")]
        for slot in west_row:
            device.board.place(slot, conducts=True)
        assert run(service, 3.0, lambda: device.board.lamps() == [False, False, False, True])

        device.unplug()
        assert run(service, 2.0, lambda: service.referee.scanner_faulted)
        device.board.lift(west_row[0])  # the row opens while the cable is out
        device.plug_in()
        referee = service.referee
        assert run(service, 3.0, lambda: not referee.scanner_faulted and "a9" not in referee.board)
        assert run(service, 1.0, lambda: device.board.lamps() == [False] * 4)
        assert dict(backend.snapshot()) == {s: k for s, k in service.referee.board.items()}
