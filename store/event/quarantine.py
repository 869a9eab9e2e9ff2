"""The messages the event server refused, kept for staff: never stored as the boards' own, never lost.

A message the bounded reader refuses (:mod:`protocol.reader`), an outbox row
that failed to store however often it was tried, a history beyond what a board
may open: each is kept here with its board, its topic, the reason, its first
:data:`~protocol.limits.QUARANTINE_HEAD` bytes and its size, and counted for
its board. Only the newest :data:`KEEP_PER_BOARD` of each board are kept (the
count goes on), so a board sending garbage cannot fill the database.
"""

from __future__ import annotations

from dataclasses import dataclass

from protocol.limits import QUARANTINE_HEAD
from store.dialect import Connection
from store.event import sql

KEEP_PER_BOARD = 50
"""Refused messages kept per board (the newest): enough for staff to see what a board sends."""
REASON_CHARS = 300
"""Characters of a reason kept at most."""


@dataclass(frozen=True)
class Refusal:
    """A message the server refused, as the ingest hands it to the store (a report of its own)."""

    topic: str
    reason: str
    payload: bytes
    history: str | None = None
    seq: int | None = None
    """The outbox row it was, when its place in the board's history could be read."""
    first: int | None = None


@dataclass(frozen=True)
class Quarantined:
    """A refused message as staff see it."""

    id: int
    board: str
    topic: str
    reason: str
    head: str
    """Its first bytes, as text (bytes that are not UTF-8 escaped as ``\\xNN``)."""
    size: int
    history: str | None
    seq: int | None
    at: float


def text(value: str | bytes, limit: int) -> str:
    """*value* made safe for any database and page: at most *limit* characters, no NUL, no half of a
    UTF-16 pair (escaped instead)."""
    if isinstance(value, bytes):
        value = value[:limit].decode("utf-8", "backslashreplace")
    value = value[:limit].encode("utf-8", "backslashreplace").decode("utf-8")
    return value.replace("\x00", "\\x00")


class Quarantine:
    """The refused messages, on one connection (the ingest writes inside its batch's transaction)."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn

    def keep(self, board: str, refusal: Refusal, now: float) -> None:
        self.conn.execute(
            sql.QUARANTINE_ADD,
            (
                board,
                text(refusal.topic, 200),
                text(refusal.reason, REASON_CHARS),
                text(refusal.payload, QUARANTINE_HEAD),
                len(refusal.payload),
                refusal.history,
                refusal.seq,
                now,
            ),
        )
        self.conn.execute(sql.QUARANTINE_COUNT, (board, 1, now))

    def prune(self, boards: list[str]) -> None:
        """Keep the newest :data:`KEEP_PER_BOARD` of each of *boards*."""
        for board in boards:
            self.conn.execute(sql.QUARANTINE_PRUNE, (board, board, KEEP_PER_BOARD))

    def counts(self) -> dict[str, int]:
        """How many messages each board had refused (over the whole event)."""
        return {str(r[0]): int(r[1]) for r in self.conn.execute(sql.QUARANTINE_COUNTS)}

    def recent(self, limit: int = 50) -> list[Quarantined]:
        """The newest refused messages, newest first."""
        return [
            Quarantined(
                id=int(r[0]),
                board=str(r[1]),
                topic=str(r[2]),
                reason=str(r[3]),
                head=str(r[4]),
                size=int(r[5]),
                history=r[6],
                seq=None if r[7] is None else int(r[7]),
                at=float(r[8]),
            )
            for r in self.conn.execute(sql.QUARANTINE_RECENT, (limit,))
        ]
