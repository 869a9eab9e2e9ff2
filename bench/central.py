"""Benchmark: the event server on SQLite and on PostgreSQL, with one and with two server processes.

Runs a throwaway PostgreSQL cluster and Debian's Mosquitto on loopback ports
(the test suite's own servers, tests/servers/) and measures, side by side in
this one run:

* **results ingested per second** (the store alone, no broker): ``--boards``
  boards end their games (each game's end and its players' confirmation, as
  the board's outbox sends them) and the results are entered into the
  tournament, by one worker process, then by two worker processes that each
  receive every row (as two ``hautetension central`` processes do); SQLite (one
  file in WAL mode, the processes on one machine) against PostgreSQL. Counts:
  every result entered exactly once, rows stored once, duplicates discarded;
  statements per result, and round trips to PostgreSQL per result.
* **game end → standings through the broker** with real ``hautetension
  central`` processes: ``--e2e-boards`` simulated boards (one MQTT client
  each, all on one epoll loop: :class:`event.Fleet`) end a round within one
  second; p50/p99 from the board's publish to the result in the standings
  (``event_results.entered_at``, same clock); SQLite and PostgreSQL, each with
  one and with two processes (``--e2e-setups``). The bench waits on the
  servers' own counts (the store's boards and rows), with a deadline that says
  how far the broker and each process got; and reports how many messages the
  broker dropped (a client's queue full).
* **live-page fan-out**: a write to the database → every process's live
  pages woken (its :class:`~webpanel.event.follow.EventFollower`), p50/p99;
  and what the followers cost while nothing happens: the queries each
  process's reader runs per idle second (SQLite polls ``PRAGMA data_version``;
  PostgreSQL LISTENs and runs none).

Usage: .venv/bin/python bench/central.py [--boards 200] [--e2e-boards 100,500] [--waves 3]
       [--e2e-setups sqlite-1,sqlite-2,postgresql-1,postgresql-2] [--only ingest,fan-out,end-to-end]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import paho.mqtt.client as mqtt  # noqa: E402
from event import (  # noqa: E402
    DropWatcher,
    Fleet,
    bench_broker,
    connect_boards,
    entered,
    game_rows,
    percentile,
    wait_until,
    wave_setup,
)
from paho.mqtt.enums import CallbackAPIVersion  # noqa: E402

from protocol import ReportedRow, StatusReport  # noqa: E402
from store.dialect import PgDatabase  # noqa: E402
from store.event.boards import Boards  # noqa: E402
from store.event.db import connect_event  # noqa: E402
from store.event.intake import Intake  # noqa: E402
from store.event.results import Results  # noqa: E402
from tests.servers.mosquitto import MosquittoBroker  # noqa: E402
from tests.servers.postgres import PostgresCluster, find_postgres_bindir  # noqa: E402
from tests.servers.process import free_port, server_folder  # noqa: E402
from tests.uplink.helpers import BIN, EVENT  # noqa: E402
from webpanel.config import PanelSettings  # noqa: E402
from webpanel.event.follow import EventFollower  # noqa: E402

BATCH = 50
"""Rows an ingest stores in one transaction here (the real one takes up to 500 at once)."""


# -- results ingested per second (the store alone) ---------------------------------------------


def _prepare(location: str, count: int) -> list[list[tuple[str, Any]]]:
    """A tournament round on *count* accepted boards, each game played up to its end; the ends'
    reports, in batches of :data:`BATCH` rows, as a process receives them."""
    conn = connect_event(location)
    intake = Intake(conn, confirm_timeout=300)
    boards = [f"sim-{n}" for n in range(1, count + 1)]
    intake.receive([(b, StatusReport({"online": True, "history": "h", "first": 1})) for b in boards])
    for index, board in enumerate(boards, start=1):
        Boards(conn).accept(board, f"Table {index}", actor="bench")
    seq = dict.fromkeys(boards, 0)

    def reported(board: str, rows: list[dict[str, Any]]) -> list[tuple[str, Any]]:
        out = []
        for row in rows:
            seq[board] += 1
            out.append((board, ReportedRow(seq[board], "h", 1, row["kind"], row["game"], 1.0, row["body"])))
        return out

    ends: list[tuple[str, Any]] = []
    for board, assignment, names, first in wave_setup(conn, boards, 0):
        before, end = game_rows(1, names, assignment, first)
        intake.receive(reported(board, before))
        ends += reported(board, end)
    conn.close()
    return [ends[i : i + BATCH] for i in range(0, len(ends), BATCH)]


def _worker(location: str, batches: list[list[tuple[str, Any]]], start: Any, out: Any) -> None:
    conn = connect_event(location)
    intake = Intake(conn, confirm_timeout=300)
    results = Results(conn)
    stored = duplicates = 0
    results.settle()  # warm: every module imported, the connection (pool) open
    traced = [0]
    if isinstance(conn, PgDatabase):
        conn.statements = conn.round_trips = 0
    else:
        conn.set_trace_callback(lambda _sql: traced.__setitem__(0, traced[0] + 1))
    start.wait()  # a barrier: every worker ready, and the clock
    for batch in batches:
        receipt = intake.receive(batch)
        stored += receipt.stored
        duplicates += receipt.duplicates
        results.settle()
    if isinstance(conn, PgDatabase):
        out.put((stored, duplicates, conn.statements, conn.round_trips))
    else:
        out.put((stored, duplicates, traced[0], 0))
    conn.close()


def ingest_rate(location: str, count: int, processes: int) -> dict[str, Any]:
    batches = _prepare(location, count)
    ctx = multiprocessing.get_context("spawn")
    start, out = ctx.Barrier(processes + 1), ctx.Queue()
    workers = [ctx.Process(target=_worker, args=(location, batches, start, out)) for _ in range(processes)]
    for worker in workers:
        worker.start()
    start.wait(timeout=120)
    began = time.perf_counter()
    counts = [out.get(timeout=600) for _ in workers]
    elapsed = time.perf_counter() - began
    for worker in workers:
        worker.join()
    conn = connect_event(location)
    results = conn.execute("SELECT COUNT(*) FROM tournament_events WHERE kind = 'result'").fetchone()[0]
    conn.close()
    return {
        "results_per_s": count / elapsed,
        "seconds": elapsed,
        "results": int(results),
        "stored": sum(c[0] for c in counts),
        "duplicates": sum(c[1] for c in counts),
        "statements_per_result": counts[0][2] / count,
        "round_trips_per_result": counts[0][3] / count,
    }


# -- game end -> standings through the broker, real server processes ---------------------------------

ROWS_S = 30.0
ROWS_PER_ROW_S = 0.01
"""How long the servers may take to store the rows of a round's games before their ends are sent."""


def stored_rows(conn: Any) -> int:
    return int(conn.execute("SELECT COUNT(*) FROM event_rows").fetchone()[0])


def wait_stored(conn: Any, servers: list[ServerProcess], rows: int) -> None:
    """Until the store holds *rows* rows (a :class:`DeadlineError` past :data:`ROWS_S` and so on)."""
    wait_until(
        lambda: stored_rows(conn) >= rows,
        ROWS_S + ROWS_PER_ROW_S * rows,
        lambda: f"the store holds {stored_rows(conn)} of the {rows} rows the boards sent;"
        f" each server process's own counts: {counts_of(servers)}",
    )


def counts_of(servers: list[ServerProcess]) -> str:
    return "; ".join(
        f"{json.dumps(server.ingest_counts())}, its log ending: {server.said(5)}" for server in servers
    )


class ServerProcess:
    """``hautetension central`` on *database*, the anonymous broker, as instance *name*."""

    def __init__(self, folder: Path, database: str, broker: MosquittoBroker, name: str) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.name = name
        self.broker = broker
        self.port = free_port()
        config = folder / "central.toml"
        config.write_text(
            f'[central]\nevent = "{EVENT}"\ndatabase = "{database}"\nbroker = "{broker.url}"\n'
            f'instance = "{name}"\nport = {self.port}\n'
            f'[panel]\nsecret_key_file = "{folder.parent / "secret.key"}"\n'
        )
        env = {k: v for k, v in os.environ.items() if k != "HAUTETENSION_CONFIG"}
        self.log = folder / "central.log"
        with self.log.open("w") as log:
            self.proc = subprocess.Popen(
                [str(BIN), "central", "--config", str(config)], env=env, stdout=log, stderr=log, text=True
            )
        deadline = time.monotonic() + 60
        while not self._answers():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"central did not start: {self.said()}")
            time.sleep(0.1)

    def said(self, lines: int = 20) -> str:
        """The end of what the process logged."""
        return "\n".join(self.log.read_text(errors="replace").strip().splitlines()[-lines:])

    def _answers(self) -> bool:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/api/event/boards", timeout=2) as r:
                return bool(r.status == 200)
        except OSError:
            return False

    def ingest_counts(self) -> dict[str, Any]:
        """What this process took from the broker (``GET /api/event/ingest``)."""
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/api/event/ingest", timeout=5) as r:
                return dict(json.load(r))
        except OSError as exc:
            return {"instance": self.name, "unanswered": str(exc)}

    def stop(self) -> str:
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(timeout=30)
        self._forget_session()
        return self.said(1)

    def _forget_session(self) -> None:
        """End this process's persistent broker session: else the broker keeps queueing every board
        message for it, and the next measure's process of the same name starts with that backlog."""
        client = mqtt.Client(
            CallbackAPIVersion.VERSION2,
            client_id=f"hautetension-central-{EVENT}-{self.name}",
            protocol=mqtt.MQTTv311,
            clean_session=True,
        )
        client.connect(self.broker.host, self.broker.port)
        client.loop_start()
        deadline = time.monotonic() + 10
        while not client.is_connected() and time.monotonic() < deadline:
            time.sleep(0.01)
        client.disconnect()
        client.loop_stop()


def end_to_end(
    folder: Path,
    database: str,
    broker: MosquittoBroker,
    count: int,
    waves: int,
    processes: int,
    drops: DropWatcher | None = None,
) -> dict[str, Any]:
    servers = [ServerProcess(folder / f"p{n}", database, broker, f"p{n}") for n in range(1, processes + 1)]
    conn = connect_event(database)
    boards = [f"sim-{n}" for n in range(1, count + 1)]
    fleet = Fleet()
    publishers = connect_boards(
        fleet,
        broker,
        boards,
        lambda: {b.id for b in Boards(conn).all()},
        lambda: f"Each server process's own counts: {counts_of(servers)}",
    )
    by_board = {p.board: p for p in publishers}
    for index, board in enumerate(boards, start=1):
        Boards(conn).accept(board, f"Table {index}", actor="bench")
    samples: list[float] = []
    for wave in range(waves):
        tables = wave_setup(conn, boards, 100 + wave)
        ends = {}
        for board, assignment, names, first in tables:
            before, end = game_rows(wave + 1, names, assignment, first)
            by_board[board].rows(before)
            ends[board] = (assignment, end)
        # The games so far are in the store (its own count), so the ends do not queue behind them.
        wait_stored(conn, servers, sum(p.seq for p in publishers))
        sent: dict[str, float] = {}
        began = time.time()
        for index, (board, (assignment, end)) in enumerate(ends.items()):
            time.sleep(max(0.0, began + index / count - time.time()))  # the round ends within 1 s
            sent[assignment] = time.time()
            by_board[board].rows(end)
        deadline = time.monotonic() + 120
        while len(got := entered(conn, set(sent))) < len(sent) and time.monotonic() < deadline:
            time.sleep(0.02)
        samples += [got[a] - sent[a] for a in sent if a in got]
    results = conn.execute("SELECT COUNT(*) FROM tournament_events WHERE kind = 'result'").fetchone()[0]
    time.sleep(1.5)  # the broker's count, a second later
    dropped = drops.dropped if drops else None
    for publisher in publishers:
        publisher.close()
    fleet.close()
    said = [server.stop() for server in servers]
    conn.close()
    return {
        "samples": len(samples),
        "expected": count * waves,
        "results": int(results),
        "p50_ms": percentile(samples, 0.5) * 1e3,
        "p99_ms": percentile(samples, 0.99) * 1e3,
        "servers": said,
        "broker_dropped": dropped,
    }


# -- live-page fan-out --------------------------------------------------------------------------------


def fan_out(location: str, processes: int, writes: int) -> dict[str, Any]:
    """Write → every follower woken (one follower per server process), and the idle cost."""
    settings = PanelSettings(database=location)
    followers = [EventFollower(settings) for _ in range(processes)]
    for follower in followers:
        follower.start()
    conn = connect_event(location)
    conn.execute("INSERT INTO event_boards (board, first_seen, last_seen) VALUES ('sim-1', 0, 0)")
    time.sleep(1.0)
    idle_before = sum(f.polls for f in followers)
    time.sleep(2.0)
    idle = (sum(f.polls for f in followers) - idle_before) / 2.0 / processes
    samples = []
    for n in range(writes):
        versions = [f.latest().version if f.latest() else 0 for f in followers]  # type: ignore[union-attr]
        began = time.perf_counter()
        conn.execute("UPDATE event_boards SET label = ? WHERE board = 'sim-1'", (f"Table {n}",))
        for follower, version in zip(followers, versions, strict=True):
            follower.wait_newer(version, 5.0)
        samples.append(time.perf_counter() - began)
        time.sleep(0.05)
    for follower in followers:
        follower.close()
    conn.close()
    return {
        "p50_ms": percentile(samples, 0.5) * 1e3,
        "p99_ms": percentile(samples, 0.99) * 1e3,
        "idle_queries_per_s": idle,
    }


# -- main -------------------------------------------------------------------------------------------


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--boards", type=int, default=200, help="boards for the ingest rate (%(default)s)")
    parser.add_argument(
        "--e2e-boards", default="100", help="boards over MQTT, one count or several: 100,500 (%(default)s)"
    )
    parser.add_argument(
        "--e2e-setups",
        default="sqlite-1,sqlite-2,postgresql-1,postgresql-2",
        help="engine-processes measured through the broker, the first the baseline (%(default)s)",
    )
    parser.add_argument("--waves", type=int, default=3, help="rounds ended through the broker (%(default)s)")
    parser.add_argument("--writes", type=int, default=40, help="writes for the fan-out (%(default)s)")
    parser.add_argument(
        "--only", default="ingest,fan-out,end-to-end", help="which measures, comma-separated (%(default)s)"
    )
    args = parser.parse_args()
    bindir = find_postgres_bindir()
    broker = bench_broker()
    if bindir is None or broker is None:
        print("bench/central.py: needs PostgreSQL and Mosquitto (apt-get install postgresql mosquitto)")
        return 1
    load_before = os.getloadavg()
    folder = Path(tempfile.mkdtemp(prefix="hautetension-bench-central-"))
    folder.chmod(0o755)
    cluster = PostgresCluster(server_folder("postgres"), bindir=bindir, durable=True)  # fsync, as SQLite
    cluster.start()
    broker.start()
    drops = DropWatcher(broker)
    made = iter(range(1, 1000))
    engines: dict[str, Callable[[], str]] = {
        "sqlite": lambda: str(folder / f"central-{next(made)}.db"),
        "postgresql": lambda: cluster.create_database("bench"),
    }
    report: dict[str, Any] = {}
    only = set(args.only.split(","))
    try:
        if "ingest" in only:
            report["ingest"] = ingest_table(engines, args.boards)
        if "fan-out" in only:
            report["fan_out"] = fan_out_table(engines, args.writes)
        if "end-to-end" in only:
            setups = [(e, int(p)) for e, _, p in (s.rpartition("-") for s in args.e2e_setups.split(","))]
            report["end_to_end"] = end_to_end_table(
                engines, folder, broker, args.e2e_boards, args.waves, setups, drops
            )
        load_after = os.getloadavg()
        print(
            f"\nLoad average before/after: {load_before[0]:.2f} / {load_after[0]:.2f} (1 min),"
            f" {os.cpu_count()} CPUs"
        )
        print(json.dumps(report, default=float))
    finally:
        drops.close()
        broker.kill()
        cluster.stop()
        shutil.rmtree(broker.folder, ignore_errors=True)
        shutil.rmtree(cluster.folder, ignore_errors=True)
        shutil.rmtree(folder, ignore_errors=True)
    return 0


def ingest_table(engines: dict[str, Callable[[], str]], boards: int) -> dict[str, Any]:
    print(f"Results ingested per second: {boards} boards end a round (rows in batches of {BATCH})")
    print(f"  {'engine':<11} {'processes':>9} {'results/s':>10} {'x sqlite 1':>11} {'entered':>8}"
          f" {'stored':>7} {'discarded':>9} {'statements/result':>18} {'round trips/result':>19}")
    rates: dict[tuple[str, int], dict[str, Any]] = {}
    for processes in (1, 2):
        for engine, location in engines.items():
            rates[engine, processes] = got = ingest_rate(location(), boards, processes)
            base = rates["sqlite", 1]["results_per_s"]
            print(
                f"  {engine:<11} {processes:>9} {got['results_per_s']:10.1f}"
                f" {got['results_per_s'] / base:11.2f} {got['results']:>8} {got['stored']:>7}"
                f" {got['duplicates']:>9} {got['statements_per_result']:18.1f}"
                + (f" {trips:19.1f}" if (trips := got["round_trips_per_result"]) else f" {'in-process':>19}")
            )
    print()
    return {f"{e}-{p}": v for (e, p), v in rates.items()}


def fan_out_table(engines: dict[str, Callable[[], str]], writes: int) -> dict[str, Any]:
    print("Live pages: a write -> every server process's live pages woken; reader queries per idle s")
    print(f"  {'engine':<11} {'processes':>9} {'p50 ms':>7} {'p99 ms':>7} {'idle queries/s':>15}")
    fans = {}
    for processes in (1, 2):
        for engine, location in engines.items():
            fans[engine, processes] = got = fan_out(location(), processes, writes)
            print(
                f"  {engine:<11} {processes:>9} {got['p50_ms']:7.1f} {got['p99_ms']:7.1f}"
                f" {got['idle_queries_per_s']:15.1f}"
            )
    print()
    return {f"{e}-{p}": v for (e, p), v in fans.items()}


def end_to_end_table(
    engines: dict[str, Callable[[], str]],
    folder: Path,
    broker: MosquittoBroker,
    counts: str,
    waves: int,
    setups: list[tuple[str, int]],
    drops: DropWatcher,
) -> dict[str, Any]:
    ends = {}
    for boards in [int(n) for n in counts.split(",")]:
        print(
            f"Game end on a board -> the standings, through Mosquitto and real server processes:"
            f" {boards} boards, {waves} rounds each ending within 1 s"
        )
        print(f"  {'engine':<11} {'processes':>9} {'samples':>9} {'p50 ms':>8} {'p99 ms':>8}"
              f" {'p99 x ' + '-'.join(map(str, setups[0])):>15} {'entered':>8}")
        for engine, processes in setups:
            ends[boards, engine, processes] = got = end_to_end(
                folder / f"e2e-{boards}-{engine}-{processes}", engines[engine](), broker, boards, waves,
                processes, drops,
            )
            base = ends[boards, *setups[0]]["p99_ms"]
            print(
                f"  {engine:<11} {processes:>9} {got['samples']:>4}/{got['expected']:<4}"
                f" {got['p50_ms']:8.1f} {got['p99_ms']:8.1f} {got['p99_ms'] / base:15.2f}"
                f" {got['results']:>8}"
            )
            for said in got["servers"]:
                print(f"      {said}")
            print(f"      messages the broker dropped so far (a queue full): {got['broker_dropped']}")
        print()
    return {f"{b}-{e}-{p}": v for (b, e, p), v in ends.items()}


if __name__ == "__main__":
    sys.exit(main())
