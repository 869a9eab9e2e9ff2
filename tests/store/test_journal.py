from __future__ import annotations

import multiprocessing
from pathlib import Path

import pytest

from store.db import connect
from store.journal import Journal, JournalEntry, JournalKind


def test_entries_come_back_in_order_with_increasing_ids(tmp_path: Path) -> None:
    journal = Journal(connect(tmp_path / "j.db"))
    first = journal.append("slot", {"slot": "a9"}, {"kind": "attack"}, game_id=1)
    second = journal.append("lamps", {"lit": ["N"]}, game_id=1)
    assert second > first
    entries = journal.tail(0)
    assert [e.id for e in entries] == [first, second]
    assert entries[0].public == {"slot": "a9"} and entries[0].private == {"kind": "attack"}
    assert entries[1].private is None
    assert journal.tail(first) == entries[1:]
    assert journal.last_id() == second


def test_ids_are_never_reused_after_deletion(tmp_path: Path) -> None:
    journal = Journal(connect(tmp_path / "j.db"))
    last = journal.append(JournalKind.FAULT, {})
    journal.conn.execute("DELETE FROM journal")
    assert journal.append(JournalKind.FAULT_CLEARED, {}) > last


def test_state_is_written_with_its_entry(tmp_path: Path) -> None:
    journal = Journal(connect(tmp_path / "j.db"))
    assert journal.state() is None
    entry_id = journal.append("placement", {"slot": "e9"}, state_public={"pawns": {"e9": {"owner": 0}}},
                              state_private={"kinds": {"e9": "defense"}})
    state = journal.state()
    assert state is not None
    assert state.journal_id == entry_id
    assert state.public == {"pawns": {"e9": {"owner": 0}}}
    assert state.private == {"kinds": {"e9": "defense"}}
    journal.write_health({"backend": "sim"})
    state = journal.state()
    assert state is not None and state.health == {"backend": "sim"} and state.journal_id == entry_id


def test_kind_filter_and_game_entries(tmp_path: Path) -> None:
    journal = Journal(connect(tmp_path / "j.db"))
    journal.append("fault", {"m": 1})
    journal.append("placement", {"s": 1}, game_id=7)
    journal.append("placement", {"s": 2}, game_id=8)
    assert [e.public for e in journal.tail(0, kinds=["placement"])] == [{"s": 1}, {"s": 2}]
    assert [e.public for e in journal.game_entries(8)] == [{"s": 2}]
    last = journal.last_of_kind("placement", "fault")
    assert last is not None and last.public == {"s": 2}


def _writer(path: str, count: int) -> None:
    journal = Journal(connect(path))
    for n in range(count):
        journal.append(JournalKind.SLOT, {"n": n})


def test_two_processes_write_without_losing_entries(tmp_path: Path) -> None:
    path = str(tmp_path / "j.db")
    connect(path).close()
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_writer, args=(path, 50)) for _ in range(2)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
    journal = Journal(connect(path))
    entries = journal.tail(0, limit=1000)
    assert len(entries) == 100
    assert [e.id for e in entries] == sorted(e.id for e in entries)


def test_max_game_id_follows_the_entries(tmp_path: Path) -> None:
    journal = Journal(connect(tmp_path / "j.db"))
    assert journal.max_game_id() == 0
    journal.append("game-start", {}, game_id=1)
    journal.append("fault", {})
    journal.append("game-start", {}, game_id=2)
    assert journal.max_game_id() == 2


def test_entries_are_typed_and_a_kind_the_journal_does_not_know_writes_nothing(tmp_path: Path) -> None:
    journal = Journal(connect(tmp_path / "j.db"))
    journal.append_many([JournalEntry(JournalKind.PLACEMENT, {"slot": "a9"}, {"kind": "attack"}),
                         JournalEntry(JournalKind.LAMPS, {"lit": []})])
    placement, lamps = journal.tail(0)
    assert placement.kind is JournalKind.PLACEMENT and lamps.kind is JournalKind.LAMPS
    assert lamps.private is None and JournalEntry(JournalKind.LAMPS, {}).private is None
    assert journal.last_of_kind(JournalKind.LAMPS) == lamps
    with pytest.raises(ValueError, match="placment"):
        journal.append_many([JournalEntry(JournalKind.SLOT, {}), ("placment", {}, None)])  # type: ignore[list-item]
    assert journal.tail(0) == [placement, lamps]
    # In SQL the kind is its text, as every reader of the database sees it.
    stored = journal.conn.execute("SELECT kind FROM journal ORDER BY id").fetchall()
    assert [row[0] for row in stored] == ["placement", "lamps"]


def test_newest_first_with_filters(tmp_path: Path) -> None:
    journal = Journal(connect(tmp_path / "j.db"))
    ids = [
        journal.append(JournalKind.GAME_START, {"game": 1}, game_id=1),
        journal.append(JournalKind.PLACEMENT, {"slot": "a9"}, game_id=1),
        journal.append(JournalKind.FAULT, {"kind": "flicker", "slot": "c3"}),
        journal.append(JournalKind.PLACEMENT, {"slot": "b9"}, game_id=2),
    ]
    assert [e.id for e in journal.newest()] == ids[::-1]
    assert [e.id for e in journal.newest(ids[3], limit=2)] == [ids[2], ids[1]]
    assert [e.id for e in journal.newest(kinds=[JournalKind.PLACEMENT])] == [ids[3], ids[1]]
    assert [e.id for e in journal.newest(game_id=1)] == [ids[1], ids[0]]
    assert [e.id for e in journal.newest(kinds=[JournalKind.PLACEMENT], game_id=2)] == [ids[3]]
    journal.conn.execute("UPDATE journal SET at = 100 WHERE id <= ?", (ids[1],))
    assert [e.id for e in journal.newest(since=1000)] == [ids[3], ids[2]]
