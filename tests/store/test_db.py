from __future__ import annotations

import os
import sqlite3
import stat
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

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


# -- the database is private (it holds the pawns' kinds) ----------------------------------------


@pytest.fixture
def umask() -> Iterator[Callable[[int], None]]:
    saved = os.umask(0o022)
    os.umask(saved)
    yield os.umask
    os.umask(saved)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_new_database_and_its_wal_are_0600_in_a_checkout(tmp_path: Path, umask: Any) -> None:
    umask(0o022)  # a developer's usual umask: sqlite3 alone would make the file 0644
    conn = connect(tmp_path / "var" / "hautetension.db")
    conn.execute("INSERT INTO journal (at, kind, public) VALUES (1, 'x', '{}')")
    for name in ("hautetension.db", "hautetension.db-wal", "hautetension.db-shm"):
        assert _mode(tmp_path / "var" / name) == 0o600, name
    assert _mode(tmp_path / "var") == 0o700
    conn.close()


def test_an_older_checkouts_readable_files_are_made_private(tmp_path: Path, umask: Any) -> None:
    umask(0o022)
    path = tmp_path / "hautetension.db"
    raw = sqlite3.connect(path)  # as connect() made them before: 0644, and so its -wal and -shm
    raw.execute("PRAGMA journal_mode = WAL")
    raw.execute("CREATE TABLE t (x)")
    assert _mode(path) == 0o644 and _mode(tmp_path / "hautetension.db-wal") == 0o644
    conn = connect(path)
    for name in ("hautetension.db", "hautetension.db-wal", "hautetension.db-shm"):
        assert _mode(tmp_path / name) == 0o600, name
    conn.close()
    raw.close()


def test_in_a_folder_shared_with_the_panels_group_it_is_0660(tmp_path: Path, umask: Any) -> None:
    """/var/lib/hautetension (0770, group hautetension): the board service and the panel both write it."""
    shared = tmp_path / "lib"
    shared.mkdir()
    os.chmod(shared, 0o770)
    umask(0o077)  # whatever the umask of whoever opens it first (a root shell, say)
    conn = connect(shared / "hautetension.db")
    conn.execute("INSERT INTO journal (at, kind, public) VALUES (1, 'x', '{}')")
    for name in ("hautetension.db", "hautetension.db-wal", "hautetension.db-shm"):
        assert _mode(shared / name) == 0o660, name
    os.chmod(shared / "hautetension.db", 0o664)  # readable by others: not any more
    connect(shared / "hautetension.db").close()
    assert _mode(shared / "hautetension.db") == 0o660
    conn.close()


def test_a_database_that_cannot_be_created_says_where(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    with pytest.raises(DatabaseError, match="cannot create the database"):
        connect(tmp_path / "file" / "h.db")


def test_opening_again_in_one_process_keeps_sqlites_locks(tmp_path: Path) -> None:
    """connect() must never open and close the database file itself: that drops every POSIX lock the
    process holds on it (SQLite's), and another process closing the database then deletes the WAL
    from under the connections still open here (found by hautetension run)."""
    import subprocess
    import sys

    path = tmp_path / "h.db"
    first = connect(path)
    first.execute("INSERT INTO journal (at, kind, public) VALUES (1, 'x', '{}')")
    os.chmod(path, 0o644)  # connect() has something to make private
    second = connect(path)
    other = "import sys; from store.db import connect; connect(sys.argv[1]).close()"
    subprocess.run([sys.executable, "-c", other, str(path)], check=True, cwd=Path(__file__).parents[2])
    assert (tmp_path / "h.db-wal").exists()
    first.execute("INSERT INTO journal (at, kind, public) VALUES (2, 'x', '{}')")
    assert sqlite3.connect(path).execute("SELECT COUNT(*) FROM journal").fetchone()[0] == 2
    first.close()
    second.close()
