"""Benchmark: the Gray-code scanner on every way of reaching the pins, and slot-to-lamp latency.

    .venv/bin/python bench/scan.py [--scans N] [--trials N]
        [--pi4-call-us 4] [--pi4-slowdown 4] [--pi5-call-us 3] [--pi5-slowdown 2]

Part 1 runs these scanners side by side over the same virtual wiring (ten
16-channel multiplexers, pinwheel-80 wiring, 30 pawns standing):

- baseline: for every channel, set all four select lines, wait the settle
  time, read every signal line (what one writes first), on gpiozero's mock pins;
- mock per-pin: this project's scanner (one select toggle per step, only wired
  channels read) on gpiozero's mock pins;
- lgpio per-pin: the same on gpiozero's own lgpio pin factory (a Pi 5's, and a
  Pi 4's under Bookworm) over the virtual lgpio, one pin per call: what the
  scanner falls back to when lgpio has no group calls;
- pigpio bank: the scanner with a one-call bank read of GPIO 0-31 (the virtual
  board's, standing in for pigpio's ``read_bank_1``);
- lgpio group: the scanner on gpiozero's lgpio factory reading through lgpio
  groups (the signal lines as one input group, the select lines as one output
  group).

It reports GPIO operations per scan and, for the lgpio rows, lgpio calls per
scan (both counted by the virtual board and the virtual lgpio: machine
independent), and software time per scan (simulated settle, so pure software;
the lgpio rows include the virtual lgpio's own Python, which the real C
library does not cost), and checks that every scanner reads identical levels.
It then measures the parts the Pi estimate is built from: gpiozero's pin
layer on the lgpio factory (per read and per write, the lgpio call itself
excluded), the scanner's own loop with free pins (per-pin and grouped), and the
debounce and fault monitor.

Part 2 measures the software latency from a slot change to the lamp pin: the
last pawn of a straight row is placed, scans run until the debounced
placement comes out, the circuit is evaluated and the lamps set; the time of
that last scan cycle (scan + debounce + circuit + lamp write) is measured.

Part 3 prints what this implies on a Pi 4 and a Pi 5 (see docs/hardware.md):
one lgpio call (Python wrapper, library, ioctl) is assumed to cost
``--pi4-call-us``/``--pi5-call-us``, Python on the Pi to run ``--pi*-slowdown``
times slower than here; a gpiozero pin read is then slowdown x (pin layer
measured here) + one call, a write the same + two calls (gpiozero asks the
line's mode before it writes), a group read or write one call.
"""

from __future__ import annotations

import argparse
import logging
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gpiozero import DigitalOutputDevice, InputDevice  # noqa: E402

from games.hautetension.circuit import Circuit  # noqa: E402
from games.hautetension.layout import Layout, load_layout  # noqa: E402
from games.hautetension.pawn import PawnKind  # noqa: E402
from hardware.backends.sim import SimBoard  # noqa: E402
from hardware.clock import SimulatedClock  # noqa: E402
from hardware.events import PawnPlaced  # noqa: E402
from hardware.scanner import MultiplexerScanner  # noqa: E402
from hardware.settings import HardwareSettings  # noqa: E402
from hardware.virtual.board import VirtualBoard  # noqa: E402
from hardware.virtual.lgpio import PI5_LINES, VirtualLgpio, installed, lgpio_pin_factory  # noqa: E402

SCANNERS = ("baseline", "mock per-pin", "lgpio per-pin", "pigpio bank", "lgpio group")


class BaselineScanner:
    """Set all select lines, settle, read every signal line; for each channel in order."""

    def __init__(self, settings: HardwareSettings, *, pin_factory: Any, clock: SimulatedClock) -> None:
        self.settings = settings
        self.clock = clock
        self.select = [DigitalOutputDevice(g, pin_factory=pin_factory) for g in settings.select_gpios]
        self.signal = [InputDevice(g, pull_up=True, pin_factory=pin_factory) for g in settings.signal_gpios]
        self.channels = settings.channels_per_multiplexer
        self.levels = [True] * (len(self.signal) * self.channels)

    def scan(self) -> list[bool]:
        for channel in range(self.channels):
            for bit, line in enumerate(self.select):
                line.value = channel >> bit & 1
            self.clock.wait(self.settings.settle_seconds)
            for mux, signal in enumerate(self.signal):
                self.levels[mux * self.channels + channel] = bool(signal.pin.state)
        return self.levels

    def close(self) -> None:
        for device in self.select + self.signal:
            device.close()


class GrouplessLgpio(VirtualLgpio):
    """An lgpio without group calls: the scanner falls back to one pin per call."""

    group_read = None  # type: ignore[assignment]


@dataclass
class Row:
    ops: int
    lgpio_calls: int | None
    seconds: float
    levels: list[bool]


def populate(board: VirtualBoard, layout: Layout) -> None:
    for i, slot in enumerate(layout.slots[::3][:30]):
        board.place(slot, PawnKind.DEFENSE if i % 5 == 0 else PawnKind.ATTACK, bounce=0.0)


@contextmanager
def on_lgpio(board: VirtualBoard,
             kind: type[VirtualLgpio] = VirtualLgpio) -> Iterator[tuple[VirtualLgpio, Any]]:
    """gpiozero's own lgpio pin factory, on a virtual lgpio wired to *board* (gpiochip0)."""
    with installed(kind({0: (PI5_LINES, board)})) as lgpio:
        factory = lgpio_pin_factory()
        try:
            yield lgpio, factory
        finally:
            factory.close()


def time_scans(scanner: Any, board: VirtualBoard, scans: int, lgpio: VirtualLgpio | None) -> Row:
    scanner.scan()  # warm up
    board.reset_counts()
    if lgpio is not None:
        lgpio.calls.clear()
    scanner.scan()
    ops = board.ops
    calls = None if lgpio is None else sum(lgpio.calls.values())
    rounds = []
    for _ in range(5):
        started = time.perf_counter()
        for _ in range(scans // 5):
            scanner.scan()
        rounds.append((time.perf_counter() - started) / (scans // 5))
    return Row(ops, calls, min(rounds), list(scanner.scan()))


def run_scanner(name: str, layout: Layout, scans: int) -> Row:
    settings = HardwareSettings()
    clock = SimulatedClock()
    board = VirtualBoard(settings, layout, clock=clock, bank_read=name == "pigpio bank")
    populate(board, layout)
    try:
        if name == "baseline":
            scanner: Any = BaselineScanner(settings, pin_factory=board.factory, clock=clock)
        elif not name.startswith("lgpio"):
            scanner = MultiplexerScanner(settings, layout, pin_factory=board.factory, clock=clock)
        else:
            kind = VirtualLgpio if name == "lgpio group" else GrouplessLgpio
            with on_lgpio(board, kind) as (lgpio, factory):
                scanner = MultiplexerScanner(settings, layout, pin_factory=factory, clock=clock)
                assert (scanner.groups is not None) == (name == "lgpio group"), scanner.path
                try:
                    return time_scans(scanner, board, scans, lgpio)
                finally:
                    scanner.close()
        try:
            return time_scans(scanner, board, scans, None)
        finally:
            scanner.close()
    finally:
        board.close()


def compare_scanners(layout: Layout, scans: int) -> dict[str, Row]:
    rows = {name: run_scanner(name, layout, scans) for name in SCANNERS}
    if len({tuple(row.levels) for row in rows.values()}) != 1:
        raise SystemExit("the scanners disagree on the board's levels: benchmark invalid")
    return rows


def best_of(action: Callable[[], object], count: int = 20000) -> float:
    """Seconds per call of *action*, best of five rounds."""
    rounds = []
    for _ in range(5):
        started = time.perf_counter()
        for _ in range(count):
            action()
        rounds.append((time.perf_counter() - started) / count)
    return min(rounds)


def op_cost(layout: Layout) -> float:
    """Software time of one signal read through gpiozero's pin layer on a virtual-board pin."""
    board = VirtualBoard(HardwareSettings(), layout, clock=SimulatedClock())
    device = InputDevice(HardwareSettings().signal_gpios[0], pull_up=True, pin_factory=board.factory)
    pin = device.pin
    try:
        return best_of(lambda: pin.state)
    finally:
        device.close()
        board.close()


def lgpio_pin_layer(layout: Layout) -> tuple[float, float]:
    """gpiozero's pin layer on its lgpio factory, per read and per write, the lgpio calls excluded.

    The devices are made on the virtual lgpio; then its line calls are swapped
    for ones that return at once, and their own cost is subtracted.
    """
    board = VirtualBoard(HardwareSettings(), layout, clock=SimulatedClock())
    with on_lgpio(board) as (lgpio, factory):
        reader = InputDevice(4, pin_factory=factory)
        writer = DigitalOutputDevice(5, pin_factory=factory)
        handle = factory._handle  # gpiozero's own: the calls below are the ones its pins make
        null_read = lgpio.gpio_read = lambda handle, gpio: 0  # type: ignore[method-assign]
        null_mode = lgpio.gpio_get_mode = lambda handle, gpio: 2  # type: ignore[method-assign]  # output
        null_write = lgpio.gpio_write = lambda handle, gpio, level: 0  # type: ignore[method-assign]

        def write() -> None:
            writer.pin.state = True

        try:
            read_call = best_of(lambda: null_read(handle, 4))
            write_calls = best_of(lambda: null_mode(handle, 5)) + best_of(lambda: null_write(handle, 5, 1))
            return best_of(lambda: reader.pin.state) - read_call, best_of(write) - write_calls
        finally:
            del lgpio.gpio_read, lgpio.gpio_get_mode, lgpio.gpio_write
            reader.close()
            writer.close()
            board.close()


class NullPin:
    """A pin that costs nothing: what is left of a scan is the scanner's own loop."""

    state = True


class NullGroups:
    """Line groups that cost nothing (all lines high): a Python call each, like lgpio's own wrapper."""

    settles_at_once = False

    def __init__(self, groups: Any) -> None:
        self.bit = groups.bit
        size = len(groups.signal_gpios)
        answer = (size, (1 << size) - 1)
        self.group_read = lambda: answer
        self.group_write = lambda bits, mask: size

    def error(self, doing: str, status: int) -> Exception:
        return RuntimeError(doing)


def own_costs(layout: Layout, scans: int) -> tuple[float, float, float]:
    """Seconds per scan of the scanner loop alone (pins free: per pin, grouped) and of the monitor."""
    clock = SimulatedClock()
    board = SimBoard(HardwareSettings(), layout, clock=clock, selftest_on_long_press=False, groups=False)
    try:
        populate(board.virtual_board, layout)
        snapshot = board.scanner.sample()
        null = NullPin()
        scanner = board.scanner
        scanner._pin_walk = tuple(
            (tuple((null, value) for _, value in writes), settle, reads_bank, bank,
             tuple((null, at) for _, at in reads))
            for writes, settle, reads_bank, bank, reads in scanner._pin_walk)
        per_pin = best_of(scanner.sample, scans)
        started = time.perf_counter()
        for _ in range(scans):
            clock.advance(0.005)
            board.monitor.update(snapshot, clock.now())
        monitor = (time.perf_counter() - started) / scans
    finally:
        board.close()
    virtual = VirtualBoard(HardwareSettings(), layout, clock=SimulatedClock())
    with on_lgpio(virtual) as (_, factory):
        grouped_scanner = MultiplexerScanner(HardwareSettings(), layout, pin_factory=factory,
                                             clock=virtual.clock)
        groups = grouped_scanner.groups
        grouped_scanner.groups = NullGroups(groups)  # type: ignore[assignment]
        try:
            grouped = best_of(grouped_scanner.sample, scans)
        finally:
            grouped_scanner.groups = groups
            grouped_scanner.close()
    virtual.close()
    return per_pin, grouped, monitor


def latency(layout: Layout, trials: int) -> tuple[int, float, float, float]:
    """(scans to confirm, simulated ms from contact to confirm, median and 90th percentile software µs)."""
    row = layout.straight_rows_of("N")[0]
    samples = []
    scans_needed = 0
    simulated = 0.0
    for _ in range(trials):
        clock = SimulatedClock()
        board = SimBoard(HardwareSettings(), layout, clock=clock, selftest_on_long_press=False, groups=False)
        circuit = Circuit(layout)
        try:
            for slot in row.slots[:-1]:
                board.virtual_board.place(slot, PawnKind.ATTACK)
                circuit.add_attack(slot)
            for _ in range(8):
                clock.advance(board.scan_period)
                board.poll()
            board.set_lamps(circuit.lit)
            lamp_pin = board.virtual_board.lamp_pins["N"]
            placed_at = clock.now()
            board.virtual_board.place(row.slots[-1], PawnKind.ATTACK)
            for n in range(1, 50):
                clock.advance(board.scan_period)
                started = time.perf_counter()
                events = board.poll()
                for event in events:
                    if isinstance(event, PawnPlaced) and event.kind is PawnKind.ATTACK:
                        circuit.add_attack(event.slot)
                board.set_lamps(circuit.lit)
                if lamp_pin.state:
                    samples.append(time.perf_counter() - started)
                    scans_needed, simulated = n, clock.now() - placed_at
                    break
            else:
                raise SystemExit("the lamp never lit: benchmark invalid")
        finally:
            board.close()
    samples.sort()
    p90 = samples[int(0.9 * (len(samples) - 1))]
    return scans_needed, simulated * 1000, statistics.median(samples) * 1e6, p90 * 1e6


@dataclass
class Pi:
    name: str
    call_us: float
    slowdown: float


def pi_estimates(pi: Pi, read_layer: float, write_layer: float, loops: tuple[float, float, float],
                 settings: HardwareSettings) -> dict[str, float]:
    """µs per scan cycle on *pi*: per pin through gpiozero's lgpio factory, and through lgpio groups."""
    per_pin_loop, grouped_loop, monitor = loops
    k, call = pi.slowdown, pi.call_us
    read_us = k * read_layer * 1e6 + call
    write_us = k * write_layer * 1e6 + 2 * call
    settle_us = 16 * settings.settle_seconds * 1e6
    print(f"{pi.name}: one lgpio call {call:g} µs, Python {k:g}x slower than here -> a gpiozero pin read "
          f"{read_us:.1f} µs, a write {write_us:.1f} µs, a group read or write {call:g} µs")
    per_pin = 160 * read_us + 16 * write_us + settle_us + k * (per_pin_loop + monitor) * 1e6
    grouped = 32 * call + settle_us + k * (grouped_loop + monitor) * 1e6
    return {"lgpio per-pin": per_pin, "lgpio group": grouped}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scans", type=int, default=2000, help="scans timed per scanner (default: 2000)")
    parser.add_argument("--trials", type=int, default=30, help="latency trials (default: 30)")
    parser.add_argument("--pi4-call-us", type=float, default=4.0,
                        help="assumed cost of one lgpio call (wrapper, library, ioctl) on a Pi 4, µs")
    parser.add_argument("--pi4-slowdown", type=float, default=4.0,
                        help="assumed factor by which Python on a Pi 4 is slower than this machine")
    parser.add_argument("--pi5-call-us", type=float, default=3.0,
                        help="assumed cost of one lgpio call on a Pi 5 (GPIO behind PCIe, on the RP1), µs")
    parser.add_argument("--pi5-slowdown", type=float, default=2.0,
                        help="assumed factor by which Python on a Pi 5 is slower than this machine")
    args = parser.parse_args()
    # The scanners say which path they took (the fallback as a warning); the table says it here.
    logging.getLogger("hardware.scanner").setLevel(logging.ERROR)
    layout = load_layout()
    settings = HardwareSettings()

    print("Part 1 - one full scan of 10 multiplexers x 16 channels (virtual board, simulated settle)")
    rows = compare_scanners(layout, args.scans)
    base = rows["baseline"]
    print(f"{'scanner':<14} {'GPIO ops/scan':>14} {'ops ratio':>10} {'lgpio calls':>12} {'µs/scan':>10} "
          f"{'time ratio':>11}")
    for name, row in rows.items():
        calls = "-" if row.lgpio_calls is None else str(row.lgpio_calls)
        print(f"{name:<14} {row.ops:>14} {row.ops / base.ops:>10.3f} {calls:>12} {row.seconds * 1e6:>10.1f} "
              f"{row.seconds / base.seconds:>11.3f}")
    print("(all five read identical levels; the lgpio rows' time includes the virtual lgpio's own Python)")
    read_cost = op_cost(layout)
    read_layer, write_layer = lgpio_pin_layer(layout)
    loops = own_costs(layout, args.scans)
    print(f"one virtual-pin read through gpiozero's pin layer: {read_cost * 1e6:.2f} µs "
          "(mostly the virtual board computing the channel)")
    print(f"gpiozero's pin layer on its lgpio factory, lgpio calls excluded: read {read_layer * 1e6:.2f} µs, "
          f"write {write_layer * 1e6:.2f} µs")
    print(f"the scanner's own loop (pins free): per pin {loops[0] * 1e6:.1f} µs/scan, lgpio groups "
          f"{loops[1] * 1e6:.1f} µs/scan; debounce and fault monitor: {loops[2] * 1e6:.1f} µs/scan")

    print("\nPart 2 - slot change to lamp pin (last pawn of a straight row, default debounce)")
    scans_needed, simulated_ms, median_us, p90_us = latency(layout, args.trials)
    print(f"scans from contact to lamp: {scans_needed} (debounce {settings.debounce.scans} scans and "
          f"{settings.debounce.min_seconds * 1000:g} ms at a {settings.scan_period * 1000:g} ms period); "
          f"simulated time {simulated_ms:.1f} ms")
    print(f"software time of the confirming cycle (scan + debounce + circuit + lamp write): "
          f"median {median_us:.0f} µs, 90th percentile {p90_us:.0f} µs over {args.trials} trials")

    print("\nPart 3 - on a Pi (assumptions, see docs/hardware.md)")
    period_ms = settings.scan_period * 1000
    confirm_ms = max(settings.debounce.min_seconds * 1000, (settings.debounce.scans - 1) * period_ms)
    pis = (Pi("Pi 4", args.pi4_call_us, args.pi4_slowdown), Pi("Pi 5", args.pi5_call_us, args.pi5_slowdown))
    for pi in pis:
        estimates = pi_estimates(pi, read_layer, write_layer, loops, settings)
        for name, scan_us in estimates.items():
            scan_ms = scan_us / 1000
            print(f"  {name:<14} ≈ {scan_ms:.2f} ms per scan cycle -> at most {1e6 / scan_us:.0f} scans/s, "
                  f"{scan_ms / period_ms:.0%} of the {period_ms:g} ms period; contact to lamp "
                  f"{confirm_ms + scan_ms:.1f} to {confirm_ms + period_ms + scan_ms:.1f} ms")
        ratio = estimates["lgpio group"] / estimates["lgpio per-pin"]
        print(f"  group / per-pin: x{ratio:.2f} of the scan time")
    print(f"(contact to lamp: the first scan that sees the change comes 0-{period_ms:g} ms after it, the "
          f"debounce confirms {confirm_ms:g} ms later, then one scan cycle)")


if __name__ == "__main__":
    main()
