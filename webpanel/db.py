"""The shared database from the panel's side: reading the board, queuing commands.

The panel opens its own connections (lent to one request at a time, see
:class:`ConnectionPool`; on PostgreSQL one pool shared by the threads);
the board service is the only writer of board state, so the panel only reads
``board_state`` and the journal, and writes nothing but commands.
"""

from __future__ import annotations

import functools
import logging
import os
import threading
import time
from collections.abc import Callable
from typing import Any

from flask import Flask, current_app, g, has_app_context

from store.changes import ChangeListener
from store.commands import Command, CommandKind, Commands, CommandStatus
from store.db import connect
from store.dialect import Connection, is_postgresql
from store.event.db import connect_event
from store.journal import BoardState, Journal
from webpanel.config import PanelSettings
from webpanel.errors import ApiError, define_code

NOT_RESPONDING = "board service not responding"

SERVICE_NOT_RESPONDING = define_code(
    "service_not_responding", "The board service did not answer in time: is it running? (see Retry-After)"
)
BOARD_GAME_RUNNING = define_code(
    "board_game_running", "A game is running on the board: refused until it ends."
)
NO_BOARD_GAME = define_code("no_board_game", "No game is running on the board.")
SERVICE_REFUSED = define_code(
    "service_refused", "The board service refused the command (the error says why)."
)

log = logging.getLogger(__name__)


def settings() -> PanelSettings:
    value: PanelSettings = current_app.config["PANEL"]
    return value


PAGE_CACHE_KIB = 256
"""SQLite's page cache of each of the pool's connections (SQLite's default: 2,000 KiB)."""

CACHED_STATEMENTS = 16
"""Prepared statements each of the pool's connections keeps (Python's default: 128).

Each connection keeps, in C memory the Python heap does not see, its own page
cache and its own prepared statements: 80 connections that had each prepared
60 statements held 15 MiB (0.5 MiB without the cache), 80 that had each read
a 0.9 MiB database 65 MiB (17 MiB with a 256 KiB cache). A request runs a few
short statements on a few rows, and a page not in SQLite's cache comes from
the kernel's file cache: small caches cost little."""

IDLE_CONNECTIONS = 8
"""Connections the pool keeps open between requests; one lent beyond these is closed when given back.

A few requests run at once on a panel (a live page's event stream holds a
server thread, not a connection): eight cover the soak benchmark's clients and
a busy event table, and a burst beyond them costs an open (a few ms) each."""

MAX_CONNECTIONS = 16
"""Connections open at once at most, lent or idle: beyond, a request waits for one to be given back.

Under load a process answers as many requests at once as it has cores, whatever the number of its
threads: more connections only add opens, caches and lock waits."""
LEND_WAIT_S = 5.0
"""How long a request waits for a connection; then 503 ``server_busy`` with ``Retry-After``."""
BUSY_RETRY_S = 1

SERVER_BUSY = define_code(
    "server_busy", "The server is answering as many requests as it can: retry after Retry-After seconds."
)


class ConnectionPool:
    """Connections to the shared database, lent to one request at a time and kept for the next.

    Opening a connection costs more than the read a request makes (WAL and
    schema checks), so connections are kept, but not one per server thread:
    waitress hands each request to the thread that has waited longest, so a
    connection per thread (80 at the defaults) was used once every 80
    requests and each of them slowly filled its own caches (SQLite's pages and
    prepared statements, sqlite3's cursor list), which made the panel grow by
    10-40 MiB an hour under the soak benchmark (``bench/soak.py``) for as long
    as it was measured. A request borrows the connection given back last (the
    pool is a stack), so the same few connections serve every request and
    reach their bounded size within minutes; at most :data:`IDLE_CONNECTIONS`
    are kept. Each connection's page cache is :data:`PAGE_CACHE_KIB` and (on a
    board) it keeps :data:`CACHED_STATEMENTS` prepared statements. The pool
    closes every connection when the app is closed.
    """

    def __init__(
        self,
        database: str | os.PathLike[str],
        *,
        opener: Callable[[str], Connection] = connect,
        idle: int = IDLE_CONNECTIONS,
        most: int = MAX_CONNECTIONS,
        wait_s: float = LEND_WAIT_S,
    ) -> None:
        self.database = database
        self.opener = opener
        self.idle = idle
        self.most = max(most, idle)
        self.wait_s = wait_s
        self._local = threading.local()
        self._idle: list[Connection] = []  # the one given back last at the end
        self._all: list[Connection] = []
        self._lock = threading.Lock()
        self._given_back = threading.Condition(self._lock)
        self._closed = False
        # A PostgreSQL database is a pool of its own, safe to share between threads: opened once.
        self._shared = is_postgresql(os.fspath(database))

    @property
    def opened(self) -> int:
        """Connections open now, lent or idle."""
        with self._lock:
            return len(self._all)

    def get(self) -> Connection:
        """The connection of this app context (a request's), lent on its first use and given back
        at its end; outside any app context (a script), this thread's, kept until the pool closes."""
        if self._shared:
            return self._shared_connection()
        if has_app_context():
            conn: Connection | None = g.get(_LENT)
            if conn is None:
                conn = self._lend()
                setattr(g, _LENT, conn)
            return conn
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._lend()
            self._local.conn = conn
        return conn

    def end_request(self, _exc: BaseException | None = None) -> None:
        """Give back the app context's connection, rolling back a transaction a view left open so
        that the next request starts clean."""
        conn: Connection | None = g.pop(_LENT, None)
        if conn is not None:
            self.give_back(conn)

    def give_back(self, conn: Connection) -> None:
        """Take back a lent connection (kept for the next request, or closed beyond the idle ones)."""
        if conn.in_transaction:
            log.warning("a request left a database transaction open: rolled back")
            conn.rollback()
        with self._lock:
            self._given_back.notify()
            if not self._closed and len(self._idle) < self.idle:
                self._idle.append(conn)
                return
            if conn in self._all:
                self._all.remove(conn)
        conn.close()

    def close(self) -> None:
        with self._lock:
            self._closed = True
            connections, self._all, self._idle = self._all, [], []
        for conn in connections:
            conn.close()

    def _lend(self) -> Connection:
        with self._lock:
            if not self._given_back.wait_for(lambda: self._closed or self._idle or len(self._all) < self.most,
                                             self.wait_s):
                raise ApiError(503, "the server is busy: retry shortly", code=SERVER_BUSY,
                               headers={"Retry-After": str(BUSY_RETRY_S)},
                               params={"retry_after": BUSY_RETRY_S})
            if self._closed:
                raise RuntimeError("the panel is shutting down")
            if self._idle:
                return self._idle.pop()
            self._all.append(_OPENING)  # its place is taken while it opens
        try:
            conn = self.opener(os.fspath(self.database))
        finally:
            with self._lock:
                self._all.remove(_OPENING)
        conn.execute(f"PRAGMA cache_size = -{PAGE_CACHE_KIB}")  # negative: in KiB
        return self._keep(conn)

    def _shared_connection(self) -> Connection:
        with self._lock:
            if self._all:
                return self._all[0]
        return self._keep(self.opener(os.fspath(self.database)))

    def _keep(self, conn: Connection) -> Connection:
        with self._lock:
            if self._closed:
                conn.close()
                raise RuntimeError("the panel is shutting down")
            if self._shared and self._all:  # another thread opened it meanwhile
                conn.close()
                return self._all[0]
            self._all.append(conn)
        return conn


_OPENING: Any = object()
"""Holds a place in the pool's count while a connection opens (outside the lock)."""

_LENT = "_hautetension_db"
"""Where an app context keeps the connection lent to it (flask.g)."""


def get_db() -> Connection:
    """The connection to the shared database of this request (of this app context)."""
    pool: ConnectionPool = current_app.extensions["db_pool"]
    return pool.get()


def board_state() -> BoardState | None:
    return Journal(get_db()).state()


def service_running(state: BoardState | None, panel: PanelSettings | None = None) -> bool:
    """Whether the board service has written its heartbeat recently."""
    panel = panel or settings()
    return state is not None and time.time() - state.updated_at < panel.service_stale_seconds


def game_running(state: BoardState | None) -> bool:
    game = (state.public if state else {}).get("game")
    return isinstance(game, dict) and game.get("status") == "running"


def submit(
    kind: CommandKind, payload: dict[str, Any] | None = None, *, failed_status: int = 409
) -> Command:
    """Queue a command for the board service and wait for its outcome.

    A command the service refused becomes an :class:`ApiError` with its
    reason; one not taken within ``command_timeout`` is withdrawn (so it
    never runs late, behind the user's back) and answered 503.
    """
    commands = Commands(get_db())
    command_id = commands.submit(kind, payload or {})
    command = commands.wait(command_id, timeout=settings().command_timeout)
    if command is None or not command.is_finished():
        # Withdraw it: a late service must not act on a request the user saw fail.
        commands.fail(command_id, "withdrawn: " + NOT_RESPONDING)
        command = commands.get(command_id)
        if command is None or command.status is not CommandStatus.DONE:
            raise ApiError(503, NOT_RESPONDING, code=SERVICE_NOT_RESPONDING, headers={"Retry-After": "5"})
    if command.status is CommandStatus.FAILED:
        reason = (command.result or {}).get("error") or "the board service refused the command"
        raise ApiError(failed_status, str(reason), code=SERVICE_REFUSED)
    return command


def init_app(app: Flask) -> None:
    # The event server's database carries its own tables too (store/event/db.py).
    opener = connect_event if app.config.get("ROLE") == "event" else functools.partial(
        connect, cached_statements=CACHED_STATEMENTS)
    database = app.config["PANEL"].database
    pool = ConnectionPool(database, opener=opener)
    app.extensions["db_pool"] = pool
    app.teardown_appcontext(pool.end_request)
    # On PostgreSQL the live pages follow the database's change notices: one listening connection for
    # the whole process, whatever the number of open streams (store/changes.py).
    app.extensions["change_listener"] = (
        ChangeListener(os.fspath(database)) if is_postgresql(os.fspath(database)) else None
    )


def change_listener() -> ChangeListener | None:
    """The process's listener to the database's change notices (None on SQLite: streams poll)."""
    listener: ChangeListener | None = current_app.extensions.get("change_listener")
    return listener
