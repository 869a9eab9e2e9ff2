"""The outbox: written with the journal entries it reports, numbered for good, public payloads only."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from store.db import connect
from store.journal import Journal, JournalEntry, JournalKind
from store.outbox import REPORTED_KINDS, Outbox


@pytest.fixture
def journal(tmp_path: Path) -> Journal:
    return Journal(connect(tmp_path / "board.db"))


def test_every_reported_kind_is_a_journal_kind() -> None:
    assert {kind.value for kind in JournalKind} >= REPORTED_KINDS
    assert "slot" not in REPORTED_KINDS  # pawn events stay on the board: the placement says what counts


def test_rows_are_written_with_their_entries_and_carry_the_public_payload_only(journal: Journal) -> None:
    ids = journal.append_many(
        [
            JournalEntry(JournalKind.SLOT, {"slot": "a9", "event": "placed"}, {"kind": "defense"}),
            JournalEntry(JournalKind.PLACEMENT, {"slot": "a9", "player": 0}, {"kind": "defense"}),
            JournalEntry(JournalKind.LAMPS, {"lit": []}),
        ],
        game_id=4,
    )
    rows = Outbox(journal.conn).rows(0)
    assert [(r.journal_id, r.kind, r.game_id) for r in rows] == [
        (ids[1], "placement", 4),
        (ids[2], "lamps", 4),
    ]
    stored = journal.conn.execute("SELECT public FROM journal WHERE id = ?", (ids[1],)).fetchone()[0]
    assert rows[0].body == stored and "defense" not in rows[0].body


def test_a_failed_journal_write_writes_no_outbox_row(journal: Journal) -> None:
    with pytest.raises(TypeError):
        journal.append(JournalKind.PLACEMENT, {"slot": "a9"}, state_public={"not json": object()})
    assert journal.tail(0) == [] and Outbox(journal.conn).rows(0) == []


def test_sequence_numbers_are_never_given_twice(journal: Journal) -> None:
    outbox = Outbox(journal.conn)
    journal.append(JournalKind.FAULT, {"kind": "x"})
    journal.append(JournalKind.FAULT_CLEARED, {"kind": "x"})
    assert outbox.last_seq() == 2
    journal.conn.execute("DELETE FROM outbox")
    journal.append(JournalKind.FAULT, {"kind": "y"})
    assert [r.seq for r in outbox.rows(0)] == [3]


def test_skip_past_moves_the_next_number_beyond_what_the_server_holds(journal: Journal) -> None:
    outbox = Outbox(journal.conn)
    assert outbox.skip_past(40) is True  # an empty outbox too (no sqlite_sequence row yet)
    journal.append(JournalKind.FAULT, {"kind": "x"})
    assert [r.seq for r in outbox.rows(0)] == [41]
    assert outbox.skip_past(10) is False and outbox.last_seq() == 41


def test_enrolling_starts_a_history_after_every_row_written_so_far(journal: Journal) -> None:
    outbox = Outbox(journal.conn)
    journal.append(JournalKind.GAME_START, {"game": 1})
    assert outbox.state() is None
    first = outbox.enroll("paris-2026", "board-3")
    assert (first.first_seq, first.acked_seq, first.connected) == (2, 1, False) and len(first.history) == 12
    assert outbox.waiting() == 0
    journal.append(JournalKind.GAME_END, {"game": 1})
    assert outbox.waiting() == 1
    assert outbox.enroll("paris-2026", "board-3") == outbox.state()  # the same event: kept
    outbox.record_ack(2)
    assert outbox.waiting() == 0
    moved = outbox.enroll("lyon-2026", "board-3")
    assert moved.history != first.history and moved.first_seq == 3 and moved.acked_seq == 2


def test_the_uplink_records_what_it_knows(journal: Journal) -> None:
    outbox = Outbox(journal.conn)
    with pytest.raises(LookupError):
        outbox.set_connected(True)
    outbox.enroll("paris-2026", "board-3")
    outbox.set_connected(True)
    outbox.set_assignment({"assignment": "abc", "table": 3})
    outbox.set_note("refused")
    state = outbox.state()
    assert state is not None and state.connected and state.assignment == {"assignment": "abc", "table": 3}
    assert state.note == "refused"
    outbox.set_assignment(None)
    outbox.set_note(None)
    state = outbox.state()
    assert state is not None and state.assignment is None and state.note is None


def test_a_row_as_published_is_the_stored_body_spliced_into_its_head(journal: Journal) -> None:
    outbox = Outbox(journal.conn)
    state = outbox.enroll("paris-2026", "board-3")
    journal.append(JournalKind.PLACEMENT, {"slot": "e9", "lit": ["N"], "player": 1}, game_id=2)
    row = outbox.rows(0)[0]
    message = row.message(state)
    data = json.loads(message)
    assert data == {
        "seq": 1,
        "history": state.history,
        "first": 1,
        "kind": "placement",
        "game": 2,
        "at": round(row.at, 3),
        "body": {"slot": "e9", "lit": ["N"], "player": 1},
    }
    assert message.endswith(b'"body":' + row.body.encode() + b"}")
    assert outbox.last_of("placement", 2) == 1 and outbox.last_of("placement", 3) is None
