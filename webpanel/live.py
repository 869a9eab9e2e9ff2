"""The one stream template: a live page's Server-Sent Events, woken by the process's change hub.

Every live stream of the panel is a :class:`LiveStream`: it says what it follows
(its topics on :class:`webpanel.hub.ChangeHub`), what it sends first (resuming
after ``Last-Event-ID`` when the browser gives one) and what it sends for
each notice; the template does the rest, the same for every page:

* ``retry:`` first, so the browser reconnects after :data:`RETRY_MS`;
* a comment every ``heartbeat_seconds`` while nothing changes (a proxy keeps
  the connection, a client that went away is noticed);
* an end after ``stream_max_seconds`` (a ``reconnect`` event: the browser
  comes back and resumes from its last id);
* woken by the hub, never polling; the place (``max_streams``, per address)
  freed the moment the client goes away (:class:`webpanel.stream.CountedStream`).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Iterator

from webpanel.hub import ChangeHub, Notice, Subscription, Topic
from webpanel.stream import RETRY_MS, BoardFollower, CountedStream, sse


class LiveStream(CountedStream):
    """A stream of *topics*: :meth:`opening` then :meth:`changed` for each notice, until
    :attr:`finished`, the deadline, the client's leaving or the panel's end."""

    finished = False
    """Set by a subclass when nothing more will happen (a game that ended)."""

    def __init__(self, follower: BoardFollower, hub: ChangeHub, topics: Iterable[Topic]) -> None:
        super().__init__(follower)
        self.hub = hub
        self.topics = tuple(topics)

    def opening(self, before: list[Notice]) -> Iterator[str]:
        """What the stream sends first; *before*: the last notice of each topic the hub remembers."""
        return iter(())

    def changed(self, notice: Notice) -> Iterator[str]:
        """What the stream sends for *notice*."""
        return iter(())

    def _wait(self, subscription: Subscription, timeout: float) -> list[Notice]:
        """The notices that came within *timeout* (none: time is up, the client left, the hub closed)."""
        notices: list[Notice] = []

        def wait(slice_s: float) -> bool:
            notices.extend(subscription.wait(slice_s))
            return bool(notices) or self.hub.closed

        self.sliced(wait, timeout)
        return notices

    def _events(self) -> Iterator[str]:
        settings = self.follower.settings
        deadline = time.monotonic() + settings.stream_max_seconds
        yield f"retry: {RETRY_MS}\n\n"
        with self.hub.subscribe(self.topics) as subscription:
            yield from self.opening(subscription.latest())
            while not self.finished and not self.hub.closed and not self.follower.stopped:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    break
                notices = self._wait(subscription, min(settings.heartbeat_seconds, remaining))
                if self.client_gone():
                    return  # nobody to tell: the place is free as soon as this ends
                if not notices:
                    yield ": keep-alive\n\n"
                    continue
                for notice in notices:
                    yield from self.changed(notice)
        # Ending is routine: the browser reconnects after ``retry`` and resumes from its last id.
        yield sse("reconnect", json.dumps({"after_ms": RETRY_MS}))
