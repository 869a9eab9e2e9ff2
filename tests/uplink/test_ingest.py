"""The ingest outlives a failing database: the batch is dropped unacknowledged, the boards send it again."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from protocol import Ack, Leaf, dumps, topic
from store.event.db import connect_event
from store.event.intake import Report
from store.event.publish import Publications
from store.event.quarantine import Quarantine
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


def test_a_row_the_store_fails_on_is_found_and_quarantined_and_the_others_go_in(db_location: str) -> None:
    """An error nobody foresaw while storing a batch (here: a row that never went through the reader,
    with a game id no 64-bit column holds): the batch is tried again, then split until the row at fault
    is alone; it is quarantined as its stand-in, and every other row, before and after it, is stored."""
    conn = connect_event(db_location)
    ingest = Ingest(conn, BrokerSettings(), event=EVENT, confirm_timeout=60, poll=0.01)
    one, two = Reports("board-1"), Reports("board-2")
    batch: list[tuple[str, Report]] = [("board-1", one.status()), ("board-2", two.status())]
    batch += [("board-1", one.row("placement", {"n": n})) for n in range(5)]
    batch += [("board-2", two.row("placement", {"n": 0}))]
    poison = two.row("placement", {"n": 1})
    batch += [("board-2", dataclasses.replace(poison, game=2**63))]
    batch += [("board-2", two.row("placement", {"n": n})) for n in range(2, 5)]
    receipt = ingest._receive(batch)
    assert receipt.quarantined == 1 and ingest.faults >= 2
    assert ingest.last_error is not None and "storing a batch" in ingest.last_error
    assert receipt.acks["board-1"].seq == 5 and receipt.acks["board-2"] == Ack(5, "h1", refused=(2,))
    kinds = [(str(r[0]), int(r[1]), str(r[2])) for r in conn.execute(
        "SELECT board, seq, kind FROM event_rows ORDER BY board, seq")]
    assert kinds == [*(("board-1", n, "placement") for n in range(1, 6)), ("board-2", 1, "placement"),
                     ("board-2", 2, "refused"), *(("board-2", n, "placement") for n in range(3, 6))]
    (kept,) = Quarantine(conn).recent()
    assert (kept.board, kept.topic, kept.seq) == ("board-2", "outbox", 2)
    assert kept.reason.startswith("could not be stored (")
    conn.close()
