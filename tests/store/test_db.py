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
