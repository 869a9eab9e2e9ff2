"""Benchmark: the Gray-code scanner against a straightforward scanner, and slot-to-lamp latency.

    .venv/bin/python bench/scan.py [--scans N] [--pi-op-us US]

Part 1 runs three scanners side by side over the same virtual board (ten
16-channel multiplexers, pinwheel-80 wiring, 30 pawns standing):

- baseline: for every channel, set all four select lines, wait the settle
  time, read every signal line (what one writes first);
- gray: this project's scanner (one select toggle per step, only wired
  channels read);
- gray+bank: the same with a one-call bank read (what pigpio or the native
  factory would give).

It reports GPIO operations per scan (counted at the mock pins: machine
independent) and software time per scan (the virtual board runs on simulated
time, so settle waits cost nothing and the figure is pure software: the
scanner plus gpiozero's pin layer plus the mock pins), and checks that all
three read identical levels.

Part 2 measures the software latency from a slot change to the lamp pin: the
last pawn of a straight row is placed, scans run until the debounced
placement comes out, the circuit is evaluated and the lamps set; the time of
that last scan cycle (scan + debounce + circuit + lamp write) is measured.

Part 3 prints what this implies on a Pi (see docs/hardware.md).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gpiozero import DigitalOutputDevice, InputDevice  # noqa: E402

from games.hautetension.circuit import Circuit  # noqa: E402
from games.hautetension.layout import Layout, load_layout  # noqa: E402
from games.hautetension.pawn import PawnKind  # noqa: E402
from hardware.backends import SimBoard  # noqa: E402
from hardware.clock import SimulatedClock  # noqa: E402
from hardware.events import PawnPlaced  # noqa: E402
from hardware.scanner import MultiplexerScanner  # noqa: E402
from hardware.settings import HardwareSettings  # noqa: E402
from hardware.virtual import VirtualBoard  # noqa: E402


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


def populate(board: VirtualBoard, layout: Layout) -> None:
    for i, slot in enumerate(layout.slots[::3][:30]):
        board.place(slot, PawnKind.DEFENSE if i % 5 == 0 else PawnKind.ATTACK, bounce=0.0)


def time_scans(scanner: Any, board: VirtualBoard, scans: int) -> tuple[int, float, list[bool]]:
    scanner.scan()  # warm up
    board.reset_counts()
    scanner.scan()
    ops = board.ops
    rounds = []
    for _ in range(5):
        started = time.perf_counter()
        for _ in range(scans // 5):
            scanner.scan()
        rounds.append((time.perf_counter() - started) / (scans // 5))
    return ops, min(rounds), list(scanner.scan())


def compare_scanners(layout: Layout, scans: int) -> dict[str, tuple[int, float]]:
    settings = HardwareSettings()
    results: dict[str, tuple[int, float]] = {}
    readings: dict[str, list[bool]] = {}
    for name, bank in (("baseline", False), ("gray", False), ("gray+bank", True)):
        clock = SimulatedClock()
        board = VirtualBoard(settings, layout, clock=clock, bank_read=bank)
        populate(board, layout)
        scanner: Any
        if name == "baseline":
            scanner = BaselineScanner(settings, pin_factory=board.factory, clock=clock)
        else:
            scanner = MultiplexerScanner(settings, layout, pin_factory=board.factory, clock=clock)
        try:
            ops, seconds, levels = time_scans(scanner, board, scans)
        finally:
            scanner.close()
            board.close()
        results[name] = (ops, seconds)
        readings[name] = levels
    if not readings["baseline"] == readings["gray"] == readings["gray+bank"]:
        raise SystemExit("the scanners disagree on the board's levels: benchmark invalid")
    return results


def op_cost(layout: Layout, reads: int = 20000) -> float:
    """Software time of one signal read through gpiozero's pin layer on a virtual-board pin."""
    clock = SimulatedClock()
    board = VirtualBoard(HardwareSettings(), layout, clock=clock)
    device = InputDevice(HardwareSettings().signal_gpios[0], pull_up=True, pin_factory=board.factory)
    pin = device.pin
    started = time.perf_counter()
    for _ in range(reads):
        pin.state  # noqa: B018 - the read is what is timed
    cost = (time.perf_counter() - started) / reads
    device.close()
    board.close()
    return cost


class NullPin:
    """A pin that costs nothing: what is left of a scan is the scanner's own loop."""

    state = True


def own_costs(layout: Layout, scans: int) -> tuple[float, float]:
    """Seconds per scan of the scanner loop alone (pins free) and of the debounce/fault monitor."""
    clock = SimulatedClock()
    board = SimBoard(HardwareSettings(), layout, clock=clock, selftest_on_long_press=False)
    try:
        populate(board.virtual_board, layout)
        levels = board.scanner.scan()
        null = NullPin()
        for step in board.scanner._steps:
            step.writes = tuple((null, value) for _, value in step.writes)
            step.reads = tuple((null, idx) for _, idx in step.reads)
        started = time.perf_counter()
        for _ in range(scans):
            board.scanner.scan()
        loop = (time.perf_counter() - started) / scans
        levels = list(levels)
        started = time.perf_counter()
        for _ in range(scans):
            clock.advance(0.005)
            board.monitor.update(levels, clock.now())
        monitor = (time.perf_counter() - started) / scans
    finally:
        board.close()
    return loop, monitor


def latency(layout: Layout, trials: int) -> tuple[int, float, float, float]:
    """(scans to confirm, simulated ms from contact to confirm, median and 90th percentile software µs)."""
    row = layout.straight_rows_of("N")[0]
    samples = []
    scans_needed = 0
    simulated = 0.0
    for trial in range(trials):
        clock = SimulatedClock()
        board = SimBoard(HardwareSettings(), layout, clock=clock, selftest_on_long_press=False)
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
        del trial
    samples.sort()
    p90 = samples[int(0.9 * (len(samples) - 1))]
    return scans_needed, simulated * 1000, statistics.median(samples) * 1e6, p90 * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scans", type=int, default=2000, help="scans timed per scanner (default: 2000)")
    parser.add_argument("--trials", type=int, default=30, help="latency trials (default: 30)")
    parser.add_argument("--pi-op-us", type=float, default=8.0,
                        help="assumed cost of one GPIO read or write through gpiozero on a Pi, µs")
    parser.add_argument("--pi-slowdown", type=float, default=4.0,
                        help="assumed factor by which Python on the Pi is slower than this machine")
    args = parser.parse_args()
    layout = load_layout()
    settings = HardwareSettings()

    print("Part 1 - one full scan of 10 multiplexers x 16 channels (virtual board, simulated settle)")
    results = compare_scanners(layout, args.scans)
    base_ops, base_time = results["baseline"]
    print(f"{'scanner':<10} {'GPIO ops/scan':>14} {'ops ratio':>10} {'µs/scan':>10} {'time ratio':>11}")
    for name, (ops, seconds) in results.items():
        print(f"{name:<10} {ops:>14} {ops / base_ops:>10.3f} {seconds * 1e6:>10.1f} "
              f"{seconds / base_time:>11.3f}")
    read_cost = op_cost(layout)
    loop, monitor = own_costs(layout, args.scans)
    print(f"one virtual-pin read through gpiozero's pin layer: {read_cost * 1e6:.2f} µs "
          "(mostly the virtual board computing the channel)")
    print(f"the scanner's own loop (pins free): {loop * 1e6:.1f} µs/scan; "
          f"debounce and fault monitor: {monitor * 1e6:.1f} µs/scan")

    print("\nPart 2 - slot change to lamp pin (last pawn of a straight row, default debounce)")
    scans_needed, simulated_ms, median_us, p90_us = latency(layout, args.trials)
    print(f"scans from contact to lamp: {scans_needed} (debounce {settings.debounce.scans} scans and "
          f"{settings.debounce.min_seconds * 1000:g} ms at a {settings.scan_period * 1000:g} ms period); "
          f"simulated time {simulated_ms:.1f} ms")
    print(f"software time of the confirming cycle (scan + debounce + circuit + lamp write): "
          f"median {median_us:.0f} µs, 90th percentile {p90_us:.0f} µs over {args.trials} trials")

    print(f"\nPart 3 - on a Pi: {args.pi_op_us:g} µs per GPIO operation, "
          f"Python {args.pi_slowdown:g}x slower than here (assumptions, see docs/hardware.md)")
    settle_us = 16 * settings.settle_seconds * 1e6
    own_us = (loop + monitor) * 1e6 * args.pi_slowdown
    for name, (ops, _) in results.items():
        pi_scan_us = ops * args.pi_op_us + settle_us + own_us
        print(f"{name:<10} ≈ {pi_scan_us / 1000:.2f} ms per scan cycle -> at most {1e6 / pi_scan_us:.0f} "
              f"scans/s")
    pi_scan_ms = (results["gray"][0] * args.pi_op_us + settle_us + own_us) / 1000
    period_ms = settings.scan_period * 1000
    confirm_ms = max(settings.debounce.min_seconds * 1000, (settings.debounce.scans - 1) * period_ms)
    print(f"slot change to lamp on a Pi: confirmed {confirm_ms:g} ms after the first scan that sees it; "
          f"{confirm_ms + pi_scan_ms:.0f} to {confirm_ms + period_ms + pi_scan_ms:.0f} ms from the contact "
          f"(plus up to one {period_ms:g} ms period of scan phase)")


if __name__ == "__main__":
    main()
