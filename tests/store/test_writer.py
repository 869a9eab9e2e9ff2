"""A process's writers of one SQLite database take turns: none meets "database is locked"."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from store.db import connect, transaction
from store.writer import FileConnection, WritesBusy, database_file, turn

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


def test_a_connection_asks_sqlite_for_its_file_once(tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / "once.db", factory=FileConnection, isolation_level=None)
    asked: list[str] = []
    conn.set_trace_callback(asked.append)
    try:
        assert database_file(conn) == database_file(conn) == str((tmp_path / "once.db").resolve())
    finally:
        conn.close()
    assert asked == ["PRAGMA database_list"]


def test_the_writes_of_an_opened_database_ask_nothing_more(tmp_path: Path) -> None:
    conn = connect(tmp_path / "writes.db")
    asked: list[str] = []
    conn.set_trace_callback(asked.append)
    try:
        for number in range(3):
            with transaction(conn):
                conn.execute("CREATE TABLE IF NOT EXISTS t (n INTEGER)")
                conn.execute("INSERT INTO t VALUES (?)", (number,))
    finally:
        conn.close()
    assert len(asked) == 3 * 4 and not [sql for sql in asked if "database_list" in sql], asked


def test_a_plain_connection_still_finds_its_file(tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / "plain.db")
    try:
        assert database_file(conn) == database_file(conn) == str((tmp_path / "plain.db").resolve())
        assert database_file(sqlite3.connect(":memory:")) == ""
    finally:
        conn.close()
