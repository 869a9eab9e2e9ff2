"""Moves by request id: a move sent again (a lost answer, a retry after 503) is applied once.

A page gives each move it posts an id of its own (``request_id``); the move is
saved with it in the same transaction (:meth:`MoveRequests.record`), so that
the same id again, from any server process, finds the move already played
(:meth:`MoveRequests.played`) instead of playing it twice or being refused
because the game moved on. Ids are kept :data:`KEPT_S` (a retry comes within
seconds); older ones of a game are deleted when it records a new one.

The table has its own versioned migrations (``move_requests_schema``), applied
once per database and process on first use, on either engine.
"""

from __future__ import annotations

import threading
import time

from store.db import apply_migrations
from store.dialect import Connection, PgDatabase

KEPT_S = 3600.0
MAX_REQUEST_ID = 64

MIGRATIONS = [
    """
    CREATE TABLE move_requests (
        game_id INTEGER NOT NULL,
        request_id TEXT NOT NULL,
        version INTEGER NOT NULL,
        at REAL NOT NULL,
        PRIMARY KEY (game_id, request_id)
    );
    """,
]

_ready: set[str] = set()
_ready_lock = threading.Lock()


def _database(conn: Connection) -> str:
    if isinstance(conn, PgDatabase):
        return conn.dsn
    rows = conn.execute("PRAGMA database_list").fetchall()
    return next((str(r[2]) for r in rows if r[1] == "main"), "") or f"memory:{id(conn)}"


class MoveRequests:
    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        key = _database(conn)
        with _ready_lock:
            known = key in _ready
        if not known:
            apply_migrations(conn, MIGRATIONS, versions="move_requests_schema", what="move requests")
            with _ready_lock:
                _ready.add(key)

    def played(self, game_id: int, request_id: str) -> int | None:
        """The version the move with *request_id* made, if it was played."""
        row = self.conn.execute(
            "SELECT version FROM move_requests WHERE game_id = ? AND request_id = ?", (game_id, request_id)
        ).fetchone()
        return None if row is None else int(row[0])

    def record(self, game_id: int, request_id: str, version: int) -> None:
        """Remember the move (call inside the transaction that saves it)."""
        now = time.time()
        self.conn.execute("DELETE FROM move_requests WHERE game_id = ? AND at < ?", (game_id, now - KEPT_S))
        self.conn.execute(
            "INSERT INTO move_requests (game_id, request_id, version, at) VALUES (?, ?, ?, ?)",
            (game_id, request_id, version, now),
        )
