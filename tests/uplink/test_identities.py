"""The broker pins identities: a client's id is its user, so no board takes another's session.

Mosquitto closes a client's connection when another connects with the same client id (a session
takeover). With one board's password, a hostile board used to knock the event server (or any other
board) off the broker every time it connected with the victim's id. The shipped configuration
(``use_username_as_clientid``) replaces every client's id by its user name: the attacker only ever
takes over its own session.
"""

from __future__ import annotations

import json
import queue
from pathlib import Path

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

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

ATTACKS = 4


def _connect_as(broker: MosquittoBroker, user: str, client_id: str) -> None:
    """Connect with *user*'s own password under *client_id*, hold the connection a moment, leave."""
    connected: queue.Queue[object] = queue.Queue()
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id, protocol=mqtt.MQTTv311)
    client.username_pw_set(user, USERS[user])
    client.on_connect = lambda _c, _u, _f, reason, _p: connected.put(reason)
    client.connect(broker.host, broker.port, keepalive=KEEPALIVE)
    client.loop_start()
    try:
        reason = connected.get(timeout=10)
        assert not getattr(reason, "is_failure", True), reason  # its own credentials: accepted
        # A round trip through the broker: whatever the connect did to others is done by now.
        client.publish(f"hautetension/x/board/{user}/status", b'{"online":true}', qos=1).wait_for_publish(10)
    finally:
        client.disconnect()
        client.loop_stop()


def test_a_board_using_the_event_servers_client_id_does_not_take_its_session(
    tmp_path: Path, secured: MosquittoBroker, central: Central
) -> None:
    assert central.ingest is not None
    ingest = central.ingest
    wait_for(lambda: ingest.connected, what="the event server connected")
    server_id = ingest.link.client._client_id.decode()
    for client_id in (server_id, "central", f"hautetension-central-{EVENT}"):
        for _ in range(ATTACKS):
            _connect_as(secured, "board-2", client_id)
    # The server kept its one connection, and still takes a board's rows.
    board = Board(tmp_path / "board")
    uplink = UplinkThread(board, uplink_settings(broker_settings(secured, "board-1"), "board-1"))
    try:
        board.write(5)
        wait_for(lambda: len(central.rows("board-1")) == 5, what="the board's rows stored")
    finally:
        uplink.close()
    assert ingest.connects == 1 and ingest.connected


def test_a_board_using_another_boards_client_id_does_not_take_its_session(
    tmp_path: Path, secured: MosquittoBroker, central: Central
) -> None:
    board = Board(tmp_path / "board")
    victim = UplinkThread(board, uplink_settings(broker_settings(secured, "board-1"), "board-1"))
    try:
        wait_for(lambda: victim.uplink.connects == 1, what="board-1's uplink connected")
        victim_id = victim.uplink.link.client._client_id.decode()
        for client_id in (victim_id, "board-1", "hautetension-paris-2026-board-1"):
            for _ in range(ATTACKS):
                _connect_as(secured, "board-2", client_id)
        board.write(5)
        wait_for(lambda: len(central.rows("board-1")) == 5, what="board-1's rows stored")
        assert victim.uplink.connects == 1
        stored = [json.loads(body)["n"] for _, body in central.rows("board-1")]
        assert stored == [1, 2, 3, 4, 5]
    finally:
        victim.close()


def test_a_packet_over_the_brokers_limit_never_reaches_the_event_server(
    secured: MosquittoBroker, central: Central
) -> None:
    assert central.ingest is not None
    ingest = central.ingest
    wait_for(lambda: ingest.connected, what="the event server connected")
    before = ingest.received
    dropped: queue.Queue[object] = queue.Queue()
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="board-2", protocol=mqtt.MQTTv311)
    client.username_pw_set("board-2", USERS["board-2"])
    client.on_disconnect = lambda _c, _u, _f, reason, _p: dropped.put(reason)
    client.connect(secured.host, secured.port, keepalive=KEEPALIVE)
    client.loop_start()
    try:
        huge = json.dumps({"online": True, "pad": "x" * 1_000_000}).encode()
        client.publish(f"hautetension/{EVENT}/board/board-2/status", huge, qos=1)
        dropped.get(timeout=10)  # the broker closed the sender's connection
        # A message of a legitimate size from the same board still goes through.
        _connect_as(secured, "board-2", "board-2")
        small = f"hautetension/{EVENT}/board/board-3/status"
        _publish_once(secured, "board-3", small, json.dumps({"online": True, "pad": "x" * 16_000}).encode())
        wait_for(lambda: ingest.received > before, what="the legitimate status")
    finally:
        client.loop_stop()
    assert ingest.received == before + 1 and ingest.connects == 1


def _publish_once(broker: MosquittoBroker, user: str, topic: str, payload: bytes) -> None:
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=user, protocol=mqtt.MQTTv311)
    client.username_pw_set(user, USERS[user])
    client.connect(broker.host, broker.port, keepalive=KEEPALIVE)
    client.loop_start()
    try:
        client.publish(topic, payload, qos=1).wait_for_publish(10)
    finally:
        client.disconnect()
        client.loop_stop()


def test_the_tests_and_the_demo_run_the_shipped_rules_for_clients(secured: MosquittoBroker) -> None:
    from hautetension.commands.event import broker_rules

    rules = broker_rules()
    keys = {line.split()[0] for line in rules}
    assert {"use_username_as_clientid", "max_packet_size", "max_queued_messages", "max_queued_bytes"} <= keys
    assert {"max_inflight_messages"} <= keys
    assert set(rules) <= set(secured.config_path.read_text().splitlines())
