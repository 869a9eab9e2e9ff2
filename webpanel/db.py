"""The shared database from the panel's side: reading the board, queuing commands.

The panel opens its own connections (one per server thread, see
:class:`ConnectionPool`);
the board service is the only writer of board state, so the panel only reads
``board_state`` and the journal, and writes nothing but commands.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
import time
from collections.abc import Callable
from typing import Any

from flask import Flask, current_app

from store.commands import Command, CommandKind, Commands, CommandStatus
from store.db import connect
from store.event.db import connect_event
from store.journal import BoardState, Journal
from webpanel.config import PanelSettings
from webpanel.errors import ApiError

NOT_RESPONDING = "board service not responding"

log = logging.getLogger(__name__)


def settings() -> PanelSettings:
    value: PanelSettings = current_app.config["PANEL"]
    return value


class ConnectionPool:
    """One connection per server thread, opened on first use and kept.

    Opening a connection costs more than the read a request makes (WAL and
    schema checks), and waitress threads live as long as the server; the
    pool closes every connection when the app is closed.
    """

    def __init__(
        self,
        database: str | os.PathLike[str],
        *,
        opener: Callable[[str], sqlite3.Connection] = connect,
    ) -> None:
        self.database = database
        self.opener = opener
        self._local = threading.local()
        self._all: list[sqlite3.Connection] = []
        self._lock = threading.Lock()
        self._closed = False

    def get(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = self.opener(os.fspath(self.database))
            with self._lock:
                if self._closed:
                    conn.close()
                    raise RuntimeError("the panel is shutting down")
                self._all.append(conn)
            self._local.conn = conn
        return conn

    def end_request(self, _exc: BaseException | None = None) -> None:
        """Roll back a transaction a view left open, so the next request on this thread starts clean."""
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is not None and conn.in_transaction:
            log.warning("a request left a database transaction open: rolled back")
            conn.rollback()

    def close(self) -> None:
        with self._lock:
            self._closed = True
            connections, self._all = self._all, []
        for conn in connections:
            conn.close()


def get_db() -> sqlite3.Connection:
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
            raise ApiError(503, NOT_RESPONDING, headers={"Retry-After": "5"})
    if command.status is CommandStatus.FAILED:
        reason = (command.result or {}).get("error") or "the board service refused the command"
        raise ApiError(failed_status, str(reason))
    return command


def init_app(app: Flask) -> None:
    # The event server's database carries its own tables too (store/event/db.py).
    opener = connect_event if app.config.get("ROLE") == "event" else connect
    pool = ConnectionPool(app.config["PANEL"].database, opener=opener)
    app.extensions["db_pool"] = pool
    app.teardown_appcontext(pool.end_request)
