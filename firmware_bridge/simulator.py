"""A virtual scanning microcontroller on a pseudo-terminal, for development and tests.

:class:`SimulatedDevice` runs the real firmware (:mod:`firmware_bridge.firmware.app`)
in a thread, under CPython, with a stand-in ``machine`` module wired to a
:class:`VirtualBoard` (pawns in slots, the test button, the lamps). The host
opens the device's port exactly as it would open ``/dev/ttyACM0``. The
device can also be unplugged, reset, hung (the watchdog then reboots it),
muted, slowed down, or given a noisy line.

Run ``python -m firmware_bridge.simulator`` to get a port to point
``hautetension scan --backend serial --port`` at.
"""

from __future__ import annotations

import contextlib
import os
import random
import select
import threading
import time
import tty
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

from firmware_bridge.firmware import app, config, scanner

PWRON_RESET = 1
WDT_RESET = 3
"""``machine.reset_cause()`` values, as on the RP2040 port."""


class VirtualBoard:
    """The slots, button and lamps the stand-in pins are wired to.

    Pawns are placed by slot index (the layout's reading order); ``conducts``
    says whether the pawn is an attack pawn.
    """

    def __init__(self, settings: dict[str, Any] | None = None) -> None:
        cfg: dict[str, Any] = dict(config.BOARD)
        cfg.update(settings or {})
        self.cfg = cfg
        self.slot_count: int = cfg["slot_count"]
        self.active_low: bool = cfg["active_low"]
        self.pawns: dict[int, bool] = {}
        self.conduction_faults: set[int] = set()
        """Slots that conduct with no pawn (a short on the board)."""
        self.button = False
        self.outputs: dict[int, int] = {}
        self.lock = threading.Lock()

    def place(self, slot: int, *, conducts: bool) -> None:
        with self.lock:
            self.pawns[slot] = conducts

    def lift(self, slot: int) -> None:
        with self.lock:
            self.pawns.pop(slot, None)

    def lamps(self) -> list[bool]:
        """Which lamp outputs are lit, in the firmware's lamp order."""
        on = 1 if self.cfg["lamps_active_high"] else 0
        return [self.outputs.get(pin) == on for pin in self.cfg["lamp_pins"]]

    def select_value(self) -> int:
        return sum(self.outputs.get(pin, 0) << bit for bit, pin in enumerate(self.cfg["select_pins"]))

    def signal(self, mux: int) -> int:
        index = scanner.CHANNELS_PER_MUX * mux + self.select_value()
        slot, conduction = divmod(index, 2)
        with self.lock:
            if conduction:
                active = self.pawns.get(slot, False) or slot in self.conduction_faults
            else:
                active = slot in self.pawns
        return int(not active) if self.active_low else int(active)

    def read_pin(self, pin: int) -> int:
        if pin == self.cfg["button_pin"]:
            return 0 if self.button else 1
        if pin in self.cfg["signal_pins"]:
            return self.signal(list(self.cfg["signal_pins"]).index(pin))
        return self.outputs.get(pin, 0)


class LineNoise:
    """Damage on the line, both ways: flipped bits, stray bytes, dropped bytes.

    Each probability applies per byte; *seed* makes a run repeatable.
    """

    def __init__(self, *, flip: float = 0.0, insert: float = 0.0, drop: float = 0.0, seed: int = 0) -> None:
        self.flip = flip
        self.insert = insert
        self.drop = drop
        self.random = random.Random(seed)
        self.damaged = 0

    def apply(self, data: bytes) -> bytes:
        if not data or not (self.flip or self.insert or self.drop):
            return data
        out = bytearray()
        rnd = self.random
        for byte in data:
            if rnd.random() < self.insert:
                out.append(rnd.randrange(256))
                self.damaged += 1
            if rnd.random() < self.drop:
                self.damaged += 1
                continue
            if rnd.random() < self.flip:
                byte ^= 1 << rnd.randrange(8)
                self.damaged += 1
            out.append(byte)
        return bytes(out)


class _PtyLine:
    """The device's end of a pseudo-terminal pair, as a firmware stream (and as ``machine.UART``)."""

    def __init__(self, device: SimulatedDevice) -> None:
        self.device = device

    # machine.UART interface
    def any(self) -> int:
        return 1 if self.device._readable() else 0

    def read(self, size: int = 256) -> bytes:
        return self.device._read()

    def write(self, data: bytes) -> int:
        self.device._write(bytes(data))
        return len(data)


def make_machine(board: VirtualBoard, device: SimulatedDevice | None = None) -> types.ModuleType:
    """A stand-in for MicroPython's ``machine`` module, wired to *board*."""
    machine = types.ModuleType("machine")

    class Pin:
        IN = 0
        OUT = 1
        PULL_UP = 1
        PULL_DOWN = 2

        def __init__(self, id: int, mode: int = IN, pull: int | None = None) -> None:
            self.id = id
            self.mode = mode
            self.pull = pull

        def value(self, level: int | None = None) -> int | None:
            if level is None:
                return board.read_pin(self.id)
            board.outputs[self.id] = 1 if level else 0
            return None

    class WDT:
        def __init__(self, id: int = 0, timeout: int = 5000) -> None:
            self.timeout_ms = timeout
            self.feeds = 0
            self.last_feed = time.monotonic()
            if device is not None:
                device.watchdog = self

        def feed(self) -> None:
            self.feeds += 1
            self.last_feed = time.monotonic()

    def uart(id: int, baudrate: int = 115200, **_options: Any) -> _PtyLine:
        if device is None:
            raise OSError("this stand-in board has no serial line")
        return _PtyLine(device)

    def reset_cause() -> int:
        return device.reset_cause if device is not None else PWRON_RESET

    machine.Pin = Pin  # type: ignore[attr-defined]
    machine.WDT = WDT  # type: ignore[attr-defined]
    machine.UART = uart  # type: ignore[attr-defined]
    machine.reset_cause = reset_cause  # type: ignore[attr-defined]
    machine.PWRON_RESET = PWRON_RESET  # type: ignore[attr-defined]
    machine.WDT_RESET = WDT_RESET  # type: ignore[attr-defined]
    return machine


class SimulatedDevice:
    """A microcontroller running the firmware at the other end of a pseudo-terminal.

    *link* is a path where a symbolic link to the current port is kept (like
    udev's ``/dev/serial/by-id`` names), so the port keeps its name across
    :meth:`unplug` / :meth:`plug_in`. Use as a context manager.
    """

    def __init__(
        self,
        board: VirtualBoard | None = None,
        *,
        settings: dict[str, Any] | None = None,
        link: str | os.PathLike[str] | None = None,
        version: int | None = None,
        step_delay: float = 0.0005,
    ) -> None:
        self.board = board or VirtualBoard(settings)
        self.settings = dict(self.board.cfg)
        self.settings.update(settings or {})
        self.settings["uart"] = 0  # the firmware talks through the stand-in UART
        self.link = Path(link) if link else None
        self.version = version
        self.step_delay = step_delay
        self.noise = LineNoise()
        self.muted = False
        """Still running, but nothing it writes reaches the host."""
        self.hung = False
        """The main loop is stuck: no scans, no frames, no watchdog feed."""
        self.reset_cause = PWRON_RESET
        self.boots = 0
        self.watchdog: Any = None
        self.firmware: app.Firmware | None = None
        self.sent: list[tuple[float, bytes]] = []
        self.on_write: Callable[[bytes, float], None] | None = None
        self._master: int | None = None
        self._slave: int | None = None
        self._port = ""
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._io_lock = threading.Lock()

    # -- the port ---------------------------------------------------------------

    @property
    def port(self) -> str:
        """What the host opens: the symbolic link if one was asked for, else the pty's name."""
        return str(self.link) if self.link else self._port

    @property
    def plugged_in(self) -> bool:
        return self._master is not None

    def plug_in(self) -> None:
        """Connect the cable: a fresh pseudo-terminal, and the device powers up."""
        if self._master is not None:
            return
        master, slave = os.openpty()
        tty.setraw(slave)
        os.set_blocking(master, False)
        self._master, self._slave = master, slave
        self._port = os.ttyname(slave)
        if self.link:
            with contextlib.suppress(FileNotFoundError):
                self.link.unlink()
            self.link.symlink_to(self._port)
        self.reset_cause = PWRON_RESET
        self._start()

    def unplug(self) -> None:
        """Pull the cable: the port vanishes and the device loses power."""
        self._halt()
        with self._io_lock:
            for fd in (self._master, self._slave):
                if fd is not None:
                    with contextlib.suppress(OSError):
                        os.close(fd)
            self._master = self._slave = None
        if self.link:
            with contextlib.suppress(FileNotFoundError):
                self.link.unlink()

    def reset(self, cause: int = PWRON_RESET) -> None:
        """Reboot the device without touching the cable (reset button, watchdog)."""
        self._halt()
        self.reset_cause = cause
        self._start()

    def close(self) -> None:
        self.unplug()

    def __enter__(self) -> SimulatedDevice:
        self.plug_in()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the firmware thread -------------------------------------------------------

    def _start(self) -> None:
        self._stop = threading.Event()
        self.hung = False
        machine = make_machine(self.board, self)
        line = _PtyLine(self)
        kwargs: dict[str, Any] = {}
        if self.version is not None:
            kwargs["version"] = self.version
        self.firmware = app.Firmware(
            stream=app.UartStream(line), machine=machine, settings=self.settings, **kwargs
        )
        self.boots += 1
        self._thread = threading.Thread(
            target=self._loop, args=(self._stop,), name="simulated-device", daemon=True
        )
        self._thread.start()

    def _halt(self) -> None:
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=5)
        self._thread = None

    def _loop(self, stop: threading.Event) -> None:
        firmware = self.firmware
        assert firmware is not None
        while not stop.is_set():
            if self.hung:
                if self._watchdog_expired():
                    self._stop.set()
                    self.reset_cause = WDT_RESET
                    threading.Thread(target=self._reboot_after_watchdog, daemon=True).start()
                    return
                time.sleep(0.002)
                continue
            firmware.step()
            if self.step_delay:
                time.sleep(self.step_delay)

    def _watchdog_expired(self) -> bool:
        wdt = self.watchdog
        return wdt is not None and time.monotonic() - wdt.last_feed > wdt.timeout_ms / 1000

    def _reboot_after_watchdog(self) -> None:
        if self._thread is not None:
            self._thread.join(timeout=5)
        if self._master is not None:
            self.reset_cause = WDT_RESET
            self._start()

    # -- bytes on the line ------------------------------------------------------------

    def _readable(self) -> bool:
        master = self._master
        if master is None:
            return False
        try:
            ready, _, _ = select.select([master], [], [], 0)
        except (OSError, ValueError):
            return False
        return bool(ready)

    def _read(self) -> bytes:
        with self._io_lock:
            if self._master is None:
                return b""
            try:
                data = os.read(self._master, 4096)
            except (BlockingIOError, OSError):
                return b""
        return self.noise.apply(data)

    def _write(self, data: bytes) -> None:
        now = time.monotonic()
        if self.on_write is not None:
            self.on_write(data, now)
        if self.muted:
            return
        data = self.noise.apply(data)
        with self._io_lock:
            if self._master is None:
                return
            with contextlib.suppress(BlockingIOError, OSError):
                os.write(self._master, data)  # a full buffer drops bytes, as USB does with no reader


def main() -> None:  # pragma: no cover - interactive helper
    """Run a simulated device until Ctrl-C; a few pawns come and go."""
    with SimulatedDevice() as device:
        print(f"simulated scanning board on {device.port} (Ctrl-C to stop)")
        rnd = random.Random()
        try:
            while True:
                time.sleep(1.0)
                slot = rnd.randrange(device.board.slot_count)
                if slot in device.board.pawns:
                    device.board.lift(slot)
                else:
                    device.board.place(slot, conducts=rnd.random() < 0.8)
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":  # pragma: no cover
    main()
