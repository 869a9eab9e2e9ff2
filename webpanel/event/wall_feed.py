"""The wall's public view inside the published message: behind nginx a wall costs no request per change.

A wall page told only "the event changed" fetches ``GET /api/event/wall``:
one request per page per change. Behind nginx (``[panel] live_publisher``)
the :class:`WallFeed` builds the wall's view once per change of the event
and language instead, and publishes it on the hub's ``event-wall`` topic of
that language (:func:`webpanel.hub.wall_topic`; nginx's channels
``event-wall-fr``, ``event-wall-en``); the page follows its language's
channel and draws the view each message holds. The wall's words are
translated (a player's standing, the notes), so one view per language, each
exactly what ``GET /api/event/wall`` answers in it: the view is public
already, nothing more is told.

Served directly by waitress there is no feed: the pages follow the process's
own ``event`` stream and fetch, as before (nothing is built for nobody). The
feed's one thread builds for the newest change only: changes that came while
it built are one more build, not one each, and builds are at least
:data:`MIN_GAP_S` apart (a busy ingest's changes in that time are one build).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Sequence

from flask import Flask
from flask_babel import force_locale

from webpanel.config import LANGUAGES
from webpanel.db import get_db
from webpanel.event import present
from webpanel.hub import EVENT, ChangeHub, Notice, wall_topic

log = logging.getLogger(__name__)

MIN_GAP_S = 0.25
"""The least time between two builds: at most four walls a second per language, however busy the event
(a wall's change reaches its spectators within this time, well inside what a person notices)."""


class WallFeed:
    """A sink of the change hub: each ``event`` notice has the wall built in every language and
    published on its ``event-wall`` topic (by this feed's own thread, never the watcher's)."""

    def __init__(self, app: Flask, hub: ChangeHub, languages: Sequence[str] = LANGUAGES, *,
                 min_gap_s: float = MIN_GAP_S) -> None:
        self.app = app
        self.hub = hub
        self.languages = tuple(languages)
        self.min_gap_s = min_gap_s
        self.built = 0
        """Walls built (one per change and language; tests and benchmarks)."""
        self._due: int | None = None
        """The number of the newest ``event`` notice not yet built for."""
        self._busy = False
        self._stop = False
        self._cond = threading.Condition()
        self._thread = threading.Thread(target=self._run, name="wall-feed", daemon=True)
        self._thread.start()
        hub.add_sink(self)
        before = hub.last(EVENT)  # a change the hub published before this feed listened
        if before is not None:
            self(before)

    def __call__(self, notice: Notice) -> None:
        if notice.topic != EVENT:
            return  # its own walls, the games', the board's
        with self._cond:
            self._due = notice.number
            self._cond.notify_all()

    def build(self, language: str) -> str:
        """The wall's view in *language*, as JSON: what ``GET /api/event/wall`` answers in it."""
        with self.app.app_context(), force_locale(language):
            view = present.wall_view(get_db())
            return self.app.json.dumps(view, separators=(",", ":"))

    def flush(self, timeout: float) -> bool:
        """Wait until every change told so far is built and published (tests); whether it was in time."""
        with self._cond:
            return self._cond.wait_for(lambda: self._due is None and not self._busy, timeout)

    def close(self) -> None:
        with self._cond:
            self._stop = True
            self._cond.notify_all()
        self._thread.join(timeout=5)

    def _run(self) -> None:
        next_build = 0.0
        while True:
            with self._cond:
                self._busy = False
                self._cond.notify_all()
                self._cond.wait_for(lambda: self._stop or self._due is not None)
                # The gap since the last build: changes told meanwhile move _due on, one build for all.
                self._cond.wait_for(lambda: self._stop, max(0.0, next_build - time.monotonic()))
                if self._stop:
                    return
                number, self._due = self._due, None
                self._busy = True
            next_build = time.monotonic() + self.min_gap_s
            try:
                self._publish(number or 0)
            except Exception:  # a database restarting: the next change builds it again
                log.warning("cannot build the wall's view", exc_info=True)

    def _publish(self, number: int) -> None:
        for language in self.languages:
            public = self.build(language)
            self.built += 1
            self.hub.publish(wall_topic(language), version=number, public=public)


def init_app(app: Flask) -> None:
    """Publish the wall's view when the panel publishes to nginx (``[panel] live_publisher``)."""
    if app.extensions.get("live_publisher") is not None:
        app.extensions["wall_feed"] = WallFeed(app, app.extensions["change_hub"])


def close_app(app: Flask) -> None:
    feed: WallFeed | None = app.extensions.get("wall_feed")
    if feed is not None:
        feed.close()
