"""Fixtures for the serial link tests: a simulated device on a real pseudo-terminal."""

from __future__ import annotations

import contextlib
import os
import select
import time
import tty
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from firmware_bridge import framing, messages
from firmware_bridge.exc import ToolMissingError
from firmware_bridge.framing import Frame
from firmware_bridge.simulator import SimulatedDevice
from firmware_bridge.toolchain import MicroPython, find_micropython
from hardware.backends.serial import SerialBackend, open_serial_backend
from hardware.events import BoardEvent
from tests.firmware_bridge.helpers import fast_config


@pytest.fixture
def port_link(tmp_path: Path) -> Path:
    """A stable port name (a symbolic link, like /dev/serial/by-id/...) that survives replugging."""
    return tmp_path / "ttyACM0"


@pytest.fixture
def device(port_link: Path) -> Iterator[SimulatedDevice]:
    with SimulatedDevice(link=port_link) as dev:
        yield dev


@pytest.fixture
def open_backend(pinwheel: Any) -> Iterator[Callable[..., SerialBackend]]:
    opened: list[SerialBackend] = []

    def opener(port: str | os.PathLike[str], *, wait: float | None = None, **overrides: Any) -> SerialBackend:
        backend = open_serial_backend(fast_config(**overrides), layout=pinwheel, port=str(port), wait=wait)
        opened.append(backend)
        return backend

    yield opener
    for backend in opened:
        backend.close()


def _collect(
    backend: SerialBackend,
    seconds: float,
    until: Callable[[list[BoardEvent]], bool] | None = None,
    also: Callable[[], None] | None = None,
) -> list[BoardEvent]:
    """Poll for up to *seconds*, or until *until* holds for the events gathered so far."""
    events: list[BoardEvent] = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        events.extend(backend.poll_wait(0.005))
        if also is not None:
            also()
        if until is not None and until(events):
            break
    return events


@pytest.fixture
def collect() -> Callable[..., list[BoardEvent]]:
    """``collect(backend, seconds, until=None, also=None)``: poll and gather board events."""
    return _collect


class ScriptedDevice:
    """The device end of a pseudo-terminal driven by hand: the test writes every byte."""

    def __init__(self) -> None:
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)
        os.set_blocking(self.master, False)
        self.port = os.ttyname(self.slave)
        self.decoder = framing.Decoder()
        self.received: list[Frame] = []
        self.seq = 0

    def write(self, data: bytes) -> None:
        os.write(self.master, data)

    def send(self, kind: int, payload: bytes = b"", seq: int | None = None) -> None:
        if seq is None:
            seq, self.seq = self.seq, self.seq + 1
        self.write(framing.encode_frame(kind, seq, payload))

    def read(self) -> list[Frame]:
        """Frames the host sent since the last call."""
        frames = []
        while select.select([self.master], [], [], 0)[0]:
            try:
                data = os.read(self.master, 4096)
            except OSError:
                break
            if not data:
                break
            frames.extend(self.decoder.feed(data))
        self.received.extend(frames)
        return frames

    def answer_hello(self, version: int = messages.PROTOCOL_VERSION, slots: int = 80) -> bool:
        """Answer the host's HELLO if one arrived; True if it did."""
        if any(f.type == messages.HELLO for f in self.read()):
            self.send(messages.HELLO_REPLY, messages.pack_hello_reply(version, slots, 4, 0, 1, "scripted"))
            return True
        return False

    def snapshot(self, snap_seq: int, present: dict[int, bool], flags: int = 0, slots: int = 80) -> None:
        presence = sum(1 << i for i in present)
        conduction = sum(1 << i for i, c in present.items() if c)
        size = messages.bitmap_size(slots)
        self.send(
            messages.SNAPSHOT,
            messages.pack_snapshot(
                snap_seq, flags, slots, presence.to_bytes(size, "little"), conduction.to_bytes(size, "little")
            ),
        )

    def close(self) -> None:
        for fd in (self.master, self.slave):
            with contextlib.suppress(OSError):
                os.close(fd)


@pytest.fixture
def scripted() -> Iterator[ScriptedDevice]:
    dev = ScriptedDevice()
    yield dev
    dev.close()


@pytest.fixture(scope="session")
def micropython() -> MicroPython:
    """MicroPython's WebAssembly port under Node.js; skips, saying why, when it is not installed."""
    try:
        return find_micropython()
    except ToolMissingError as exc:
        pytest.skip(f"no MicroPython to run the firmware on: {exc}")
