"""A process's writers of one SQLite database take turns: none meets "database is locked"."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from store.db import connect, transaction
from store.writer import WritesBusy, turn

WRITERS = 12
WRITES = 25


def test_concurrent_writers_never_see_a_locked_database(tmp_path: Path) -> None:
    path = tmp_path / "board.db"
    connect(path).close()
    failures: list[BaseException] = []

    def write(number: int) -> None:
        conn = connect(path)
        conn.execute("PRAGMA busy_timeout = 0")  # without turns, the second writer fails at once
        try:
            for step in range(WRITES):
                with transaction(conn):
                    conn.execute("INSERT INTO commands (at, kind, payload) VALUES (?, 'test', '{}')",
                                 (number * 1000 + step,))
        except BaseException as exc:
            failures.append(exc)
        finally:
            conn.close()

    threads = [threading.Thread(target=write, args=(n,)) for n in range(WRITERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    conn = connect(path)
    assert conn.execute("SELECT COUNT(*) FROM commands WHERE kind = 'test'").fetchone()[0] == WRITERS * WRITES


def test_a_writer_that_gets_no_turn_is_told_the_database_is_locked(tmp_path: Path) -> None:
    path = tmp_path / "board.db"
    first, second = connect(path), connect(path)
    held = threading.Event()
    release = threading.Event()

    def hold() -> None:
        with turn(first):
            held.set()
            release.wait(10)

    holder = threading.Thread(target=hold)
    holder.start()
    held.wait(10)
    try:
        with pytest.raises(sqlite3.OperationalError) as caught, turn(second, wait_s=0.01):
            pass
    finally:
        release.set()
        holder.join()
    assert isinstance(caught.value, WritesBusy)
    assert caught.value.sqlite_errorcode == 5  # SQLITE_BUSY: the pages answer 503 with Retry-After
