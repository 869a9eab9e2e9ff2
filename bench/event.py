"""Benchmark: the event network — a board's game end to the standings, catching up, messages per game.

Runs Debian's Mosquitto on a loopback port and the event server's ingest in
this process (its own thread and database, as ``hautetension central`` runs
it), then measures:

* **game end → standings**: simulated boards (lightweight publishers: one
  MQTT client each, sending the rows a board's outbox holds) play waves of a
  tournament round; each board sends its game's end and its players'
  confirmation, and the time until the result is entered into the tournament
  (``event_results.entered_at``, the same clock) is one sample. Waves of 3,
  10 and 50 boards ending their games within one second; p50/p99, and the
  ratio to the baseline run side by side: the same rows handed to the event
  store directly (no broker, no MQTT);
* **catch-up**: a real board database with twenty games' worth of rows
  written while its link was down, then its real uplink started: the time
  until the server holds every row, against the same rows stored directly;
* **messages per game** (machine-independent): a real game on the board
  service (four players, fifteen placements, four "I agree"), reported by its
  real uplink, counted by topic as the broker delivers them.

Usage: .venv/bin/python bench/event.py [--waves 8] [--boards 3,10,50]
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import paho.mqtt.client as mqtt  # noqa: E402
from paho.mqtt.enums import CallbackAPIVersion  # noqa: E402

from games.hautetension.tournament_points import Lighting, game_points  # noqa: E402
from store.event.assignments import Assignments  # noqa: E402
from store.event.boards import Boards  # noqa: E402
from store.event.db import connect_event  # noqa: E402
from store.event.intake import Intake, ReportedRow, StatusReport  # noqa: E402
from store.event.results import Results  # noqa: E402
from store.tournaments import Tournaments  # noqa: E402
from tests.servers.mosquitto import MosquittoBroker  # noqa: E402
from tests.servers.process import find_binary, server_folder  # noqa: E402
from tests.uplink.helpers import EVENT, Board, Central, broker_settings, uplink_settings  # noqa: E402
from uplink.protocol import Leaf, dumps, topic  # noqa: E402

PLACEMENTS = 15
"""A four-player game lit three lamps in fifteen placements (one row each), as the test games do."""


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def game_rows(
    game: int, names: list[str], assignment: str
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """A board's outbox rows for one game (kind, game, body): before its end, and its end with the players'
    confirmation. The points are the engine's for lamps lit one by one (seats 1, 2, 3 by seat 0)."""
    lightings = [Lighting((seat,), by=0) for seat in range(1, len(names))]
    start = {
        "kind": "game-start",
        "game": game,
        "body": {
            "game": game,
            "assignment": assignment,
            "first": 0,
            "drawn": False,
            "handicap": {},
            "players": [
                {"name": n, "colour": c, "lamp": lamp}
                for n, c, lamp in zip(names, ("red", "blue", "black", "white"), "NESW", strict=False)
            ],
        },
    }
    moves = [
        {
            "kind": "placement",
            "game": game,
            "body": {
                "game": game,
                "slot": f"s{m}",
                "player": m % len(names),
                "move": m + 1,
                "lit": [],
                "eliminated": [],
                "to_move": (m + 1) % len(names),
            },
        }
        for m in range(PLACEMENTS)
    ]
    lamps = [
        {"kind": "lamps", "game": game, "body": {"lit": list("NESW"[:k]), "test": False, "safe": False}}
        for k in range(1, len(names))
    ]
    end = {
        "kind": "game-end",
        "game": game,
        "body": {
            "game": game,
            "assignment": assignment,
            "status": "over",
            "players": names,
            "moves": PLACEMENTS,
            "points": list(game_points(len(names), lightings)),
            "lightings": [x.to_dict() for x in lightings],
            "outcome": {"termination": "LAST_PLAYER_STANDING", "winners": [0]},
        },
    }
    agree = {
        "kind": "result-confirmed",
        "game": game,
        "body": {
            "game": game,
            "seats": list(range(len(names))),
            "by": "player",
            "confirmed": list(range(len(names))),
        },
    }
    return [start, *moves, *lamps], [end, agree]


class Publisher:
    """A simulated board: one MQTT client sending its outbox rows (numbered as a board numbers them)."""

    def __init__(self, broker: MosquittoBroker, board: str) -> None:
        self.board = board
        self.history = f"bench{random.randrange(16**6):06x}"
        self.seq = 0
        self.client = mqtt.Client(
            CallbackAPIVersion.VERSION2, client_id=f"bench-{board}", protocol=mqtt.MQTTv311
        )
        self.client.max_inflight_messages_set(100)
        self.client.connect(broker.host, broker.port)
        self.client.loop_start()
        self._send(
            Leaf.STATUS,
            {
                "online": True,
                "history": self.history,
                "first": 1,
                "game": None,
                "health": {"ok": True, "faults": []},
            },
            retain=True,
        )

    def _send(self, leaf: Leaf, body: dict[str, Any], *, retain: bool = False) -> Any:
        return self.client.publish(topic(EVENT, self.board, leaf), dumps(body), qos=1, retain=retain)

    def rows(self, rows: list[dict[str, Any]]) -> None:
        infos = []
        for row in rows:
            self.seq += 1
            infos.append(
                self._send(
                    Leaf.OUTBOX,
                    {"seq": self.seq, "history": self.history, "first": 1, "at": time.time(), **row},
                )
            )
        for info in infos:
            info.wait_for_publish(10)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def wave_setup(conn: Any, boards: list[str], wave: int) -> list[tuple[str, str, list[str]]]:
    """A tournament of 4 players a board, round 1 made and given to the boards: (board, assignment, names)."""
    store = Tournaments(conn)
    tid = store.create(f"Wave {wave}", seed=wave).id
    for n in range(4 * len(boards)):
        store.record(tid, lambda t, n=n: t.register(f"W{wave}P{n}"), actor="bench")
    store.record(tid, lambda t: t.next_round(), actor="bench")
    t = store.load(tid)
    tables = []
    for assignment in Assignments(conn).assign_round(tid):
        names = [t.names[p] for p in t.round(1).table(assignment.table).seats]
        assert assignment.board is not None
        tables.append((assignment.board, assignment.id, names))
    return tables


def entered(conn: Any, assignments: set[str]) -> dict[str, float]:
    rows = conn.execute(
        "SELECT assignment, entered_at FROM event_results WHERE status = 'entered'"
    ).fetchall()
    return {a: float(at) for a, at in rows if a in assignments}


def latency_through_broker(broker: MosquittoBroker, folder: Path, count: int, waves: int) -> dict[str, Any]:
    central = Central(folder / f"broker-{count}", broker_settings(broker)).start()
    boards = [f"sim-{n}" for n in range(1, count + 1)]
    publishers = [Publisher(broker, board) for board in boards]
    deadline = time.monotonic() + 30
    while len(Boards(central.conn).all()) < count and time.monotonic() < deadline:
        time.sleep(0.05)
    for index, board in enumerate(boards, start=1):
        Boards(central.conn).accept(board, f"Table {index}", actor="bench")
    samples: list[float] = []
    by_board = {p.board: p for p in publishers}
    for wave in range(waves):
        tables = wave_setup(central.conn, boards, wave)
        ends = {}
        for board, assignment, names in tables:
            before, end = game_rows(wave + 1, names, assignment)
            by_board[board].rows(before)
            ends[board] = (assignment, end)
        time.sleep(0.2)  # the games so far are in; now the round ends, within one second
        sent: dict[str, float] = {}
        order = list(ends)
        random.shuffle(order)
        for board in order:
            assignment, end = ends[board]
            sent[assignment] = time.time()
            by_board[board].rows(end)
            time.sleep(1.0 / count)
        deadline = time.monotonic() + 60
        while len(got := entered(central.conn, set(sent))) < len(sent) and time.monotonic() < deadline:
            time.sleep(0.02)
        samples += [got[a] - sent[a] for a in sent if a in got]
    duplicates = central.ingest.duplicates if central.ingest else 0
    for publisher in publishers:
        publisher.close()
    central.stop()
    return {
        "boards": count,
        "samples": len(samples),
        "expected": count * waves,
        "p50_ms": percentile(samples, 0.5) * 1e3,
        "p99_ms": percentile(samples, 0.99) * 1e3,
        "duplicates": duplicates,
    }


def latency_direct(folder: Path, count: int, waves: int) -> dict[str, Any]:
    """The baseline: the same rows given to the event store in this thread, no broker and no MQTT."""
    conn = connect_event(folder / f"direct-{count}.db")
    intake = Intake(conn, confirm_timeout=300)
    results = Results(conn)
    boards = [f"sim-{n}" for n in range(1, count + 1)]
    seq = dict.fromkeys(boards, 0)

    def rows(board: str, made: list[dict[str, Any]]) -> list[tuple[str, Any]]:
        out = []
        for row in made:
            seq[board] += 1
            out.append(
                (
                    board,
                    ReportedRow(seq[board], "direct", 1, row["kind"], row["game"], time.time(), row["body"]),
                )
            )
        return out

    intake.receive([(b, StatusReport({"online": True, "history": "direct", "first": 1})) for b in boards])
    for index, board in enumerate(boards, start=1):
        Boards(conn).accept(board, f"Table {index}", actor="bench")
    samples = []
    for wave in range(waves):
        tables = wave_setup(conn, boards, wave)
        for board, assignment, names in tables:
            before, end = game_rows(wave + 1, names, assignment)
            intake.receive(rows(board, before))
        for board, assignment, names in tables:
            _, end = game_rows(wave + 1, names, assignment)
            start = time.time()
            intake.receive(rows(board, end))
            results.settle()
            samples.append(entered(conn, {assignment})[assignment] - start)
    conn.close()
    return {"p50_ms": percentile(samples, 0.5) * 1e3, "p99_ms": percentile(samples, 0.99) * 1e3}


def catch_up(broker: MosquittoBroker, folder: Path, games: int, rows_per_game: int) -> dict[str, Any]:
    from tests.uplink.helpers import UplinkThread

    central = Central(folder / "catch-up", broker_settings(broker)).start()
    board = Board(folder / "catch-up-board", "late-board")
    board.outbox.enroll(EVENT, "late-board")
    board.write(games * rows_per_game)  # the games played while the link was down
    rows = board.outbox.last_seq()
    start = time.monotonic()
    uplink = UplinkThread(board, uplink_settings(broker_settings(broker), "late-board"))
    while central.acked("late-board") < rows:
        time.sleep(0.01)
    elapsed = time.monotonic() - start
    uplink.close()
    assert central.rows("late-board") == board.rows()
    central.stop()
    # The baseline: the same rows into a store directly, in batches as the ingest takes them.
    conn = connect_event(folder / "catch-up-direct.db")
    intake = Intake(conn, confirm_timeout=300)
    state = board.outbox.state()
    assert state is not None
    parsed = [
        (
            "late-board",
            ReportedRow(r.seq, state.history, state.first_seq, r.kind, r.game_id, r.at, json.loads(r.body)),
        )
        for r in board.outbox.rows(0, limit=10**6)
    ]
    direct_start = time.monotonic()
    for i in range(0, len(parsed), 500):
        intake.receive(parsed[i : i + 500])
    direct = time.monotonic() - direct_start
    conn.close()
    return {"games": games, "rows": rows, "seconds": elapsed, "direct_seconds": direct}


def messages_per_game(broker: MosquittoBroker, folder: Path) -> dict[str, int]:
    from tests.hardware.helpers import LiveService
    from tests.uplink.helpers import UplinkThread
    from tests.webpanel.helpers import Api, make_settings
    from webpanel.app import close_app, create_app

    counted: queue.Queue[tuple[str, int]] = queue.Queue()
    watcher = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv311)
    watcher.on_message = lambda _c, _u, m: counted.put((m.topic.rsplit("/", 1)[1], len(m.payload)))
    watcher.connect(broker.host, broker.port)
    watcher.subscribe(f"hautetension/{EVENT}/board/real-board/#", qos=1)
    watcher.loop_start()
    central = Central(folder / "count", broker_settings(broker)).start()
    settings = make_settings(folder / "real-board")
    live = LiveService(settings.database)
    app = create_app({"PANEL": settings, "TESTING": True})
    display = Api(app.test_client())
    uplink = UplinkThread(settings.database, uplink_settings(broker_settings(broker), "real-board"))
    time.sleep(1.5)
    conn = central.conn
    Boards(conn).accept("real-board", "Table 1", actor="bench")
    tid = Tournaments(conn).create("Count", seed=1).id
    for n in range(4):
        Tournaments(conn).record(tid, lambda t, n=n: t.register(f"C{n}"), actor="bench")
    Tournaments(conn).record(tid, lambda t: t.next_round(), actor="bench")
    Assignments(conn).assign_round(tid)
    while display.get("/api/table").get_json()["phase"] != "assigned":
        time.sleep(0.05)
    time.sleep(0.5)
    while not counted.empty():
        counted.get()  # what came before the game: the board's arrival
    display.post("/api/table/start", {})
    for slot in ("a9", "b9", "c9", "d9", "e9", "f9", "f8", "f7", "f6", "f5", "e4", "f4", "g4", "h4", "i4"):
        if display.get("/api/board").get_json()["game"]["status"] != "running":
            break
        display.post(f"/api/sim/slots/{slot}", {"pawn": "attack"})
        time.sleep(0.3)  # players are slower than that: each placement is its own live view
    for seat in range(4):
        display.post("/api/table/confirm", {"seat": seat})
    deadline = time.monotonic() + 20
    while (Results(conn).all() or [None])[0] is None or Results(conn).all()[0].status != "entered":
        if time.monotonic() > deadline:
            break
        time.sleep(0.05)
    time.sleep(1.0)
    counts: dict[str, int] = {}
    while not counted.empty():
        leaf, size = counted.get()
        counts[leaf] = counts.get(leaf, 0) + 1
        counts["bytes"] = counts.get("bytes", 0) + size
    uplink.close()
    close_app(app)
    live.stop()
    central.stop()
    watcher.disconnect()
    watcher.loop_stop()
    return counts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--waves", type=int, default=8, help="rounds ended per board count (default: %(default)s)"
    )
    parser.add_argument("--boards", default="3,10,50", help="board counts (default: %(default)s)")
    parser.add_argument("--catch-up-games", type=int, default=20)
    args = parser.parse_args()
    binary, passwd = find_binary("mosquitto"), find_binary("mosquitto_passwd")
    if binary is None or passwd is None:
        print("bench/event.py: Mosquitto is missing (apt-get install mosquitto)", file=sys.stderr)
        return 1
    load_before = os.getloadavg()
    broker = MosquittoBroker(
        server_folder("mosquitto"),
        binary=binary,
        passwd_binary=passwd,
        extra=["max_inflight_messages 100", "max_queued_messages 100000"],
    )
    broker.start()
    folder = Path(tempfile.mkdtemp(prefix="hautetension-bench-event-"))
    try:
        counts = messages_per_game(broker, folder)
        outbox_rows = counts.get("outbox", 0)
        print(
            f"Messages the broker delivered for one real game (4 players, 15 placements, 4 'I agree'):"
            f" {json.dumps(counts, sort_keys=True)},"
            f" {sum(v for k, v in counts.items() if k != 'bytes')} messages in all"
        )
        print()
        print(f"Game end on a board -> result in the standings ({args.waves} waves, each ending within 1 s)")
        print(
            f"  {'boards':>6} {'samples':>9} {'p50 ms':>8} {'p99 ms':>8}"
            f" {'direct p50':>11} {'direct p99':>11}"
            f" {'p50 x direct':>13} {'p50 x 3':>8} {'resent':>7}"
        )
        rows = []
        for count in (int(n) for n in args.boards.split(",")):
            via = latency_through_broker(broker, folder, count, args.waves)
            direct = latency_direct(folder, count, args.waves)
            rows.append((via, direct))
            base = rows[0][0]["p50_ms"]
            print(
                f"  {count:>6} {via['samples']:>4}/{via['expected']:<4}"
                f" {via['p50_ms']:8.1f} {via['p99_ms']:8.1f}"
                f" {direct['p50_ms']:11.1f} {direct['p99_ms']:11.1f} {via['p50_ms'] / direct['p50_ms']:13.1f}"
                f" {via['p50_ms'] / base:8.2f} {via['duplicates']:>7}"
            )
        print()
        caught = catch_up(broker, folder, args.catch_up_games, max(outbox_rows, 1))
        print(
            f"Catch-up of a board that missed {caught['games']} games ({caught['rows']} rows,"
            f" {max(outbox_rows, 1)} a game): {caught['seconds']:.2f} s through the broker"
            f" ({caught['rows'] / caught['seconds']:.0f} rows/s),"
            f" {caught['direct_seconds']:.2f} s stored directly"
            f" (x{caught['seconds'] / caught['direct_seconds']:.1f})"
        )
        load_after = os.getloadavg()
        print(
            f"\nLoad average before/after: {load_before[0]:.2f} / {load_after[0]:.2f} (1 min),"
            f" {os.cpu_count()} CPUs"
        )
        print(json.dumps({"messages_per_game": counts, "latency": rows, "catch_up": caught}, default=float))
    finally:
        broker.kill()
        shutil.rmtree(broker.folder, ignore_errors=True)
        shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
