"""The board's uplink and the event server's ingest through the real Mosquitto, with the event's ACL."""

from __future__ import annotations

import json
import queue
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from store.event.boards import Boards
from store.event.quarantine import Quarantine
from store.outbox import Outbox
from tests.servers.mosquitto import BrokerTls, MosquittoBroker
from tests.uplink.helpers import (
    EVENT,
    KEEPALIVE,
    USERS,
    Board,
    Central,
    UplinkProcess,
    UplinkThread,
    broker_settings,
    uplink_settings,
    wait_for,
)


def test_rows_reach_the_event_server_in_order_and_are_acknowledged(
    tmp_path: Path, secured: MosquittoBroker, central: Central
) -> None:
    board = Board(tmp_path / "board")
    board.write(3)  # before the board joined the event: not the event's
    uplink = UplinkThread(board, uplink_settings(broker_settings(secured, "board-1"), "board-1"))
    try:
        board.write(25)
        wait_for(lambda: central.acked("board-1") == 28, what="every row acknowledged")
        assert central.rows("board-1") == board.rows() and len(board.rows()) == 25
        assert [json.loads(body)["n"] for _, body in central.rows("board-1")] == list(range(4, 29))
        wait_for(lambda: (s := board.outbox.state()) is not None and s.acked_seq == 28, what="the ack heard")
        state = board.outbox.state()
        assert state is not None and state.connected and board.outbox.waiting() == 0
        registered = Boards(central.conn).get("board-1")
        assert registered.online and not registered.is_accepted and registered.first_seq == 4
    finally:
        uplink.close()


def test_a_clean_stop_says_offline_at_once(
    tmp_path: Path, secured: MosquittoBroker, central: Central
) -> None:
    board = Board(tmp_path / "board")
    process = UplinkProcess(board, secured).start()
    wait_for(lambda: central.online("board-1"), what="the board online")
    assert process.stop() == 0
    wait_for(lambda: central.online("board-1") is False, timeout=3, what="offline without the keep-alive")


def test_an_unclean_drop_is_seen_through_the_last_will(
    tmp_path: Path, secured: MosquittoBroker, central: Central
) -> None:
    board = Board(tmp_path / "board")
    process = UplinkProcess(board, secured).start()
    wait_for(lambda: central.online("board-1"), what="the board online")
    dropped = time.monotonic()
    process.kill()
    wait_for(lambda: central.online("board-1") is False, timeout=KEEPALIVE * 1.5 + 5, what="the last will")
    # The broker saw the socket close at once (kill -9 closes it), or at 1.5 keep-alives at most.
    assert time.monotonic() - dropped <= KEEPALIVE * 1.5 + 5
    status = Boards(central.conn).get("board-1").status
    assert status is not None and status["online"] is False and "history" in status  # the last word kept


def _client(
    broker: MosquittoBroker, user: str, password: str
) -> tuple[Any, queue.Queue[Any], queue.Queue[Any]]:
    received: queue.Queue[Any] = queue.Queue()
    connected: queue.Queue[Any] = queue.Queue()
    client = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv311)
    client.username_pw_set(user, password)
    client.on_message = lambda _c, _u, message: received.put(message)
    client.on_connect = lambda _c, _u, _f, reason, _p: connected.put(reason)
    client.connect(broker.host, broker.port, keepalive=KEEPALIVE)
    client.loop_start()
    return client, received, connected


def test_the_acl_keeps_each_board_to_its_own_topics(
    tmp_path: Path, secured: MosquittoBroker, central: Central
) -> None:
    intruder, received, connected = _client(secured, "board-2", USERS["board-2"])
    try:
        assert not connected.get(timeout=10).is_failure
        intruder.subscribe(
            [
                (f"hautetension/{EVENT}/board/board-1/assignment", 1),
                (f"hautetension/{EVENT}/board/board-1/ack", 1),
                (f"hautetension/{EVENT}/board/board-2/assignment", 1),
            ]
        )
        forged = json.dumps(
            {
                "seq": 1,
                "history": "x",
                "first": 1,
                "kind": "game-end",
                "game": 1,
                "at": 0,
                "body": {"game": 1, "points": [12, 0]},
            }
        )
        for leaf, payload in (("outbox", forged), ("status", '{"online": true}')):
            intruder.publish(f"hautetension/{EVENT}/board/board-1/{leaf}", payload, qos=1).wait_for_publish(
                10
            )
        intruder.publish(
            f"hautetension/{EVENT}/board/board-2/ack", b'{"seq": 99, "history": "x"}', qos=1, retain=True
        ).wait_for_publish(10)
        intruder.publish(f"hautetension/{EVENT}/board/board-2/live", b"{}", qos=1).wait_for_publish(10)
        # board-2's own live view goes through (the control: the ACL is not simply closed)...
        wait_for(lambda: Boards(central.conn).all(), what="board-2's own message")
        assert [b.id for b in Boards(central.conn).all()] == ["board-2"]
        # ... and nothing it forged for board-1, nor an ack for itself.
        assert central.rows("board-1") == [] and central.online("board-1") is None
        # The central's own assignment for board-1 is not readable by board-2 either.
        board1 = Board(tmp_path / "board-1")
        uplink = UplinkThread(board1, uplink_settings(broker_settings(secured, "board-1"), "board-1"))
        try:
            board1.write(1)
            wait_for(lambda: central.acked("board-1") >= 1, what="board-1's row")
            from store.event.publish import Publications

            Publications(central.conn).want("board-1", "assignment", b'{"assignment": "a1"}')
            wait_for(
                lambda: (s := board1.outbox.state()) is not None and s.assignment is not None,
                what="board-1's assignment",
            )
        finally:
            uplink.close()
        from store.db import transaction

        with transaction(central.conn):
            Publications(central.conn).want("board-2", "assignment", b'{"assignment": "b2"}')
        mine = received.get(timeout=10)  # the control: board-2 reads its own assignment...
        assert (mine.topic, mine.payload) == (
            f"hautetension/{EVENT}/board/board-2/assignment",
            b'{"assignment": "b2"}',
        )
        time.sleep(0.3)
        topics = []
        while not received.empty():
            topics.append(received.get().topic)
        assert topics == [], topics  # ... and nothing else: not board-1's topics, not the ack it forged
    finally:
        intruder.disconnect()
        intruder.loop_stop()


def test_a_wrong_password_is_refused_and_the_board_says_so(tmp_path: Path, secured: MosquittoBroker) -> None:
    board = Board(tmp_path / "board")
    settings = uplink_settings(broker_settings(secured, "board-1", password="not it"), "board-1")
    uplink = UplinkThread(board, settings)
    try:
        state = wait_for(lambda: (s := board.outbox.state()) is not None and s.note and s, what="the note")
        assert "refused this board" in str(state.note) and not state.connected
    finally:
        uplink.close()


def test_boards_over_tls_with_the_event_servers_certificate(
    tmp_path: Path, make_broker: Callable[..., MosquittoBroker], tls_authority: tuple[Any, BrokerTls]
) -> None:
    _, files = tls_authority
    broker = make_broker(
        users=USERS,
        acl=(Path(__file__).parents[2] / "systemd/mosquitto-hautetension.acl").read_text(),
        tls=files,
    )
    server = Central(tmp_path / "central", broker_settings(broker, "central", tls=files)).start()
    board = Board(tmp_path / "board")
    uplink = UplinkThread(board, uplink_settings(broker_settings(broker, "board-1", tls=files), "board-1"))
    try:
        board.write(5)
        wait_for(lambda: server.acked("board-1") == 5, what="the rows over TLS")
        assert server.rows("board-1") == board.rows()
    finally:
        uplink.close()
        server.stop()


def test_a_board_that_connects_later_gets_its_assignment_at_once_and_sees_it_cleared(
    tmp_path: Path, secured: MosquittoBroker, central: Central
) -> None:
    from store.db import transaction
    from store.event.publish import Publications

    with transaction(central.conn):
        Publications(central.conn).want("board-3", "assignment", b'{"assignment":"t1","table":4}')
    time.sleep(0.3)  # published retained while board-3 is away
    board = Board(tmp_path / "board", "board-3")
    uplink = UplinkThread(board, uplink_settings(broker_settings(secured, "board-3"), "board-3"))
    try:
        state = wait_for(
            lambda: (s := Outbox(board.conn).state()) is not None and s.assignment and s,
            what="the retained assignment",
        )
        assert state.assignment == {"assignment": "t1", "table": 4}
        with transaction(central.conn):
            Publications(central.conn).want("board-3", "assignment", b"")
        wait_for(
            lambda: (s := Outbox(board.conn).state()) is not None and s.assignment is None,
            what="the assignment cleared",
        )
    finally:
        uplink.close()


def test_a_server_that_lost_rows_asks_for_them_again(
    tmp_path: Path, secured: MosquittoBroker, central: Central
) -> None:
    board = Board(tmp_path / "board")
    uplink = UplinkThread(board, uplink_settings(broker_settings(secured, "board-1"), "board-1"))
    try:
        board.write(10)
        wait_for(lambda: central.acked("board-1") == 10, what="the rows")
        central.conn.execute("DELETE FROM event_rows WHERE seq IN (4, 5)")  # as a restored server database
        central.conn.execute("UPDATE event_histories SET acked_seq = 3")
        board.write(1)  # row 11 arrives above the gap: the server asks for 4 again at once
        wait_for(lambda: central.acked("board-1") == 11, what="the gap filled")
        assert central.rows("board-1") == board.rows()
    finally:
        uplink.close()


def test_a_board_behind_the_server_numbers_its_new_rows_after_what_the_server_holds(
    tmp_path: Path, secured: MosquittoBroker, central: Central
) -> None:
    """A board database put back from an older copy: the server's ack is ahead of the outbox."""
    board = Board(tmp_path / "board")
    uplink = UplinkThread(board, uplink_settings(broker_settings(secured, "board-1"), "board-1"))
    try:
        board.write(8)
        wait_for(lambda: central.acked("board-1") == 8, what="the rows")
    finally:
        uplink.close()
    board.conn.execute("DELETE FROM outbox WHERE seq > 5")
    board.conn.execute("UPDATE sqlite_sequence SET seq = 5 WHERE name = 'outbox'")  # the older copy
    board.conn.execute("UPDATE uplink_state SET acked_seq = 5")
    uplink = UplinkThread(board, uplink_settings(broker_settings(secured, "board-1"), "board-1"))
    try:
        wait_for(lambda: board.outbox.last_seq() == 8, what="the sequence moved past the server's ack")
        board.write(2)
        wait_for(lambda: central.acked("board-1") == 10, what="the new rows")
        state = board.outbox.state()
        assert state is not None and "holds rows up to 8" in str(state.note)
        assert [seq for seq, _ in central.rows("board-1")] == list(range(1, 11)) and central.conflicts() == 0
    finally:
        uplink.close()


@pytest.mark.parametrize("payload", [b"", b"not json", b"[]", b'{"seq": "x"}', b'{"seq": 1, "first": 2}'])
def test_a_malformed_message_is_quarantined_and_loses_nothing(
    tmp_path: Path, secured: MosquittoBroker, central: Central, payload: bytes
) -> None:
    board = Board(tmp_path / "board")
    bad, _, connected = _client(secured, "board-1", USERS["board-1"])
    try:
        assert not connected.get(timeout=10).is_failure
        bad.publish(f"hautetension/{EVENT}/board/board-1/outbox", payload, qos=1).wait_for_publish(10)
    finally:
        bad.disconnect()
        bad.loop_stop()
    assert central.ingest is not None
    wait_for(lambda: central.ingest is not None and central.ingest.quarantined == 1, what="the refusal")
    assert Quarantine(central.conn).counts() == {"board-1": 1}
    uplink = UplinkThread(board, uplink_settings(broker_settings(secured, "board-1"), "board-1"))
    try:
        board.write(2)
        wait_for(lambda: central.acked("board-1") == 2, what="the board's real rows")
    finally:
        uplink.close()
