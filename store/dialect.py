"""One store, two engines: SQLite (the embedded default) and PostgreSQL (several server processes).

The event server's store (:mod:`store.event`, the tournaments, and every store
module built on them) is written once, in the SQL both engines understand, on
a connection that behaves like :class:`sqlite3.Connection` on both:

* SQLite: :func:`store.db.connect` (a plain ``sqlite3.Connection``, WAL mode);
* PostgreSQL: :class:`PgDatabase` (psycopg 3 behind a ``psycopg_pool`` pool),
  opened for a ``postgresql://`` DSN. It is shared by every thread of a
  process: a statement outside a transaction borrows a pooled connection for
  itself, a transaction keeps one for the thread until it ends.

:func:`store.db.open_database` picks the engine from the location (a file path or a
DSN), :func:`engine` tells which one a connection is on.

Writing a store module portable to both engines
------------------------------------------------

* Type the connection as :data:`Connection`; call ``conn.execute(sql, params)``
  and read rows by name (``row["board"]``) or position (``row[0]``), as on SQLite.
* Write ``?`` placeholders; :func:`postgresql` turns them into ``%s`` (and a
  literal ``%`` into ``%%``). ``REAL`` becomes ``DOUBLE PRECISION``, ``INTEGER``
  ``BIGINT``, ``BLOB`` ``BYTEA`` and ``INTEGER PRIMARY KEY AUTOINCREMENT`` an
  identity column, so one ``CREATE TABLE`` serves both.
* Upserts: ``INSERT … ON CONFLICT (key) DO NOTHING`` or ``DO UPDATE SET col =
  excluded.col`` (never ``INSERT OR IGNORE``/``OR REPLACE``, SQLite only).
  Qualify the target table's columns in a ``DO UPDATE`` expression
  (``event_boards.last_seen``): PostgreSQL requires it where a name is ambiguous.
* A new row's id: ``INSERT … RETURNING id`` and ``fetchone()[0]`` (never
  ``cursor.lastrowid``, which PostgreSQL does not have).
* Portable functions only: ``COALESCE``, ``CASE WHEN``, ``COUNT``, ``MAX(col)``
  as an aggregate (not SQLite's two-argument scalar ``MAX(a, b)``: write a
  ``CASE``). ``SUM`` of integers is a ``Decimal`` on PostgreSQL: wrap it in ``int()``.
  Put every non-aggregated column in ``GROUP BY`` and never rely on where NULLs sort.
* Writes go in ``with store.db.transaction(conn):`` — SQLite's ``BEGIN
  IMMEDIATE``; on PostgreSQL a transaction that first takes one advisory lock
  (:data:`WRITE_LOCK`), so write transactions of every process run one at a
  time exactly as SQLite's do, and a read-check-write inside one is safe across
  processes. Every committed write transaction notifies :data:`CHANGE_CHANNEL`
  (live pages listen to it instead of polling: :meth:`PgDatabase.changes`).
* Round trips: on PostgreSQL a statement is a round trip to another process,
  except inside a write transaction, which is pipelined: a write whose outcome
  nobody reads costs nothing, a read (``fetchone``, ``rowcount``, ``RETURNING``)
  waits for everything sent before it. In code that runs for every board
  message, read once for a whole batch (``WHERE key IN (…)`` with
  :func:`placeholders`, ``(a, b) IN (VALUES (?, ?), …)`` for composite keys,
  multi-row inserts with ``RETURNING``) and let the writes follow; SQLite runs
  the same statements in-process.
* Schema: add a migration (a ``CREATE TABLE`` in the portable types above) to
  a versioned list and migrate it with :func:`store.db.apply_migrations`, which
  keeps each list's version in a table of its own on both engines.

Testing a store module on both engines
--------------------------------------

The fixture ``db_location`` (``tests/conftest.py``) is parametrised over
``sqlite`` and ``postgresql``: a file in the test's folder, or a new database
on the session's throwaway PostgreSQL cluster. ``event_db`` opens the event
server's database there, migrated (:func:`store.event.db.connect_event`), and
closes it after the test::

    def test_my_table(event_db: Connection) -> None:
        with transaction(event_db):
            event_db.execute("INSERT INTO my_table (name) VALUES (?)", ("x",))
        assert event_db.execute("SELECT name FROM my_table").fetchone()["name"] == "x"

Each such test runs twice (``test_my_table[sqlite]``, ``test_my_table[postgresql]``).
"""

from __future__ import annotations

import functools
import re
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeAlias

if TYPE_CHECKING:
    import psycopg
    from psycopg_pool import ConnectionPool

Engine = Literal["sqlite", "postgresql"]
POSTGRESQL_SCHEMES = ("postgresql://", "postgres://")
CHANGE_CHANNEL = "hautetension_change"
"""Notified by every committed write transaction on PostgreSQL (the payload is empty)."""
WRITE_LOCK = 0x48544531
"""The advisory lock every write transaction takes first on PostgreSQL (one writer at a time)."""
POOL_MIN = 1
POOL_MAX = 10
CONNECT_TIMEOUT_S = 10.0
POOL_WAIT_S = 3.0
"""How long a statement waits for a pooled connection: PostgreSQL stopped (or every connection busy)
is then an error the pages answer 503 with ``Retry-After``, not a request hanging for the pool's 30 s."""


class Cursor(Protocol):
    """What a store module reads from ``execute`` (a ``sqlite3.Cursor`` or a :class:`Rows`)."""

    @property
    def rowcount(self) -> int: ...

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...

    def __iter__(self) -> Iterator[Any]: ...


class Database(Protocol):
    """The part of ``sqlite3.Connection`` the store uses; :class:`PgDatabase` has the same."""

    def execute(self, sql: str, parameters: Any = ..., /) -> Cursor: ...

    def close(self) -> None: ...


Connection: TypeAlias = "sqlite3.Connection | PgDatabase"
"""A connection to the event server's database, on either engine."""
Record: TypeAlias = Any
"""A row a statement returned: an ``sqlite3.Row`` or a :class:`Row` (both read by name or position)."""


def is_postgresql(location: str | Path) -> bool:
    """Whether *location* is a PostgreSQL DSN (else it is an SQLite file's path)."""
    return isinstance(location, str) and location.startswith(POSTGRESQL_SCHEMES)


def engine(conn: Connection) -> Engine:
    return "sqlite" if isinstance(conn, sqlite3.Connection) else "postgresql"


def describe(location: str | Path) -> str:
    """*location* fit for a log line or an error message: a DSN without its password."""
    if not is_postgresql(location):
        return str(location)
    return re.sub(r"(://[^:/@]*):[^@/]*@", r"\1:***@", str(location))


# -- the dialect: SQLite's text to PostgreSQL's -------------------------------------------------

_LITERAL = re.compile(r"('(?:[^']|'')*')")
_DDL = [
    (
        re.compile(r"\bINTEGER\s+PRIMARY\s+KEY\s+AUTOINCREMENT\b", re.I),
        "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY",
    ),
    (re.compile(r"\bINTEGER\b", re.I), "BIGINT"),
    (re.compile(r"\bREAL\b", re.I), "DOUBLE PRECISION"),
    (re.compile(r"\bBLOB\b", re.I), "BYTEA"),
]


@functools.lru_cache(maxsize=2048)
def postgresql(sql: str) -> str:
    """*sql* written for both engines (SQLite's text), as PostgreSQL reads it with psycopg."""
    parts = _LITERAL.split(sql)
    for i in range(0, len(parts), 2):  # even parts are outside string literals
        text = parts[i].replace("%", "%%").replace("?", "%s")
        for pattern, replacement in _DDL:
            text = pattern.sub(replacement, text)
        parts[i] = text
    for i in range(1, len(parts), 2):
        parts[i] = parts[i].replace("%", "%%")
    return "".join(parts)


def placeholders(count: int, width: int = 1) -> str:
    """``?, ?, …`` for an ``IN (…)`` list of *count* values (at least one); with a *width*, as many
    rows of that many values: ``(?, ?), (?, ?), …`` (an ``IN (VALUES …)`` list, or a multi-row insert)."""
    if count < 1:
        raise ValueError("an IN list needs at least one value")
    if width == 1:
        return ", ".join("?" * count)
    return ", ".join([f"({', '.join('?' * width)})"] * count)


def statements(script: str) -> Iterator[str]:
    """The statements of a migration script (split on ``;``: no ``;`` inside a literal)."""
    for statement in script.split(";"):
        if statement.strip():
            yield statement


# -- PostgreSQL -------------------------------------------------------------------------------


class Row(tuple[Any, ...]):
    """A row read by position or by column name, like ``sqlite3.Row``."""

    _names: dict[str, int]

    def __new__(cls, values: Sequence[Any], names: dict[str, int]) -> Row:
        row = super().__new__(cls, values)
        row._names = names
        return row

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, str):
            return super().__getitem__(self._names[key])
        return super().__getitem__(key)

    def keys(self) -> list[str]:
        return list(self._names)


class Rows:
    """The rows a statement returned, read at once (the pooled connection is handed back)."""

    def __init__(self, rows: list[Row], rowcount: int) -> None:
        self._rows = rows
        self._next = 0
        self._rowcount = rowcount

    @property
    def rowcount(self) -> int:
        return self._rowcount

    def fetchone(self) -> Any:
        if self._next >= len(self._rows):
            return None
        self._next += 1
        return self._rows[self._next - 1]

    def fetchall(self) -> list[Any]:
        rest, self._next = self._rows[self._next :], len(self._rows)
        return rest

    def __iter__(self) -> Iterator[Any]:
        return iter(self.fetchall())


class PipelinedRows(Rows):
    """A statement's outcome inside a pipelined transaction (see :meth:`PgDatabase.transaction`): the
    statement went to the server at once, and this waits for its outcome only when it is read (its
    rows or its ``rowcount``). Nothing waits for a write nobody reads: it costs no round trip."""

    def __init__(self, cursor: psycopg.Cursor[Any], pipeline: psycopg.Pipeline, db: PgDatabase) -> None:
        super().__init__([], -1)
        self._cursor: psycopg.Cursor[Any] | None = cursor
        self._pipeline = pipeline
        self._db = db

    def _outcome(self) -> None:
        cursor = self._cursor
        if cursor is None:
            return
        self._cursor = None
        if cursor.pgresult is None:  # not in yet (a later statement's wait brings the earlier ones in)
            self._db.round_trips += 1
            self._pipeline.sync()
        self._rowcount = cursor.rowcount
        if cursor.description is not None:
            names = {column.name: i for i, column in enumerate(cursor.description)}
            self._rows = [Row(values, names) for values in cursor.fetchall()]
        cursor.close()

    @property
    def rowcount(self) -> int:
        self._outcome()
        return self._rowcount

    def fetchone(self) -> Any:
        self._outcome()
        return super().fetchone()

    def fetchall(self) -> list[Any]:
        self._outcome()
        return super().fetchall()


_WRITE = re.compile(r"^\s*(INSERT|UPDATE|DELETE|CREATE|ALTER|DROP)\b", re.I)


class PgDatabase:
    """A PostgreSQL database through a pool, used like an ``sqlite3.Connection`` by any thread."""

    def __init__(self, dsn: str, *, min_size: int = POOL_MIN, max_size: int = POOL_MAX) -> None:
        import psycopg
        from psycopg_pool import ConnectionPool

        self.dsn = dsn
        self._psycopg = psycopg
        self.statements = 0
        """Statements run so far (benchmarks count them)."""
        self.round_trips = 0
        """Times this process waited for the server so far (a transaction's begin and commit included)."""
        self._local = threading.local()
        self._closed = False
        try:
            # One connection first: a server that is not there (or refuses) is reported at once, in
            # its own words, where the pool would retry until its timeout.
            psycopg.connect(dsn, connect_timeout=int(CONNECT_TIMEOUT_S)).close()
        except psycopg.Error as exc:
            problem = _first_line(exc)
            raise ConnectionError(f"{describe(dsn)}: cannot connect to PostgreSQL ({problem})") from exc
        self.pool: ConnectionPool = ConnectionPool(
            dsn,
            min_size=min_size,
            max_size=max_size,
            kwargs={"autocommit": True},
            timeout=POOL_WAIT_S,
            open=False,
            name="hautetension",
        )
        try:
            self.pool.open(wait=True, timeout=CONNECT_TIMEOUT_S)
        except Exception as exc:
            self.pool.close()
            raise ConnectionError(f"{describe(dsn)}: cannot connect to PostgreSQL ({exc})") from exc

    # -- statements ------------------------------------------------------------------------------

    @property
    def in_transaction(self) -> bool:
        return getattr(self._local, "conn", None) is not None

    def execute(self, sql: str, parameters: Sequence[Any] | None = None, /) -> Rows:
        conn: psycopg.Connection[Any] | None = getattr(self._local, "conn", None)
        if conn is not None:
            return self._run(conn, sql, parameters)
        if _WRITE.match(sql):
            # A lone write is a transaction of its own, in turn with the others (and notified).
            with self.transaction():
                return self._run(self._local.conn, sql, parameters)
        try:
            with self.pool.connection() as pooled:
                return self._run(pooled, sql, parameters)
        except self._psycopg.OperationalError:
            # A pooled connection the server closed (restarted, idle timeout): the pool has dropped
            # it; every idle one is checked, and a read is safe to ask again once.
            self.pool.check()
            with self.pool.connection() as pooled:
                return self._run(pooled, sql, parameters)

    def _run(self, conn: psycopg.Connection[Any], sql: str, parameters: Sequence[Any] | None) -> Rows:
        self.statements += 1
        pipeline: psycopg.Pipeline | None = getattr(self._local, "pipeline", None)
        if pipeline is not None and conn is self._local.conn:
            cursor = conn.cursor()
            cursor.execute(postgresql(sql), tuple(parameters or ()))
            return PipelinedRows(cursor, pipeline, self)
        self.round_trips += 1
        with conn.cursor() as cursor:
            cursor.execute(postgresql(sql), tuple(parameters or ()))
            if cursor.description is None:
                return Rows([], cursor.rowcount)
            names = {column.name: i for i, column in enumerate(cursor.description)}
            return Rows([Row(values, names) for values in cursor.fetchall()], cursor.rowcount)

    # -- transactions ------------------------------------------------------------------------------

    @contextmanager
    def transaction(self) -> Iterator[PgDatabase]:
        """One write transaction for this thread, after every other process's (see the module's notes).

        Its statements are pipelined (psycopg's pipeline mode): each goes to the server at once, and
        the thread waits only to read an outcome (:class:`PipelinedRows`) and at the commit. A batch of
        writes then costs one round trip, not one a statement; an error in one of them is raised at
        the next wait, and rolls the whole transaction back as it would have at the statement."""
        if self.in_transaction:
            raise RuntimeError("a transaction is already open on this thread")
        with ExitStack() as stack:
            conn = self._begin(stack)
            self._local.conn = conn
            try:
                with conn.pipeline() as pipeline:
                    self._local.pipeline = pipeline
                    yield self
                    conn.execute(f"NOTIFY {CHANGE_CHANNEL}")
                    conn.execute("COMMIT")
                    self.round_trips += 1  # leaving the pipeline waits for all of it
            except BaseException:
                if not conn.closed:
                    conn.execute("ROLLBACK")
                raise
            finally:
                self._local.conn = None
                self._local.pipeline = None

    def _begin(self, stack: ExitStack) -> psycopg.Connection[Any]:
        """A pooled connection with the transaction begun and the write turn taken (one round trip: a
        script without parameters runs as one simple query). A connection the server closed since it
        was pooled fails here, before anything ran: the pool drops it and a fresh one is tried once."""
        try:
            conn = stack.enter_context(self.pool.connection())
            self.round_trips += 1
            conn.execute(f"BEGIN; SELECT pg_advisory_xact_lock({WRITE_LOCK})")
            return conn
        except self._psycopg.OperationalError:
            stack.close()
            self.pool.check()
        conn = stack.enter_context(self.pool.connection())
        conn.execute(f"BEGIN; SELECT pg_advisory_xact_lock({WRITE_LOCK})")
        return conn

    def rollback(self) -> None:
        """Nothing to do: a transaction never outlives its ``with`` block here."""

    # -- changes -------------------------------------------------------------------------------

    def changes(self, stop: threading.Event, *, timeout: float = 1.0) -> Iterator[bool]:
        """:func:`listen_changes` on this database."""
        return listen_changes(self.dsn, stop, timeout=timeout)

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self.pool.close()

    def __enter__(self) -> PgDatabase:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


def listen_changes(dsn: str, stop: threading.Event, *, timeout: float = 1.0) -> Iterator[bool]:
    """On a connection of its own, LISTEN to :data:`CHANGE_CHANNEL`: ``True`` first (read what was
    committed before listening), then ``True`` after each notified commit (several close together
    may come as one), ``False`` every *timeout* without one; until *stop* is set."""
    import psycopg

    with psycopg.connect(dsn, autocommit=True, connect_timeout=int(CONNECT_TIMEOUT_S)) as conn:
        conn.execute(f"LISTEN {CHANGE_CHANNEL}")
        yield True
        while not stop.is_set():
            got = False
            for _ in conn.notifies(timeout=timeout, stop_after=1):
                got = True
            yield got


def database_errors() -> tuple[type[Exception], ...]:
    """What a failing database raises, on either engine (a caller that must outlive it catches these)."""
    try:
        import psycopg
    except ImportError:  # a board without the server's dependencies
        return (sqlite3.Error,)
    return (sqlite3.Error, psycopg.Error)


def unavailable_errors() -> tuple[type[Exception], ...]:
    """What a database that is down, locked too long or full raises, on either engine: the write may
    succeed when tried again later. Any other error of a write is the data's fault (a value out of range,
    a broken constraint), and trying again changes nothing."""
    try:
        import psycopg
    except ImportError:
        return (sqlite3.OperationalError,)
    return (sqlite3.OperationalError, psycopg.OperationalError, psycopg.InterfaceError)


# SQLite's primary result codes (https://sqlite.org/rescode.html) that say the database cannot answer now.
_SQLITE_FULL = 13
_SQLITE_UNAVAILABLE = frozenset({5, 6, 7, 8, 10, 14, 15})
"""BUSY, LOCKED, NOMEM, READONLY (a file system remounted read-only), IOERR, CANTOPEN, PROTOCOL."""


def outage(exc: BaseException) -> Literal["full", "unavailable"] | None:
    """Whether *exc* says the database cannot answer now, on either engine: its disk is ``"full"``, or it
    is ``"unavailable"`` (PostgreSQL stopped, restarting or unreachable, no pooled connection in time, an
    SQLite file locked, unreadable or unopenable). None: any other error (a bad statement: a bug)."""
    if isinstance(exc, sqlite3.Error):
        primary = (getattr(exc, "sqlite_errorcode", None) or 0) & 0xFF
        if primary == _SQLITE_FULL:
            return "full"
        return "unavailable" if primary in _SQLITE_UNAVAILABLE else None
    try:
        import psycopg
    except ImportError:  # a board without the server's dependencies
        return None
    if isinstance(exc, psycopg.errors.DiskFull):
        return "full"
    return "unavailable" if isinstance(exc, psycopg.OperationalError) else None
