"""A board, faulty or hostile, as the tests play it: a client with a board's own password on the real broker,
and what the tests check after each attack."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from protocol import dumps, parse_row
from store.dialect import Connection, PgDatabase
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


class Hostile:
    """A client with a board's own password, publishing whatever it likes on the board's topics."""

    def __init__(self, broker: MosquittoBroker, board: str = "board-2") -> None:
        self.board = board
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv311)
        self.client.username_pw_set(board, USERS[board])
        self.client.connect(broker.host, broker.port, keepalive=KEEPALIVE)
        self.client.loop_start()
        wait_for(self.client.is_connected, what="the hostile client connected")

        self.sent = 0

    def hello(self, server: Central) -> None:
        """Once the ingest hears this client (its subscription may come after the client's first
        messages): from here on, every message sent is counted by :func:`received`."""
        assert server.ingest is not None
        for attempt in range(100):
            self.send("live", json.dumps({"hello": attempt}))
            try:
                wait_for(lambda: server.ingest is not None and server.ingest.received, timeout=0.5)
                break
            except AssertionError:
                continue
        received_now = server.ingest.received
        wait_for(lambda: server.conn.execute("SELECT live FROM event_boards WHERE board = ?", (self.board,))
                 .fetchone(), what="hello")
        self.sent = received_now

    def send(self, leaf: str, payload: bytes | str, *, retain: bool = False) -> None:
        self.sent += 1
        data = payload.encode() if isinstance(payload, str) else payload
        name = f"hautetension/{EVENT}/board/{self.board}/{leaf}"
        self.client.publish(name, data, qos=1, retain=retain).wait_for_publish(30)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def broker_cuts(broker: MosquittoBroker, board: str, leaf: str, payload: bytes | str) -> bool:
    """Publish one message with *board*'s password on a connection of its own: True when the broker cut
    the connection instead of taking the message (beyond the shipped ``max_packet_size``)."""
    cut = threading.Event()
    client = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv311)
    client.username_pw_set(board, USERS[board])
    client.on_disconnect = lambda *args: cut.set()
    client.connect(broker.host, broker.port, keepalive=KEEPALIVE)
    client.loop_start()
    try:
        wait_for(client.is_connected, what="the sender connected")
        data = payload.encode() if isinstance(payload, str) else payload
        info = client.publish(f"hautetension/{EVENT}/board/{board}/{leaf}", data, qos=1)
        return cut.wait(30) and not info.is_published()
    finally:
        client.disconnect()
        client.loop_stop()


def received(server: Central, hostile: Hostile) -> None:
    """Wait until the ingest took every message *hostile* sent, and stored the batch they were in."""
    ingest, count = server.ingest, hostile.sent
    assert ingest is not None
    wait_for(lambda: ingest.received >= count, timeout=60, what=f"{count} messages received")
    turn = ingest.turns
    wait_for(lambda: ingest.turns > turn + 1, timeout=30, what="the batch that held them stored")


def alive_and_honest(server: Central, tmp_path: Path, broker: MosquittoBroker, rows: int = 3) -> None:
    """The ingest is alive, never restarted, and an honest board's rows go in."""
    assert server.supervisor is not None and server.ingest is not None
    assert server.supervisor.alive and server.supervisor.restarts == 0, server.supervisor.last_error
    board = Board(tmp_path / "honest", "board-1")
    uplink = UplinkThread(board, uplink_settings(broker_settings(broker, "board-1"), "board-1"))
    try:
        board.write(rows)
        wait_for(lambda: server.acked("board-1") == rows, timeout=30, what="the honest board's rows")
    finally:
        uplink.close()
    assert server.supervisor.alive and server.supervisor.restarts == 0


def stored_rows_are_valid(conn: Connection) -> None:
    """Every stored row reads back through the reader, or is a refused row's stand-in."""
    for r in conn.execute("SELECT board, history, seq, kind, game, at, body FROM event_rows"):
        message = {"seq": r[2], "history": r[1], "first": 0, "kind": r[3], "game": r[4], "at": r[5]}
        parse_row(dumps({**message, "body": json.loads(r[6])}))


def database_size(conn: Connection, location: str) -> int:
    if isinstance(conn, PgDatabase):
        row = conn.execute("SELECT pg_database_size(current_database())").fetchone()
        return int(row[0])
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return sum(os.path.getsize(p) for p in (location, location + "-wal") if os.path.exists(p))


def a_status(history: str = "h1", first: int = 1) -> str:
    return json.dumps({"online": True, "history": history, "first": first})


def a_row(seq: int, kind: str = "placement", body: Any = None, **change: Any) -> str:
    row = {"seq": seq, "history": "h1", "first": 1, "kind": kind, "game": 1, "at": 100.0 + seq,
           "body": {} if body is None else body}
    return json.dumps({**row, **change})
