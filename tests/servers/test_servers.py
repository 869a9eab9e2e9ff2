"""The real servers the suite starts behave as the tests built on them assume."""

from __future__ import annotations

import queue
import ssl
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from tests.servers.mosquitto import BrokerTls, MosquittoBroker
from tests.servers.postgres import PostgresCluster

mqtt = pytest.importorskip("paho.mqtt.client")
psycopg = pytest.importorskip("psycopg")


@contextmanager
def mqtt_client(
    broker: MosquittoBroker,
    *,
    user: str | None = None,
    password: str | None = None,
    tls_ca: BrokerTls | None = None,
) -> Iterator[tuple[Any, queue.Queue[Any]]]:
    """A connected paho client and the queue of the messages it receives."""
    received: queue.Queue[Any] = queue.Queue()
    connected: queue.Queue[Any] = queue.Queue()
    subscribed: queue.Queue[int] = queue.Queue()
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv311)
    if user is not None:
        client.username_pw_set(user, password)
    port = broker.port
    if tls_ca is not None:
        client.tls_set(ca_certs=str(tls_ca.ca_file), tls_version=ssl.PROTOCOL_TLS_CLIENT)
        assert broker.tls_port is not None
        port = broker.tls_port
    client.on_message = lambda _client, _userdata, message: received.put(message)
    client.on_connect = lambda _client, _userdata, _flags, reason, _props: connected.put(reason)
    client.on_subscribe = lambda _client, _userdata, mid, _reasons, _props: subscribed.put(mid)
    client.connect(broker.host, port, keepalive=5)
    client.loop_start()
    try:
        reason = connected.get(timeout=10)
        if reason.is_failure:
            raise ConnectionRefusedError(str(reason))
        client.user_data_set(subscribed)
        yield client, received
    finally:
        client.disconnect()
        client.loop_stop()


def subscribe_and_wait(client: Any, topic: str) -> None:
    """Subscribe and wait for the broker's SUBACK: messages published after this reach the client."""
    _, mid = client.subscribe(topic, qos=1)
    subscribed: queue.Queue[int] = client.user_data_get()
    assert subscribed.get(timeout=10) == mid


def publish_and_wait(client: Any, topic: str, payload: bytes, *, qos: int = 1, retain: bool = False) -> None:
    info = client.publish(topic, payload, qos=qos, retain=retain)
    info.wait_for_publish(timeout=10)
    assert info.is_published()


def test_a_message_goes_through_the_broker(broker: MosquittoBroker) -> None:
    with mqtt_client(broker) as (subscriber, received), mqtt_client(broker) as (publisher, _):
        subscribe_and_wait(subscriber, "event/1/board/b1/result")
        publish_and_wait(publisher, "event/1/board/b1/result", b"first")
        assert received.get(timeout=10).payload == b"first"


def test_the_broker_refuses_a_wrong_password_and_enforces_the_acl(
    make_broker: Callable[..., MosquittoBroker],
) -> None:
    broker = make_broker(
        users={"board-1": "secret-1", "server": "secret-s"},
        acl="user board-1\ntopic write boards/board-1/#\n\nuser server\ntopic read boards/#\n",
    )
    with pytest.raises(ConnectionRefusedError), mqtt_client(broker, user="board-1", password="wrong"):
        pass
    with (
        mqtt_client(broker, user="server", password="secret-s") as (server, received),
        mqtt_client(broker, user="board-1", password="secret-1") as (board, _),
    ):
        subscribe_and_wait(server, "boards/#")
        publish_and_wait(board, "boards/board-2/result", b"not mine")  # the ACL drops it silently
        publish_and_wait(board, "boards/board-1/result", b"mine")
        assert received.get(timeout=10).payload == b"mine"
        assert received.empty()


def test_retained_messages_survive_a_clean_restart(broker: MosquittoBroker) -> None:
    with mqtt_client(broker) as (client, _):
        publish_and_wait(client, "boards/b1/assignment", b"table 3", retain=True)
    port = broker.port
    broker.restart()
    assert broker.port == port
    with mqtt_client(broker) as (client, received):
        client.subscribe("boards/b1/assignment", qos=1)
        assert received.get(timeout=10).payload == b"table 3"


def test_a_killed_broker_comes_back_on_the_same_port(broker: MosquittoBroker) -> None:
    pid = broker.pid
    broker.kill()
    assert not broker.is_running
    broker.start()
    assert broker.pid != pid
    with mqtt_client(broker) as (client, received):
        subscribe_and_wait(client, "ping")
        publish_and_wait(client, "ping", b"pong")
        assert received.get(timeout=10).payload == b"pong"


def test_tls_with_the_throwaway_authority(
    make_broker: Callable[..., MosquittoBroker], tls_authority: tuple[Any, BrokerTls]
) -> None:
    _, files = tls_authority
    broker = make_broker(tls=files)
    with mqtt_client(broker, tls_ca=files) as (client, received):
        subscribe_and_wait(client, "secure")
        publish_and_wait(client, "secure", b"over tls")
        assert received.get(timeout=10).payload == b"over tls"


def test_each_test_gets_its_own_postgres_database(postgres_cluster: PostgresCluster) -> None:
    first, second = postgres_cluster.create_database(), postgres_cluster.create_database()
    assert first != second
    with psycopg.connect(first, autocommit=True) as connection:
        connection.execute("CREATE TABLE results (board text, sequence int, PRIMARY KEY (board, sequence))")
        connection.execute("INSERT INTO results VALUES ('b1', 1)")
        with pytest.raises(psycopg.errors.UniqueViolation):
            connection.execute("INSERT INTO results VALUES ('b1', 1)")
    with psycopg.connect(second) as connection:
        found = connection.execute("SELECT to_regclass('results')").fetchone()
        assert found == (None,)


def test_postgres_survives_kill_9_with_committed_data(postgres_cluster: PostgresCluster) -> None:
    dsn = postgres_cluster.create_database()
    with psycopg.connect(dsn, autocommit=True) as connection:
        connection.execute("CREATE TABLE t (n int)")
        connection.execute("INSERT INTO t VALUES (7)")
    postgres_cluster.kill()
    postgres_cluster.start()
    with psycopg.connect(dsn) as connection:
        assert connection.execute("SELECT n FROM t").fetchall() == [(7,)]


def test_listen_notify_reaches_another_connection(postgres_dsn: str) -> None:
    with (
        psycopg.connect(postgres_dsn, autocommit=True) as listener,
        psycopg.connect(postgres_dsn, autocommit=True) as talker,
    ):
        listener.execute("LISTEN standings")
        talker.execute("NOTIFY standings, 'tournament 1'")
        notice = next(listener.notifies(timeout=10))
        assert (notice.channel, notice.payload) == ("standings", "tournament 1")
