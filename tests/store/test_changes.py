"""One listening connection per process, on a real PostgreSQL: every follower hears every commit, the
server's connections stay the same however many follow, and a lost connection is listened on again."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import psycopg
import pytest

from store.changes import ChangeListener, Subscription
from store.db import transaction
from store.dialect import Connection
from tests.servers.postgres import PostgresCluster

pytestmark = pytest.mark.parametrize("db_location", ["postgresql"], indirect=True)

FOLLOWERS = 25
WAIT_S = 10.0
"""How long a test waits for something that happens at once (a bound against hanging, not a timing)."""


def backends(cluster: PostgresCluster, dsn: str) -> list[str]:
    """The queries of every connection to *dsn*'s database (asked from another database)."""
    with psycopg.connect(cluster.dsn(), autocommit=True) as admin:
        rows = admin.execute(
            "SELECT query FROM pg_stat_activity WHERE datname = %s AND backend_type = 'client backend'",
            (dsn.rsplit("/", 1)[1],),
        ).fetchall()
    return [str(row[0]) for row in rows]


def listening(cluster: PostgresCluster, dsn: str) -> int:
    return sum(1 for query in backends(cluster, dsn) if query.startswith("LISTEN"))


def wait_until(predicate: object, what: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while not predicate():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} within {WAIT_S:g} s")
        time.sleep(0.05)


def commit(conn: Connection) -> None:
    with transaction(conn):
        conn.execute("INSERT INTO event_boards (board, first_seen, last_seen) VALUES (?, 0, 0)",
                     (f"b{time.monotonic_ns()}",))


def all_hear(subscriptions: list[Subscription]) -> bool:
    """Whether every subscription hears of a change (each waits in a thread of its own, as streams do)."""
    heard = [False] * len(subscriptions)

    def hear(i: int) -> None:
        heard[i] = subscriptions[i].wait(WAIT_S)

    threads = [threading.Thread(target=hear, args=(i,)) for i in range(len(subscriptions))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return all(heard)


@pytest.fixture
def listener(db_location: str) -> Iterator[ChangeListener]:
    made = ChangeListener(db_location, timeout=0.2, retry_s=0.2)
    yield made
    made.close()


def settle(subscriptions: list[Subscription]) -> None:
    """Forget the wake-up every subscription had when the listener connected."""
    for s in subscriptions:
        s.wait(0)


def test_many_followers_share_one_connection_and_each_hears_every_commit(
    event_db: Connection, db_location: str, postgres_cluster: PostgresCluster, listener: ChangeListener
) -> None:
    before = len(backends(postgres_cluster, db_location))
    first = listener.subscribe()
    wait_until(lambda: listener.connected, "the listener connected")
    assert listening(postgres_cluster, db_location) == 1
    assert len(backends(postgres_cluster, db_location)) == before + 1
    followers = [first] + [listener.subscribe() for _ in range(FOLLOWERS - 1)]
    assert listener.subscribers == FOLLOWERS
    assert len(backends(postgres_cluster, db_location)) == before + 1  # still one more, not 25
    settle(followers)
    assert not any(s.wait(0.3) for s in followers)  # nothing committed: nobody woken
    commit(event_db)
    assert all_hear(followers)
    assert not any(s.wait(0) for s in followers)  # one commit, one wake-up each
    for s in followers[1:]:
        s.close()
    commit(event_db)
    assert listener.subscribers == 1 and first.wait(WAIT_S)
    assert len(backends(postgres_cluster, db_location)) == before + 1 and listener.connects == 1


def test_a_rolled_back_transaction_wakes_nobody(event_db: Connection, listener: ChangeListener) -> None:
    follower = listener.subscribe()
    wait_until(lambda: listener.connected, "the listener connected")
    settle([follower])
    with pytest.raises(RuntimeError), transaction(event_db):
        event_db.execute("INSERT INTO event_boards (board, first_seen, last_seen) VALUES ('x', 0, 0)")
        raise RuntimeError("changed my mind")
    assert not follower.wait(0.5)


def test_an_ended_backend_is_listened_on_again_and_every_follower_woken(
    event_db: Connection, db_location: str, postgres_cluster: PostgresCluster, listener: ChangeListener
) -> None:
    followers = [listener.subscribe() for _ in range(5)]
    wait_until(lambda: listener.connected, "the listener connected")
    settle(followers)
    with psycopg.connect(postgres_cluster.dsn(), autocommit=True) as admin:
        ended = admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE datname = %s AND query LIKE 'LISTEN%%'",
            (db_location.rsplit("/", 1)[1],),
        ).fetchall()
    assert ended == [(True,)]
    wait_until(lambda: listener.connects == 2 and listener.connected, "the listener connected again")
    assert all_hear(followers)  # woken by the reconnection: a commit may have come meanwhile
    commit(event_db)
    assert all_hear(followers)
    assert listening(postgres_cluster, db_location) == 1


def test_a_restarted_server_is_listened_on_again(
    event_db: Connection, db_location: str, postgres_cluster: PostgresCluster, listener: ChangeListener
) -> None:
    followers = [listener.subscribe() for _ in range(3)]
    wait_until(lambda: listener.connected, "the listener connected")
    settle(followers)
    postgres_cluster.restart()
    wait_until(lambda: listener.connects >= 2 and listener.connected, "the listener connected again")
    settle(followers)
    commit(event_db)
    assert all_hear(followers)
    assert listening(postgres_cluster, db_location) == 1


def test_a_closed_listener_lets_go_of_its_connection(
    db_location: str, postgres_cluster: PostgresCluster, listener: ChangeListener
) -> None:
    follower = listener.subscribe()
    wait_until(lambda: listener.connected, "the listener connected")
    follower.wait(0)
    listener.close()
    assert follower.wait(0)  # woken, to find out it is the end
    wait_until(lambda: listening(postgres_cluster, db_location) == 0, "the connection closed")
    with pytest.raises(RuntimeError, match="closed"):
        listener.subscribe()
