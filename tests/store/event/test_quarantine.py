"""Refused messages in the event store, on both engines: kept for staff, bounded, stood in for, named in the
board's ack; a stored result the server cannot use never stops settling nor a page."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from protocol import Ack, parse_ack
from protocol.limits import MAX_HISTORIES
from store.db import apply_migrations, migrate, open_database
from store.dialect import Connection, PgDatabase
from store.event import sql
from store.event.assignments import Assignments
from store.event.db import EVENT_SCHEMA_TABLE, event_schema_version, migrate_event
from store.event.intake import KEEP_CONFLICTS, Intake
from store.event.publish import Publications
from store.event.quarantine import KEEP_PER_BOARD, Quarantine, Refusal
from store.event.results import Results
from tests.servers.postgres import PostgresCluster
from tests.store.event.helpers import Reports, a_tournament, boards_online, send, table_of


def refusal(seq: int | None = None, *, payload: bytes = b"\x00{garbage\xff", history: str = "h1") -> Refusal:
    if seq is None:
        return Refusal("live", "a live view is not JSON", payload)
    return Refusal("outbox", "an outbox row's body is an object", payload, history, seq, 1)


def test_a_refused_row_is_stood_in_for_acknowledged_and_named_in_the_ack(
    intake: Intake, conn: Connection
) -> None:
    board = Reports("board-1")
    send(intake, "board-1", [board.status(), board.row("placement", {"slot": "a9"})])
    board.seq += 1  # row 2 is the one refused
    receipt = intake.receive([("board-1", refusal(2)), ("board-1", board.row("placement", {"slot": "b9"}))])
    assert receipt.quarantined == 1
    assert receipt.acks["board-1"] == Ack(3, "h1", refused=(2,))  # row 2 passed: nothing waits behind it
    later = send(intake, "board-1", [board.row("placement", {"slot": "c9"})])
    assert later.acks["board-1"].seq == 4
    published = Publications(conn).wanted("board-1", "ack")
    assert published is not None and parse_ack(published).refused == (2,)
    stored = [(int(r[0]), str(r[1])) for r in conn.execute("SELECT seq, kind FROM event_rows ORDER BY seq")]
    assert stored == [(1, "placement"), (2, "refused"), (3, "placement"), (4, "placement")]
    # The board sends it again before it heard the ack: counted again, never stored twice.
    again = intake.receive([("board-1", refusal(2))])
    assert again.stored == 0 and again.duplicates == 1
    assert Quarantine(conn).counts() == {"board-1": 2}
    kept = Quarantine(conn).recent()
    assert [(q.board, q.topic, q.seq) for q in kept] == [("board-1", "outbox", 2)] * 2
    assert kept[0].head == "\\x00{garbage\\xff" and kept[0].size == 10  # escaped, never raw


def test_the_quarantine_keeps_the_newest_of_each_board_and_counts_them_all(
    intake: Intake, conn: Connection
) -> None:
    for _ in range(3):
        intake.receive([("board-1", refusal(payload=b"x" * 100_000))] * 40 + [("board-2", refusal())])
    quarantine = Quarantine(conn)
    assert quarantine.counts() == {"board-1": 120, "board-2": 3}
    kept = conn.execute(
        "SELECT board, COUNT(*), MAX(LENGTH(head)) FROM event_quarantine GROUP BY board ORDER BY board"
    ).fetchall()
    assert [(r[0], int(r[1]), int(r[2])) for r in kept] == [
        ("board-1", KEEP_PER_BOARD, 256),
        ("board-2", 3, 16),
    ]
    assert quarantine.recent(1)[0].board == "board-2"


def test_a_board_opens_a_bounded_number_of_histories(intake: Intake, conn: Connection) -> None:
    for n in range(MAX_HISTORIES):
        board = Reports("board-1", history=f"h{n}")
        send(intake, "board-1", [board.status(), board.row("placement", {})])
    extra = Reports("board-1", history="one-too-many")
    receipt = send(intake, "board-1", [extra.status(), extra.row("placement", {})])
    assert receipt.quarantined == 2 and receipt.stored == 0
    histories = conn.execute("SELECT COUNT(*) FROM event_histories WHERE board = 'board-1'").fetchone()[0]
    assert int(histories) == MAX_HISTORIES
    assert {q.reason for q in Quarantine(conn).recent()} == {
        f"board board-1 opened more than {MAX_HISTORIES} histories at this event:"
        " history one-too-many refused"
    }
    assert conn.execute("SELECT online FROM event_boards").fetchone()[0] == 1  # its presence still counts
    # The histories it has go on as before.
    old = Reports("board-1", history="h3", first=2)
    assert send(intake, "board-1", [old.row("placement", {})]).stored == 1


def test_a_stored_result_that_cannot_be_read_is_a_clash_and_stops_nothing(
    intake: Intake, conn: Connection
) -> None:
    """A result stored before points were checked (a points list holding "x") is a clash with the reason
    when it is to be entered, never entered; every other result goes in, and reading results never fails."""
    boards_online(intake, "board-1", "board-2")
    tid = a_tournament(conn, players=8)
    made = Assignments(conn).assign_round(tid)
    for assignment in made:
        board = Reports(str(assignment.board))
        table = table_of(conn, tid, assignment.round, assignment.table)
        send(intake, board.board, board.game(1, **table, assignment=assignment.id))
        if board.board == "board-1":
            poison = json.dumps({"points": ["x", 1, 2]})
            conn.execute("UPDATE event_games SET result = ? WHERE board = 'board-1'", (poison,))
        send(intake, board.board, [board.agree(1, [0, 1, 2, 3])])
    results = Results(conn)
    assert {r.board for r in results.all()} == {"board-1", "board-2"}  # readable, as pages read them
    moved = {r.board: r for r in results.settle()}
    assert moved["board-1"].status == "clash" and "could not be read" in (moved["board-1"].problem or "")
    assert moved["board-2"].status == "entered", moved["board-2"].problem
    assert results.settle() == []  # a clash once: never tried again on every turn


@pytest.mark.parametrize("engine", ["sqlite", "postgresql"])
def test_the_quarantine_migration_keeps_what_was_there(
    engine: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    if engine == "sqlite":
        location = str(tmp_path / "event.db")
    else:
        cluster: PostgresCluster = request.getfixturevalue("postgres_cluster")
        location = cluster.create_database()
    conn = open_database(location)
    try:
        if isinstance(conn, PgDatabase):
            migrate(conn)
        apply_migrations(conn, sql.MIGRATIONS[:3], versions=EVENT_SCHEMA_TABLE, what="event schema")
        conn.execute("INSERT INTO event_boards (board, first_seen, last_seen) VALUES ('board-1', 1, 1)")
        assert migrate_event(conn) == event_schema_version(conn) == len(sql.MIGRATIONS)  # 4 and after
        Quarantine(conn).keep("board-1", refusal(), 5.0)
        assert Quarantine(conn).counts() == {"board-1": 1}
        assert conn.execute("SELECT board FROM event_boards").fetchone()[0] == "board-1"
    finally:
        conn.close()


def test_conflicts_are_kept_for_staff_within_a_bound(intake: Intake, conn: Connection) -> None:
    """A board sending other bodies under a number already stored, over and over: the newest are kept."""
    board = Reports("board-1")
    row = board.row("placement", {"slot": "a9"})
    send(intake, "board-1", [board.status(), row])
    for n in range(KEEP_CONFLICTS + 30):
        send(intake, "board-1", [dataclasses.replace(row, body={"slot": "a9", "n": n})])
    kept = [json.loads(r[0])["n"] for r in conn.execute("SELECT body FROM event_conflicts ORDER BY id")]
    assert kept == list(range(30, KEEP_CONFLICTS + 30))
