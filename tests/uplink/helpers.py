"""The event network for the tests: a real Mosquitto with the event's ACL, the event server's ingest,
boards writing their journal, and uplinks in this process or as their own ``hautetension uplink``."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from hautetension.commands.event import broker_rules
from protocol import BrokerAddress
from store.db import connect
from store.event.db import connect_event
from store.journal import Journal, JournalKind
from store.outbox import Outbox
from tests.servers.mosquitto import BrokerTls, MosquittoBroker
from uplink.board import Uplink
from uplink.ingest import Ingest
from uplink.settings import BrokerSettings, UplinkSettings
from uplink.supervisor import Supervisor

REPO = Path(__file__).resolve().parents[2]
ACL = (REPO / "systemd" / "mosquitto-hautetension.acl").read_text()
BOARDS = ("board-1", "board-2", "board-3")
SERVERS = ("central", "central-1", "central-2")
"""The event server's users: one process, or processes 1 and 2 of several on one database."""
USERS = {**{user: f"{user}-secret" for user in SERVERS}, **{board: f"{board}-secret" for board in BOARDS}}
EVENT = "paris-2026"
KEEPALIVE = 5
BIN = Path(sys.executable).with_name("hautetension")

T = TypeVar("T")


def wait_for(predicate: Callable[[], T], timeout: float = 15.0, what: str = "the condition") -> T:
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


def event_broker(make_broker: Callable[..., MosquittoBroker], **options: Any) -> MosquittoBroker:
    """Mosquitto as the event server runs it: one password per board, the event's ACL and the shipped
    configuration's rules for clients (pinned client ids, size, queue and in-flight limits)."""
    extra = [*broker_rules(), *options.pop("extra", ())]
    return make_broker(users=USERS, acl=ACL, extra=extra, **options)


def broker_settings(
    broker: MosquittoBroker,
    user: str | None = None,
    *,
    password: str | None = None,
    tls: BrokerTls | None = None,
) -> BrokerSettings:
    port = broker.tls_port if tls is not None else broker.port
    assert port is not None
    return BrokerSettings(
        address=BrokerAddress(broker.host, port, tls is not None),
        username=user or "",
        password=password if password is not None else USERS.get(user or "", "") if broker.users else "",
        ca_file=tls.ca_file if tls is not None else None,
        keepalive=KEEPALIVE,
    )


def uplink_settings(broker: BrokerSettings, board: str) -> UplinkSettings:
    return UplinkSettings(event=EVENT, board_id=board, broker=broker, poll_interval=0.02, ack_wait=0.5)


class Central:
    """The event server's ingest in a thread, on its own database (and a connection for the test to read)."""

    def __init__(
        self,
        folder: Path,
        broker: BrokerSettings,
        *,
        confirm_timeout: float = 60.0,
        location: str | None = None,
    ) -> None:
        self.path: str | Path = location or folder / "central.db"
        self.broker = broker
        self.confirm_timeout = confirm_timeout
        self.conn = connect_event(self.path)
        self.supervisor: Supervisor | None = None
        self.ingest: Ingest | None = None

    def start(self) -> Central:
        """The ingest, supervised as ``hautetension central`` runs it."""
        self.ingest = Ingest(
            connect_event(self.path), self.broker, event=EVENT, confirm_timeout=self.confirm_timeout
        )
        self.ingest.start()
        self.supervisor = Supervisor(self.ingest, first_pause=0.05).start()
        return self

    def stop(self) -> None:
        if self.supervisor is not None and self.ingest is not None:
            self.supervisor.stop(10)
            self.ingest.close()
            self.ingest.conn.close()
            self.supervisor = None

    def rows(self, board: str) -> list[tuple[int, str]]:
        """``(seq, body)`` of every row stored for the board's current history, in order."""
        history = self.conn.execute("SELECT history FROM event_boards WHERE board = ?", (board,)).fetchone()
        if history is None:
            return []
        return [
            (int(r[0]), str(r[1]))
            for r in self.conn.execute(
                "SELECT seq, body FROM event_rows WHERE board = ? AND history = ? ORDER BY seq",
                (board, history[0]),
            )
        ]

    def acked(self, board: str) -> int:
        row = self.conn.execute(
            "SELECT h.acked_seq FROM event_boards b JOIN event_histories h ON h.board = b.board"
            " AND h.history = b.history WHERE b.board = ?",
            (board,),
        ).fetchone()
        return int(row[0]) if row else 0

    def online(self, board: str) -> bool | None:
        row = self.conn.execute("SELECT online FROM event_boards WHERE board = ?", (board,)).fetchone()
        return None if row is None else bool(row[0])

    def conflicts(self) -> int:
        return int(self.conn.execute("SELECT COUNT(*) FROM event_conflicts").fetchone()[0])


class Board:
    """A board's database, and a writer that journals entries the way the board service does."""

    def __init__(self, folder: Path, board: str = "board-1") -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.folder = folder
        self.board = board
        self.path = folder / "board.db"
        self.conn = connect(self.path)
        self.journal = Journal(self.conn)
        self.outbox = Outbox(self.conn)
        self.written = 0

    def write(self, count: int = 1) -> None:
        """*count* placements (each with its outbox row, in the same transaction)."""
        for _ in range(count):
            self.written += 1
            self.journal.append(
                JournalKind.PLACEMENT, {"n": self.written, "slot": "a9"}, {"kind": "attack"}, game_id=1
            )

    def rows(self) -> list[tuple[int, str]]:
        """``(seq, body)`` of every outbox row of the board's current history."""
        state = self.outbox.state()
        first = state.first_seq if state else 1
        return [(r.seq, r.body) for r in self.outbox.rows(first - 1, limit=1_000_000)]


class UplinkThread:
    """An uplink in this process on a board's database (``close()`` is a clean stop)."""

    def __init__(self, board: Board | Path, settings: UplinkSettings) -> None:
        self.uplink = Uplink(connect(board.path if isinstance(board, Board) else board), settings)
        self._stop = threading.Event()
        self.uplink.start()
        self._thread = threading.Thread(target=self.uplink.run, args=(self._stop,), daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._stop.set()
        self.uplink.wake()
        self._thread.join(10)
        self.uplink.close()
        self.uplink.outbox.conn.close()


class UplinkProcess:
    """``hautetension uplink`` as its own process, as the systemd unit runs it (kill -9 it at will)."""

    def __init__(
        self,
        board: Board,
        broker: MosquittoBroker,
        *,
        board_id: str | None = None,
        password: str | None = None,
        quick: bool = True,
    ) -> None:
        """*quick*: a short keep-alive, poll and ack wait (the tests' pace); False: the shipped defaults."""
        self.board = board
        board_id = board_id or board.board
        secret = board.folder / "uplink-password"
        secret.write_text((password if password is not None else USERS.get(board_id, "")) + "\n")
        self.config = board.folder / "uplink.toml"
        pace = f"keepalive_s = {KEEPALIVE}\npoll_ms = 20\nack_wait_s = 0.5\n" if quick else ""
        self.config.write_text(
            f'[uplink]\nevent = "{EVENT}"\nboard_id = "{board_id}"\nbroker = "{broker.url}"\n'
            f'password_file = "{secret}"\n{pace}'
        )
        self.proc: subprocess.Popen[str] | None = None

    def start(self) -> UplinkProcess:
        env = {k: v for k, v in os.environ.items() if k != "HAUTETENSION_CONFIG"}
        self.proc = subprocess.Popen(
            [str(BIN), "uplink", "--config", str(self.config), "--db", str(self.board.path)],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        # Enrolled (the board's rows from here on are the event's) and connected.
        wait_for(
            lambda: (s := self.board.outbox.state()) is not None and s.connected or not self.alive(),
            what="the uplink connected",
        )
        assert self.alive(), self.proc.stderr.read() if self.proc.stderr else "the uplink exited"
        return self

    def kill(self) -> None:
        """SIGKILL: no clean goodbye, no last word (the broker sends the will)."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)
        self._close()

    def stop(self) -> int:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGTERM)
        code = self.proc.wait(10)
        self._close()
        return code

    def _close(self) -> None:
        if self.proc is not None and self.proc.stderr is not None:
            self.proc.stderr.close()

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None


def columns(conn: sqlite3.Connection, query: str, *args: Any) -> list[Any]:
    return [row[0] for row in conn.execute(query, args)]
