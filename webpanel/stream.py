"""Live streams' places, and the board's reader for callers that wait on it directly.

Every live stream of the panel (:mod:`webpanel.live`: the board's, the event's,
a lobby game's) is woken by the process's change hub (:mod:`webpanel.hub`);
this module holds what they share: their places and the SSE framing.

:class:`BoardFollower` counts the open streams. Its reader (one background
thread while a caller waits on it: ``bench/central.py``) reads the
``board_state`` row each time the database is written and keeps the board's
public view as a :class:`Snapshot`; it sleeps until the kernel says the
database was written (:mod:`store.file_watch`, inotify), or until the board
service's heartbeat is due to go stale; where inotify is missing it reads
every ``poll_interval`` instead.

Every stream the process serves holds one server thread, so streams are bounded: at most
``max_streams`` at once (beyond that: 503 with ``Retry-After``, the page
retries), at most ``max_streams_per_address`` from one client address, over
every kind of stream of the process (beyond that: 429 with ``Retry-After``:
one address cannot take every place, as nginx's ``limit_conn`` does in front of
a board), and each ends after ``stream_max_seconds`` (the browser reconnects
and resumes). Behind nginx the pages follow nginx's channels instead
(:mod:`webpanel.fanout`) and hold no place here.

A client that goes away frees its place at once: waitress keeps reading a
connection while its request runs (``channel_request_lookahead``, see
webpanel/serve.py) and says so in ``waitress.client_disconnected``, which a
stream looks at every :data:`CLIENT_CHECK_S` while it waits. Elsewhere (a test
client, another server) a comment every ``heartbeat_seconds`` is what notices.
"""

from __future__ import annotations

import abc
import json
import logging
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from flask import Flask, Response, current_app, has_request_context, request

from store.db import open_database
from store.file_watch import FileWatch, open_watch
from webpanel.config import PanelSettings
from webpanel.errors import ApiError, define_code, whole_number
from webpanel.view import public_board

log = logging.getLogger(__name__)

RETRY_MS = 1000
"""What the browser waits before reconnecting when a stream ends."""
TOO_MANY_STREAMS = define_code(
    "too_many_streams", "Too many live pages are open: retry after Retry-After seconds."
)
TOO_MANY_STREAMS_FROM_ADDRESS = define_code(
    "too_many_streams_from_address",
    "Too many live pages are open from this address (max_streams_per_address): close some, or retry after"
    " Retry-After seconds.",
)
ADDRESS_RETRY_AFTER_S = 10
"""An address at its limit waits for one of its own pages to close: ask again in ten seconds."""
CLIENT_CHECK_S = 0.25
"""How often a waiting stream looks whether its client went away (a flag, no system call)."""
_PLACE_KEY = "hautetension.stream_address"
"""Where :func:`take_place` leaves the address whose place the request's stream holds."""


class AddressPlaces:
    """The streams each client address holds, over every stream of the process (one per app)."""

    def __init__(self, per_address: int) -> None:
        self.per_address = per_address
        self._held: dict[str, int] = {}
        self._lock = threading.Lock()

    def take(self, address: str) -> bool:
        with self._lock:
            if self._held.get(address, 0) >= self.per_address:
                return False
            self._held[address] = self._held.get(address, 0) + 1
            return True

    def give_back(self, address: str) -> None:
        with self._lock:
            left = self._held.get(address, 0) - 1
            if left > 0:
                self._held[address] = left
            else:
                self._held.pop(address, None)

    def held(self, address: str) -> int:
        with self._lock:
            return self._held.get(address, 0)

    @property
    def total(self) -> int:
        with self._lock:
            return sum(self._held.values())


def init_app(app: Flask) -> None:
    app.extensions["stream_places"] = AddressPlaces(app.config["PANEL"].max_streams_per_address)


def take_place(follower: BoardFollower, *, retry_after: str) -> None:
    """Take a place for the stream this request opens (its :class:`CountedStream` gives it back), or
    raise the refusal: 429 when the client's address holds ``max_streams_per_address`` already, 503 when
    the process holds ``max_streams``."""
    places: AddressPlaces = current_app.extensions["stream_places"]
    address = request.remote_addr or "unknown"
    if not places.take(address):
        raise ApiError(
            429,
            f"too many live pages open from this address (at most {places.per_address}): close some",
            code=TOO_MANY_STREAMS_FROM_ADDRESS,
            headers={"Retry-After": str(ADDRESS_RETRY_AFTER_S)},
            params={"retry_after": ADDRESS_RETRY_AFTER_S},
        )
    if not follower.try_open_stream():
        places.give_back(address)
        raise ApiError(503, "too many live pages open: retrying shortly", code=TOO_MANY_STREAMS,
                       headers={"Retry-After": retry_after})
    request.environ[_PLACE_KEY] = address


@dataclass(frozen=True)
class Snapshot:
    """The latest board as streams see it."""

    version: int
    journal_id: int
    running: bool
    board_json: str


class BoardFollower:
    """Polls the shared database and wakes the streams when the board changes."""

    def __init__(self, settings: PanelSettings) -> None:
        self.settings = settings
        self._cond = threading.Condition()
        self._snapshot: Snapshot | None = None
        self._streams = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._start_lock = threading.Lock()
        self._watch: FileWatch | None = None
        self._nudge = threading.Event()
        self._fresh = False
        """Whether the snapshot was read by the reader running now (a reader that ended left it stale)."""
        self.polls = 0
        self.runs = 0
        """How many times the reader thread started (it ends when the last stream closes)."""

    # -- the reader thread -------------------------------------------------

    def start(self) -> None:
        with self._start_lock:
            if self._thread is None and not self._stop.is_set():
                self.runs += 1
                self._thread = threading.Thread(target=self._run, name="board-follower", daemon=True)
                self._thread.start()

    def close(self) -> None:
        self._stop.set()
        self._wake()
        with self._cond:
            self._cond.notify_all()
        thread = self._thread
        # A reader made but not started yet (a stream opening at this moment) finds the panel stopped
        # and ends by itself: there is nothing to join.
        if thread is not None and thread.ident is not None:
            thread.join(timeout=5)

    def _wake(self) -> None:
        """Make the reader thread look up now (the panel closes, the last stream went)."""
        self._nudge.set()
        watch = self._watch
        if watch is not None:
            watch.wake()

    def _wanted(self) -> bool:
        """Whether the reader must go on: the panel runs and a stream is open. Decided under the start
        lock, so that a stream opening meanwhile starts a new reader."""
        with self._start_lock:
            if not self._stop.is_set() and self._streams > 0:
                return True
            self._thread = None
            self._fresh = False  # nobody follows the board: the next reader reads it again first
            return False

    def _run(self) -> None:
        conn = None
        try:
            while self._wanted():
                try:
                    if conn is None:
                        conn = open_database(self.settings.database)
                        self._watch = open_watch(self.settings.database)
                    self._poll(conn)
                except Exception:  # a locked or vanished database must not kill the reader
                    log.exception("cannot read the board state; retrying")
                    self._drop(conn)
                    conn = None
                    self._stop.wait(1.0)
                    continue
                self._wait_for_change()
        finally:
            self._drop(conn)

    def _drop(self, conn: Any) -> None:
        watch, self._watch = self._watch, None
        if watch is not None:
            watch.close()
        if conn is not None:
            conn.close()

    def _wait_for_change(self) -> None:
        """Until the database is written (or, without inotify, one ``poll_interval``); at the latest when
        the board service's last heartbeat goes stale, which changes what the streams show."""
        watch = self._watch
        if watch is None:
            self._nudge.wait(self.settings.poll_interval)
            self._nudge.clear()
            return
        snap = self._snapshot
        timeout = self.settings.heartbeat_seconds
        if snap is not None and snap.running and self._stale_at is not None:
            timeout = min(timeout, self._stale_at - time.time() + 0.01)
        watch.wait(timeout)

    _stale_at: float | None = None
    """When the board service's last heartbeat goes stale (Unix time)."""

    def _poll(self, conn: Any) -> None:
        self.polls += 1
        row = conn.execute("SELECT journal_id, updated_at FROM board_state WHERE id = 1").fetchone()
        journal_id = int(row[0]) if row else 0
        self._stale_at = float(row[1]) + self.settings.service_stale_seconds if row else None
        running = row is not None and time.time() - float(row[1]) < self.settings.service_stale_seconds
        current = self._snapshot
        if current is not None and current.journal_id == journal_id and current.running == running:
            if not self._fresh:
                with self._cond:
                    self._fresh = True
                    self._cond.notify_all()
            return
        public = None
        if row is not None:
            full = conn.execute("SELECT journal_id, public FROM board_state WHERE id = 1").fetchone()
            journal_id, public = int(full[0]), json.loads(full[1])
        board = public_board(public, journal_id=journal_id, service_running=running)
        with self._cond:
            version = (current.version + 1) if current else 1
            self._snapshot = Snapshot(
                version, journal_id, running, json.dumps(board, separators=(",", ":"))
            )
            self._fresh = True
            self._cond.notify_all()

    # -- what streams use --------------------------------------------------

    def latest(self, timeout: float = 2.0) -> Snapshot | None:
        """The current snapshot, waiting briefly for the reader's first poll (never one a reader that
        ended left behind: a page opened after a quiet while starts from the board as it is now). Called
        by an open stream, whose count keeps the reader running."""
        self.start()
        with self._cond:
            self._cond.wait_for(lambda: (self._snapshot is not None and self._fresh) or self._stop.is_set(),
                                timeout)
            return self._snapshot

    def wait_newer(self, version: int, timeout: float) -> Snapshot | None:
        """The snapshot once it is newer than *version*, or ``None`` after *timeout*."""
        with self._cond:
            self._cond.wait_for(
                lambda: (
                    self._stop.is_set() or (self._snapshot is not None and self._snapshot.version > version)
                ),
                timeout,
            )
            snap = self._snapshot
        return snap if snap is not None and snap.version > version else None

    @property
    def open_streams(self) -> int:
        return self._streams

    def try_open_stream(self) -> bool:
        with self._cond:
            if self._streams >= self.settings.max_streams:
                return False
            self._streams += 1
            return True

    def close_stream(self) -> None:
        with self._cond:
            self._streams -= 1
            last = self._streams == 0
        if last:
            self._wake()  # the reader ends: nobody follows the board any more

    @property
    def stopped(self) -> bool:
        return self._stop.is_set()


def sse(event: str, data: str, event_id: int | None = None) -> str:
    head = f"id: {event_id}\n" if event_id is not None else ""
    return f"{head}event: {event}\ndata: {data}\n\n"


class CountedStream(abc.ABC):
    """The body of one SSE response, holding one of the ``max_streams`` places
    (taken by :meth:`BoardFollower.try_open_stream` before it is made); it
    releases its place when closed, even if never iterated."""

    def __init__(self, follower: BoardFollower) -> None:
        self.follower = follower
        self._closed = False
        self._address: str | None = None
        self._places: AddressPlaces | None = None
        self._gone: Callable[[], bool] | None = None
        if has_request_context():
            self._address = request.environ.pop(_PLACE_KEY, None)
            self._places = current_app.extensions.get("stream_places")
            self._gone = request.environ.get("waitress.client_disconnected")

    def client_gone(self) -> bool:
        """Whether the client closed its connection (known under waitress only)."""
        return self._gone is not None and bool(self._gone())

    def sliced(self, wait: Callable[[float], bool], timeout: float) -> bool:
        """*wait* (up to the seconds it is given; True: something happened) for *timeout* at most, in
        slices, ending early when the client went away."""
        if self._gone is None:
            return wait(timeout)
        deadline = time.monotonic() + timeout
        while not self.client_gone():
            if wait(min(CLIENT_CHECK_S, max(0.0, deadline - time.monotonic()))):
                return True
            if time.monotonic() >= deadline:
                return False
        return False

    def __iter__(self) -> Iterator[bytes]:
        for chunk in self._events():
            yield chunk.encode()

    @abc.abstractmethod
    def _events(self) -> Iterator[str]:
        """The SSE text of the stream, chunk by chunk."""

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self.follower.close_stream()
            if self._places is not None and self._address is not None:
                self._places.give_back(self._address)


def sse_response(body: CountedStream) -> Response:
    response = Response(body, mimetype="text/event-stream")
    response.headers["Cache-Control"] = "no-store"
    response.headers["X-Accel-Buffering"] = "no"  # a reverse proxy must not hold events back
    return response


def last_event_id(query: str) -> int | None:
    """Where a stream resumes: ``Last-Event-ID`` or the *query* parameter (empty: from now on), each
    a whole number when given."""
    sent = (("Last-Event-ID", request.headers.get("Last-Event-ID")), (query, request.args.get(query)))
    found = [whole_number(raw, name) for name, raw in sent if raw]
    return found[0] if found else None
