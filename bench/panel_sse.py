"""Benchmark: board change → browser event latency over SSE, and GET /api/board throughput.

Runs the panel as its own process (``hautetension panel``, waitress) on a
loopback port and a temporary database. This process plays the board
service: it writes board states into the journal (as the service does after
a placement) and timestamps each write; 1, 20 and 50 SSE clients (threads
reading raw sockets, as browsers would) timestamp the matching event.

Reported:
* latency median and p99 per client count, and the ratio to the 1-client run
  (the baseline, run side by side in the same process);
* requests per second for GET /api/board against GET /api/session (the
  baseline: the same app and server without the database read);
* machine-independent counts: events expected / received / skipped per
  client and bytes per event.

Usage: .venv/bin/python bench/panel_sse.py [--changes 40] [--interval 0.1]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from games.hautetension.game import Game  # noqa: E402
from games.hautetension.layout import load_layout  # noqa: E402
from games.hautetension.seats import default_seats  # noqa: E402
from games.hautetension.views import public_view  # noqa: E402
from store.db import connect  # noqa: E402
from store.journal import Journal, JournalKind  # noqa: E402

CLIENT_COUNTS = (1, 20, 50)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Board:
    """Plays the board service: a game whose placements are written as board states."""

    def __init__(self, database: Path) -> None:
        self.conn = connect(database)
        self.journal = Journal(self.conn)
        self.layout = load_layout("pinwheel-80")
        self.game = Game(self.layout, default_seats(["Ana", "Ben"]))
        self.free = [s for s in self.layout.slots]
        self.write()

    def public(self) -> dict[str, object]:
        return {
            "layout": self.layout.name,
            "backend": "sim",
            "game": {"id": 1, "status": "running", "view": public_view(self.game), "points": None},
            "pawns": {slot: {"owner": owner} for slot, (owner, _) in self.game.pawns.items()},
            "lamps": {"lit": sorted(self.game.lit), "test": False},
            "anomalies": [],
            "faults": [],
            "scanner_faulted": False,
        }

    def write(self) -> int:
        moves = {"n": len(self.game.history)}
        return self.journal.append(JournalKind.PLACEMENT, moves, state_public=self.public())

    def place(self) -> int:
        if self.game.is_over() or not self.free:
            self.game = Game(self.layout, default_seats(["Ana", "Ben"]))
            self.free = list(self.layout.slots)
        # Defense pawns first keep lamps dark for many moves (a game that lasts).
        slot = self.free.pop(0)
        kind = "defense" if self.game.stock(self.game.to_move or 0)[1] else "attack"
        self.game.push(slot, kind)
        return self.write()

    def beat(self) -> None:
        self.journal.write_health({"backend": "sim"})


class Listener(threading.Thread):
    """One SSE client: records when each board event id arrives."""

    def __init__(self, port: int, ready: threading.Barrier) -> None:
        super().__init__(daemon=True)
        self.port = port
        self.ready = ready
        self.arrivals: dict[int, float] = {}
        self.sizes: list[int] = []
        self.stop = False
        self.status = 0

    def run(self) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        conn.request("GET", "/api/events", headers={"Accept": "text/event-stream"})
        response = conn.getresponse()
        self.status = response.status
        self.ready.wait()
        event_id = None
        try:
            while not self.stop:
                line = response.readline()
                if not line:
                    break
                if line.startswith(b"id: "):
                    event_id = int(line[4:])
                elif line.startswith(b"data: ") and event_id is not None:
                    self.arrivals[event_id] = time.perf_counter()
                    self.sizes.append(len(line))
                    event_id = None
        except (OSError, ValueError):
            pass
        finally:
            conn.close()


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def sse_round(board: Board, port: int, clients: int, changes: int, interval: float) -> dict[str, float]:
    ready = threading.Barrier(clients + 1)
    listeners = [Listener(port, ready) for _ in range(clients)]
    for listener in listeners:
        listener.start()
    ready.wait(timeout=30)
    time.sleep(0.3)  # every stream has sent its first event
    written: dict[int, float] = {}
    last_beat = 0.0
    for _ in range(changes):
        if time.monotonic() - last_beat > 1.0:
            board.beat()
            last_beat = time.monotonic()
        started = time.perf_counter()
        written[board.place()] = started
        time.sleep(interval)
    time.sleep(0.5)
    for listener in listeners:
        listener.stop = True
    latencies = [
        (listener.arrivals[i] - at) * 1000
        for listener in listeners
        for i, at in written.items()
        if i in listener.arrivals
    ]
    received = sum(1 for listener in listeners for i in written if i in listener.arrivals)
    sizes = [s for listener in listeners for s in listener.sizes]
    for listener in listeners:
        listener.join(timeout=0.1)
    # The server notices a closed stream when it next writes to it: one more change frees them all.
    board.place()
    time.sleep(0.3)
    refused = sum(1 for listener in listeners if listener.status != 200)
    return {
        "clients": clients,
        "refused": refused,
        "expected": changes * clients,
        "received": received,
        "median_ms": statistics.median(latencies) if latencies else float("nan"),
        "p99_ms": percentile(latencies, 0.99) if latencies else float("nan"),
        "bytes_per_event": statistics.mean(sizes) if sizes else 0,
    }


def requests_per_second(
    port: int, path: str, seconds: float, threads: int = 4, headers: dict[str, str] | None = None
) -> float:
    """GETs of *path* answered 200 per second, from *threads* keep-alive clients (also bench/lobby_*.py)."""
    counts = [0] * threads
    deadline = time.perf_counter() + seconds

    def worker(index: int) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        while time.perf_counter() < deadline:
            conn.request("GET", path, headers=headers or {})
            response = conn.getresponse()
            response.read()
            if response.status == 200:
                counts[index] += 1
        conn.close()

    workers = [threading.Thread(target=worker, args=(i,)) for i in range(threads)]
    started = time.perf_counter()
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    return sum(counts) / (time.perf_counter() - started)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--changes", type=int, default=40, help="board changes per client count")
    parser.add_argument("--interval", type=float, default=0.1, help="seconds between board changes")
    parser.add_argument("--rps-seconds", type=float, default=3.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        database = Path(tmp) / "bench.db"
        board = Board(database)
        board.beat()
        config = Path(tmp) / "config.toml"
        # Every simulated client is this machine's address: as many places for it as the panel has.
        config.write_text(
            f'[store]\npath = "{database}"\n[panel]\nmax_streams = 128\nmax_streams_per_address = 128\n',
            encoding="utf-8",
        )
        port = free_port()
        panel = subprocess.Popen(
            [sys.executable, "-m", "hautetension", "panel", "--config", str(config), "--port", str(port)],
            cwd=ROOT,
            stderr=subprocess.DEVNULL,
            env=dict(os.environ, PYTHONPATH=str(ROOT)),
        )
        try:
            deadline = time.monotonic() + 20
            while True:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                    break
                except OSError:
                    if time.monotonic() > deadline or panel.poll() is not None:
                        print("the panel did not start", file=sys.stderr)
                        return 1
                    time.sleep(0.1)
            rounds = [sse_round(board, port, n, args.changes, args.interval) for n in CLIENT_COUNTS]
            board.beat()
            rps_session = requests_per_second(port, "/api/session", args.rps_seconds)
            rps_board = requests_per_second(port, "/api/board", args.rps_seconds)
        finally:
            panel.terminate()
            panel.wait(10)
            board.conn.close()
    base = rounds[0]
    print(f"SSE board change -> event latency (loopback, {args.changes} changes every {args.interval:g} s)")
    print(
        f"{'clients':>8} {'median ms':>10} {'p99 ms':>8} {'x median(1)':>12} {'x p99(1)':>9}"
        f" {'received/expected':>18} {'refused':>8} {'bytes/event':>12}"
    )
    for r in rounds:
        print(
            f"{r['clients']:>8} {r['median_ms']:>10.1f} {r['p99_ms']:>8.1f}"
            f" {r['median_ms'] / base['median_ms']:>12.2f} {r['p99_ms'] / base['p99_ms']:>9.2f}"
            f" {r['received']:>8}/{r['expected']:<9} {r['refused']:>8} {r['bytes_per_event']:>12.0f}"
        )
    print()
    print("GET throughput (4 keep-alive client threads)")
    print(f"  GET /api/session (baseline, no database): {rps_session:8.0f} req/s")
    print(
        f"  GET /api/board:                           {rps_board:8.0f} req/s"
        f"  (x{rps_board / rps_session:.2f} of baseline)"
    )
    print(json.dumps({"sse": rounds, "rps": {"session": rps_session, "board": rps_board}}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
