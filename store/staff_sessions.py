"""Staff sessions, kept server-side so that logging out (or a new PIN) really ends them.

The panel's signed cookie carries only a random session id; this table says
whether that id is still a staff session. Only the SHA-256 of the id is
stored, as for the lobby's tokens: a copy of the database opens no session.

Every session records the *generation* it was opened in. Changing the PIN
(``hautetension staff set-pin``) starts a new generation, which ends every
session of the earlier ones at once, including a login that was checking the
old PIN while the new one was written: it read the generation before the PIN.
"""

from __future__ import annotations

import hashlib
import secrets
import time

from store.db import transaction
from store.dialect import Connection


def _hash(session_id: str) -> str:
    return hashlib.sha256(session_id.encode("utf-8", "surrogatepass")).hexdigest()


class StaffSessions:
    """The ``staff_sessions`` table and the current generation."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn

    def generation(self) -> int:
        row = self.conn.execute("SELECT generation FROM staff_generation WHERE id = 1").fetchone()
        return int(row[0])

    def open(self, *, hours: float, generation: int, now: float | None = None) -> str:
        """A new session of *generation* lasting *hours*; returns its id (for the cookie only)."""
        now = time.time() if now is None else now
        session_id = secrets.token_urlsafe(32)
        with transaction(self.conn):
            self.conn.execute("DELETE FROM staff_sessions WHERE expires_at <= ?", (now,))
            self.conn.execute(
                "INSERT INTO staff_sessions (id_hash, generation, created_at, expires_at)"
                " VALUES (?, ?, ?, ?)",
                (_hash(session_id), generation, now, now + hours * 3600),
            )
        return session_id

    def is_live(self, session_id: str, *, now: float | None = None) -> bool:
        """Whether *session_id* is a staff session now: not ended, not expired, of this generation."""
        row = self.conn.execute(
            "SELECT 1 FROM staff_sessions AS s JOIN staff_generation AS g ON g.id = 1"
            " WHERE s.id_hash = ? AND s.ended_at IS NULL AND s.expires_at > ?"
            " AND s.generation = g.generation",
            (_hash(session_id), time.time() if now is None else now),
        ).fetchone()
        return row is not None

    def end(self, session_id: str) -> None:
        """Log one session out (every copy of its cookie with it)."""
        self.conn.execute(
            "UPDATE staff_sessions SET ended_at = ? WHERE id_hash = ? AND ended_at IS NULL",
            (time.time(), _hash(session_id)),
        )

    def end_all(self) -> int:
        """Start a new generation: every session opened before ends. Returns the new generation."""
        with transaction(self.conn):
            self.conn.execute("UPDATE staff_generation SET generation = generation + 1 WHERE id = 1")
            self.conn.execute("UPDATE staff_sessions SET ended_at = ? WHERE ended_at IS NULL", (time.time(),))
            return self.generation()

    def live_count(self) -> int:
        """Sessions open now (for the staff pages and tests)."""
        row = self.conn.execute(
            "SELECT COUNT(*) FROM staff_sessions AS s JOIN staff_generation AS g ON g.id = 1"
            " WHERE s.ended_at IS NULL AND s.expires_at > ? AND s.generation = g.generation",
            (time.time(),),
        ).fetchone()
        return int(row[0])
