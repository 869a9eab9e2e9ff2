"""Board service latency: a virtual slot change → the lamp pin → the journal row.

    .venv/bin/python bench/board_latency.py [--changes 150] [--rounds 2]

The board service runs for real (sim backend on gpiozero's mock pins, real
clock, the real scan loop, SQLite in WAL mode with synchronous=FULL) with a
three-player game on the board: four attack pawns on a row to lamp W (which
nobody owns), and the fifth pawn of that row is lifted and put back again and
again, so every change switches lamp W. For each change it measures, from the
moment the pawn moves on the virtual board:

* to the lamp pin change (``set_lamps`` returned: the mock pin is driven);
* to the journal row (the transaction holding it has committed);

and, from the moment the scanner confirmed the change (the debounce is
over), the service's own processing time to the lamp pin.

It runs the same thing with the journal off (no database) side by side, in
alternating rounds, and prints medians and 99th percentiles, the ratio of
journal-on to journal-off, and machine-independent counts (journal
transactions and rows per change, GPIO operations per scan, scans per change).
Timings vary with the machine; the counts do not.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from configuration import ConfigFile  # noqa: E402
from games.hautetension.layout import load_layout  # noqa: E402
from games.hautetension.pawn import PawnKind  # noqa: E402
from hardware.backends.sim import SimBoard  # noqa: E402
from hardware.service import BoardService, BoardSettings  # noqa: E402
from hardware.settings import load_settings  # noqa: E402
from store.commands import Commands  # noqa: E402
from store.db import connect  # noqa: E402
from store.journal import Journal  # noqa: E402

ROW = ["a9", "b9", "c9", "d9"]
TOGGLED = "e9"
LAMP = "W"


class Probe:
    """Timestamps of the lamp pin changes and journal commits of one service."""

    def __init__(self, service: BoardService) -> None:
        self.lamp_at: float | None = None
        self.journal_at: float | None = None
        self.transactions = 0
        self.rows = 0
        backend = service.backend
        set_lamps = backend.set_lamps

        def timed_set_lamps(lit: frozenset[str]) -> None:
            set_lamps(lit)
            self.lamp_at = time.monotonic()

        backend.set_lamps = timed_set_lamps  # type: ignore[method-assign]
        if service.journal is not None:
            journal = service.journal
            append_many = journal.append_many

            def timed_append_many(entries: Any, **kwargs: Any) -> list[int]:
                ids = append_many(entries, **kwargs)
                self.journal_at = time.monotonic()
                self.transactions += 1
                self.rows += len(ids)
                return ids

            journal.append_many = timed_append_many  # type: ignore[method-assign]


def make_service(folder: Path | None) -> BoardService:
    layout = load_layout()
    backend = SimBoard(load_settings(ConfigFile(), layout), layout)
    journal = commands = None
    if folder is not None:
        conn = connect(folder / "bench.db")
        journal, commands = Journal(conn), Commands(conn)
    service = BoardService(
        backend,
        layout,
        journal=journal,
        commands=commands,
        settings=BoardSettings(min_turn=0.0, settle=0.05, health_interval=3600),
    )
    service.start()
    if journal is not None:
        entries = service.referee.new_game(
            journal.max_game_id() + 1, {"players": ["Ana", "Ben", "Cy"], "first": 0, "pregame_check": "skip"}
        )
        service._commit(entries)
    else:
        service.referee.new_game(1, {"players": ["Ana", "Ben", "Cy"], "first": 0, "pregame_check": "skip"})
    for slot in ROW:
        backend.virtual_board.place(slot, PawnKind.ATTACK)
        _run_until(service, lambda s=slot: s in service.referee.board)
    return service


def _run_until(service: BoardService, done: Any, timeout: float = 2.0) -> None:
    period = service.backend.scan_period
    deadline = time.monotonic() + timeout
    next_at = time.monotonic()
    while not done():
        if time.monotonic() > deadline:
            raise RuntimeError("the service did not see the change in time")
        service.step()
        next_at += period
        delay = next_at - time.monotonic()
        if delay > 0:
            time.sleep(delay)


def measure(service: BoardService, probe: Probe, changes: int) -> dict[str, Any]:
    board = service.backend.virtual_board  # type: ignore[attr-defined]
    to_lamp: list[float] = []
    to_journal: list[float] = []
    scans_before = board_scans(service)
    for _ in range(changes):
        probe.lamp_at = probe.journal_at = None
        time.sleep(0.002)  # a pawn moves at a random moment of the scan period
        moved_at = time.monotonic()
        if TOGGLED in board.pawns:
            board.lift(TOGGLED)
        else:
            board.place(TOGGLED, PawnKind.ATTACK)
        want_journal = service.journal is not None

        def seen(want_journal: bool = want_journal) -> bool:
            return probe.lamp_at is not None and (probe.journal_at is not None or not want_journal)

        _run_until(service, seen)
        assert probe.lamp_at is not None
        to_lamp.append(probe.lamp_at - moved_at)
        if probe.journal_at is not None:
            to_journal.append(probe.journal_at - moved_at)
    return {"to_lamp": to_lamp, "to_journal": to_journal, "scans": board_scans(service) - scans_before}


def board_scans(service: BoardService) -> int:
    return int(service.backend.health().get("scan_count", 0))


def summary(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
    return statistics.median(ordered) * 1e3, p99 * 1e3


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--changes", type=int, default=150, help="slot changes per round (default 150)")
    parser.add_argument("--rounds", type=int, default=2, help="alternating rounds per variant (default 2)")
    args = parser.parse_args(argv)
    results: dict[str, dict[str, Any]] = {
        name: {"to_lamp": [], "to_journal": [], "processing": [], "scans": 0, "transactions": 0, "rows": 0}
        for name in ("journal on", "journal off")
    }
    ops_per_scan = None
    scan_period = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for round_number in range(args.rounds):
            for name in ("journal off", "journal on"):  # baseline first, then side by side
                folder = (
                    Path(tmp) / f"{name.replace(' ', '-')}-{round_number}" if name == "journal on" else None
                )
                if folder is not None:
                    folder.mkdir()
                service = make_service(folder)
                probe = Probe(service)
                measured = measure(service, probe, args.changes)
                result = results[name]
                result["to_lamp"] += measured["to_lamp"]
                result["to_journal"] += measured["to_journal"]
                result["processing"] += list(service.lamp_latency.samples)[-args.changes :]
                result["scans"] += measured["scans"]
                result["transactions"] += probe.transactions
                result["rows"] += probe.rows
                ops_per_scan = service.backend.health().get("gpio_ops_per_scan")
                scan_period = service.backend.scan_period
                service.close()
                if service.journal is not None:
                    service.journal.conn.close()

    changes = args.changes * args.rounds
    print(
        f"board service latency, {changes} slot changes per variant (lamp {LAMP} switched each time), "
        f"scan period {scan_period * 1e3:g} ms"
    )
    print(f"{'median / p99':46}{'journal off':>22}{'journal on':>22}{'on/off':>10}")
    rows = [
        ("slot change -> lamp pin", "to_lamp"),
        ("scanner confirmed -> lamp pin", "processing"),
        ("slot change -> journal row", "to_journal"),
    ]
    for label, key in rows:
        off, on = results["journal off"][key], results["journal on"][key]
        cells = []
        for samples in (off, on):
            if samples:
                median, p99 = summary(samples)
                cells.append(f"{median:8.2f} / {p99:8.2f} ms")
            else:
                cells.append(f"{'(no journal)':>20}")
        ratio = f"{summary(on)[0] / summary(off)[0]:9.2f}x" if on and off else f"{'-':>10}"
        print(f"{label:46}{cells[0]:>22}{cells[1]:>22}{ratio}")
    on = results["journal on"]
    print("counts (machine-independent):")
    print(f"  journal transactions per slot change: {on['transactions'] / changes:.2f}")
    print(f"  journal rows per slot change:         {on['rows'] / changes:.2f}")
    print(f"  GPIO operations per scan:             {ops_per_scan}")
    print(
        f"  scans per slot change:                {results['journal off']['scans'] / changes:.1f}"
        f" (journal off), {on['scans'] / changes:.1f} (journal on)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
