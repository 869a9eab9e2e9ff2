"""Live pages behind nginx: each change published once to nchan, nginx holds the subscribers.

With ``[panel] live_publisher`` set (the address of nginx's nchan publisher
location, loopback only: ``http://127.0.0.1:8082/live/publish``), every notice
of the process's change hub (:mod:`webpanel.hub`) is POSTed once to that
location, on the topic's channel (``?id=game-12``); nginx (Debian's
``libnginx-mod-nchan``) keeps the pages' EventSource and WebSocket
connections at ``/live/<channel>`` and sends each of them the message: the
same bytes for every subscriber, so a spectator costs the process neither a
thread nor a request per change.

What a message holds is :func:`message`: the topic's version and status, and
the public view when the notice carries one (a public page's). A seat's own
view of a game with secrets is never in a notice, so never published: the
seat is told the version and fetches its view, as the secrecy rules shape it.

One thread per process publishes, on one kept-alive connection, the newest
notice of each topic waiting (changes that came while it published one are
sent as the last of them). A front server that does not answer costs a
warning, never a move: the page falls back to the process's own stream.
"""

from __future__ import annotations

import http.client
import json
import logging
import threading
import urllib.parse
from collections import OrderedDict

from flask import Flask

from webpanel.hub import Notice, Topic, hub_of

log = logging.getLogger(__name__)

TIMEOUT_S = 5.0
RETRY_S = 1.0


def message(notice: Notice) -> bytes:
    """What subscribers of *notice*'s channel receive (never a seat's own view: notices carry none)."""
    version = notice.number if notice.version is None else notice.version  # the event's: its count
    body: dict[str, object] = {"version": version, "status": notice.status}
    if notice.public is not None:
        return (f'{{"version":{json.dumps(version)},"status":{json.dumps(notice.status)},'
                f'"public":{notice.public}}}').encode()
    return json.dumps(body, separators=(",", ":")).encode()


class NchanPublisher:
    """A sink of the change hub that publishes to nchan at *url* from a thread of its own."""

    def __init__(self, url: str) -> None:
        parts = urllib.parse.urlsplit(url)
        if parts.scheme != "http" or not parts.hostname:
            raise ValueError(f"live_publisher must be an http:// address, not {url!r}")
        self.host = parts.hostname
        self.port = parts.port or 80
        self.path = parts.path or "/"
        self._waiting: OrderedDict[Topic, Notice] = OrderedDict()
        self._cond = threading.Condition()
        self._stop = False
        self._conn: http.client.HTTPConnection | None = None
        self.published = 0
        self.failures = 0
        self._thread = threading.Thread(target=self._run, name="nchan-publisher", daemon=True)
        self._thread.start()

    def __call__(self, notice: Notice) -> None:
        with self._cond:
            self._waiting[notice.topic] = notice
            self._waiting.move_to_end(notice.topic)
            self._cond.notify()

    def flush(self, timeout: float) -> bool:
        """Wait until every notice given so far is published (tests); whether it was in time."""
        with self._cond:
            return self._cond.wait_for(lambda: not self._waiting and not self._busy, timeout)

    _busy = False

    def close(self) -> None:
        with self._cond:
            self._stop = True
            self._cond.notify_all()
        self._thread.join(timeout=TIMEOUT_S + 1)
        if self._conn is not None:
            self._conn.close()

    def _run(self) -> None:
        while True:
            with self._cond:
                self._busy = False
                self._cond.notify_all()
                self._cond.wait_for(lambda: self._stop or bool(self._waiting))
                if self._stop:
                    return
                _, notice = self._waiting.popitem(last=False)
                self._busy = True
            self._publish(notice)

    def _publish(self, notice: Notice) -> None:
        target = f"{self.path}?{urllib.parse.urlencode({'id': notice.topic.channel})}"
        body = message(notice)
        for attempt in range(2):  # a kept-alive connection the front server closed: once more on a new one
            try:
                if self._conn is None:
                    self._conn = http.client.HTTPConnection(self.host, self.port, timeout=TIMEOUT_S)
                self._conn.request("POST", target, body, {"Content-Type": "application/json"})
                answer = self._conn.getresponse()
                answer.read()
                if answer.status >= 300:
                    raise OSError(f"nchan answered {answer.status}")
                self.published += 1
                return
            except (OSError, http.client.HTTPException) as exc:
                if self._conn is not None:
                    self._conn.close()
                    self._conn = None
                if attempt == 1:
                    self.failures += 1
                    log.warning("cannot publish a change to %s:%s (%s)", self.host, self.port, exc)


def init_app(app: Flask) -> None:
    """Publish the hub's notices to nginx when ``[panel] live_publisher`` is set."""
    # Pages ask where to follow a channel: nginx's /live/<channel>, or (None) the panel's own stream.
    app.jinja_env.globals["live_url"] = lambda channel: live_channel_url(app, channel)
    url = app.config["PANEL"].live_publisher
    if url:
        publisher = NchanPublisher(url)
        app.extensions["live_publisher"] = publisher
        hub_of(app.extensions).add_sink(publisher)


def close_app(app: Flask) -> None:
    publisher: NchanPublisher | None = app.extensions.get("live_publisher")
    if publisher is not None:
        publisher.close()


def live_channel_url(app: Flask, channel: str) -> str | None:
    """Where a page subscribes to *channel* through nginx (None: the process serves its own streams)."""
    return f"/live/{channel}" if app.config["PANEL"].live_publisher else None
