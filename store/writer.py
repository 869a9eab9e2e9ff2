"""One writer at a time per SQLite database in each process: writes wait their turn, never fail locked.

SQLite lets one connection write at a time; the others, when they want to
write, sleep and try again in SQLite's busy handler (a back-off of up to
100 ms a try) until ``busy_timeout``. Dozens of a process's threads writing
at once (one per request) then mostly sleep, out of order, and some wait
past the timeout: "database is locked". So each process queues its own
writers on one lock per database file (:func:`turn`), in the order they
came; only writers of other processes (the board service, another server
process) meet SQLite's busy handler, which retries with its back-off within
the busy timeout.

A writer that cannot get its turn within :data:`TURN_WAIT_S` gets
:class:`WritesBusy`, an :class:`sqlite3.OperationalError` with SQLite's own
``SQLITE_BUSY`` code: every caller that knows a locked database (the pages'
503 with ``Retry-After``, the retrying writers) knows it.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager

TURN_WAIT_S = 5.0
"""How long a writer waits for its turn (SQLite's own busy timeout, store.db.BUSY_TIMEOUT_MS)."""
SQLITE_BUSY = 5

_turns: dict[str, threading.Lock] = {}
_turns_lock = threading.Lock()


class WritesBusy(sqlite3.OperationalError):
    """The process's writers of this database were too many to get a turn in time."""

    sqlite_errorcode = SQLITE_BUSY
    sqlite_errorname = "SQLITE_BUSY"


class FileConnection(sqlite3.Connection):
    """A connection that remembers the file it writes (:func:`database_file` asks SQLite once)."""

    main_file: str | None = None


def database_file(conn: sqlite3.Connection) -> str:
    """The file *conn* writes (its main database; empty for an in-memory one)."""
    known = conn.main_file if isinstance(conn, FileConnection) else None
    if known is not None:
        return known
    path = ""
    for row in conn.execute("PRAGMA database_list").fetchall():
        if row[1] == "main":
            path = str(row[2])
    if isinstance(conn, FileConnection):
        conn.main_file = path  # the main database of a connection never changes
    return path


def _lock_of(path: str) -> threading.Lock:
    with _turns_lock:
        lock = _turns.get(path)
        if lock is None:
            lock = _turns[path] = threading.Lock()
        return lock


@contextmanager
def turn(conn: sqlite3.Connection, *, wait_s: float = TURN_WAIT_S) -> Iterator[None]:
    """This process's turn to write *conn*'s database (an in-memory database has no other writer)."""
    path = database_file(conn)
    if not path:
        yield
        return
    lock = _lock_of(path)
    if not lock.acquire(timeout=wait_s):
        raise WritesBusy(f"database is locked: this process's writers waited {wait_s:g} s for their turn")
    try:
        yield
    finally:
        lock.release()
