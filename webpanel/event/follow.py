"""Live pages of the event server: the process's change hub notices every change, each page fetches once.

The event's database changes whenever a board reports or staff act; the
process's change hub (:mod:`webpanel.hub`: SQLite's ``data_version`` read when
the file is written, PostgreSQL's notices on one listening connection, so
every server process hears of a result another one stored) publishes its
``event`` topic, and each :class:`ChangeStream` sends a ``change`` event; the
page then fetches the view it shows (one request per page per change,
whatever the number of boards). Behind nginx the same notice reaches the
pages through nchan's ``event`` channel (:mod:`webpanel.fanout`).

:class:`EventFollower` counts the open streams (at most ``max_streams``) as
the board's follower does; it is kept, with its own reader, for callers that
wait on it directly (``bench/central.py``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from store.changes import ChangeListener
from webpanel.config import PanelSettings
from webpanel.hub import EVENT, ChangeHub, Notice
from webpanel.live import LiveStream
from webpanel.stream import BoardFollower, Snapshot, sse

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


class ChangeStream(LiveStream):
    """``change`` events (``{"version": n}``) as the event's database changes, woken by the process's
    change hub (its ``event`` topic: every commit of any process); the follower counts the places."""

    def __init__(self, follower: BoardFollower, hub: ChangeHub) -> None:
        super().__init__(follower, hub, [EVENT])

    def opening(self, before: list[Notice]) -> Iterator[str]:
        number = max((n.number for n in before), default=0)
        yield sse("change", json.dumps({"version": number}), number)

    def changed(self, notice: Notice) -> Iterator[str]:
        yield sse("change", json.dumps({"version": notice.number}), notice.number)
