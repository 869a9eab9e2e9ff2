"""One LISTEN connection per process: PostgreSQL's change notices fanned out to every follower.

Every committed write transaction on PostgreSQL notifies
:data:`store.dialect.CHANGE_CHANNEL` (:meth:`store.dialect.PgDatabase.transaction`).
A live page's stream waits for the next notice, then reads what it shows.
Listening takes a connection of its own, held as long as it listens: one per
stream would make the server's connections grow with the followers (and
PostgreSQL's ``max_connections`` is about a hundred). So a process has one
:class:`ChangeListener`, on one connection, and every stream subscribes to
it: a notice wakes every subscription at once.

The connection may drop (the server restarted, an administrator ended the
backend, the network): the listener connects again, every second until the
server answers, and then wakes every subscription, since a change may have
been committed while nobody listened.
"""

from __future__ import annotations

import logging
import threading
from types import TracebackType

from store.dialect import listen_changes

log = logging.getLogger(__name__)

RETRY_S = 1.0
"""How long the listener waits before connecting again after losing its connection."""


class Subscription:
    """One follower's share of the listener: :meth:`wait` says whether something changed since."""

    def __init__(self, listener: ChangeListener) -> None:
        self.listener = listener
        self._changed = threading.Event()

    def wait(self, timeout: float) -> bool:
        """Whether a change was notified since the last call (waiting up to *timeout* seconds for one).

        Cleared before the caller reads: a notice that comes while it reads wakes the next call, and
        one that came just before the clearing is a commit the caller's read already sees.
        """
        if not self._changed.wait(timeout):
            return False
        self._changed.clear()
        return True

    def _wake(self) -> None:
        self._changed.set()

    def wake(self) -> None:
        """Make the next :meth:`wait` return True now (its follower is asked to read again)."""
        self._changed.set()

    def close(self) -> None:
        self.listener.unsubscribe(self)

    def __enter__(self) -> Subscription:
        return self

    def __exit__(
        self, _type: type[BaseException] | None, _exc: BaseException | None, _tb: TracebackType | None
    ) -> None:
        self.close()


class ChangeListener:
    """LISTENs to the database at *dsn* on one connection (from the first subscription on) and wakes
    every subscription at each notice and each reconnection."""

    def __init__(self, dsn: str, *, timeout: float = 1.0, retry_s: float = RETRY_S) -> None:
        self.dsn = dsn
        self.timeout = timeout
        """How often the listening thread looks up from the connection (to notice :meth:`close`)."""
        self.retry_s = retry_s
        self._subscriptions: set[Subscription] = set()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.connects = 0
        """How many times the listener connected (the first time, then after each loss)."""
        self.notices = 0
        """How many wake-ups notices gave (several commits close together may make one)."""
        self.connected = False

    # -- followers ---------------------------------------------------------------------------

    def subscribe(self) -> Subscription:
        """A new subscription (its first :meth:`Subscription.wait` returns at the next change)."""
        subscription = Subscription(self)
        with self._lock:
            if self._stop.is_set():
                raise RuntimeError("the change listener is closed")
            self._subscriptions.add(subscription)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="change-listener", daemon=True)
                self._thread.start()
        return subscription

    def unsubscribe(self, subscription: Subscription) -> None:
        with self._lock:
            self._subscriptions.discard(subscription)

    @property
    def subscribers(self) -> int:
        with self._lock:
            return len(self._subscriptions)

    def close(self) -> None:
        """Stop listening; every subscription's waiter is woken (to find its own end: a stream whose
        follower stopped ends instead of waiting out its heartbeat)."""
        self._stop.set()
        self._wake()
        with self._lock:
            thread = self._thread
        if thread is not None:
            thread.join(timeout=self.timeout + 5)

    # -- the listening thread ------------------------------------------------------------------

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                first = True
                for changed in listen_changes(self.dsn, self._stop, timeout=self.timeout):
                    if first:  # listening (again): whatever was committed meanwhile is news
                        first, self.connected = False, True
                        self.connects += 1
                        self._wake()
                    elif changed:
                        self.notices += 1
                        self._wake()
            except Exception:  # a restarted or unreachable server must not end the listening
                log.warning("lost the database's change notices; listening again", exc_info=True)
            self.connected = False
            self._stop.wait(self.retry_s)

    def _wake(self) -> None:
        with self._lock:
            subscriptions = list(self._subscriptions)
        for subscription in subscriptions:
            subscription._wake()
