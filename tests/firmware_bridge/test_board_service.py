"""End to end: the board service drives a board whose slots a microcontroller scans."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from firmware_bridge.simulator import SimulatedDevice
from hardware.serial_backend import SerialBackend
from hardware.service import BoardService, BoardSettings


def run(service: BoardService, seconds: float, until: Callable[[], bool]) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        service.step()
        if until():
            return True
        time.sleep(service.backend.scan_period)
    return until()


def test_a_closed_row_lights_its_lamp_on_the_device_and_a_pulled_cable_is_survived(
    device: SimulatedDevice, open_backend: Callable[..., SerialBackend], pinwheel: Any
) -> None:
    backend = open_backend(device.port)
    service = BoardService(backend, pinwheel, journal=None, settings=BoardSettings(settle=0.05))
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
