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

import time

from store.dialect import Connection

KEPT_S = 3600.0
MAX_REQUEST_ID = 64


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
