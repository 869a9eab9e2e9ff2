"""The journal: every slot event, fault, game start and end, placement, lamp
change and result, in order, with a monotonically increasing id.

Each entry has two payloads:

* ``public`` — safe for anyone to see during a game. It never says which pawn
  conducts, nor anything that would let one infer it.
* ``private`` — what the service needs to recover a game (pawn kinds, raw
  readings). Only the board service and staff in service mode (no game
  running) ever read it.

What an entry records is a :class:`JournalKind` (stored as its text in
``journal.kind``); an entry to write is a :class:`JournalEntry`, its payloads
the kind's types (:data:`PAYLOADS`, :mod:`store.journal_payloads`).

The panel follows the board by tailing the journal by id (its SSE event ids
are journal ids, so ``Last-Event-ID`` resumes exactly where a browser left).
The board service also keeps the current public state in the one-row
``board_state`` table, updated in the same transaction as the entry that
changed it, so a reader never sees one without the other. Entries the event
network reports get their outbox row (:mod:`store.outbox`) in that same
transaction too.
"""

from __future__ import annotations

import enum
import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from store import journal_payloads as payloads
from store.db import transaction
from store.dialect import Connection, Record
from store.outbox import report

JSONDict = dict[str, Any]


class JournalKind(enum.StrEnum):
    """What a journal entry records (docs/board-service.md lists each one's payloads)."""

    SERVICE_START = "service-start"
    SERVICE_STOP = "service-stop"
    SCANNER = "scanner"
    """The scanner became faulted, or trustworthy again."""
    SLOT = "slot"
    """A pawn was placed or lifted (its kind in the private payload)."""
    PLACEMENT = "placement"
    """A placement accepted into the game."""
    ANOMALY = "anomaly"
    ANOMALY_RESOLVED = "anomaly-resolved"
    GAME_START = "game-start"
    GAME_RESUMED = "game-resumed"
    PREGAME_CHECK = "pregame-check"
    """A verdict of the pre-game check: every lamp lit, a lamp failed, or staff skipped it."""
    GAME_END = "game-end"
    LAMPS = "lamps"
    LAMP_TEST = "lamp-test"
    BUTTON = "button"
    BUTTON_LONG_PRESS = "button-long-press"
    SELF_TEST = "self-test"
    FAULT = "fault"
    FAULT_CLEARED = "fault-cleared"
    COMMAND_REFUSED = "command-refused"
    RESULT_CONFIRMED = "result-confirmed"
    """Players (each seat) or staff agreed to a finished game's result at the board."""


PAYLOADS: Mapping[JournalKind, tuple[type[Any], type[Any] | None]] = {
    JournalKind.SERVICE_START: (payloads.ServiceStart, payloads.ServiceStartPrivate),
    JournalKind.SERVICE_STOP: (payloads.ServiceStop, None),
    JournalKind.SCANNER: (payloads.Scanner, None),
    JournalKind.SLOT: (payloads.Slot, payloads.SlotPrivate),
    JournalKind.PLACEMENT: (payloads.Placement, payloads.PlacementPrivate),
    JournalKind.ANOMALY: (payloads.Anomaly, None),
    JournalKind.ANOMALY_RESOLVED: (payloads.AnomalyResolved, None),
    JournalKind.GAME_START: (payloads.GameStart, payloads.GameStartPrivate),
    JournalKind.GAME_RESUMED: (payloads.GameResumed, None),
    JournalKind.PREGAME_CHECK: (payloads.PregameVerdict, None),
    JournalKind.GAME_END: (payloads.GameEnd, None),
    JournalKind.LAMPS: (payloads.Lamps, None),
    JournalKind.LAMP_TEST: (payloads.LampTest, None),
    JournalKind.BUTTON: (payloads.Button, None),
    JournalKind.BUTTON_LONG_PRESS: (payloads.ButtonLongPress, None),
    JournalKind.SELF_TEST: (payloads.SelfTest, None),
    JournalKind.FAULT: (payloads.Fault, None),
    JournalKind.FAULT_CLEARED: (payloads.Fault, None),
    JournalKind.COMMAND_REFUSED: (payloads.CommandRefused, None),
    JournalKind.RESULT_CONFIRMED: (payloads.ResultConfirmed, None),
}
"""Each kind's public and private payload types (None: the kind has no private payload)."""


class JournalEntry(NamedTuple):
    """An entry to write: what it records, what anyone may see of it, and what only the service may
    (the kind's payload types: :data:`PAYLOADS`)."""

    kind: JournalKind
    public: payloads.PublicPayload
    private: payloads.PrivatePayload | None = None


@dataclass(frozen=True)
class Entry:
    """An entry as the journal holds it."""

    id: int
    at: float
    """Wall-clock time (Unix seconds) when the entry was written."""
    kind: JournalKind
    game_id: int | None
    public: JSONDict
    private: JSONDict | None


@dataclass(frozen=True)
class BoardState:
    """The latest public (and private) board state written by the service."""

    journal_id: int
    updated_at: float
    public: JSONDict
    private: JSONDict | None
    health: JSONDict | None


def _dumps(value: Mapping[str, Any] | None) -> str | None:
    return None if value is None else json.dumps(value, separators=(",", ":"), sort_keys=True)


class Journal:
    """Append and read journal entries on one connection."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn

    def append(
        self,
        kind: JournalKind,
        public: payloads.PublicPayload,
        private: payloads.PrivatePayload | None = None,
        *,
        game_id: int | None = None,
        state_public: payloads.BoardStatePublic | None = None,
        state_private: payloads.BoardStatePrivate | None = None,
    ) -> int:
        """Write one entry durably and return its id.

        With *state_public*, the board state row is replaced in the same
        transaction (and points at this entry).
        """
        return self.append_many([JournalEntry(kind, public, private)], game_id=game_id,
                                state_public=state_public, state_private=state_private)[-1]

    def append_many(
        self,
        entries: Sequence[JournalEntry],
        *,
        game_id: int | None = None,
        state_public: payloads.BoardStatePublic | None = None,
        state_private: payloads.BoardStatePrivate | None = None,
    ) -> list[int]:
        """Write several entries (and optionally the board state) in one transaction.

        A kind that is not a :class:`JournalKind` is a ``ValueError``, and nothing is written."""
        now = time.time()
        ids: list[int] = []
        rows = [(now, JournalKind(kind).value, game_id, _dumps(public), _dumps(private))
                for kind, public, private in entries]
        with transaction(self.conn):
            for row in rows:
                inserted = self.conn.execute(
                    "INSERT INTO journal (at, kind, game_id, public, private) VALUES (?, ?, ?, ?, ?)"
                    " RETURNING id",
                    row,
                ).fetchone()
                ids.append(int(inserted[0]))
                report(self.conn, ids[-1], row[1], game_id, now, str(row[3]))  # the outbox: same transaction
            if state_public is not None:
                self._write_state(ids[-1] if ids else self.last_id(), now, state_public, state_private)
        return ids

    def write_state(
        self, public: payloads.BoardStatePublic, private: payloads.BoardStatePrivate | None = None
    ) -> None:
        """Replace the board state without a journal entry (e.g. after a restart)."""
        with transaction(self.conn):
            self._write_state(self.last_id(), time.time(), public, private)

    def _write_state(
        self, journal_id: int, now: float, public: Mapping[str, Any], private: Mapping[str, Any] | None
    ) -> None:
        self.conn.execute(
            "INSERT INTO board_state (id, journal_id, updated_at, public, private) VALUES (1, ?, ?, ?, ?) "
            "ON CONFLICT (id) DO UPDATE SET journal_id = excluded.journal_id, "
            "updated_at = excluded.updated_at, public = excluded.public, private = excluded.private",
            (journal_id, now, _dumps(public), _dumps(private)),
        )

    def write_health(self, health: Mapping[str, Any]) -> None:
        """Record the service's health report (also its heartbeat: ``updated_at``)."""
        now = time.time()
        with transaction(self.conn):
            updated = self.conn.execute(
                "UPDATE board_state SET health = ?, updated_at = ? WHERE id = 1", (_dumps(health), now)
            ).rowcount
            if not updated:
                self.conn.execute(
                    "INSERT INTO board_state (id, journal_id, updated_at, public, health)"
                    " VALUES (1, ?, ?, '{}', ?)",
                    (self.last_id(), now, _dumps(health)),
                )

    def state(self) -> BoardState | None:
        row = self.conn.execute(
            "SELECT journal_id, updated_at, public, private, health FROM board_state WHERE id = 1"
        ).fetchone()
        if row is None:
            return None
        return BoardState(
            journal_id=int(row["journal_id"]),
            updated_at=float(row["updated_at"]),
            public=json.loads(row["public"]),
            private=json.loads(row["private"]) if row["private"] else None,
            health=json.loads(row["health"]) if row["health"] else None,
        )

    def last_id(self) -> int:
        row = self.conn.execute("SELECT MAX(id) FROM journal").fetchone()
        return int(row[0] or 0)

    def max_game_id(self) -> int:
        """The highest game id the journal has seen (0 if none): the next game takes the one after."""
        row = self.conn.execute("SELECT MAX(game_id) FROM journal").fetchone()
        return int(row[0] or 0)

    def tail(
        self, after_id: int = 0, *, limit: int = 500, kinds: Sequence[JournalKind] | None = None
    ) -> list[Entry]:
        """Entries with an id greater than *after_id*, oldest first."""
        query = "SELECT id, at, kind, game_id, public, private FROM journal WHERE id > ?"
        params: list[Any] = [after_id]
        if kinds:
            query += f" AND kind IN ({','.join('?' * len(kinds))})"
            params.extend(JournalKind(kind).value for kind in kinds)
        query += " ORDER BY id LIMIT ?"
        params.append(limit)
        return [_entry(row) for row in self.conn.execute(query, params)]

    def newest(
        self,
        before_id: int | None = None,
        *,
        limit: int = 500,
        kinds: Sequence[JournalKind] | None = None,
        game_id: int | None = None,
        since: float | None = None,
    ) -> list[Entry]:
        """Entries newest first (what staff read): below *before_id* (from the last without), of
        *kinds*, of one game, written at or after *since* (Unix time)."""
        query = "SELECT id, at, kind, game_id, public, private FROM journal WHERE 1"
        params: list[Any] = []
        if before_id is not None:
            query += " AND id < ?"
            params.append(before_id)
        if kinds:
            query += f" AND kind IN ({','.join('?' * len(kinds))})"
            params.extend(JournalKind(kind).value for kind in kinds)
        if game_id is not None:
            query += " AND game_id = ?"
            params.append(game_id)
        if since is not None:
            query += " AND at >= ?"
            params.append(since)
        query += " ORDER BY id DESC LIMIT ?"
        params.append(limit)
        return [_entry(row) for row in self.conn.execute(query, params)]

    def game_entries(self, game_id: int) -> list[Entry]:
        """Every entry of one game, oldest first (what recovery replays)."""
        rows = self.conn.execute(
            "SELECT id, at, kind, game_id, public, private FROM journal WHERE game_id = ? ORDER BY id",
            (game_id,),
        )
        return [_entry(row) for row in rows]

    def last_of_kind(self, *kinds: JournalKind) -> Entry | None:
        row = self.conn.execute(
            "SELECT id, at, kind, game_id, public, private FROM journal"
            f" WHERE kind IN ({','.join('?' * len(kinds))}) ORDER BY id DESC LIMIT 1",
            [JournalKind(kind).value for kind in kinds],
        ).fetchone()
        return None if row is None else _entry(row)


def _entry(row: Record) -> Entry:
    return Entry(
        id=int(row["id"]),
        at=float(row["at"]),
        kind=JournalKind(row["kind"]),
        game_id=None if row["game_id"] is None else int(row["game_id"]),
        public=json.loads(row["public"]),
        private=json.loads(row["private"]) if row["private"] else None,
    )
