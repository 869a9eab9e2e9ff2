"""Live pages of the event server: one reader notices every change, each page fetches once.

The event's database changes whenever a board reports or staff act; one
background thread per server process notices it and wakes the open streams.
Each stream sends a ``change`` event; the page then fetches the view it shows
(one request per page per change, whatever the number of boards).

How the thread notices depends on the engine. SQLite: it asks whether anything
changed (``PRAGMA data_version``, which moves when another connection commits)
every ``poll_interval``. PostgreSQL: it subscribes to the process's listener to
the channel every committed write transaction notifies
(:class:`store.changes.ChangeListener`, one connection for every live page of
the process), so every server process on the database hears of a result
another one stored, at once and without polling.

It reuses the board's follower for the bookkeeping (at most ``max_streams``
open streams, each ending after ``stream_max_seconds``, heartbeats).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

from store.changes import ChangeListener
from webpanel.config import PanelSettings
from webpanel.stream import RETRY_MS, BoardFollower, CountedStream, Snapshot, sse

LOOK_UP_S = 1.0
"""How often the follower on PostgreSQL looks up from its subscription (to notice it is closed)."""


class EventFollower(BoardFollower):
    """Notices every commit to the event's database."""

    notices = 0
    """Changes PostgreSQL notified (SQLite: always 0)."""

    def __init__(self, settings: PanelSettings, *, listener: ChangeListener | None = None) -> None:
        super().__init__(settings)
        self.listener = listener
        """The process's listener to the database's notices (PostgreSQL; None: poll, as on SQLite)."""

    def _run(self) -> None:
        if self.listener is None:
            super()._run()
            return
        with self.listener.subscribe() as changes:
            self._notice()  # what was committed before it subscribed
            while not self._stop.is_set():
                if changes.wait(LOOK_UP_S):
                    self._notice()

    def _notice(self) -> None:
        self.notices += 1
        self._changed(self.notices)

    def _poll(self, conn: Any) -> None:
        self.polls += 1
        self._changed(int(conn.execute("PRAGMA data_version").fetchone()[0]))

    def _changed(self, version: int) -> None:
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
            snap = self.wait_newer(version, min(settings.heartbeat_seconds, remaining))
            if self.client_gone():
                return  # nobody to tell: the place is free as soon as this ends
            if snap is None:
                yield ": keep-alive\n\n"
                continue
            version = snap.version
            yield sse("change", snap.board_json, snap.version)
        yield sse("reconnect", json.dumps({"after_ms": RETRY_MS}))
