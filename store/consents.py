"""The players' consents to reveal their pawns on the replay of a finished game.

After a game each player may reveal their own defense pawns; once every
player of the table has, the replay shows every pawn's kind, the closed rows
and why each lamp lit (docs/replay.md). A consent is given once and kept: it
cannot be taken back (what was shown has been seen).
"""

from __future__ import annotations

import enum
import sqlite3
import time

from store.db import transaction


class Source(enum.StrEnum):
    """Where the game was played."""

    BOARD = "board"
    LOBBY = "lobby"


class Consents:
    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def give(self, source: Source, game_id: int, seat: int, *, at: float | None = None) -> float:
        """Record *seat*'s consent (again: nothing changes); returns when it was first given."""
        with transaction(self.conn):
            self.conn.execute(
                "INSERT INTO reveal_consents (source, game_id, seat, at) VALUES (?, ?, ?, ?)"
                " ON CONFLICT DO NOTHING",
                (Source(source).value, game_id, seat, time.time() if at is None else at),
            )
        return self.of_game(source, game_id)[seat]

    def of_game(self, source: Source, game_id: int) -> dict[int, float]:
        """Seat → when it consented."""
        rows = self.conn.execute(
            "SELECT seat, at FROM reveal_consents WHERE source = ? AND game_id = ? ORDER BY seat",
            (Source(source).value, game_id),
        )
        return {int(seat): float(at) for seat, at in rows}
