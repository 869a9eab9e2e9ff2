"""Backups (store/backup.py): consistent while written to, checked, private, put back, rolled."""

from __future__ import annotations

import os
import sqlite3
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from store.backup import BackupError, RollingBackups, check_backup, restore_backup, tables_of, write_backup
from store.claim import ClaimedError, claim_database
from store.db import MIGRATIONS, connect, schema_version
from store.journal import Journal, JournalEntry, JournalKind
from store.tournaments import Tournaments

ROOT = Path(__file__).resolve().parents[2]


def _journal(path: Path, entries: int = 3) -> sqlite3.Connection:
    conn = connect(path)
    journal = Journal(conn)
    for n in range(entries):
        journal.append(JournalKind.SLOT, {"slot": "a9", "event": "placed", "n": n})
    return conn


def test_a_copy_while_another_process_writes_is_one_instant_of_the_database(tmp_path: Path) -> None:
    """The writer commits two entries per transaction: a consistent copy always holds an even count."""
    db = tmp_path / "h.db"
    connect(db).close()
    writer = subprocess.Popen([sys.executable, "-c", """
import sys
from store.db import connect
from store.journal import Journal, JournalEntry, JournalKind
journal = Journal(connect(sys.argv[1]))
print("writing", flush=True)
while True:
    journal.append_many([JournalEntry(JournalKind.SLOT, {"slot": "a9", "event": "placed"})] * 2)
""", str(db)], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        assert writer.stdout is not None and writer.stdout.readline() == "writing\n"
        counts = []
        for n in range(8):
            info = write_backup(db, tmp_path / f"copy-{n}.db")
            counts.append(info.journal_entries)
            assert info.journal_entries % 2 == 0
        assert counts == sorted(counts) and counts[-1] > counts[0]  # the writer went on meanwhile
    finally:
        writer.kill()
        writer.wait()
        assert writer.stdout is not None
        writer.stdout.close()


def test_a_copy_is_one_private_self_contained_checked_file(tmp_path: Path) -> None:
    saved = os.umask(0o022)
    try:
        _journal(tmp_path / "h.db").close()
        info = write_backup(tmp_path / "h.db", tmp_path / "usb" / "copy.db")
    finally:
        os.umask(saved)
    assert info.path == tmp_path / "usb" / "copy.db" and info.journal_entries == 3 and info.schema == len(
        MIGRATIONS)
    assert sorted(os.listdir(tmp_path / "usb")) == ["copy.db"]  # no -wal, no .partial
    assert stat.S_IMODE(info.path.stat().st_mode) == 0o600
    copy = sqlite3.connect(info.path)
    assert copy.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    copy.close()
    assert "3 journal entries" in info.describe()


def test_no_database_no_copy(tmp_path: Path) -> None:
    with pytest.raises(BackupError, match="there is no database there"):
        write_backup(tmp_path / "none.db", tmp_path / "copy.db")
    assert not (tmp_path / "copy.db").exists()


def test_a_target_that_cannot_be_written_leaves_nothing_half_done(tmp_path: Path) -> None:
    _journal(tmp_path / "h.db").close()
    (tmp_path / "full").write_text("a file, not a folder")
    with pytest.raises(BackupError, match="cannot write"):
        write_backup(tmp_path / "h.db", tmp_path / "full" / "copy.db")


# -- what is a backup of ours ----------------------------------------------------------------------


def _newer(path: Path) -> None:
    conn = _journal(path)
    conn.execute(f"PRAGMA user_version = {len(MIGRATIONS) + 1}")
    conn.close()


def _foreign(path: Path) -> None:
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE recipes (name TEXT)")
    conn.execute("PRAGMA user_version = 2")
    conn.close()


def _damaged(path: Path) -> None:
    conn = _journal(path, entries=400)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    with path.open("r+b") as raw:  # garbage over a page of the journal table's b-tree
        raw.seek(4096 * 3)
        raw.write(b"\xde\xad" * 2048)


def _missing_table(path: Path) -> None:
    conn = _journal(path)
    conn.execute("DROP TABLE tournament_events")
    conn.close()


REFUSED = {
    "not a database": (lambda p: p.write_bytes(b"PK\x03\x04 a zip file" * 300), "not an SQLite database"),
    "an empty file": (lambda p: p.write_bytes(b""), "not one of the Haute-Tension controller"),
    "another program's": (_foreign, "not one of the Haute-Tension controller"),
    "a newer schema": (_newer, "made by a newer version of the controller"),
    "damaged": (_damaged, "damaged"),
    "a table missing": (_missing_table, "without its tables tournament_events"),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_what_is_not_a_usable_backup_is_named(tmp_path: Path, case: str) -> None:
    make, words = REFUSED[case]
    path = tmp_path / "file.db"
    make(path)
    with pytest.raises(BackupError) as refused:
        check_backup(path)
    assert str(refused.value).startswith(f"{path}: ") and words in str(refused.value)


def test_every_schema_version_knows_its_tables(tmp_path: Path) -> None:
    assert tables_of(1) == {"journal", "commands", "board_state"}
    assert tables_of(len(MIGRATIONS)) >= {"tournaments", "tournament_events", "digital_games"}
    # Exactly those of a new database: a table a later migration renames or drops is not expected.
    conn = connect(tmp_path / "new.db")
    made = {name for name, in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            if not name.startswith("sqlite_")}
    conn.close()
    assert tables_of(len(MIGRATIONS)) == made


# -- putting one back ------------------------------------------------------------------------------


def test_restore_puts_the_backup_back_and_keeps_what_it_replaced(tmp_path: Path) -> None:
    db = tmp_path / "h.db"
    _journal(db, entries=2).close()
    write_backup(db, tmp_path / "two.db")
    _journal(db, entries=5).close()  # seven now
    panel = connect(db)  # a panel that has the database open all along
    assert panel.execute("SELECT COUNT(*) FROM journal").fetchone()[0] == 7
    info, kept = restore_backup(tmp_path / "two.db", db, keep_old_in=tmp_path / "backups")
    assert info.journal_entries == 2 and kept is not None and kept.parent == tmp_path / "backups"
    assert panel.execute("SELECT COUNT(*) FROM journal").fetchone()[0] == 2  # sees it at its next read
    assert check_backup(kept).journal_entries == 7
    assert connect(db).execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    panel.close()


def test_restore_is_refused_while_a_board_service_holds_the_database(tmp_path: Path) -> None:
    db = tmp_path / "h.db"
    _journal(db).close()
    write_backup(db, tmp_path / "copy.db")
    _journal(db).close()
    with claim_database(db), pytest.raises(ClaimedError, match=f"the database {db} is already in use"):
        restore_backup(tmp_path / "copy.db", db, keep_old_in=tmp_path / "backups")
    assert check_backup(db).journal_entries == 6  # untouched
    assert not (tmp_path / "backups").exists()


def test_a_bad_file_is_refused_before_anything_changes(tmp_path: Path) -> None:
    db = tmp_path / "h.db"
    _journal(db).close()
    _newer(tmp_path / "newer.db")
    with pytest.raises(BackupError, match="newer version"):
        restore_backup(tmp_path / "newer.db", db, keep_old_in=tmp_path / "backups")
    assert check_backup(db).journal_entries == 3 and not (tmp_path / "backups").exists()
    with pytest.raises(BackupError, match="is the database itself"):
        restore_backup(db, db, keep_old_in=None)


def test_an_older_schema_is_brought_up_to_date(tmp_path: Path) -> None:
    old = tmp_path / "v1.db"
    conn = sqlite3.connect(old, isolation_level=None)
    conn.executescript(MIGRATIONS[0])
    conn.execute("PRAGMA user_version = 1")
    conn.execute("INSERT INTO journal (at, kind, public) VALUES (1, 'slot', '{}')")
    conn.close()
    db = tmp_path / "h.db"
    connect(db).close()
    info, _ = restore_backup(old, db, keep_old_in=None)
    assert info.schema == 1
    restored = connect(db)
    assert schema_version(restored) == len(MIGRATIONS)
    assert restored.execute("SELECT COUNT(*) FROM journal").fetchone()[0] == 1
    restored.close()


# -- rolling backups ---------------------------------------------------------------------------------


def test_rolling_backups_keep_the_newest_of_each_kind(tmp_path: Path) -> None:
    _journal(tmp_path / "h.db").close()
    backups = RollingBackups(tmp_path / "h.db", folder=tmp_path / "backups", keep=2)
    try:
        for n in range(4):
            backups.take("game", str(n))
            backups.wait()
            time.sleep(0.002)
        backups.take("round", "t1-r1")
        backups.wait()
        assert [p.name.rsplit("-", 1)[-1] for p in backups.copies("game")] == ["2.db", "3.db"]
        assert len(backups.copies("round")) == 1
    finally:
        backups.close()


def test_no_rolling_backups_when_none_are_kept(tmp_path: Path) -> None:
    _journal(tmp_path / "h.db").close()
    backups = RollingBackups(tmp_path / "h.db", folder=tmp_path / "backups", keep=0)
    assert backups.take("game", "1") is None
    backups.close()
    assert not (tmp_path / "backups").exists()


def test_a_rolling_backup_that_fails_is_logged_not_raised(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    _journal(tmp_path / "h.db").close()
    (tmp_path / "backups").write_text("not a folder")
    backups = RollingBackups(tmp_path / "h.db", folder=tmp_path / "backups", keep=3)
    try:
        future = backups.take("game", "1")
        assert future is not None and future.result() is None
        assert backups.last_error is not None and "cannot write" in backups.last_error
        assert any("rolling backup (game) not made" in r.getMessage() for r in caplog.records)
    finally:
        backups.close()


def test_the_tournament_store_copies_the_database_at_every_round_made(tmp_path: Path) -> None:
    db = tmp_path / "h.db"
    backups = RollingBackups(db, folder=tmp_path / "backups", keep=5)
    store = Tournaments(connect(db), backups=backups)
    try:
        tid = store.create("Open", seed=1).id
        for name in ("Ana", "Ben", "Cy", "Dee"):
            store.record(tid, lambda t, n=name: t.register(n), actor="staff")
        backups.wait()
        assert backups.copies("round") == []  # registrations are not rounds
        store.record(tid, lambda t: t.next_round(), actor="staff")
        backups.wait()
        [copy] = backups.copies("round")
        assert copy.name.endswith(f"-t{tid}-r1.db")
        copied = Tournaments(connect(copy))
        assert copied.load(tid).round(1) is not None  # the pairings are in the copy
    finally:
        backups.close()


def test_a_thread_writing_while_rolling_backups_are_made(tmp_path: Path) -> None:
    """Copies made in the background while this process writes: each is intact and consistent."""
    db = tmp_path / "h.db"
    conn = connect(db)
    journal = Journal(conn)
    stop = threading.Event()

    def write() -> None:
        while not stop.is_set():
            journal.append_many([JournalEntry(JournalKind.SLOT, {"slot": "a9"})] * 2)

    writer = threading.Thread(target=write)
    writer.start()
    backups = RollingBackups(db, folder=tmp_path / "backups", keep=10)
    try:
        for n in range(5):
            backups.take("game", str(n))
        backups.wait()
    finally:
        stop.set()
        writer.join()
        backups.close()
        conn.close()
    copies = backups.copies("game")
    assert len(copies) == 5 and all(check_backup(c).journal_entries % 2 == 0 for c in copies)
