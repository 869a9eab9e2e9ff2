"""Moves by request id: a move sent again (a lost answer, a retry after 503) is applied once.

A page gives each move it posts an id of its own (``request_id``); the move is
saved with it in the same transaction (:meth:`MoveRequests.record`), so that
the same id again, from any server process, finds the move already played
(:meth:`MoveRequests.played`) instead of playing it twice or being refused
because the game moved on. Ids are kept :data:`KEPT_S` (a retry comes within
seconds); older ones of a game are deleted when it records a new one.

The table is the panel schema's migration 12 (``store/db.py``), on either engine.
"""

from __future__ import annotations

import re
import time
from typing import TypeGuard

from store.dialect import Connection

KEPT_S = 3600.0
MAX_REQUEST_ID = 64
REQUEST_ID_PATTERN = "^[A-Za-z0-9._:-]{1,64}$"
"""What a request id may be: a page's UUID or any short id of letters, digits and ``._:-`` (what the
API document promises, so a client generating ids from it is never refused)."""


def is_request_id(raw: object) -> TypeGuard[str]:
    """Whether *raw* is a request id a page may send (:data:`REQUEST_ID_PATTERN`)."""
    return isinstance(raw, str) and re.fullmatch(REQUEST_ID_PATTERN, raw, flags=re.ASCII) is not None


class MoveRequests:
    """The moves of a database's games, by the request id that played them."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn

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
