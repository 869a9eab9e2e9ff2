"""Live pages of the event server: one reader notices every change, each page fetches once.

The event's database changes whenever a board reports or staff act; one
background thread per server process asks SQLite whether anything changed
(``PRAGMA data_version``, which moves when another connection commits) every
``poll_interval``, and wakes the open streams. Each stream sends a ``change``
event; the page then fetches the view it shows (one request per page per
change, whatever the number of boards).

It reuses the board's follower for the bookkeeping (at most ``max_streams``
open streams, each ending after ``stream_max_seconds``, heartbeats).
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator

from webpanel.stream import RETRY_MS, BoardFollower, CountedStream, Snapshot, sse


class EventFollower(BoardFollower):
    """Notices every commit to the event's database."""

    def _poll(self, conn: sqlite3.Connection) -> None:
        self.polls += 1
        version = int(conn.execute("PRAGMA data_version").fetchone()[0])
        current = self._snapshot
        if current is not None and current.journal_id == version:
            return
        with self._cond:
            number = (current.version + 1) if current else 1
            self._snapshot = Snapshot(number, version, True, json.dumps({"version": number}))
            self._cond.notify_all()


class ChangeStream(CountedStream):
    """``change`` events (``{"version": n}``) as the event's database changes."""

    def _events(self) -> Iterator[str]:
        settings = self.follower.settings
        deadline = time.monotonic() + settings.stream_max_seconds
        yield f"retry: {RETRY_MS}\n\n"
        snap = self.follower.latest()
        version = 0
        if snap is not None:
            version = snap.version
            yield sse("change", snap.board_json, snap.version)
        while not self.follower.stopped:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            snap = self.follower.wait_newer(version, min(settings.heartbeat_seconds, remaining))
            if snap is None:
                yield ": keep-alive\n\n"
                continue
            version = snap.version
            yield sse("change", snap.board_json, snap.version)
        yield sse("reconnect", json.dumps({"after_ms": RETRY_MS}))
