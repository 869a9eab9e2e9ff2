"""Benchmark: the event network — a board's game end to the standings, catching up, messages per game.

Runs Debian's Mosquitto on a loopback port and the event server's ingest in
this process (its own thread and database, as ``hautetension central`` runs
it), then measures:

* **game end → standings**: simulated boards (lightweight publishers: one
  MQTT client each, all driven by one epoll loop, :class:`Fleet`, sending the
  rows a board's outbox holds) play waves of a
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
import concurrent.futures
import contextlib
import json
import os
import queue
import random
import resource
import selectors
import shutil
import socket
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar, cast

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import paho.mqtt.client as mqtt  # noqa: E402
from paho.mqtt.enums import CallbackAPIVersion  # noqa: E402

from games.hautetension.game import Game  # noqa: E402
from games.hautetension.layout import load_layout  # noqa: E402
from games.hautetension.reported import ReportedGame  # noqa: E402
from games.hautetension.seats import default_seats  # noqa: E402
from protocol import (  # noqa: E402
    Leaf,
    ReportedRow,
    StatusReport,  # noqa: E402
    dumps,
    topic,
)
from store.event.assignments import Assignments  # noqa: E402
from store.event.boards import Boards  # noqa: E402
from store.event.db import connect_event  # noqa: E402
from store.event.intake import Intake  # noqa: E402
from store.event.results import Results  # noqa: E402
from store.tournaments import Tournaments  # noqa: E402
from tests.servers.mosquitto import MosquittoBroker  # noqa: E402
from tests.servers.process import find_binary, server_folder  # noqa: E402
from tests.uplink.helpers import EVENT, Board, Central, broker_settings, uplink_settings  # noqa: E402
from tournaments.points import lightings_of  # noqa: E402

T = TypeVar("T")

PLACEMENTS = 15
"""A four-player game lit three lamps in fifteen placements (one row each), as the test games do."""


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def played_game(names: list[str], first: int) -> Game:
    """A four-player game lighting three lamps in fifteen placements: whoever's turn it is fills the
    straight row of the next seat's lamp after the first player, then the next one, then the next (one
    row each: fifteen pawns on three straight rows close no diagonal)."""
    layout = load_layout()
    game = Game(layout, default_seats(names), first=first)
    for step in range(1, len(names)):
        lamp = game.seats[(first + step) % len(names)].lamp
        for slot in layout.straight_rows_of(lamp)[0].slots:
            game.push(slot, "attack")
    assert game.is_over() and len(game.history) == PLACEMENTS
    return game


def game_rows(
    game: int, names: list[str], assignment: str, first: int
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """A board's outbox rows for one game (kind, game, body): before its end, and its end with the players'
    confirmation. The game is :func:`played_game`; its end carries its public record, as a board's does."""
    played = played_game(names, first)
    start = {
        "kind": "game-start",
        "game": game,
        "body": {
            "game": game,
            "assignment": assignment,
            "first": first,
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
                "slot": p.slot,
                "player": p.player,
                "move": m + 1,
                "lit": sorted(p.lit),
                "eliminated": list(p.eliminated),
                "to_move": None,
            },
        }
        for m, p in enumerate(played.history)
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
            "moves": PLACEMENTS,
            "lightings": [x.to_dict() for x in lightings_of(played.history)],
            "outcome": {"termination": "LAST_PLAYER_STANDING", "winners": [0]},
            **ReportedGame.of_game(played).to_json(),
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


class Fleet:
    """Many simulated boards' MQTT clients driven by one thread through the operating system's selector.

    paho's own loop (``loop_start``: a thread a client) watches its socket with ``select()``, which
    cannot watch a descriptor above 1023: one process then holds about 340 clients, and the ones
    above that limit never send a byte, silently (paho takes the error for a lost connection).
    Here paho's external-loop interface (``loop_read``/``loop_write``/``loop_misc`` and the socket
    callbacks) runs every client on one ``selectors`` loop (epoll): any number of boards, and no
    thread per board competing with the servers measured. Every paho call runs on that thread
    (:meth:`call`), so the selector is only ever touched there.
    """

    MISC_S = 1.0
    """How often every client's keepalive and retries are serviced (paho's ``loop_misc``)."""

    def __init__(self) -> None:
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if soft != resource.RLIM_INFINITY and (hard == resource.RLIM_INFINITY or soft < hard):
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # a descriptor a board, and more
        self.selector = selectors.DefaultSelector()
        self.clients: list[mqtt.Client] = []
        self._calls: queue.Queue[tuple[Callable[[], Any], concurrent.futures.Future[Any]]] = queue.Queue()
        self._wake_read, self._wake_write = socket.socketpair()
        self._wake_read.setblocking(False)
        self.selector.register(self._wake_read, selectors.EVENT_READ, None)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="fleet", daemon=True)
        self._thread.start()

    def call(self, work: Callable[[], T], timeout: float = 30.0) -> T:
        """Run *work* on the fleet's thread; its result."""
        done: concurrent.futures.Future[Any] = concurrent.futures.Future()
        self._calls.put((work, done))
        self._wake_write.send(b"!")
        return cast(T, done.result(timeout))

    def client(self, client_id: str) -> mqtt.Client:
        """A new client on this loop (connect and publish it through :meth:`call`)."""
        client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id, protocol=mqtt.MQTTv311)
        client.on_socket_open = self._opened
        client.on_socket_close = self._closed
        client.on_socket_register_write = self._wants_write
        client.on_socket_unregister_write = self._written
        self.clients.append(client)
        return client

    # paho's socket callbacks (on the fleet's thread: every paho call is made there)

    def _opened(self, client: mqtt.Client, _userdata: Any, sock: Any) -> None:
        self.selector.register(sock, selectors.EVENT_READ, client)

    def _closed(self, _client: mqtt.Client, _userdata: Any, sock: Any) -> None:
        with contextlib.suppress(KeyError, ValueError):  # the fleet closed first (a client collected later)
            self.selector.unregister(sock)

    def _wants_write(self, client: mqtt.Client, _userdata: Any, sock: Any) -> None:
        self._watch(sock, selectors.EVENT_READ | selectors.EVENT_WRITE, client)

    def _written(self, client: mqtt.Client, _userdata: Any, sock: Any) -> None:
        self._watch(sock, selectors.EVENT_READ, client)

    def _watch(self, sock: Any, events: int, client: mqtt.Client) -> None:
        with contextlib.suppress(KeyError, ValueError):  # closing: paho drops its write wish last
            self.selector.modify(sock, events, client)

    def _run(self) -> None:
        misc_at = time.monotonic()
        while not self._stop.is_set():
            for key, mask in self.selector.select(timeout=0.1):
                client = key.data
                if client is None:
                    self._run_calls()
                    continue
                if mask & selectors.EVENT_READ:
                    client.loop_read()
                if mask & selectors.EVENT_WRITE and client.socket() is not None:
                    client.loop_write()
            if time.monotonic() >= misc_at:
                misc_at = time.monotonic() + self.MISC_S
                for client in self.clients:
                    client.loop_misc()

    def _run_calls(self) -> None:
        with contextlib.suppress(BlockingIOError):
            while self._wake_read.recv(4096):
                pass
        while True:
            try:
                work, done = self._calls.get_nowait()
            except queue.Empty:
                return
            try:
                done.set_result(work())
            except Exception as exc:  # handed to the caller
                done.set_exception(exc)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        self.selector.close()
        self._wake_read.close()
        self._wake_write.close()


class Publisher:
    """A simulated board: one MQTT client on a :class:`Fleet`, sending its outbox rows (numbered as a
    board numbers them), its retained status first."""

    def __init__(self, fleet: Fleet, broker: MosquittoBroker, board: str) -> None:
        self.fleet = fleet
        self.board = board
        self.history = f"bench{random.randrange(16**6):06x}"
        self.seq = 0
        self.client = fleet.client(f"bench-{board}")
        self.client.max_inflight_messages_set(100)
        status = {
            "online": True,
            "history": self.history,
            "first": 1,
            "game": None,
            "health": {"ok": True, "faults": []},
        }

        def connect() -> mqtt.MQTTMessageInfo:
            self.client.connect(broker.host, broker.port)
            return self._send(Leaf.STATUS, status, retain=True)

        self.status = fleet.call(connect)
        """The status message (:meth:`MQTTMessageInfo.is_published` once the broker has it)."""

    def _send(self, leaf: Leaf, body: dict[str, Any], *, retain: bool = False) -> mqtt.MQTTMessageInfo:
        return self.client.publish(topic(EVENT, self.board, leaf), dumps(body), qos=1, retain=retain)

    def rows(self, rows: list[dict[str, Any]]) -> None:
        def send() -> list[mqtt.MQTTMessageInfo]:
            infos = []
            for row in rows:
                self.seq += 1
                body = {"seq": self.seq, "history": self.history, "first": 1, "at": time.time(), **row}
                infos.append(self._send(Leaf.OUTBOX, body))
            return infos

        for info in self.fleet.call(send):
            info.wait_for_publish(10)

    def close(self) -> None:
        self.fleet.call(self.client.disconnect)


ARRIVAL_S = 30.0
ARRIVAL_PER_BOARD_S = 0.1
"""How long the event server may take to list newly connected boards: 30 s, and 0.1 s a board."""


class DeadlineError(RuntimeError):
    """The event server did not get there in time (the message says how far it got)."""


def connect_boards(
    fleet: Fleet,
    broker: MosquittoBroker,
    boards: list[str],
    listed: Callable[[], set[str]],
    progress: Callable[[], str] = lambda: "",
) -> list[Publisher]:
    """A simulated board for each of *boards*, and the wait until the event server lists them all
    (*listed*: the boards its store holds); past the deadline a :class:`DeadlineError` telling how
    many statuses the broker acknowledged and how many boards the server lists (and *progress*)."""
    publishers = [Publisher(fleet, broker, board) for board in boards]

    def failure() -> str:
        missing = set(boards) - listed()
        published = sum(p.status.is_published() for p in publishers)
        return (
            f"after {len(boards)} simulated boards connected, the event server lists"
            f" {len(boards) - len(missing)} of them (not {', '.join(sorted(missing)[:3])}, …);"
            f" the broker acknowledged {published} statuses. {progress()}".strip()
        )

    wait_until(lambda: not set(boards) - listed(), ARRIVAL_S + ARRIVAL_PER_BOARD_S * len(boards), failure)
    return publishers


def wait_until(done: Callable[[], bool], limit: float, failure: Callable[[], str]) -> None:
    """Poll *done* until it holds; after *limit* seconds a :class:`DeadlineError` saying ``failure()``."""
    deadline = time.monotonic() + limit
    while not done():
        if time.monotonic() > deadline:
            raise DeadlineError(f"{limit:.0f} s passed: {failure()}")
        time.sleep(0.05)


def wave_setup(conn: Any, boards: list[str], wave: int) -> list[tuple[str, str, list[str], int]]:
    """A tournament of 4 players a board, round 1 made and given to the boards: (board, assignment, names
    in seat order, first seat).
    The players are registered in one transaction (one by one, 2,000 players would be 2,000 replays)."""
    store = Tournaments(conn)
    tid = store.create(f"Wave {wave}", seed=wave).id
    names = [f"W{wave}P{n}" for n in range(4 * len(boards))]
    store.record_each(tid, [(lambda t, n=n: t.register(n), "bench", None) for n in names])
    store.record(tid, lambda t: t.next_round(), actor="bench")
    t = store.load(tid)
    tables = []
    for assignment in Assignments(conn).assign_round(tid):
        table = t.round(1).table(assignment.table)
        assert assignment.board is not None
        tables.append((assignment.board, assignment.id, [t.names[p] for p in table.seats], table.first))
    return tables


def entered(conn: Any, assignments: set[str]) -> dict[str, float]:
    rows = conn.execute(
        "SELECT assignment, entered_at FROM event_results WHERE status = 'entered'"
    ).fetchall()
    return {a: float(at) for a, at in rows if a in assignments}


def latency_through_broker(broker: MosquittoBroker, folder: Path, count: int, waves: int) -> dict[str, Any]:
    central = Central(folder / f"broker-{count}", broker_settings(broker)).start()
    boards = [f"sim-{n}" for n in range(1, count + 1)]
    fleet = Fleet()
    publishers = connect_boards(fleet, broker, boards, lambda: {b.id for b in Boards(central.conn).all()})
    for index, board in enumerate(boards, start=1):
        Boards(central.conn).accept(board, f"Table {index}", actor="bench")
    samples: list[float] = []
    by_board = {p.board: p for p in publishers}
    for wave in range(waves):
        tables = wave_setup(central.conn, boards, wave)
        ends = {}
        for board, assignment, names, first in tables:
            before, end = game_rows(wave + 1, names, assignment, first)
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
    fleet.close()
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
        for board, assignment, names, first in tables:
            before, end = game_rows(wave + 1, names, assignment, first)
            intake.receive(rows(board, before))
        for board, assignment, names, first in tables:
            _, end = game_rows(wave + 1, names, assignment, first)
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


def bench_broker() -> MosquittoBroker | None:
    """Debian's Mosquitto on a free loopback port, anonymous, with room for many boards (not started);
    None when it is not installed."""
    binary, passwd = find_binary("mosquitto"), find_binary("mosquitto_passwd")
    if binary is None or passwd is None:
        return None
    return MosquittoBroker(
        server_folder("mosquitto"),
        binary=binary,
        passwd_binary=passwd,
        extra=["max_inflight_messages 100", "max_queued_messages 100000", "sys_interval 1"],
    )


class DropWatcher:
    """The broker's count of messages it dropped (a client's queue full), watched from its start:
    ``$SYS/broker/publish/messages/dropped`` is published when it changes (at most every second),
    so a watcher that came later would hear nothing while it stays 0."""

    def __init__(self, broker: MosquittoBroker) -> None:
        self.dropped: int | None = None
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv311)
        self.client.on_message = self._on_message
        self.client.connect(broker.host, broker.port)
        self.client.subscribe("$SYS/broker/publish/messages/dropped")
        self.client.loop_start()

    def _on_message(self, _client: mqtt.Client, _userdata: Any, message: mqtt.MQTTMessage) -> None:
        self.dropped = int(message.payload)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--waves", type=int, default=8, help="rounds ended per board count (default: %(default)s)"
    )
    parser.add_argument("--boards", default="3,10,50", help="board counts (default: %(default)s)")
    parser.add_argument("--catch-up-games", type=int, default=20)
    args = parser.parse_args()
    broker = bench_broker()
    if broker is None:
        print("bench/event.py: Mosquitto is missing (apt-get install mosquitto)", file=sys.stderr)
        return 1
    load_before = os.getloadavg()
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
