"""Chaos: rounds of a tournament on three boards while faults strike, and the event still adds up.

Everything is a real process or a real server, driven from outside: Mosquitto with one password per
board and the event's ACL, ``hautetension central`` (the event server: its pages and its ingest) on
PostgreSQL or on SQLite, three board Pis (the board service on the simulated board and the board's
panel, as in ``test_event_round.py``) each with its ``hautetension uplink`` as a process of its own.
Staff use the event server's pages over HTTP (accept the boards, register twelve players, make each
round); the players play each table to its end on its board and every seat taps "I agree". Rounds are
played while the faults strike (one at least, three at most), and one more once they stopped: the
event must still work after them, not only keep what came before.

Faults strike one after another, every kind once, in an order, on targets and for durations drawn
from a seed:

* ``kill-broker``, ``kill-central``, ``kill-uplink``: kill -9, down a few seconds, started again (as
  systemd restarts a unit);
* ``sigstop``: SIGSTOP, then SIGCONT, of the broker, the event server, an uplink or PostgreSQL;
* ``stop-postgres``: PostgreSQL stopped, then started again (PostgreSQL runs only);
* ``disk-full``: the event database's file system filled to the last block, then freed (a tmpfs of
  its own, mounted for the test; where mounting is not allowed the fault is logged as not possible);
* ``reorder``: a board's uplink is stopped while its game goes on (until every seat agreed to its
  result, at most :data:`REORDER_MAX_S`), then someone holding the board's password publishes the
  rows the server does not have yet backwards, the last ones first and on their own (the players'
  confirmations before their game's end), each twice, then copies of rows the server has, shuffled;
* ``garbage``: someone holding a board's password publishes garbage on that board's own topics: JSON
  nested 5,000 deep, a game end whose points hold ``"x"``, numbers of 2^63, NaN, wrong types, bytes
  that are no JSON, an empty message, a 1 MB row and a 1 MB live view.

Every process of the event is watched as systemd would: one that ends without a fault is started
again, and noted. Every public page (the wall, its API, the boards, the tournament) is polled during
the whole run, and every answer's status recorded; so is every staff request, and someone of the
staff logs in during every fault that lasts.

The invariant, checked once the faults stopped and the event server's own counts converged (a
bounded wait, whose deadline message says how far each board and each round got):

* every board row is stored exactly once: the server holds, for each board's history, exactly the
  rows of the board's outbox (same numbers, same bodies), none twice;
* every honest result is entered exactly once: each table of each round has exactly one result in
  the tournament's audit trail, from its board, with the points its board computed;
* no page answered 500, ever (a server that is down does not answer; one that cannot serve says 503);
* no process of the event ended by itself, nor a thread of the event server (the ingest: Python's
  report of a thread's uncaught exception in the server's log).

Replay: the seed is logged at the start and in every failure message; run
``HAUTETENSION_CHAOS_SEED=<seed> .venv/bin/python -m pytest tests/uplink/test_chaos.py -p no:randomly``
to strike the same faults in the same order (the timing of the machine still varies).
``HAUTETENSION_CHAOS_FAULTS=kill-broker,garbage`` keeps only those kinds of faults.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import errno
import http.client
import http.cookiejar
import json
import logging
import os
import random
import shutil
import signal
import subprocess
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest

from store.db import open_database
from tests.hardware.helpers import LiveService
from tests.servers.mosquitto import MosquittoBroker
from tests.servers.postgres import PostgresCluster, find_postgres_bindir
from tests.servers.process import server_folder
from tests.uplink.helpers import BIN, BOARDS, EVENT, USERS, Board, UplinkProcess, event_broker, wait_for
from tests.uplink.test_central_processes import CentralProcess
from tests.uplink.test_event_round import VirtualBoard
from tests.webpanel.helpers import PIN, PIN_HASH, Api, make_settings
from webpanel.app import close_app, create_app

SEED_VARIABLE = "HAUTETENSION_CHAOS_SEED"
FAULTS_VARIABLE = "HAUTETENSION_CHAOS_FAULTS"
KINDS = ("kill-broker", "kill-central", "kill-uplink", "sigstop", "stop-postgres", "disk-full", "reorder",
         "garbage")
PLANNED = {"kill-broker": "broker", "kill-central": "central", "stop-postgres": "postgres",
           "disk-full": "postgres"}
"""What a fault ends on purpose (``kill-uplink``: its board's uplink). PostgreSQL stops itself when it
cannot write its log (disk full), and is started again as its unit would be."""
MOST_ROUNDS_UNDER_FAULTS = 3
"""Rounds played while the faults strike, at most (a twelve-player tournament's first three rounds have
a table for every board); one more is played once they stopped."""
PLAYERS = 12
ROUND_S = 120.0
"""How long a round may take under faults: its tables reaching the boards, played, their results entered."""
CONVERGE_S = 90.0
"""How long the event server may take to hold every row and result once the faults stopped."""
DISK_MB = {"sqlite": 48, "postgresql": 160}
"""The event database's own file system: room for the database, and small enough to fill at once."""

REORDER_MAX_S = 20.0
"""How long a reordering fault waits for a game on its board, then for its end and every seat's "I agree"."""

log = logging.getLogger("chaos")


# -- the record of the run ------------------------------------------------------------------------


class Journal:
    """What happened, with the time since the start: every fault, every restart, every surprise."""

    def __init__(self, seed: int, engine: str) -> None:
        self.seed = seed
        self.engine = engine
        self.start = time.monotonic()
        self.lines: list[str] = []
        self._lock = threading.Lock()

    def note(self, text: str) -> None:
        line = f"{time.monotonic() - self.start:7.1f}s {text}"
        with self._lock:
            self.lines.append(line)
        log.warning("%s", line)

    def replay(self) -> str:
        return f"{SEED_VARIABLE}={self.seed} ({self.engine})"

    def __str__(self) -> str:
        with self._lock:
            lines = list(self.lines)
        return f"replay with {self.replay()}; what happened:\n" + "\n".join(lines)


# -- HTTP, as a browser does it -------------------------------------------------------------------


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None  # the 303 itself is the answer


DOWN = 0
"""The status recorded when the server did not answer at all (down, stopped, or too slow)."""


@dataclass
class Answers:
    """Every status the event server gave, by page, and the 500s in full."""

    statuses: Counter[tuple[str, int]] = field(default_factory=Counter)
    errors: list[str] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, page: str, status: int, body: bytes, at: float) -> None:
        with self._lock:
            self.statuses[(page, status)] += 1
            if status >= 500 and status != 503:
                self.errors.append(f"{at:7.1f}s {page} answered {status}: {body[:300]!r}")

    def summary(self) -> str:
        with self._lock:
            return ", ".join(f"{page} {status or 'no answer'}: {n}" for (page, status), n in
                             sorted(self.statuses.items()))


class Browser:
    """A browser on the event server: its cookies and CSRF token; redirects are answers, not followed."""

    def __init__(self, port: int, answers: Answers, journal: Journal) -> None:
        self.base = f"http://127.0.0.1:{port}"
        self.answers = answers
        self.journal = journal
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()), _NoRedirect()
        )
        self.token = ""

    def request(self, method: str, path: str, *, json_body: Any = None, form: dict[str, str] | None = None,
                timeout: float = 5.0) -> tuple[int, bytes]:
        data, headers = None, {"X-CSRF-Token": self.token} if self.token else {}
        if json_body is not None:
            data, headers["Content-Type"] = json.dumps(json_body).encode(), "application/json"
        elif form is not None:
            data = urllib.parse.urlencode(form).encode()
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        request = urllib.request.Request(self.base + path, data=data, headers=headers, method=method)
        try:
            with self.opener.open(request, timeout=timeout) as response:
                status, body = int(response.status), response.read()
        except urllib.error.HTTPError as exc:
            status, body = exc.code, exc.read()
            exc.close()
        except (OSError, ValueError, http.client.HTTPException):  # refused, cut, timed out: down or stopped
            status, body = DOWN, b""
        page = path.split("?")[0] if method == "GET" else f"{method} {path}"
        self.answers.add(page, status, body, time.monotonic() - self.journal.start)
        return status, body

    def get_json(self, path: str) -> Any:
        status, body = self.request("GET", path)
        return json.loads(body) if status == 200 else None


class Staff(Browser):
    """Staff at the event server's pages, logged in again whenever the session is lost."""

    def login(self) -> bool:
        self.token = ""
        session = self.get_json("/api/session")
        if session is None:
            return False
        self.token = session["csrf_token"]
        status, body = self.request("POST", "/api/staff/login", json_body={"pin": PIN})
        if status != 200:
            return False
        self.token = json.loads(body)["csrf_token"]
        return True

    def act(self, method: str, path: str, *, done: Callable[[], bool] | None = None, deadline: float,
            **options: Any) -> None:
        """Send until the server takes it (and *done* holds, when given): a server that is down, stopped
        or failing is asked again, as staff would press the button again."""
        while True:
            if self.token or self.login():
                status, body = self.request(method, path, **options)
                if status in (401, 403) or status == 400 and b"csrf" in body.lower():
                    self.token = ""
                elif 200 <= status < 400 and (done is None or done()):
                    return
            if time.monotonic() > deadline:
                raise AssertionError(f"staff could not {method} {path} in time; {self.journal}")
            time.sleep(0.5)


class Spectators:
    """Someone looking at every public page all the time: every answer recorded."""

    def __init__(self, browser: Browser, pages: Callable[[], list[str]]) -> None:
        self.browser = browser
        self.pages = pages
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="spectators", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            for page in self.pages():
                self.browser.request("GET", page, timeout=3.0)
                if self._stop.wait(0.25):
                    return

    def close(self) -> None:
        self._stop.set()
        self._thread.join(10)


# -- the event's machines -------------------------------------------------------------------------


class Disk:
    """The event database's file system: a small tmpfs of its own that a fault fills to the last block.

    Mounting needs root (and the right to mount, which a container may not give): otherwise the
    folder is an ordinary one and :attr:`mounted` is False (the fault is then logged as impossible).
    """

    def __init__(self, size_mb: int) -> None:
        self.path = server_folder("chaos-disk")
        self.mounted = False
        if os.geteuid() == 0 and shutil.which("mount"):
            done = subprocess.run(
                ["mount", "-t", "tmpfs", "-o", f"size={size_mb}m,mode=0755", "tmpfs", str(self.path)],
                capture_output=True,
            )
            self.mounted = done.returncode == 0
        self.filler = self.path / "filler"

    def fill(self) -> int:
        """Take every free block; the bytes taken."""
        stat = os.statvfs(self.path)
        size = stat.f_bavail * stat.f_frsize
        with self.filler.open("ab", buffering=0) as filler:
            with contextlib.suppress(OSError):
                os.posix_fallocate(filler.fileno(), 0, size)
            chunk = b"\0" * 4096
            while True:  # what the allocation left (another writer took or freed some meanwhile)
                try:
                    filler.write(chunk)
                except OSError as exc:
                    if exc.errno != errno.ENOSPC:
                        raise
                    break
        return self.filler.stat().st_size

    def free(self) -> None:
        self.filler.unlink(missing_ok=True)

    def close(self) -> None:
        self.free()
        umount = ["umount", str(self.path)]
        if self.mounted and subprocess.run(umount, capture_output=True).returncode != 0:
            # Still busy: detached now, gone when its last file is closed.
            subprocess.run(["umount", "-l", str(self.path)], capture_output=True)
        shutil.rmtree(self.path, ignore_errors=True)


class EventServer(CentralProcess):
    """``hautetension central`` as its unit runs it, with a staff PIN, logging to a file (a pipe nobody
    reads would fill and stop it)."""

    def __init__(self, folder: Path, *, database: str, broker: MosquittoBroker) -> None:
        super().__init__(folder, dsn=database, broker=broker, instance="1")
        with self.config.open("a") as config:  # [panel] is the file's last section
            config.write(f'staff_pin_hash = "{PIN_HASH}"\n')
        self.log = folder / "central.log"

    def start(self) -> EventServer:
        env = {k: v for k, v in os.environ.items() if k != "HAUTETENSION_CONFIG"}
        with self.log.open("ab") as output:
            self.proc = subprocess.Popen(
                [str(BIN), "central", "--config", str(self.config)], env=env, stdout=output,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + 60
        while not self._answers():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"the event server did not start: {self.log_tail()}")
            time.sleep(0.1)
        return self

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc is not None and self.proc.poll() is None else None

    def ended(self) -> int | None:
        """The exit status if the process ended (by itself: a fault's kill forgets it)."""
        return self.proc.poll() if self.proc is not None else None

    def log_tail(self, lines: int = 20) -> str:
        text = self.log.read_text(errors="replace") if self.log.exists() else ""
        return "\n".join(text.splitlines()[-lines:])

    def dead_threads(self) -> list[str]:
        """Each thread of the event server that ended on an exception (Python's own report of it,
        in the log of every run of the process): its name, and the exception's last line."""
        lines = self.log.read_text(errors="replace").splitlines() if self.log.exists() else []
        found = []
        for index, line in enumerate(lines):
            if line.startswith("Exception in thread"):
                error = next((x for x in lines[index + 1:] if x and not x.startswith((" ", "Traceback"))), "")
                found.append(f"{line.rstrip(':')}: {error}")
        return found


class ChaosBoard(VirtualBoard):
    """A board Pi of ``test_event_round.py``'s round, its uplink a process of its own (``kill -9`` it,
    SIGSTOP it), its database readable from outside as its SD card is."""

    def __init__(self, folder: Path, broker: MosquittoBroker, board_id: str) -> None:
        self.card = Board(folder, board_id)
        settings = make_settings(folder, database=self.card.path)
        self.id = board_id
        self.service = LiveService(settings.database)
        self.app = create_app({"PANEL": settings, "TESTING": True})
        self.display = Api(self.app.test_client())
        self.uplink = UplinkProcess(self.card, broker).start()  # type: ignore[assignment]

    @property
    def uplink_process(self) -> UplinkProcess:
        assert isinstance(self.uplink, UplinkProcess)
        return self.uplink

    def clear(self) -> None:
        """The players take the last game's pawns off the board before the next one."""
        for slot in self.display.get("/api/board").get_json()["pawns"]:
            assert self.display.post(f"/api/sim/slots/{slot}", {"pawn": None}).status_code == 200
        wait_for(lambda: not self.display.get("/api/board").get_json()["pawns"], what=f"{self.id} cleared")

    def outbox(self) -> tuple[str, list[tuple[int, Any]]]:
        """The board's history and its outbox rows ``(seq, body)``: what the server must hold."""
        state = self.card.outbox.state()
        assert state is not None
        return state.history, [(seq, json.loads(body)) for seq, body in self.card.rows()]

    def close(self) -> None:
        uplink = self.uplink_process
        if uplink.proc is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(uplink.proc.pid, signal.SIGCONT)
            if uplink.alive():
                uplink.kill()
        close_app(self.app)
        self.service.stop()
        self.card.conn.close()


# -- someone with a board's password --------------------------------------------------------------


def _topic(board: str, leaf: str) -> str:
    return f"hautetension/{EVENT}/board/{board}/{leaf}"


Message = tuple[str, bytes, bool]
"""What is published: the topic's last word (``outbox``, ``live``, ``status``), the payload, retained."""


def publish_as(broker: MosquittoBroker, board: str, *groups: list[Message], pause_s: float = 1.5,
               timeout: float = 20.0) -> int:
    """Connect with the board's own password (a client of its own: a copied SD card) and publish each
    group of messages at QoS 1, *pause_s* apart (so that the server takes each in a batch of its own);
    how many the broker took in time."""
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"hostile-{board}",
                         protocol=mqtt.MQTTv311)
    client.username_pw_set(board, USERS[board])
    client.max_inflight_messages_set(sum(map(len, groups)) + 1)
    try:
        client.connect("127.0.0.1", broker.port, keepalive=5)
    except OSError:
        return 0
    client.loop_start()
    taken = 0
    try:
        deadline = time.monotonic() + timeout
        for number, messages in enumerate(groups):
            if number:
                time.sleep(pause_s)
            infos = [client.publish(_topic(board, leaf), payload, qos=1, retain=retain)
                     for leaf, payload, retain in messages]
            for info in infos:
                with contextlib.suppress(RuntimeError, ValueError):  # the broker cut the sender
                    info.wait_for_publish(max(0.1, deadline - time.monotonic()))
                    taken += info.is_published()
    finally:
        client.disconnect()
        client.loop_stop()
    return taken


def garbage(board: ChaosBoard, rng: random.Random) -> list[Message]:
    """What a hostile board sends on its own topics, under a history of its own (so that it never
    collides with the board's real rows)."""
    history = f"hostile{rng.randrange(16**6):06x}"
    state = board.card.outbox.state()
    table = (state.assignment or {}).get("assignment") if state else None
    deep = b"[" * 5000 + b"]" * 5000

    def row(seq: Any, kind: str, body: Any, game: Any = 1) -> bytes:
        message = {"seq": seq, "history": history, "first": 1, "kind": kind, "game": game, "at": 1.0,
                   "body": body}
        return json.dumps(message, sort_keys=True, separators=(",", ":")).encode()

    end = {"game": 1, "assignment": table or "0" * 32, "status": "over", "players": ["A", "B", "C", "D"],
           "moves": 15, "points": ["x", 2, 0, 4], "lightings": [], "outcome": {"winners": [0]}}
    messages = [
        ("outbox", deep, False),
        ("live", deep, False),
        ("status", deep, True),
        ("outbox", row(1, "game-end", end), False),
        ("outbox", row(2**63, "placement", {"game": 1, "slot": "a9"}), False),
        ("outbox", row(3, "game-start", {"game": 2**63, "players": []}, game=2**63), False),
        ("outbox", row(4, "placement", {"game": 1, "slot": "a9"}).replace(b'"at":1.0', b'"at":NaN'), False),
        ("outbox", json.dumps({"seq": "one", "history": 5, "kind": ["x"], "body": "?"}).encode(), False),
        ("outbox", b"\xff\xfe not json \x00", False),
        ("outbox", b"", False),
        # Within the broker's packet limit, beyond the reader's bounds:
        ("live", b"{" + b'"pawns":' + json.dumps("x" * 200_000).encode() + b"}", False),
        ("outbox", row(5, "placement", {"game": 1, "slot": "a9", "note": "x" * 200_000}), False),
    ]
    rng.shuffle(messages)
    # Beyond the broker's packet limit: it cuts the sender, so these go last (nothing after them would be
    # sent on that connection).
    return messages + [
        ("live", b"{" + b'"pawns":' + json.dumps("x" * (1 << 20)).encode() + b"}", False),
        ("outbox", row(6, "placement", {"game": 1, "slot": "a9", "note": "x" * (1 << 20)}), False),
    ]


# -- the event ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Fault:
    kind: str
    target: str
    after_s: float
    """The pause before it strikes."""
    lasting_s: float

    def __str__(self) -> str:
        return f"{self.kind} {self.target} for {self.lasting_s:.1f} s".replace("  ", " ")


def draw_schedule(rng: random.Random, engine: str, kinds: list[str]) -> list[Fault]:
    """Every kind of fault once (PostgreSQL's own on PostgreSQL only), in an order drawn from *rng*."""
    chosen = [k for k in kinds if engine == "postgresql" or k != "stop-postgres"]
    rng.shuffle(chosen)
    stoppable = ["broker", "central", *BOARDS] + (["postgres"] if engine == "postgresql" else [])
    schedule = []
    for kind in chosen:
        if kind in ("kill-uplink", "reorder", "garbage"):
            target = rng.choice(BOARDS)
        elif kind == "sigstop":
            target = rng.choice(stoppable)
        else:
            target = ""
        lasting = rng.uniform(1.5, 5.0)
        schedule.append(Fault(kind, target, rng.uniform(0.3, 1.5), 0.0 if kind == "garbage" else lasting))
    return schedule


class Event:
    """The whole event: broker, database (and its disk), event server, boards; faults strike it and
    heal it, and a watcher starts again what ended by itself, as systemd would."""

    def __init__(self, engine: str, folder: Path, make_broker: Callable[..., MosquittoBroker],
                 journal: Journal) -> None:
        self.engine = engine
        self.journal = journal
        self.rng = random.Random(journal.seed)
        self.disk = Disk(DISK_MB[engine])
        self.postgres: PostgresCluster | None = None
        self.boards: list[ChaosBoard] = []
        self.central: EventServer | None = None
        self.unplanned: list[str] = []
        self.answers = Answers()
        self._planned: set[str] = set()
        self._lock = threading.RLock()
        self.location = str(self.disk.path / "central.db")
        try:
            if engine == "postgresql":
                bindir = find_postgres_bindir()
                if bindir is None:
                    pytest.skip("PostgreSQL is missing (apt-get install postgresql)")
                self.postgres = PostgresCluster(self.disk.path, bindir=bindir)
                self.postgres.log_path = folder / "postgres.log"  # not on the disk a fault fills
                self.postgres.start()
                self.location = self.postgres.create_database("chaos")
            self.broker = event_broker(make_broker)
            self.central = EventServer(folder / "central", database=self.location, broker=self.broker)
            self.central.start()
            journal.note("the event server answers")
            # The boards start together, as the Pis of a hall do (each uplink a process to start).
            with concurrent.futures.ThreadPoolExecutor(len(BOARDS)) as starting:
                started = [starting.submit(ChaosBoard, folder / b, self.broker, b) for b in BOARDS]
            for future in started:
                with contextlib.suppress(Exception):
                    self.boards.append(future.result())
            for future in started:
                future.result()  # the first that failed says why (the others are closed with the event)
            journal.note("the boards are connected")
        except BaseException:
            self.close()  # what was started so far: the mount above all
            raise

    def board(self, board_id: str) -> ChaosBoard:
        return next(b for b in self.boards if b.id == board_id)

    # -- faults -----------------------------------------------------------------------------------

    def strike(self, fault: Fault) -> None:
        """The fault, for its whole duration, then healed."""
        self.journal.note(f"fault: {fault}")
        with self._lock:
            self._planned = {PLANNED.get(fault.kind, fault.target if fault.kind == "kill-uplink" else "")}
        try:
            getattr(self, "_" + fault.kind.replace("-", "_"))(fault)
        finally:
            self.heal()
            with self._lock:
                self._planned = set()
            self.journal.note(f"healed: {fault.kind} {fault.target}".rstrip())

    def _kill_broker(self, fault: Fault) -> None:
        self.broker.kill()
        self._hold(fault.lasting_s)

    def _kill_central(self, fault: Fault) -> None:
        assert self.central is not None
        self.central.kill()
        self._hold(fault.lasting_s)

    def _kill_uplink(self, fault: Fault) -> None:
        self.board(fault.target).uplink_process.kill()
        self._hold(fault.lasting_s)

    def _sigstop(self, fault: Fault) -> None:
        pid, group = self._pid(fault.target)
        if pid is None:
            self.journal.note(f"  {fault.target} is not running: nothing to stop")
            return
        send = os.killpg if group else os.kill
        send(pid, signal.SIGSTOP)
        try:
            self._hold(fault.lasting_s)
        finally:
            send(pid, signal.SIGCONT)

    def _stop_postgres(self, fault: Fault) -> None:
        assert self.postgres is not None
        self.postgres.stop()
        self._hold(fault.lasting_s)

    def _disk_full(self, fault: Fault) -> None:
        if not self.disk.mounted:
            self.journal.note("  not possible here: no file system of its own could be mounted (not root,"
                              " or mounting not allowed)")
            return
        taken = self.disk.fill()
        self.journal.note(f"  {taken / 1e6:.1f} MB taken, the event database's disk is full")
        try:
            self._hold(fault.lasting_s)
        finally:
            self.disk.free()

    def _reorder(self, fault: Fault) -> None:
        board = self.board(fault.target)
        uplink = board.uplink_process
        # Best while a game is on: the link goes while it is played, and its end and the players'
        # confirmation are among the rows the server lacks (bounded: there may be no game to come).
        playing = self._until(lambda: board.table()["phase"] == "playing", REORDER_MAX_S)
        if not playing:
            self.journal.note(f"  no game on {board.id}: its rows of now")
        assert uplink.proc is not None
        os.kill(uplink.proc.pid, signal.SIGSTOP)
        try:
            if playing:  # until the game is over and every seat agreed, on the board only
                self._until(lambda: board.table()["phase"] not in ("playing", "confirm"), REORDER_MAX_S)
            else:
                self._hold(fault.lasting_s)
            state = board.card.outbox.state()
            assert state is not None
            rows = board.card.outbox.rows(state.first_seq - 1, limit=1_000_000)
            waiting = [r for r in rows if r.seq > state.acked_seq]
            held = [r for r in rows if r.seq <= state.acked_seq]
            copies = self.rng.sample(held, min(len(held), 20))
            # The last rows first, alone (a game's confirmations before its end), then the others
            # backwards, each twice, then copies of rows the server has, shuffled.
            ends = [i for i, r in enumerate(waiting) if r.kind == "game-end"]
            split = ends[-1] + 1 if ends and ends[-1] + 1 < len(waiting) else len(waiting) // 2
            first, then = waiting[split:], waiting[:split]
            groups = [
                [("outbox", r.message(state), False) for r in reversed(first) for _ in (1, 2)],
                [("outbox", r.message(state), False) for r in reversed(then) for _ in (1, 2)]
                + [("outbox", r.message(state), False) for r in copies],
            ]
            taken = publish_as(self.broker, board.id, *groups)
            self.journal.note(
                f"  {[r.kind for r in reversed(first)]} first, then {[r.kind for r in reversed(then)]},"
                f" each twice, then {len(copies)} copies: {taken}/{sum(map(len, groups))} taken by the broker"
            )
        finally:
            os.kill(uplink.proc.pid, signal.SIGCONT)

    def _garbage(self, fault: Fault) -> None:
        messages = garbage(self.board(fault.target), self.rng)
        taken = publish_as(self.broker, fault.target, messages)
        self.journal.note(f"  {taken}/{len(messages)} garbage messages taken by the broker")

    def _hold(self, seconds: float) -> None:
        """The fault lasts: meanwhile someone of the staff logs in (the page must still answer)."""
        start = time.monotonic()
        if self.central is not None:
            Staff(self.central.port, self.answers, self.journal).login()
        time.sleep(max(0.0, start + seconds - time.monotonic()))

    @staticmethod
    def _until(done: Callable[[], bool], seconds: float) -> bool:
        deadline = time.monotonic() + seconds
        while not done():
            if time.monotonic() > deadline:
                return False
            time.sleep(0.2)
        return True

    def _pid(self, target: str) -> tuple[int | None, bool]:
        """The process to signal and whether it leads a process group of its own (its children too)."""
        if target == "broker":
            return self.broker.pid, True
        if target == "postgres":
            assert self.postgres is not None
            return self.postgres.pid, True  # the postmaster and every backend
        if target == "central":
            assert self.central is not None
            return self.central.pid, False
        uplink = self.board(target).uplink_process
        return (uplink.proc.pid if uplink.alive() and uplink.proc else None), False

    # -- as systemd would ---------------------------------------------------------------------------

    def heal(self) -> None:
        """Everything stopped continued, everything killed started again."""
        with self._lock:
            for target in ("broker", "postgres", "central", *BOARDS):
                if target == "postgres" and self.postgres is None:
                    continue
                pid, group = self._pid(target)
                if pid is not None:
                    with contextlib.suppress(ProcessLookupError):
                        (os.killpg if group else os.kill)(pid, signal.SIGCONT)
            self.disk.free()
            if self.postgres is not None and not self.postgres.is_running:
                self._restart("postgres", self.postgres.start)
            if not self.broker.is_running:
                self._restart("broker", self.broker.start)
            assert self.central is not None
            if self.central.pid is None:
                status = self.central.ended()
                self._restart("central", self.central.start, status)
            for board in self.boards:
                uplink = board.uplink_process
                if not uplink.alive():
                    status = uplink.proc.poll() if uplink.proc is not None else None
                    self._restart(board.id, uplink.start, status)

    def _restart(self, name: str, start: Callable[[], Any], status: int | None = None) -> None:
        planned = name in self._planned
        if not planned:
            said = f" (exit status {status})" if status is not None else ""
            tail = f"\n{self.central.log_tail()}" if name == "central" and self.central else ""
            self.unplanned.append(f"{name} ended by itself{said}{tail}")
            self.journal.note(f"  {name} ended by itself{said}: started again")
        start()

    def close(self) -> None:
        with contextlib.suppress(Exception):
            for target in ("broker", "postgres", "central", *(b.id for b in self.boards)):
                if target == "postgres" and self.postgres is None:
                    continue
                pid, group = self._pid(target)
                if pid is not None:
                    with contextlib.suppress(ProcessLookupError):
                        (os.killpg if group else os.kill)(pid, signal.SIGCONT)
        for board in self.boards:
            with contextlib.suppress(Exception):
                board.close()
        if self.central is not None:
            self.central.kill()
        if self.postgres is not None:
            self.postgres.kill()
        self.disk.close()

    # -- what the server holds ------------------------------------------------------------------------

    def stored(self, board: ChaosBoard) -> tuple[list[tuple[int, Any]], list[tuple[int, Any]]]:
        """The board's outbox rows and the rows the event server stored for its history."""
        history, rows = board.outbox()
        conn = open_database(self.location)
        try:
            held = [
                (int(r[0]), json.loads(r[1]))
                for r in conn.execute(
                    "SELECT seq, body FROM event_rows WHERE board = ? AND history = ? ORDER BY seq",
                    (board.id, history),
                )
            ]
        finally:
            conn.close()
        return rows, held


class Chaos:
    """The fault schedule, struck one fault after another in a thread of its own."""

    def __init__(self, event: Event, schedule: list[Fault]) -> None:
        self.event = event
        self.schedule = schedule
        self.error: BaseException | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="chaos", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            for fault in self.schedule:
                if self._stop.wait(fault.after_s):
                    return
                self.event.strike(fault)
            self.event.journal.note("the faults stopped")
        except BaseException as exc:  # handed to the test
            self.error = exc
            self.event.journal.note(f"the chaos itself failed: {exc!r}")

    @property
    def done(self) -> bool:
        return not self._thread.is_alive()

    def join(self, timeout: float) -> None:
        self._thread.join(timeout)
        assert not self._thread.is_alive(), f"the fault schedule did not end; {self.event.journal}"
        if self.error is not None:
            raise self.error

    def close(self) -> None:
        self._stop.set()
        self._thread.join(60)


# -- the test -------------------------------------------------------------------------------------


@dataclass
class Played:
    """A table played on a board: what the board said each player scored."""

    round: int
    table: int
    board: str
    points: dict[str, int]


def _seed() -> int:
    given = os.environ.get(SEED_VARIABLE)
    return int(given) if given else random.SystemRandom().randrange(10**9)


def _kinds() -> list[str]:
    given = os.environ.get(FAULTS_VARIABLE)
    if not given:
        return list(KINDS)
    kinds = [k.strip() for k in given.split(",") if k.strip()]
    unknown = set(kinds) - set(KINDS)
    assert not unknown, f"{FAULTS_VARIABLE}: unknown fault(s) {sorted(unknown)}; the faults are {KINDS}"
    return kinds


@pytest.fixture(params=["postgresql", "sqlite"])
def event(request: pytest.FixtureRequest, tmp_path: Path,
          make_broker: Callable[..., MosquittoBroker]) -> Iterator[Event]:
    seed = _seed()
    journal = Journal(seed, request.param)
    journal.note(f"chaos on {request.param}, seed {seed}: replay with {journal.replay()}")
    made = Event(request.param, tmp_path, make_broker, journal)
    try:
        yield made
    finally:
        made.close()
        (tmp_path / "chaos.log").write_text(str(journal) + "\n")


def play_round(event: Event, staff: Staff, tid: int, number: int, journal: Journal) -> list[Played]:
    """Make round *number* (staff, again and again until the server took it), then on every board
    given a table wait for it, play it to its end and have every seat agree."""
    deadline = time.monotonic() + ROUND_S
    on_boards: list[str] = []

    def made() -> bool:
        """The round is made and each of its tables went to a board (the page answers 303 even when
        sending the tables failed: staff would see it said, and press again)."""
        tournament = staff.get_json(f"/api/tournaments/{tid}")
        boards = staff.get_json("/api/event/boards") or []
        if tournament is None or len(tournament["round_details"]) < number:
            return False
        tables = len(tournament["round_details"][number - 1]["tables"])
        on_boards[:] = [b["id"] for b in boards if (b["table"] or {}).get("round") == number]
        return len(on_boards) == min(tables, len(event.boards))

    staff.act("POST", f"/event/tournaments/{tid}/rounds", form={"request_id": f"round-{number}"},
              done=made, deadline=deadline)
    journal.note(f"round {number} made: tables on {on_boards}")
    played: list[Played] = []
    failures: list[str] = []

    def play(board: ChaosBoard) -> None:
        try:
            while True:
                table = board.table()
                if table["phase"] == "assigned" and table["assignment"]["round"] == number:
                    break
                if time.monotonic() > deadline:
                    raise AssertionError(f"{board.id} never got its table of round {number}: {table}")
                time.sleep(0.2)
            names = [p["name"] for p in table["assignment"]["players"]]
            board.clear()
            points = board.play_to_the_end()
            board.everyone_agrees()
            played.append(Played(number, table["assignment"]["table"], board.id,
                                 dict(zip(names, points, strict=True))))
            journal.note(f"{board.id} played table {table['assignment']['table']} of round {number}:"
                         f" {points}")
        except BaseException as exc:
            failures.append(f"{board.id}: {exc!r}")

    threads = [threading.Thread(target=play, args=(event.board(b),), name=f"play-{b}") for b in on_boards]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(ROUND_S + 30)
    assert not failures, f"{failures}; {progress(event, staff)}; {journal}"

    def entered() -> int:
        tournament = staff.get_json(f"/api/tournaments/{tid}")
        if tournament is None or len(tournament["round_details"]) < number:
            return -1
        return sum(t["result"] is not None for t in tournament["round_details"][number - 1]["tables"])

    while (count := entered()) < len(on_boards):
        if time.monotonic() > deadline:
            raise AssertionError(
                f"round {number}: {max(count, 0)} of {len(on_boards)} results entered after"
                f" {ROUND_S:.0f} s; {progress(event, staff)}; {journal}"
            )
        time.sleep(0.5)
    journal.note(f"round {number}: every result entered")
    return played


def progress(event: Event, staff: Staff) -> str:
    """How far the event server got: each board's rows, its ingest's own counts, its log's end."""
    parts = []
    for board in event.boards:
        try:
            rows, held = event.stored(board)
            parts.append(f"{board.id}: {len(held)} of {len(rows)} rows stored")
        except Exception as exc:  # the database is down: say so
            parts.append(f"{board.id}: rows unknown ({exc!r})")
    ingest = staff.get_json("/api/event/ingest")
    results = staff.get_json("/api/event/results")
    tail = event.central.log_tail() if event.central else ""
    dead = event.central.dead_threads() if event.central else []
    return (
        f"{'; '.join(parts)}; the boards' results: {json.dumps(results)}; the ingest says {ingest};"
        f" threads of the event server that died: {dead}; the event server's log ends:\n{tail}"
    )


def test_rounds_on_three_boards_while_faults_strike_store_every_row_and_result_once(event: Event) -> None:
    journal = event.journal
    assert event.central is not None
    answers = event.answers
    staff = Staff(event.central.port, answers, journal)
    start = time.monotonic() + 120  # a deadline for the setting up, before any fault

    # Staff accept the boards and register the players (nothing strikes yet).
    def listed() -> bool:
        boards = staff.get_json("/api/event/boards") or []
        return {b["id"] for b in boards} >= set(BOARDS)

    staff.act("GET", "/api/event/boards", done=listed, deadline=start)
    for number, board in enumerate(event.boards, start=1):
        staff.act("POST", f"/api/event/boards/{board.id}", json_body={"label": f"Table {number}"},
                  deadline=start)
    staff.act("POST", "/tournaments", form={"name": "Chaos open", "seed": str(journal.seed % 1000)},
              deadline=start)
    tid = staff.get_json("/api/tournaments")["tournaments"][0]["id"]
    names = "\n".join(f"Player {n}" for n in range(1, PLAYERS + 1))
    staff.act("POST", f"/tournaments/{tid}/players", form={"names": names}, deadline=start)

    journal.note("the boards accepted, the players registered")
    pages = ["/event/wall", "/api/event/wall", f"/api/event/wall?t={tid}", "/api/event/boards",
             f"/api/tournaments/{tid}", f"/tournaments/{tid}", "/api/event/ingest"]
    spectators = Spectators(Browser(event.central.port, answers, journal), lambda: pages)
    schedule = draw_schedule(event.rng, event.engine, _kinds())
    journal.note("schedule: " + "; ".join(f"+{f.after_s:.1f}s {f}" for f in schedule))
    chaos = Chaos(event, schedule)
    try:
        # Rounds while the faults strike (one at least, as many as the tournament's tables fill every
        # board at most), then one once they stopped: the event still works after them.
        played: list[Played] = []
        for number in range(1, MOST_ROUNDS_UNDER_FAULTS + 1):
            played += play_round(event, staff, tid, number, journal)
            if chaos.done:
                break
        chaos.join(timeout=sum(f.after_s + f.lasting_s + 60 for f in schedule))
        event.heal()
        played += play_round(event, staff, tid, number + 1, journal)

        # The faults stopped: the server converges, by its own counts, within a bounded time.
        deadline = time.monotonic() + CONVERGE_S
        while True:
            try:
                behind = [b.id for b in event.boards if (lambda s: s[0] != s[1])(event.stored(b))]
            except Exception as exc:  # the database coming back
                behind = [repr(exc)]
            if not behind:
                break
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"{CONVERGE_S:.0f} s after the faults stopped the event server still lacks rows of"
                    f" {behind}; {progress(event, staff)}; {journal}"
                )
            time.sleep(0.5)
        journal.note("converged")
    finally:
        chaos.close()
        spectators.close()
        journal.note(f"answers: {answers.summary()}")

    # Every board row stored exactly once: the server holds each board's outbox, row for row.
    for board in event.boards:
        rows, held = event.stored(board)
        seqs = [seq for seq, _ in held]
        assert len(seqs) == len(set(seqs)), f"{board.id}: rows stored twice; {journal}"
        assert held == rows, f"{board.id}: the server's rows differ from the board's outbox; {journal}"

    # Every honest result entered exactly once, from its board, with the board's points.
    from store.tournaments import Tournaments, result_of

    conn = open_database(event.location)
    try:
        audit = [e for e in Tournaments(conn).audit(tid) if e.kind in ("result", "correction")]
        tournament = staff.get_json(f"/api/tournaments/{tid}")
    finally:
        conn.close()
    entries = Counter((e.event["round"], e.event["table"]) for e in audit if not e.is_undone)
    expected = {(p.round, p.table) for p in played}
    assert len(played) == len(expected), f"a table played twice: {played}; {journal}"
    assert entries == Counter(expected), f"results entered: {entries}, tables played: {expected}; {journal}"
    for entry in audit:
        result = result_of(entry.event)
        assert result is not None and result.source.get("kind") == "board", f"{entry}; {journal}"
    for p in played:
        table = tournament["round_details"][p.round - 1]["tables"][p.table - 1]
        got = dict(zip([s["name"] for s in table["seats"]], table["result"]["points"], strict=True))
        assert got == p.points, (
            f"round {p.round} table {p.table}: {got} entered, {p.points} played; {journal}"
        )

    # No page ever answered 500; no process of the event ended by itself, nor a thread of the server.
    assert not answers.errors, "\n".join(answers.errors) + f"\n{journal}"
    assert not event.unplanned, "\n".join(event.unplanned) + f"\n{journal}"
    assert not event.central.dead_threads(), "\n".join(event.central.dead_threads()) + f"\n{journal}"
