"""Benchmark: what an idle board costs, beside a bare Python loop sleeping 5 ms in the same run.

    .venv/bin/python bench/idle.py [--seconds 60] [--rounds 1] [--root TREE] [--counts-only] [--polls N]

Part 1 starts, side by side, each idle process of a board and a bare loop
(``while True: time.sleep(0.005)``, what any 200 Hz loop costs in Python), and
reads each one's CPU seconds (``/proc/PID/stat``, user + system) over
``--seconds`` of wall clock, twice: once with no client on the panel, once
with one live page open on it (an ``/api/events`` stream, read by this
process). The processes:

- board sim: ``hautetension board --backend sim`` (the virtual board, whose
  scanner reads through line groups);
- board mock per-pin: the same on gpiozero's mock pins one pin per call
  (``[hardware] bank_read = "off"``: what RPi.GPIO's path costs);
- board lgpio: the board service on gpiozero's own lgpio pin factory over the
  virtual lgpio (a Pi 5's path, the lgpio calls in Python here, in C on a Pi),
  on the real clock: its settle waits spin as they do on a Pi;
- panel: ``hautetension panel`` on the sim board's database;
- uplink: ``hautetension uplink`` to Debian's Mosquitto on a loopback port (skipped if not installed).

The board sim, the panel and the uplink share one database: together they are
the idle Pi stack. Each figure is CPU seconds per wall minute and its ratio
to the bare loop of the same window (the machine's load moves both alike).

Part 2 counts, in this process and on a simulated clock (nothing in them
depends on the machine's speed), per idle scan of each path (sim groups,
mock per pin, lgpio groups, lgpio per pin): Python function calls of the scan
and of the board's whole poll (``sys.setprofile``; a call into the pins' driver
— lgpio, the virtual board — counts one, what it calls inside is the driver's),
calls of built-in functions, GPIO operations, and memory (``tracemalloc``):
how many more bytes are allocated after ``--polls`` idle polls than before
them (after as many to fill what is bounded), and the most allocated at once
during one poll.

``--root TREE`` runs the processes of part 1 from another checkout (an earlier
revision exported with ``git archive``), for before/after figures; part 2
then counts that tree's scanner (its ``scan()``: the old scanner had no
``sample()``). ``bench/board_latency.py`` checks that slot change → lamp is
unchanged.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import tracemalloc
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

BARE = "import time\nwhile True:\n    time.sleep(0.005)\n"

PER_PIN_CONFIG = '[hardware]\nbank_read = "off"\n'

LGPIO_CHILD = """
import signal, sys, threading
sys.path.insert(0, ".")
from configuration import ConfigFile
from games.hautetension.layout import load_layout
from hardware.clock import MonotonicClock
from hardware.service import BoardService
from hardware.settings import load_settings
try:
    from hardware.backends.gpio import GpioBoard
    from hardware.virtual.board import VirtualBoard
    from hardware.virtual.lgpio import PI5_LINES, VirtualLgpio, installed, lgpio_pin_factory
except ImportError:  # a tree from before hardware/ had its backends and virtual board in subpackages
    from hardware.gpio_backend import GpioBoard
    from hardware.virtual import VirtualBoard
    from hardware.virtual_lgpio import PI5_LINES, VirtualLgpio, installed, lgpio_pin_factory
from store.commands import Commands
from store.db import connect
from store.journal import Journal

layout = load_layout()
settings = load_settings(ConfigFile(), layout)
board = VirtualBoard(settings, layout, clock=MonotonicClock())
with installed(VirtualLgpio({0: (PI5_LINES, board)})):
    factory = lgpio_pin_factory()
    conn = connect(sys.argv[1])
    backend = GpioBoard(settings, layout, pin_factory=factory, name="gpio")
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    with BoardService(backend, layout, journal=Journal(conn), commands=Commands(conn)) as service:
        service.start()
        print("ready", backend.scanner.path, file=sys.stderr, flush=True)
        service.run(stop)
"""


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process (its threads included) so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@dataclass
class Proc:
    name: str
    popen: subprocess.Popen[bytes]
    log: Path

    def alive(self) -> bool:
        return self.popen.poll() is None

    def tail(self) -> str:
        return self.log.read_text(errors="replace")[-2000:] if self.log.exists() else ""


@dataclass
class Stack:
    """The idle processes of part 1, started in one folder."""

    tree: Path
    folder: Path
    python: str
    procs: dict[str, Proc] = field(default_factory=dict)
    panel_port: int = 0

    def start(self, name: str, argv: list[str], env: dict[str, str] | None = None) -> None:
        log = self.folder / f"{name.replace(' ', '-')}.log"
        popen = subprocess.Popen(argv, cwd=self.tree, stdout=subprocess.DEVNULL, stderr=log.open("wb"),
                                 env={**os.environ, **(env or {})})
        self.procs[name] = Proc(name, popen, log)

    def hautetension(self, name: str, *args: str, config: str | None = None) -> None:
        argv = [self.python, "-m", "hautetension", *args]
        if config is not None:
            path = self.folder / f"{name.replace(' ', '-')}.toml"
            path.write_text(config)
            argv += ["--config", str(path)]
        self.start(name, argv)

    def stop(self) -> None:
        for proc in self.procs.values():
            if proc.alive():
                proc.popen.send_signal(signal.SIGTERM)
        for proc in self.procs.values():
            try:
                proc.popen.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.popen.kill()
                proc.popen.wait()


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_stack(stack: Stack, broker_url: str | None) -> None:
    folder = stack.folder
    db = str(folder / "board.db")
    stack.start("bare loop", [stack.python, "-c", BARE])
    stack.hautetension("board sim", "board", "--backend", "sim", "--db", db)
    stack.hautetension("board mock per-pin", "board", "--backend", "mock", "--db", str(folder / "per-pin.db"),
                       config=PER_PIN_CONFIG)
    stack.start("board lgpio", [stack.python, "-c", LGPIO_CHILD, str(folder / "lgpio.db")])
    stack.panel_port = free_port()
    stack.hautetension("panel", "panel", "--db", db, "--port", str(stack.panel_port))
    if broker_url is not None:
        stack.hautetension("uplink", "uplink", "--db", db, "--broker", broker_url, "--board-id", "b1",
                           "--event", "idle")


def wait_ready(stack: Stack, timeout: float = 120.0) -> None:
    """Until the panel answers and every process has run a while (imports, start-up, first writes)."""
    deadline = time.monotonic() + timeout
    url = f"http://127.0.0.1:{stack.panel_port}/api/board"
    while True:
        for proc in stack.procs.values():
            if not proc.alive():
                raise SystemExit(f"{proc.name} stopped:\n{proc.tail()}")
        try:
            with urllib.request.urlopen(url, timeout=5) as answer:
                if answer.status == 200 and json.load(answer).get("service_running", True):
                    break
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise SystemExit(f"the panel did not answer in {timeout:g} s:\n{stack.procs['panel'].tail()}")
        time.sleep(0.5)
    time.sleep(5)  # start-up work (imports, the first health writes, caches) out of the window


def window(stack: Stack, seconds: float) -> dict[str, float]:
    """CPU seconds per wall minute of each process over *seconds*."""
    pids = {name: proc.popen.pid for name, proc in stack.procs.items()}
    before = {name: cpu_seconds(pid) for name, pid in pids.items()}
    started = time.monotonic()
    time.sleep(seconds)
    after = {name: cpu_seconds(pid) for name, pid in pids.items()}
    wall = time.monotonic() - started
    for proc in stack.procs.values():
        if not proc.alive():
            raise SystemExit(f"{proc.name} stopped during the window:\n{proc.tail()}")
    return {name: (after[name] - before[name]) / wall * 60 for name in pids}


@contextmanager
def live_page(port: int) -> Iterator[list[int]]:
    """One browser's live page: the board's event stream, read as it comes (bytes received counted)."""
    received = [0]
    answer = urllib.request.urlopen(f"http://127.0.0.1:{port}/api/events", timeout=120)
    stop = threading.Event()

    def read() -> None:
        while not stop.is_set():
            try:
                line = answer.readline()
            except (OSError, AttributeError, ValueError):  # closed under it (http.client drops its file)
                return
            if not line:
                return
            received[0] += len(line)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        yield received
    finally:
        stop.set()
        answer.close()


def measure_cpu(tree: Path, seconds: float, rounds: int) -> list[dict[str, dict[str, float]]]:
    broker = None
    broker_url = None
    sys.path.insert(0, str(ROOT))
    try:
        from bench.event import bench_broker

        broker = bench_broker()
    except ImportError:
        broker = None
    results = []
    with ExitStack() as cleanup:
        if broker is not None:
            broker.start()
            cleanup.callback(broker.stop)
            broker.wait_ready(time.monotonic() + 30)
            broker_url = broker.url
        folder = Path(tempfile.mkdtemp(prefix="ht-idle-"))
        cleanup.callback(shutil.rmtree, folder, True)
        python = str(ROOT / ".venv" / "bin" / "python")
        stack = Stack(tree, folder, python)
        cleanup.callback(stack.stop)
        start_stack(stack, broker_url)
        wait_ready(stack)
        for _ in range(rounds):
            no_client = window(stack, seconds)
            with live_page(stack.panel_port) as received:
                time.sleep(2)  # the stream's first events out of the window
                one_page = window(stack, seconds)
                if not received[0]:
                    raise SystemExit("the live page received nothing: benchmark invalid")
            results.append({"no client": no_client, "one live page": one_page})
    return results


# ---------------------------------------------------------------------------------------------- part 2

DRIVERS = ("hardware/virtual/board.py", "hardware/virtual/lgpio.py", "hardware/virtual.py",
           "hardware/virtual_lgpio.py", "gpiozero/pins/mock.py", "/lgpio.py")
"""Where the pins' driver lives (the virtual electronics here, lgpio on a Pi): a call into it counts one
(``hardware/virtual.py`` and ``hardware/virtual_lgpio.py``: a tree from before the virtual board had a
subpackage)."""


class CallCounter:
    """Python calls and built-in calls between :meth:`start` and :meth:`stop`; a driver call counts once."""

    def __init__(self) -> None:
        self.calls = 0
        self.builtins = 0
        self._inside: FrameType | None = None

    def _hook(self, frame: FrameType, event: str, arg: Any) -> None:
        inside = self._inside
        if inside is not None:
            if event == "return" and frame is inside:
                self._inside = None
            return
        if event == "call":
            self.calls += 1
            if frame.f_code.co_filename.endswith(DRIVERS):
                self._inside = frame
        elif event == "c_call" and arg is not sys.setprofile:  # the counter's own switching off
            self.builtins += 1

    def run(self, action: Callable[[], object]) -> None:
        sys.setprofile(self._hook)
        try:
            action()
        finally:
            sys.setprofile(None)


@dataclass
class Counts:
    path: str
    scan_calls: int
    scan_builtins: int
    poll_calls: int
    poll_builtins: int
    ops: int
    retained_bytes: int
    peak_bytes: int


def _module(name: str, flat: str) -> Any:
    """The module *name*, or *flat*, its name in a tree from before hardware/ had subpackages."""
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError:
        return importlib.import_module(flat)


@contextmanager
def board_on(path: str, tree: Path) -> Iterator[tuple[Any, Any]]:
    """(the board backend, the virtual board) on *path*, on a simulated clock, settled and idle."""
    clock_mod = importlib.import_module("hardware.clock")
    settings_mod = importlib.import_module("hardware.settings")
    layout = importlib.import_module("games.hautetension.layout").load_layout()
    clock = clock_mod.SimulatedClock()
    per_pin = path.endswith("per-pin")
    settings = settings_mod.HardwareSettings(bank_read="off" if per_pin else "auto")
    with ExitStack() as stack:
        if path.startswith("lgpio"):
            virtual_lgpio = _module("hardware.virtual.lgpio", "hardware.virtual_lgpio")
            board_module = _module("hardware.virtual.board", "hardware.virtual")
            virtual = board_module.VirtualBoard(settings, layout, clock=clock)
            stack.callback(virtual.close)
            lgpio = virtual_lgpio.VirtualLgpio({0: (virtual_lgpio.PI5_LINES, virtual)})
            stack.enter_context(virtual_lgpio.installed(lgpio))
            factory = virtual_lgpio.lgpio_pin_factory()
            stack.callback(factory.close)
            board = _module("hardware.backends.gpio", "hardware.gpio_backend").GpioBoard(
                settings, layout, pin_factory=factory, clock=clock)
        else:
            sim = _module("hardware.backends.sim", "hardware.sim_backend").SimBoard
            try:
                board = sim(settings, layout, clock=clock, groups=not per_pin)
            except TypeError:  # a tree whose sim backend had one path only
                board = sim(settings, layout, clock=clock)
            virtual = board.virtual_board
        stack.callback(board.close)
        for i, slot in enumerate(layout.slots[::3][:30]):  # a game in progress: 30 pawns standing
            virtual.place(slot, importlib.import_module("games.hautetension.pawn").PawnKind(
                "attack" if i % 5 else "defense"))
        for _ in range(20):
            clock.advance(board.scan_period)
            board.poll()
        yield board, virtual


def count_path(path: str, tree: Path, polls: int) -> Counts:
    with board_on(path, tree) as (board, virtual):
        scanner = board.scanner
        sample = getattr(scanner, "sample", scanner.scan)
        clock = board.clock
        clock.advance(board.scan_period)
        scan_counter = CallCounter()
        scan_counter.run(sample)
        virtual.reset_counts()
        clock.advance(board.scan_period)
        sample()
        ops = virtual.ops
        clock.advance(board.scan_period)
        poll_counter = CallCounter()
        poll_counter.run(board.poll)
        tracemalloc.start()
        try:
            # A first run of polls fills what is bounded (histories, rings); the second shows growth.
            for _ in range(polls):
                clock.advance(board.scan_period)
                board.poll()
            start, _ = tracemalloc.get_traced_memory()
            peak = 0
            for _ in range(polls):
                clock.advance(board.scan_period)
                tracemalloc.reset_peak()
                floor, _ = tracemalloc.get_traced_memory()
                board.poll()
                _, top = tracemalloc.get_traced_memory()
                peak = max(peak, top - floor)
            end, _ = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        # Every 10th poll reads the lamp currents (FEEDBACK_EVERY): the peak covers it.
        return Counts(path, scan_counter.calls, scan_counter.builtins, poll_counter.calls,
                      poll_counter.builtins, ops, end - start, peak)


PATHS = ("sim groups", "mock per-pin", "lgpio groups", "lgpio per-pin")


def measure_counts(tree: Path, polls: int) -> list[Counts]:
    if tree != ROOT:  # count the other tree's code, in a process of its own
        out = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--counts-only", "--json",
                              "--polls", str(polls), "--import-root", str(tree)],
                             capture_output=True, text=True, check=True, cwd=tree)
        return [Counts(**row) for row in json.loads(out.stdout)]
    import logging

    logging.getLogger("hardware.scanner").setLevel(logging.ERROR)
    return [count_path(path, tree, polls) for path in PATHS]


# ---------------------------------------------------------------------------------------------- report

def print_cpu(results: list[dict[str, dict[str, float]]], seconds: float) -> None:
    print(f"Part 1 - CPU seconds per wall minute, idle, side by side ({seconds:g} s windows, "
          f"{len(results)} round(s); ratio = ÷ the bare loop of the same window)")
    for label in ("no client", "one live page"):
        print(f"  panel with {label}:")
        names = list(results[0][label])
        for name in names:
            values = [r[label][name] for r in results]
            ratios = [r[label][name] / r[label]["bare loop"] for r in results]
            print(f"    {name:<20} {statistics.median(values):7.3f} CPU s/min  "
                  f"{statistics.median(values) / 60:7.2%} of a core  ×{min(ratios):.1f}-{max(ratios):.1f}")
        stack = [sum(r[label].get(n, 0.0) for n in ("board sim", "panel", "uplink")) for r in results]
        print(f"    {'Pi stack (sim, panel, uplink)':<20} {statistics.median(stack):7.3f} CPU s/min  "
              f"{statistics.median(stack) / 60:7.2%} of a core")
    print(f"  load average now: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


def print_counts(counts: list[Counts]) -> None:
    print("Part 2 - per idle scan (30 pawns standing, nothing moving; simulated clock: machine-independent)")
    print(f"  {'path':<15}{'GPIO ops':>9}{'calls/scan':>11}{'builtins':>9}{'calls/poll':>11}{'builtins':>9}"
          f"{'bytes kept':>11}{'peak bytes':>11}")
    for c in counts:
        print(f"  {c.path:<15}{c.ops:>9}{c.scan_calls:>11}{c.scan_builtins:>9}{c.poll_calls:>11}"
              f"{c.poll_builtins:>9}{c.retained_bytes:>11}{c.peak_bytes:>11}")
    print("  (calls: Python function calls, one per call into the pins' driver; bytes kept: growth over "
          "the polls; peak: the most allocated at once during one poll)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="each CPU window, wall seconds (60)")
    parser.add_argument("--rounds", type=int, default=1, help="windows of each kind (1)")
    parser.add_argument("--polls", type=int, default=200, help="idle polls for the memory counts (200)")
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout whose processes run (this one)")
    parser.add_argument("--counts-only", action="store_true", help="part 2 only")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--import-root", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.import_root is not None:
        sys.path.insert(0, str(args.import_root.resolve()))
    else:
        sys.path.insert(0, str(ROOT))
    tree = args.root.resolve()
    if args.json:
        print(json.dumps([c.__dict__ for c in measure_counts(ROOT, args.polls)]))
        return 0
    print(f"tree: {tree}")
    counts = measure_counts(tree, args.polls)
    print_counts(counts)
    if args.counts_only:
        return 0
    results = measure_cpu(tree, args.seconds, args.rounds)
    print_cpu(results, args.seconds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
