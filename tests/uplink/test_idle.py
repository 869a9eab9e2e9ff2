"""An idle board costs the uplink nothing: no loop turn, no database read, until something changes.

Counted, never timed: the loop's turns (``Uplink.turns``) and the SQL the uplink's connection runs
(SQLite's trace callback), over a few seconds of a quiet board, then of a board whose service writes
only its heartbeat. What changes is still sent: a row written while idle, the service going stale.
"""

from __future__ import annotations

import dataclasses
import json
import queue
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from store.journal import Journal
from tests.servers.mosquitto import MosquittoBroker
from tests.uplink.helpers import (
    EVENT,
    KEEPALIVE,
    USERS,
    Board,
    Central,
    UplinkThread,
    broker_settings,
    uplink_settings,
    wait_for,
)

QUIET_S = 3.0
"""How long the board stays quiet: the uplink used to look 50 times a second (``poll_ms = 20``)."""


class Statements:
    """The SQL statements a connection runs (its trace callback), from the uplink's own thread."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.seen: list[str] = []

    def __call__(self, statement: str) -> None:
        with self.lock:
            self.seen.append(statement)

    def take(self) -> list[str]:
        with self.lock:
            seen, self.seen = self.seen, []
        return seen


def reads(statements: list[str], table: str = "") -> list[str]:
    """The statements that read a table (not SQLite's ``PRAGMA data_version``: a look at a counter)."""
    return [s for s in statements if s.lstrip().upper().startswith("SELECT") and table in s]


def _settled(uplink: UplinkThread, statements: Statements) -> None:
    """Until the uplink has done what its connect asked (the grace after its own writes included)."""
    previous = -1
    while uplink.uplink.turns != previous:
        previous = uplink.uplink.turns
        time.sleep(1.0)
    statements.take()


def test_a_quiet_board_costs_no_turn_and_no_read_and_a_new_row_is_still_sent(
    tmp_path: Path, secured: MosquittoBroker, central: Central
) -> None:
    board = Board(tmp_path / "board")
    uplink = UplinkThread(board, uplink_settings(broker_settings(secured, "board-1"), "board-1"))
    statements = Statements()
    try:
        assert uplink.uplink.watch is not None, "inotify watches the board's database here"
        conn = uplink.uplink.outbox.conn
        assert isinstance(conn, sqlite3.Connection)
        conn.set_trace_callback(statements)
        board.write(3)
        wait_for(lambda: central.acked("board-1") == 3, what="the rows acknowledged")
        _settled(uplink, statements)

        turns = uplink.uplink.turns
        time.sleep(QUIET_S)
        assert uplink.uplink.turns - turns == 0
        assert statements.take() == []

        board.write()  # wakes it: sent without a poll
        wait_for(lambda: central.acked("board-1") == 4, what="the new row acknowledged")
        assert central.rows("board-1") == board.rows()
        assert reads(statements.take(), "outbox")
    finally:
        uplink.close()


class Statuses:
    """The board's retained status as the event server hears it: the latest one."""

    def __init__(self) -> None:
        self.received: queue.Queue[dict[str, Any]] = queue.Queue()
        self.last: dict[str, Any] | None = None

    def latest(self) -> dict[str, Any] | None:
        while True:
            try:
                self.last = self.received.get_nowait()
            except queue.Empty:
                return self.last


def _status_subscriber(broker: MosquittoBroker) -> tuple[Any, Statuses]:
    statuses = Statuses()
    received = statuses.received
    client = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv311)
    client.username_pw_set("central", USERS["central"])
    client.on_message = lambda _c, _u, message: received.put(json.loads(message.payload))
    client.on_connect = lambda c, _u, _f, _r, _p: c.subscribe(f"hautetension/{EVENT}/board/board-1/status", 1)
    client.connect(broker.host, broker.port, keepalive=KEEPALIVE)
    client.loop_start()
    return client, statuses


def _service_down(status: dict[str, Any]) -> bool:
    return any(f["kind"] == "service-down" for f in status["health"]["faults"])


def test_the_heartbeat_costs_one_state_read_and_its_silence_is_reported_without_a_write(
    tmp_path: Path, secured: MosquittoBroker, central: Central
) -> None:
    board = Board(tmp_path / "board")
    settings = dataclasses.replace(uplink_settings(broker_settings(secured, "board-1"), "board-1"),
                                   service_stale=1.5)
    service = Journal(board.conn)  # the board service's heartbeat, written as it writes it
    service.write_health({"backend": "sim"})
    uplink = UplinkThread(board, settings)
    statements = Statements()
    subscriber, statuses = _status_subscriber(secured)
    try:
        conn = uplink.uplink.outbox.conn
        assert isinstance(conn, sqlite3.Connection)
        conn.set_trace_callback(statements)
        wait_for(lambda: central.online("board-1"), what="the board online")
        _settled(uplink, statements)

        heartbeats = 10
        for _ in range(heartbeats):
            service.write_health({"backend": "sim"})
            time.sleep(0.1)
        seen = statements.take()
        # Each heartbeat may be looked at once (the state and the outbox); nothing in between.
        assert 1 <= len(reads(seen, "board_state")) <= heartbeats
        assert len(reads(seen, "outbox")) <= heartbeats
        status = wait_for(statuses.latest, what="a status")
        assert status is not None and not _service_down(status)

        # The service stops: nothing is written any more, and the status says so by itself.
        wait_for(lambda: (s := statuses.latest()) is not None and _service_down(s), what="service-down")
    finally:
        subscriber.loop_stop()
        subscriber.disconnect()
        uplink.close()

