"""Benchmark: journal write → broker publish, how promptly the uplink sends a new row of an idle board.

    .venv/bin/python bench/uplink_latency.py [--writes 60] [--root TREE]

Starts Debian's Mosquitto on a loopback port (anonymous), one ``hautetension
uplink`` of this checkout and, with ``--root``, one of another checkout (an
earlier revision exported with ``git archive``), side by side, each on its
own board database, and a subscriber to both boards' ``outbox`` topics. Then
writes a journal entry (a placement: its outbox row in the same transaction)
to each database in turn, each after a random gap of 0.2-0.8 s (so the uplink
is idle when the row comes), and times each row from the write's commit to
its arrival at the subscriber (wall clock, one machine). No event server
acknowledges the rows: each uplink sends from its first row after
``ack_wait_s``, and ``resend_after_s`` is set long enough to send each row
once. Prints the median, p90 and the longest per tree, and each uplink's CPU
seconds over the run.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import ExitStack
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import paho.mqtt.client as mqtt  # noqa: E402
from paho.mqtt.enums import CallbackAPIVersion  # noqa: E402

from bench.event import bench_broker  # noqa: E402
from store.db import connect  # noqa: E402
from store.journal import Journal, JournalKind  # noqa: E402
from store.outbox import Outbox  # noqa: E402

EVENT = "latency"


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Arrivals:
    """When each board's rows reached the subscriber: ``(board, seq) -> wall clock`` (the first copy)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.at: dict[tuple[str, int], float] = {}

    def on_message(self, _c: object, _u: object, message: mqtt.MQTTMessage) -> None:
        now = time.time()
        board = message.topic.split("/")[-2]
        seq = int(json.loads(message.payload)["seq"])
        with self.lock:
            self.at.setdefault((board, seq), now)

    def get(self, board: str, seq: int) -> float | None:
        with self.lock:
            return self.at.get((board, seq))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--writes", type=int, default=60, help="rows written to each board (60)")
    parser.add_argument("--root", type=Path, help="an earlier checkout, run beside this one")
    args = parser.parse_args(argv)
    trees = {"after": ROOT} if args.root is None else {"before": args.root.resolve(), "after": ROOT}
    broker = bench_broker()
    if broker is None:
        print("Mosquitto is not installed: nothing to measure", file=sys.stderr)
        return 1
    python = str(ROOT / ".venv" / "bin" / "python")
    rng = random.Random(31)
    with ExitStack() as cleanup:
        broker.start()
        cleanup.callback(broker.stop)
        broker.wait_ready(time.monotonic() + 30)
        folder = Path(tempfile.mkdtemp(prefix="ht-uplink-latency-"))
        cleanup.callback(shutil.rmtree, folder, True)
        arrivals = Arrivals()
        subscriber = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv311)
        subscriber.on_message = arrivals.on_message
        subscriber.connect(broker.host, broker.port)
        subscriber.subscribe(f"hautetension/{EVENT}/board/+/outbox", 1)
        subscriber.loop_start()
        cleanup.callback(subscriber.loop_stop)
        procs: dict[str, subprocess.Popen[bytes]] = {}
        journals: dict[str, Journal] = {}
        for name, tree in trees.items():
            db = folder / f"{name}.db"
            config = folder / f"{name}.toml"
            config.write_text(
                f'[uplink]\nevent = "{EVENT}"\nboard_id = "{name}"\nbroker = "{broker.url}"\n'
                "resend_after_s = 3600\n"
            )
            conn = connect(db)
            journals[name] = Journal(conn)
            log = (folder / f"{name}.log").open("wb")
            procs[name] = subprocess.Popen(
                [python, "-m", "hautetension", "uplink", "--config", str(config), "--db", str(db)],
                cwd=tree, stdout=subprocess.DEVNULL, stderr=log,
                env={k: v for k, v in os.environ.items() if k != "HAUTETENSION_CONFIG"},
            )
            cleanup.callback(procs[name].wait, 15)
            cleanup.callback(procs[name].terminate)
        for name, journal in journals.items():  # enrolled, connected, sending
            deadline = time.monotonic() + 60
            while not ((s := Outbox(journal.conn).state()) is not None and s.connected):
                if procs[name].poll() is not None or time.monotonic() > deadline:
                    raise SystemExit(f"the {name} uplink did not connect:\n"
                                     + (folder / f"{name}.log").read_text()[-2000:])
                time.sleep(0.2)
        time.sleep(3)  # past ack_wait_s: both send
        cpu0 = {name: cpu_seconds(p.pid) for name, p in procs.items()}
        started = time.monotonic()
        latencies: dict[str, list[float]] = {name: [] for name in trees}
        pending: list[tuple[str, int, float]] = []
        for n in range(args.writes):
            for name, journal in journals.items():
                time.sleep(rng.uniform(0.2, 0.8))
                journal.append(JournalKind.PLACEMENT, {"n": n, "slot": "a9"}, {"kind": "attack"}, game_id=1)
                written = time.time()
                pending.append((name, Outbox(journal.conn).last_seq(), written))
        deadline = time.monotonic() + 10
        for name, seq, written in pending:
            while (arrived := arrivals.get(name, seq)) is None and time.monotonic() < deadline:
                time.sleep(0.05)
            if arrived is None:
                raise SystemExit(f"{name}: row {seq} never reached the broker")
            latencies[name].append((arrived - written) * 1000)
        wall = time.monotonic() - started
        cpu = {name: cpu_seconds(p.pid) - cpu0[name] for name, p in procs.items()}
        load = os.getloadavg()
    print(f"journal write -> broker publish, {args.writes} rows per uplink at gaps of 0.2-0.8 s"
          f" (load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f})")
    for name, values in latencies.items():
        values.sort()
        p90 = values[int(0.9 * (len(values) - 1))]
        print(f"  {name:<7} median {statistics.median(values):6.1f} ms  p90 {p90:6.1f} ms"
              f"  max {values[-1]:6.1f} ms  CPU {cpu[name] * 60 / wall:5.2f} s per wall minute")
    return 0


if __name__ == "__main__":
    sys.exit(main())
