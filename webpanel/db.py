"""The shared database from the panel's side: reading the board, queuing commands.

The panel opens its own connections (one per server thread, see
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

from flask import Flask, current_app

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

The pool holds a connection per server thread (80 at the defaults), and each
one keeps, in C memory the Python heap does not see, its own page cache and
its own prepared statements, filling slowly as its thread meets each page and
each query: under the soak benchmark (bench/soak.py) the panel's Python heap
stayed at 22 MiB while its memory rose by 15 MiB an hour after warm-up; 80
connections that had each prepared 60 statements held 15 MiB (0.5 MiB without
the cache), 80 that had each read a 0.9 MiB database 65 MiB (17 MiB with a
256 KiB cache). A request runs a few short statements on a few rows, and a
page not in SQLite's cache comes from the kernel's file cache: small caches
cost little and bound the pool to about 25 MiB at 80 threads."""


class ConnectionPool:
    """One connection per server thread, opened on first use and kept.

    Opening a connection costs more than the read a request makes (WAL and
    schema checks), and waitress threads live as long as the server; the
    pool closes every connection when the app is closed. Each connection's
    page cache is :data:`PAGE_CACHE_KIB` and (on a board) it keeps
    :data:`CACHED_STATEMENTS` prepared statements.
    """

    def __init__(
        self,
        database: str | os.PathLike[str],
        *,
        opener: Callable[[str], Connection] = connect,
    ) -> None:
        self.database = database
        self.opener = opener
        self._local = threading.local()
        self._all: list[Connection] = []
        self._lock = threading.Lock()
        self._closed = False
        # A PostgreSQL database is a pool of its own, safe to share between threads: opened once.
        self._shared = is_postgresql(os.fspath(database))

    def get(self) -> Connection:
        conn: Connection | None = getattr(self._local, "conn", None)
        if conn is None and self._shared:
            with self._lock:
                conn = self._all[0] if self._all else None
        if conn is None:
            conn = self.opener(os.fspath(self.database))
            if not self._shared:  # SQLite's page cache, one per connection (PostgreSQL has its own)
                conn.execute(f"PRAGMA cache_size = -{PAGE_CACHE_KIB}")  # negative: in KiB
            with self._lock:
                if self._closed:
                    conn.close()
                    raise RuntimeError("the panel is shutting down")
                self._all.append(conn)
            self._local.conn = conn
        return conn

    def end_request(self, _exc: BaseException | None = None) -> None:
        """Roll back a transaction a view left open, so the next request on this thread starts clean."""
        conn: Connection | None = getattr(self._local, "conn", None)
        if conn is not None and conn.in_transaction:
            log.warning("a request left a database transaction open: rolled back")
            conn.rollback()

    def close(self) -> None:
        with self._lock:
            self._closed = True
            connections, self._all = self._all, []
        for conn in connections:
            conn.close()


def get_db() -> Connection:
    """This thread's connection to the shared database."""
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
