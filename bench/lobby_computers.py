"""Benchmark: what the panel holds while computer-vs-computer games wait for their moves.

Runs the panel as its own process (``hautetension panel``, waitress) on a
loopback port and a temporary database holding digital Haute-Tension games
between two ISMCTS computer players (each move a search of a tenth of a
second or more, so that games queue). Each game is looked at once
(``GET /api/games/<id>``), which sets its computers going; the panel's
threads, open files and resident memory are read from ``/proc`` with none,
100 and 300 games waiting, and again a few seconds later.

The counts do not depend on the machine: before the worker pool, each
waiting game held a thread and a database connection of its own.

Usage: .venv/bin/python bench/lobby_computers.py [--games 100,300] [--settle 3]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.lobby_state import answers_200, start_panel  # noqa: E402
from bench.panel_sse import requests_per_second  # noqa: E402
from games.frame import game_class  # noqa: E402
from store.db import connect  # noqa: E402
from store.games import GameStore, SeatSpec  # noqa: E402

COMPUTERS = [SeatSpec(kind="ai", name="A", level="ismcts"), SeatSpec(kind="ai", name="B", level="ismcts")]


def sample(pid: int) -> dict[str, int]:
    """The process's threads, open files and resident memory (KiB)."""
    status = Path(f"/proc/{pid}/status").read_text().splitlines()
    fields = dict(line.split(":", 1) for line in status if ":" in line)
    return {"threads": int(fields["Threads"]), "open_files": len(os.listdir(f"/proc/{pid}/fd")),
            "rss_kib": int(fields["VmRSS"].split()[0])}


def make_games(database: Path, count: int) -> list[int]:
    conn = connect(database)
    try:
        games = GameStore(conn)
        made = [games.create(game_class("hautetension").new(["A", "B"], seed=n), COMPUTERS, hot_seat=False)
                for n in range(count)]
        return [record.id for record, _host in made]
    finally:
        conn.close()


def look(port: int, ids: list[int]) -> None:
    """Look at each game once, as a page would: that sets its computers going."""
    for game_id in ids:
        answers_200(port, f"/api/games/{game_id}", {})


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", default="100,300", help="waiting games at each sample (cumulative)")
    parser.add_argument("--settle", type=float, default=3.0, help="seconds to wait before each sample")
    args = parser.parse_args()
    steps = [int(n) for n in args.games.split(",")]
    print(f"load before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    samples = []
    with tempfile.TemporaryDirectory() as tmp:
        database = Path(tmp) / "bench.db"
        ids = make_games(database, max(steps))
        panel, port = start_panel(database, Path(tmp))
        try:
            # Each of waitress's threads opens its database connection on first use: all of them
            # serve a while first, so that the samples count only what waiting games hold.
            requests_per_second(port, "/api/games", 5.0, threads=64)
            time.sleep(args.settle)
            samples.append({"waiting": 0, **sample(panel.pid)})
            looked = 0
            for count in steps:
                look(port, ids[looked:count])
                looked = count
                time.sleep(args.settle)
                samples.append({"waiting": count, **sample(panel.pid)})
            time.sleep(args.settle)
            samples.append({"waiting": looked, "later": True, **sample(panel.pid)})
        finally:
            panel.terminate()
            panel.wait(10)
    print(f"load after:  {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    base = samples[0]
    print("The panel process with computer-vs-computer games waiting (Haute-Tension, ISMCTS both sides)")
    print(f"{'games waiting':>14} {'threads':>8} {'+threads':>9} {'open files':>11} {'+files':>7}"
          f" {'RSS MiB':>8}")
    for s in samples:
        label = f"{s['waiting']}{' (later)' if s.get('later') else ''}"
        print(f"{label:>14} {s['threads']:>8} {s['threads'] - base['threads']:>+9} {s['open_files']:>11}"
              f" {s['open_files'] - base['open_files']:>+7} {s['rss_kib'] / 1024:>8.1f}")
    print(json.dumps(samples))
    return 0


if __name__ == "__main__":
    sys.exit(main())
