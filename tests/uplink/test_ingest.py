"""The ingest outlives a failing database: the batch is dropped unacknowledged, the boards send it again."""

from __future__ import annotations

from pathlib import Path

from protocol import Leaf, dumps, topic
from store.event.db import connect_event
from store.event.publish import Publications
from tests.store.event.helpers import Reports
from tests.uplink.helpers import EVENT
from uplink.client import Connected, Received
from uplink.ingest import Ingest
from uplink.settings import BrokerSettings


def test_a_batch_the_database_refuses_is_dropped_and_the_ingest_goes_on(tmp_path: Path) -> None:
    conn = connect_event(tmp_path / "central.db")
    conn.execute("PRAGMA busy_timeout = 50")  # give up on a locked database at once
    ingest = Ingest(conn, BrokerSettings(), event=EVENT, confirm_timeout=60, poll=0.01)
    row = Reports("board-1").row("placement", {"slot": "a9"})
    body = {"seq": row.seq, "first": row.first, "history": row.history, "kind": row.kind, "game": None}
    message = Received(topic(EVENT, "board-1", Leaf.OUTBOX), dumps({**body, "at": row.at, "body": {}}), False)
    other = connect_event(tmp_path / "central.db")
    other.execute("BEGIN IMMEDIATE")  # another writer holds the database too long
    ingest.link.events.put(message)
    ingest.step()  # no exception: the loop goes on
    assert ingest.store_errors == 1 and ingest.stored == 0
    other.execute("ROLLBACK")

    ingest.link.events.put(message)  # the board sends it again (it was never acknowledged)
    ingest.step()
    assert ingest.store_errors == 1 and ingest.stored == 1
    other.close()
    conn.close()


def test_a_reconnect_while_the_database_is_locked_does_not_stop_the_ingest(tmp_path: Path) -> None:
    """The broker connection comes back while another writer holds the database: the ingest survives,
    and publishes everything again once the database takes the write."""
    conn = connect_event(tmp_path / "central.db")
    conn.execute("PRAGMA busy_timeout = 50")
    Publications(conn).want("board-1", "ack", b'{"seq":3}')
    conn.execute("UPDATE event_publish SET published = version")  # out already, before the link dropped
    ingest = Ingest(conn, BrokerSettings(), event=EVENT, confirm_timeout=60, poll=0.01)
    other = connect_event(tmp_path / "central.db")
    other.execute("BEGIN IMMEDIATE")
    ingest.link.events.put(Connected())
    ingest.step()  # no exception: the loop goes on
    assert ingest.connected and ingest.store_errors == 1
    assert Publications(conn).pending() == []
    other.execute("ROLLBACK")

    ingest.connected = False  # keep this turn from publishing to a broker there is none of
    ingest.step()
    assert [(p.board, p.leaf) for p in Publications(conn).pending()] == [("board-1", "ack")]
    other.close()
    conn.close()
