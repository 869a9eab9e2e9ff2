"""The event's boards: who they are, what staff call them, and how each one is doing.

A board is listed the moment the server hears from it (on a broker that
requires credentials only boards with a password can connect at all), waiting
for staff to accept it and give it a label ("Table 3 — by the window"). Its
presence is its retained status: ``online`` until the broker delivers its last
will. The rest comes from what it reports: the game it is playing (whose turn,
which lamps), the faults its health report shows, its public live view, when
it was last heard of.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from typing import Any

from protocol import MessageError
from protocol.health import Finding, parse_findings
from protocol.limits import MAX_LIVE, MAX_STATUS
from protocol.reader import read_object
from store.db import transaction
from store.dialect import Connection, Record
from store.event import presence, sql

MAX_LABEL = 60


class BoardNotFoundError(LookupError):
    """The event has never heard of that board."""


@dataclass(frozen=True)
class EventBoard:
    id: str
    label: str
    accepted_at: float | None
    accepted_by: str | None
    first_seen: float
    last_seen: float
    online: bool
    status: dict[str, Any] | None
    """The board's last status message (its last will keeps what it said before it went)."""
    live: dict[str, Any] | None
    """The board's last public live view (what ``GET /api/board`` serves on the board)."""
    live_at: float | None
    history: str | None
    acked_seq: int
    first_seq: int | None

    @property
    def is_accepted(self) -> bool:
        return self.accepted_at is not None

    @property
    def name(self) -> str:
        return self.label or self.id

    @property
    def game(self) -> dict[str, Any] | None:
        game = (self.status or {}).get("game")
        return game if isinstance(game, dict) else None

    @property
    def is_playing(self) -> bool:
        game = self.game
        return game is not None and game.get("status") == "running"

    @property
    def faults(self) -> list[dict[str, Any]]:
        health = (self.status or {}).get("health")
        faults = health.get("faults") if isinstance(health, dict) else None
        return [f for f in faults or [] if isinstance(f, dict)]

    @property
    def slot_findings(self) -> list[Finding]:
        """What the board's slot health asks staff to check (docs/hardware.md, "Slot health"), read
        again with the bounded reader. Staff only: :meth:`summary`, which the public wall serves, leaves
        it out."""
        health = (self.status or {}).get("health")
        try:
            return parse_findings(health.get("slots") if isinstance(health, dict) else None)
        except MessageError:
            return []

    @property
    def two_places(self) -> bool:
        """Whether two uplinks report with this board's id lately (a copied SD card: staff must act)."""
        return presence.two_places_since(self.status, time.time()) is not None

    @property
    def layout(self) -> str | None:
        layout = (self.status or {}).get("layout")
        return layout if isinstance(layout, str) else None

    def summary(self) -> dict[str, Any]:
        """The board as ``GET /api/event/boards`` lists it (public: no private data ever reaches here)."""
        return {
            "id": self.id,
            "label": self.label,
            "accepted": self.is_accepted,
            "online": self.online,
            "two_places": self.two_places,
            "game": self.game,
            "last_seen": round(self.last_seen, 3),
            "faults": self.faults,
            "acked": self.acked_seq,
        }


def _board(row: Record, acked: tuple[int, int] | None) -> EventBoard:
    return EventBoard(
        id=str(row["board"]),
        label=str(row["label"]),
        accepted_at=row["accepted_at"],
        accepted_by=row["accepted_by"],
        first_seen=float(row["first_seen"]),
        last_seen=float(row["last_seen"]),
        online=bool(row["online"]),
        status=_stored(row["status"], MAX_STATUS, "a status"),
        live=_stored(row["live"], MAX_LIVE, "a live view"),
        live_at=row["live_at"],
        history=row["history"],
        acked_seq=acked[0] if acked else 0,
        first_seq=acked[1] if acked else None,
    )


def _stored(text: str | None, limit: int, what: str) -> dict[str, Any] | None:
    """A board's stored status or live view, read again with the bounded reader: one stored before the
    server bounded what boards send (a 1 MB live view) is not served again, to anyone."""
    if not text:
        return None
    try:
        return read_object(text.encode(), limit=limit, what=what)
    except MessageError:
        return None


def natural_key(text: str) -> tuple[Any, ...]:
    """ "Table 2" before "Table 10"."""
    return tuple(int(part) if part.isdigit() else part.casefold() for part in re.split(r"(\d+)", text))


class Boards:
    """The boards of the event, on one connection."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn

    def all(self) -> list[EventBoard]:
        """Every board, accepted ones first in label order (as staff number the tables), then new ones."""
        boards = [_board(row, self._acked(str(row["board"]))) for row in self.conn.execute(sql.BOARDS)]
        return sorted(boards, key=lambda b: (not b.is_accepted, natural_key(b.name), b.id))

    def get(self, board: str) -> EventBoard:
        row = self.conn.execute(sql.BOARD, (board,)).fetchone()
        if row is None:
            raise BoardNotFoundError(f"the event has not heard from a board {board!r}")
        return _board(row, self._acked(board))

    def _acked(self, board: str) -> tuple[int, int] | None:
        row = self.conn.execute(sql.BOARD_ACKED, (board,)).fetchone()
        return None if row is None else (int(row[0]), int(row[1]))

    def accept(self, board: str, label: str, *, actor: str) -> EventBoard:
        """Accept a board into the event (or change its label)."""
        label = " ".join(str(label).split())
        if not label:
            raise ValueError("a board needs a label staff and players recognise, like “Table 3”")
        if len(label) > MAX_LABEL or any(not ch.isprintable() for ch in label):
            raise ValueError(f"a label is at most {MAX_LABEL} printable characters")
        with transaction(self.conn):
            self.get(board)
            self.conn.execute(sql.BOARD_ACCEPT, (label, time.time(), actor, board))
        return self.get(board)
