"""The outbox: what a board reports to its event, durably, in its own order.

The event network must lose nothing while a board's Wi-Fi comes and goes, so
the durable buffer is not the MQTT client's queue (memory) nor the broker's
persistence (periodic) but this table, in the board's own SQLite database:

* the journal writes an outbox row in the same transaction as each entry of a
  kind the event needs (:data:`REPORTED_KINDS`), so a committed entry is
  always reported and a torn one never is;
* ``seq`` (``AUTOINCREMENT``: never reused) is the board's own sequence, the
  order of its history. The event server orders by it, never by ``at``;
* the body is the entry's *public* payload, byte for byte: the private one
  (pawn kinds) never leaves the board.

The uplink (``uplink/``) keeps its side in ``uplink_state``: which event and
board id this database reports to, its *history* (a random id made when the
board joins an event, so a board whose database was replaced starts a new
sequence on the server instead of colliding with the old one), the first
sequence number of that history, and the last acknowledgement it heard
(for display: the server's retained ``ack`` is the truth). The wire protocol
is docs/event-network.md.
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from protocol import compact
from store.db import transaction
from store.dialect import Connection

REPORTED_KINDS = frozenset(
    {
        "service-start",
        "service-stop",
        "scanner",
        "game-start",
        "game-resumed",
        "game-end",
        "placement",
        "lamps",
        "anomaly",
        "anomaly-resolved",
        "fault",
        "fault-cleared",
        "result-confirmed",
    }
)
"""Journal kinds the event server needs (the values of :class:`store.journal.JournalKind`). Slot events,
button presses, lamp tests, self-tests and refused commands stay on the board."""


def report(
    conn: Connection, journal_id: int, kind: str, game_id: int | None, at: float, public: str
) -> None:
    """Write the outbox row of one journal entry, if the event needs its kind (inside the journal's
    transaction: the caller holds it)."""
    if kind in REPORTED_KINDS:
        conn.execute(
            "INSERT INTO outbox (journal_id, kind, game_id, at, body) VALUES (?, ?, ?, ?, ?)",
            (journal_id, kind, game_id, at, public),
        )


@dataclass(frozen=True)
class OutboxRow:
    seq: int
    journal_id: int
    kind: str
    game_id: int | None
    at: float
    body: str
    """The journal entry's public payload, as the journal wrote it (compact, sorted JSON)."""

    def message(self, state: UplinkState) -> bytes:
        """The row as the uplink publishes it on ``…/outbox`` (docs/event-network.md)."""
        head = compact(
            {
                "seq": self.seq,
                "history": state.history,
                "first": state.first_seq,
                "kind": self.kind,
                "game": self.game_id,
                "at": round(self.at, 3),
            }
        )
        # The body is spliced in as stored, so what leaves is exactly the journal's public payload.
        return f'{head[:-1]},"body":{self.body}}}'.encode()


@dataclass(frozen=True)
class UplinkState:
    """This board's place in an event (``uplink_state``)."""

    event: str
    board: str
    history: str
    first_seq: int
    """The first outbox row of this history: rows before it belong to no event (or another one)."""
    acked_seq: int
    """The last acknowledgement heard: every row up to it is stored by the server."""
    connected: bool
    updated_at: float
    assignment: dict[str, Any] | None
    """The table the event server assigned (its retained ``assignment`` message), or None."""
    note: str | None


class Outbox:
    """The outbox and the uplink's state, on one connection."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn

    # -- rows ---------------------------------------------------------------------------

    def rows(self, after: int, *, limit: int = 100) -> list[OutboxRow]:
        """Rows with ``seq`` greater than *after*, in order."""
        cursor = self.conn.execute(
            "SELECT seq, journal_id, kind, game_id, at, body FROM outbox WHERE seq > ? ORDER BY seq LIMIT ?",
            (after, limit),
        )
        return [OutboxRow(*row) for row in cursor]

    def last_seq(self) -> int:
        """The highest sequence number ever given (rows deleted or not)."""
        row = self.conn.execute("SELECT seq FROM sqlite_sequence WHERE name = 'outbox'").fetchone()
        return int(row[0]) if row else 0

    def last_of(self, kind: str, game_id: int) -> int | None:
        """The sequence number of the last row of *kind* for one game (None: none written)."""
        row = self.conn.execute(
            "SELECT MAX(seq) FROM outbox WHERE kind = ? AND game_id = ?", (kind, game_id)
        ).fetchone()
        return None if row is None or row[0] is None else int(row[0])

    def skip_past(self, seq: int) -> bool:
        """Make the next row's number greater than *seq*; True if it had to move.

        The server acknowledged rows this database does not have: it was replaced by an older
        copy, or lost its end. Numbers the server holds are never given again to other rows."""
        with transaction(self.conn):
            if self.last_seq() >= seq:
                return False
            updated = self.conn.execute(
                "UPDATE sqlite_sequence SET seq = ? WHERE name = 'outbox'", (seq,)
            ).rowcount
            if not updated:
                self.conn.execute("INSERT INTO sqlite_sequence (name, seq) VALUES ('outbox', ?)", (seq,))
        return True

    # -- the uplink's state ---------------------------------------------------------------

    def state(self) -> UplinkState | None:
        row = self.conn.execute(
            "SELECT event, board, history, first_seq, acked_seq, connected, updated_at, assignment, note"
            " FROM uplink_state WHERE id = 1"
        ).fetchone()
        if row is None:
            return None
        return UplinkState(
            event=str(row["event"]),
            board=str(row["board"]),
            history=str(row["history"]),
            first_seq=int(row["first_seq"]),
            acked_seq=int(row["acked_seq"]),
            connected=bool(row["connected"]),
            updated_at=float(row["updated_at"]),
            assignment=json.loads(row["assignment"]) if row["assignment"] else None,
            note=row["note"],
        )

    def enroll(self, event: str, board: str) -> UplinkState:
        """This database reports to *event* as *board*: kept if it already does, else a new history
        that starts after every row written so far."""
        with transaction(self.conn):
            state = self.state()
            if state is None or (state.event, state.board) != (event, board):
                first = self.last_seq() + 1
                self.conn.execute(
                    "INSERT INTO uplink_state (id, event, board, history, first_seq, acked_seq, connected,"
                    " updated_at, assignment, note) VALUES (1, ?, ?, ?, ?, ?, 0, ?, NULL, NULL)"
                    " ON CONFLICT (id) DO UPDATE SET event = excluded.event, board = excluded.board,"
                    " history = excluded.history, first_seq = excluded.first_seq,"
                    " acked_seq = excluded.acked_seq, connected = 0, updated_at = excluded.updated_at,"
                    " assignment = NULL, note = NULL",
                    (event, board, secrets.token_hex(6), first, first - 1, time.time()),
                )
        enrolled = self.state()
        assert enrolled is not None
        return enrolled

    def record_ack(self, seq: int) -> None:
        self._set(acked_seq=seq)

    def set_connected(self, connected: bool) -> None:
        self._set(connected=int(connected))

    def set_assignment(self, assignment: Mapping[str, Any] | None) -> None:
        self._set(assignment=None if not assignment else json.dumps(dict(assignment), sort_keys=True))

    def set_note(self, note: str | None) -> None:
        """What the uplink wants staff to know (shown on the board's table page), or None."""
        self._set(note=note or None)

    def _set(self, **columns: Any) -> None:
        names = sorted(columns)
        with transaction(self.conn):
            updated = self.conn.execute(
                f"UPDATE uplink_state SET {', '.join(f'{n} = ?' for n in names)}, updated_at = ?"
                " WHERE id = 1",
                [columns[n] for n in names] + [time.time()],
            ).rowcount
        if not updated:
            raise LookupError("this database is not enrolled in an event: the uplink enrolls it")

    def waiting(self) -> int:
        """Rows of this history the server has not acknowledged yet (as far as the uplink knows)."""
        state = self.state()
        if state is None:
            return 0
        row = self.conn.execute(
            "SELECT COUNT(*) FROM outbox WHERE seq > ?", (max(state.acked_seq, state.first_seq - 1),)
        ).fetchone()
        return int(row[0])
