from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from store.db import MIGRATIONS, DatabaseError, connect, schema_version, transaction


def test_new_database_is_in_wal_mode_at_latest_schema(tmp_path: Path) -> None:
    conn = connect(tmp_path / "sub" / "board.db")
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    assert schema_version(conn) == len(MIGRATIONS)


def test_reopening_does_not_reapply_migrations(tmp_path: Path) -> None:
    path = tmp_path / "board.db"
    connect(path).execute("INSERT INTO journal (at, kind, public) VALUES (1, 'x', '{}')")
    conn = connect(path)
    assert conn.execute("SELECT COUNT(*) FROM journal").fetchone()[0] == 1


def test_database_newer_than_program_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "board.db"
    raw = sqlite3.connect(path)
    raw.execute(f"PRAGMA user_version = {len(MIGRATIONS) + 1}")
    raw.close()
    with pytest.raises(DatabaseError, match="newer than this program"):
        connect(path)


def test_file_that_is_not_a_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "board.db"
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(DatabaseError, match="cannot open"):
        connect(path)


def test_transaction_rolls_back_on_error(tmp_path: Path) -> None:
    conn = connect(tmp_path / "board.db")
    with pytest.raises(RuntimeError), transaction(conn):
        conn.execute("INSERT INTO journal (at, kind, public) VALUES (1, 'x', '{}')")
        raise RuntimeError("boom")
    assert conn.execute("SELECT COUNT(*) FROM journal").fetchone()[0] == 0


def test_a_migration_applied_meanwhile_by_another_process_is_not_applied_twice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import store.db

    path = tmp_path / "board.db"
    connect(path).close()  # the other process won the race and migrated the file
    conn = sqlite3.connect(path, isolation_level=None)
    real = store.db.schema_version
    seen = iter([0])  # what this process read before it waited for the write lock
    monkeypatch.setattr(store.db, "schema_version", lambda c: next(seen, None) or real(c))
    assert store.db.migrate(conn) == len(MIGRATIONS)
    assert conn.execute("SELECT COUNT(*) FROM sqlite_master WHERE name = 'journal'").fetchone()[0] == 1
    conn.close()


def _open(path: str, barrier: object) -> None:
    barrier.wait()  # type: ignore[attr-defined]
    connect(path).close()


def test_processes_opening_a_new_database_at_once_all_succeed(tmp_path: Path) -> None:
    import multiprocessing

    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(4)
    workers = [context.Process(target=_open, args=(str(tmp_path / "new.db"), barrier)) for _ in range(4)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
    assert [w.exitcode for w in workers] == [0, 0, 0, 0]
    assert schema_version(connect(tmp_path / "new.db")) == len(MIGRATIONS)
