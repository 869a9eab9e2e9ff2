"""One change hub per process: every live page is woken by it, none polls.

Writers (a move, a join, the computer players, the turn clock, another server
process) commit to the database; the hub tells the streams that follow the
changed subject, by topic:

* a request of this process that changed a game publishes it at once
  (:meth:`ChangeHub.publish`, after its commit);
* one watcher thread per process notices the commits of everyone else.
  SQLite: it sleeps until the kernel says the database was written
  (:mod:`store.file_watch`, inotify), then reads ``PRAGMA data_version``
  (which moves when another connection commits) and, when it moved, which
  games changed since it last looked (one indexed read). PostgreSQL: it
  subscribes to the process's listener of the database's notices
  (:class:`store.changes.ChangeListener`) and reads the same when notified.
  Where inotify is missing it reads ``data_version`` every ``poll_interval``.

A topic is typed (:class:`Topic`: a board, the event, a tournament, a lobby
game); a :class:`Notice` carries the subject's version and, for a public
page, may carry the public view itself. Every notice also goes to the hub's
sinks (nginx's publisher, :mod:`webpanel.fanout`), so behind nginx the
subscribers cost the process nothing.

The watcher runs only while something listens (a subscription, a sink): an
idle process has no thread. The hub keeps the last notice of each topic
(at most :data:`KEPT_TOPICS`), so a stream that subscribes after a change
it has not seen starts from it.

The watcher follows the board too (the ``board_state`` row, when the
database has one): when the board service wrote a new state, or its
heartbeat went stale (the watcher wakes when it is due), the ``board`` topic
is published with the board's public view inside (:func:`store.board_view.public_board`,
the secrecy rules' allow-list: what every player's board page shows), built
once for every page and for nginx.

A new subscription waits for the watcher to look once more (:meth:`ChangeHub.subscribe`):
a page read its view before it opened its stream, so every commit that view
shows is published before the stream's opening, and none of them is told to
the stream again as a change (the watcher publishes only when the database's
version moved: SQLite's ``data_version``, PostgreSQL's current snapshot).
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Literal

from store.board_view import public_board
from store.changes import ChangeListener
from store.changes import Subscription as ChangeSubscription
from store.db import open_database
from store.dialect import Connection, is_postgresql
from store.file_watch import FileWatch, open_watch

log = logging.getLogger(__name__)

TopicKind = Literal["board", "event", "event-wall", "tournament", "game"]
KEPT_TOPICS = 20_000
"""Lobby games whose last notice the hub remembers: a bounded memory. The board's, the event's, its
walls' and its tournaments' last notices are few and always kept (a page opening finds them however
many games came since)."""
LOOK_BACK_S = 2.0
"""How far before its last look the watcher reads changed games again (clocks of several processes,
a transaction committed after the time it stamped)."""
RETRY_S = 1.0
READY_WAIT_S = 5.0
"""How long a new subscription waits for the watcher to have looked (its listener connecting)."""
SETTLE_S = 1.0
"""How long after a write of the database's files the watcher reads ``data_version`` again (every
``poll_interval``) for the commit to become visible (see :meth:`ChangeHub._wait_for_write`)."""
SAFETY_S = 10.0
"""The longest the watcher sleeps without a write: one read then, in case a commit's write went unseen."""
SERVICE_STALE_S = 5.0
"""How old the board service's heartbeat may be while the board says it runs (``[panel]
service_stale_seconds``)."""


@dataclass(frozen=True)
class Topic:
    """What a stream follows: ``board``, ``event`` (anything on the event's database), the event's
    wall in one language (``event-wall``, its key the language: the wall's words are translated), a
    ``tournament`` or a lobby ``game`` (with its id)."""

    kind: TopicKind
    key: int | str | None = None

    @property
    def channel(self) -> str:
        """The topic's name outside the process (nginx's channel id): ``game-12``, ``event``."""
        return self.kind if self.key is None else f"{self.kind}-{self.key}"


BOARD = Topic("board")
EVENT = Topic("event")


def game_topic(game_id: int) -> Topic:
    return Topic("game", game_id)


def wall_topic(language: str) -> Topic:
    """The event's wall in *language*: its notices hold the wall's public view in that language."""
    return Topic("event-wall", language)


def tournament_topic(tournament_id: int) -> Topic:
    return Topic("tournament", tournament_id)


@dataclass(frozen=True)
class Notice:
    """One change of a topic: its number on this hub (increasing per topic), the subject's own version
    and status when it has them, and the public view when the topic's pages are public."""

    topic: Topic
    number: int
    version: int | None = None
    status: str | None = None
    public: str | None = None


@dataclass(frozen=True)
class BoardSeen:
    """The board's state as the watcher last read it (``updated_at`` None: the service never wrote one)."""

    journal_id: int
    updated_at: float | None
    public: dict[str, Any] | None


Sink = Callable[[Notice], None]
"""Told every notice (outside the hub's lock): nginx's publisher."""


class Subscription:
    """One stream's share of the hub: :meth:`wait` returns the notices of its topics it has not seen."""

    def __init__(self, hub: ChangeHub, topics: Iterable[Topic]) -> None:
        self.hub = hub
        self.topics = frozenset(topics)
        self._ready = threading.Event()
        self._seen: dict[Topic, int] = {}

    def latest(self) -> list[Notice]:
        """The last notice of each topic the hub remembers (what happened before this subscription)."""
        found = [n for n in (self.hub.last(t) for t in self.topics) if n is not None]
        for notice in found:
            self._seen[notice.topic] = max(self._seen.get(notice.topic, 0), notice.number)
        return found

    def wait(self, timeout: float) -> list[Notice]:
        """The notices newer than those returned before (the last one of each topic), waiting up to
        *timeout* seconds for one; empty when none came (or the hub closed)."""
        deadline = time.monotonic() + timeout
        while self._ready.wait(max(0.0, deadline - time.monotonic())):
            self._ready.clear()  # before reading: a notice that comes meanwhile wakes the next wait
            fresh = []
            for topic in self.topics:
                notice = self.hub.last(topic)
                if notice is not None and notice.number > self._seen.get(topic, 0):
                    self._seen[topic] = notice.number
                    fresh.append(notice)
            # Woken by a notice its opening already read (the look made when it subscribed): wait on.
            if fresh or self.hub.closed or time.monotonic() >= deadline:
                return fresh
        return []

    def _wake(self) -> None:
        self._ready.set()

    def close(self) -> None:
        self.hub._unsubscribe(self)

    def __enter__(self) -> Subscription:
        return self

    def __exit__(
        self, _type: type[BaseException] | None, _exc: BaseException | None, _tb: TracebackType | None
    ) -> None:
        self.close()


class ChangeHub:
    """The process's notices by topic, and the one watcher of the database at *database*."""

    def __init__(self, database: str | os.PathLike[str], *, listener: ChangeListener | None = None,
                 poll_interval: float = 0.025, shared: Callable[[], Connection] | None = None,
                 service_stale_s: float = SERVICE_STALE_S) -> None:
        self.database = os.fspath(database)
        self.service_stale_s = service_stale_s
        self.listener = listener
        self.shared = shared
        """The process's own database (PostgreSQL: the panel's pool, shared by its threads): the watcher
        reads on it instead of opening connections of its own."""
        self.poll_interval = poll_interval
        self._lock = threading.Lock()
        self._last: OrderedDict[Topic, Notice] = OrderedDict()
        """The last notice of each topic, the oldest first; only games are ever forgotten."""
        self._games_kept = 0
        self._numbers: dict[Topic, int] = {}
        self._by_topic: dict[Topic, set[Subscription]] = {}
        self._subscriptions = 0
        self._sinks: list[Sink] = []
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._watch: FileWatch | None = None
        self._nudge = threading.Event()
        self._watching = threading.Event()
        """Set while the watcher hears every commit (its listener connected, its file watch armed)."""
        self._looks_cond = threading.Condition()
        self._asked = 0
        """Looks asked for by new subscriptions (each waits for the watcher to have made its own)."""
        self._looked = 0
        """The last of the looks asked for that the watcher made (it read the database after it was asked)."""
        self._changes: ChangeSubscription | None = None
        """The watcher's share of the PostgreSQL listener (woken to look now)."""
        self._versions: dict[int, int] = {}
        """Each game's version as last published (the watcher publishes only what is newer)."""
        self._board: BoardSeen | None = None
        self._board_told: tuple[int, bool] | None = None
        """The board's journal id and whether its service ran, as last published."""
        self.looks = 0
        """How many times the watcher read what changed (tests and benchmarks)."""
        self.runs = 0
        """How many times the watcher thread started."""

    # -- publishing ---------------------------------------------------------------------------

    def publish(self, topic: Topic, *, version: int | None = None, status: str | None = None,
                public: str | None = None) -> Notice | None:
        """Tell *topic*'s streams (and the sinks) of a change; None when *version* is not newer than
        the one already published (the watcher's and the writer's notices of one commit are one)."""
        with self._lock:
            if topic.kind == "game" and isinstance(topic.key, int) and version is not None:
                if self._versions.get(topic.key, -1) >= version:
                    return None
                self._versions[topic.key] = version
                if status is not None and status != "running":
                    self._versions.pop(topic.key, None)  # it will not change again: forget it
            number = self._numbers.get(topic, 0) + 1
            self._numbers[topic] = number
            notice = Notice(topic, number, version, status, public)
            if topic.kind == "game" and topic not in self._last:
                self._games_kept += 1
            self._last[topic] = notice
            self._last.move_to_end(topic)
            if self._games_kept > KEPT_TOPICS:
                self._forget_oldest_game()
            waiting = list(self._by_topic.get(topic, ()))
            sinks = list(self._sinks)
        for subscription in waiting:
            subscription._wake()
        for sink in sinks:
            try:
                sink(notice)
            except Exception:  # a front server gone must not stop a move
                log.warning("cannot pass a change on to %s", getattr(sink, "__name__", sink), exc_info=True)
        return notice

    def _forget_oldest_game(self) -> None:
        """Forget the game whose last notice is the oldest (under the lock)."""
        oldest = next(t for t in self._last if t.kind == "game")
        del self._last[oldest]
        self._numbers.pop(oldest, None)
        self._games_kept -= 1

    def last(self, topic: Topic) -> Notice | None:
        with self._lock:
            return self._last.get(topic)

    def add_sink(self, sink: Sink) -> None:
        with self._lock:
            self._sinks.append(sink)
        self._start()

    # -- subscribing ----------------------------------------------------------------------------

    def subscribe(self, topics: Iterable[Topic]) -> Subscription:
        """A subscription to *topics*, made once the watcher hears every commit (none made after it
        goes unseen) and has read the database after it was asked (every commit made before it is
        published already: the subscription's :meth:`Subscription.latest` holds it, its
        :meth:`Subscription.wait` will not tell it again)."""
        subscription = Subscription(self, topics)
        with self._lock:
            if self._stop.is_set():
                raise RuntimeError("the change hub is closed")
            for topic in subscription.topics:
                self._by_topic.setdefault(topic, set()).add(subscription)
            self._subscriptions += 1
        self._catch_up(READY_WAIT_S)
        return subscription

    def _catch_up(self, timeout: float) -> None:
        """Wait until the watcher has read the database after this call (or *timeout*: a database that
        does not answer must not hold a page)."""
        with self._looks_cond:
            self._asked += 1
            asked = self._asked
        self._start()
        self._wake_watcher()
        with self._looks_cond:
            self._looks_cond.wait_for(lambda: self._looked >= asked or self._stop.is_set(), timeout)

    def _asked_now(self) -> int:
        with self._looks_cond:
            return self._asked

    def _looked_up_to(self, asked: int) -> None:
        """The watcher read the database after the looks up to *asked* were asked for."""
        self._watching.set()
        with self._looks_cond:
            if asked > self._looked:
                self._looked = asked
                self._looks_cond.notify_all()

    def _unsubscribe(self, subscription: Subscription) -> None:
        with self._lock:
            for topic in subscription.topics:
                held = self._by_topic.get(topic)
                if held is not None and subscription in held:
                    held.discard(subscription)
                    if not held:
                        del self._by_topic[topic]
            self._subscriptions -= 1
            idle = self._subscriptions <= 0 and not self._sinks
        if idle:
            self._wake_watcher()  # nobody listens: the watcher ends

    @property
    def subscribers(self) -> int:
        with self._lock:
            return self._subscriptions

    # -- the watcher ---------------------------------------------------------------------------

    def _start(self) -> None:
        with self._lock:
            if self._thread is not None or self._stop.is_set():
                return
            self.runs += 1
            self._thread = threading.Thread(target=self._run, name="change-hub", daemon=True)
            self._thread.start()

    def _wanted(self) -> bool:
        """Whether the watcher must go on: something listens. A watcher told no has left: a
        subscription made meanwhile starts another one, and this one never comes back (two watchers
        would each publish every change)."""
        with self._lock:
            if self._thread is not threading.current_thread():
                return False
            if not self._stop.is_set() and (self._subscriptions > 0 or self._sinks):
                return True
            self._thread = None
            self._watching.clear()
            return False

    def close(self) -> None:
        self._stop.set()
        self._watching.set()  # nobody waits for a watcher that will not come
        with self._looks_cond:
            self._looks_cond.notify_all()
        self._wake_watcher()
        with self._lock:
            thread = self._thread
            waiting = [s for subs in self._by_topic.values() for s in subs]
        for subscription in waiting:
            subscription._wake()
        if thread is not None and thread.ident is not None and thread is not threading.current_thread():
            thread.join(timeout=5)

    @property
    def closed(self) -> bool:
        return self._stop.is_set()

    def _wake_watcher(self) -> None:
        self._nudge.set()
        watch = self._watch
        if watch is not None:
            watch.wake()
        changes = self._changes
        if changes is not None:
            changes.wake()

    def _run(self) -> None:
        while self._wanted():
            try:
                if self.listener is not None:
                    self._listen(self.listener)
                else:
                    self._watch_file()
            except Exception:  # a locked, restarting or vanished database must not end the watching
                self._watching.clear()
                log.warning("cannot read the database's changes; trying again", exc_info=True)
                self._stop.wait(RETRY_S)

    def _listen(self, listener: ChangeListener) -> None:
        conn = self.shared() if self.shared is not None else open_database(self.database)
        try:
            seen: str | None = None
            since = time.time() - LOOK_BACK_S
            with listener.subscribe() as changes:
                if not listener.connected:
                    changes.wait(READY_WAIT_S)  # the listener's first connection wakes its subscriptions
                self._changes = changes
                woken = True  # first: what was committed before it listened
                while self._wanted():
                    asked = self._asked_now()
                    if woken:
                        seen, since = self._look_if_moved(conn, seen, since)
                    self._tell_board()
                    self._looked_up_to(asked)
                    woken = changes.wait(min(1.0, self._board_stale_in()))
        finally:
            self._changes = None
            if self.shared is None:
                conn.close()

    def _watch_file(self) -> None:
        conn = open_database(self.database)
        self._watch = open_watch(self.database)
        try:
            seen: str | None = None
            since = time.time() - LOOK_BACK_S
            settle_until = time.monotonic() + SETTLE_S  # a commit may have been written before the watch
            while self._wanted():
                asked = self._asked_now()
                seen, since = self._look_if_moved(conn, seen, since)
                self._tell_board()
                self._looked_up_to(asked)
                if self._wait_for_write(settle_until > time.monotonic()):
                    settle_until = time.monotonic() + SETTLE_S
        finally:
            watch, self._watch = self._watch, None
            if watch is not None:
                watch.close()
            conn.close()

    def _wait_for_write(self, settling: bool) -> bool:
        """Until the database's files are written (True) or a while passed (False).

        A commit writes the ``-wal`` file first, syncs it to the disk, and only then makes itself
        visible (in the shared index, written through ``mmap``, which the kernel does not report): a
        read made at the write may not see it yet. So for :data:`SETTLE_S` after each write the
        watcher reads again every ``poll_interval`` (*settling*); then it sleeps until the next write,
        or :data:`SAFETY_S` at most.
        """
        watch = self._watch
        if watch is None:
            self._nudge.wait(min(self.poll_interval, self._board_stale_in()))
            self._nudge.clear()
            return False
        timeout = min(self.poll_interval if settling else SAFETY_S, self._board_stale_in())
        return watch.wait(timeout) and not self._stop.is_set()

    def _look_if_moved(self, conn: Connection, seen: str | None, since: float) -> tuple[str, float]:
        """Publish what changed when the database's version moved from *seen*; the version read and
        the time to look from next."""
        version = database_version(conn, postgresql=is_postgresql(self.database))
        if version == seen:
            return seen, since
        return version, self._look(conn, since)

    def _look(self, conn: Connection, since: float) -> float:
        """Publish what changed since *since* (Unix time); the time to look from next."""
        self.looks += 1
        now = time.time()
        for game_id, version, status in changed_games(conn, since):
            self.publish(game_topic(game_id), version=version, status=status)
        self._read_board(conn)
        self.publish(EVENT)
        return now - LOOK_BACK_S

    # -- the board ------------------------------------------------------------------------------

    def _read_board(self, conn: Connection) -> None:
        """Read the board's state row (its public part only when the service wrote a new state)."""
        head = board_head(conn)
        if head is None:
            return  # a database without a board
        journal_id, updated_at = head
        seen = self._board
        public = seen.public if seen is not None and seen.journal_id == journal_id else None
        if updated_at is not None and (seen is None or seen.journal_id != journal_id):
            row = conn.execute("SELECT journal_id, public FROM board_state WHERE id = 1").fetchone()
            if row is not None:
                journal_id, public = int(row[0]), json.loads(row[1])
        self._board = BoardSeen(journal_id, updated_at, public)  # told by the watcher after each look

    def _board_running(self, seen: BoardSeen) -> bool:
        return seen.updated_at is not None and time.time() - seen.updated_at < self.service_stale_s

    def _tell_board(self) -> None:
        """Publish the board's public view when its state or its service's liveness changed."""
        seen = self._board
        if seen is None:
            return
        running = self._board_running(seen)
        if self._board_told == (seen.journal_id, running):
            return
        self._board_told = (seen.journal_id, running)
        view = public_board(seen.public, journal_id=seen.journal_id, service_running=running)
        self.publish(BOARD, version=seen.journal_id, status="running" if running else "stopped",
                     public=json.dumps(view, separators=(",", ":")))

    def _board_stale_in(self) -> float:
        """Seconds until the running board's heartbeat goes stale (the board then says its service
        stopped); a long while when it is not running."""
        seen = self._board
        if seen is None or seen.updated_at is None or not self._board_running(seen):
            return SAFETY_S
        return max(0.0, seen.updated_at + self.service_stale_s - time.time()) + 0.01


def database_version(conn: Connection, *, postgresql: bool) -> str:
    """What moves whenever another connection commits. SQLite: ``PRAGMA data_version``. PostgreSQL:
    the current snapshot (the transactions running and the next to start): a commit ends one of them
    or one started after, so an unchanged snapshot means nothing was committed in between."""
    if postgresql:
        return str(conn.execute("SELECT pg_current_snapshot()::text").fetchone()[0])
    return str(conn.execute("PRAGMA data_version").fetchone()[0])


def board_head(conn: Connection) -> tuple[int, float | None] | None:
    """The board's journal id and heartbeat time ((0, None): no state yet; None: no board table)."""
    try:
        row = conn.execute("SELECT journal_id, updated_at FROM board_state WHERE id = 1").fetchone()
    except Exception as exc:  # no board table in this database
        if "board_state" in str(exc):
            return None
        raise
    return (0, None) if row is None else (int(row[0]), float(row[1]))


def changed_games(conn: Connection, since: float) -> list[tuple[int, int, str]]:
    """The lobby games changed since *since*: (id, version, status) (none where the database has no
    lobby: a table the board's or the event's database may lack)."""
    try:
        rows = conn.execute(
            "SELECT id, version, status FROM digital_games"
            " WHERE status IN ('running', 'over', 'abandoned', 'expired') AND updated_at >= ?",
            (since,),
        ).fetchall()
    except Exception as exc:  # no lobby table in this database
        if "digital_games" in str(exc):
            return []
        raise
    return [(int(r[0]), int(r[1]), str(r[2])) for r in rows]


def make_hub(database: str | os.PathLike[str], listener: ChangeListener | None, poll_interval: float,
             shared: Callable[[], Connection], service_stale_s: float = SERVICE_STALE_S) -> ChangeHub:
    """The hub of a panel on *database*: on PostgreSQL it hears the process's *listener* and reads on
    the process's *shared* pool; on SQLite it watches the file."""
    location = os.fspath(database)
    if is_postgresql(location):
        return ChangeHub(location, listener=listener, poll_interval=poll_interval, shared=shared,
                         service_stale_s=service_stale_s)
    return ChangeHub(location, poll_interval=poll_interval, service_stale_s=service_stale_s)


def hub_of(extensions: dict[str, Any]) -> ChangeHub:
    hub: ChangeHub = extensions["change_hub"]
    return hub
