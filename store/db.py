"""Opening the shared SQLite database: WAL mode, durability and migrations.

Both processes (the board service and the panel) open the same file. WAL mode
lets the panel read while the service writes; ``synchronous=FULL`` makes a
committed write survive a power cut, which is what "durable before it is
acknowledged" means for placements and results.

The schema is versioned with SQLite's ``user_version``: :data:`MIGRATIONS`
holds one script per version, applied in order inside a transaction, so an
older database is brought up to date when either process opens it.
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

from store.dialect import Connection, PgDatabase, describe, engine, is_postgresql, statements
from store.files import create_private, make_private, private_folder, same_mode
from store.writer import FileConnection, turn

BUSY_TIMEOUT_MS = 5000

MIGRATIONS: list[str] = [
    # 1: the journal, the command queue and the current board state.
    """
    CREATE TABLE journal (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        at REAL NOT NULL,
        kind TEXT NOT NULL,
        game_id INTEGER,
        public TEXT NOT NULL,
        private TEXT
    );
    CREATE INDEX journal_by_game ON journal (game_id, id);
    CREATE INDEX journal_by_kind ON journal (kind, id);
    CREATE TABLE commands (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        at REAL NOT NULL,
        kind TEXT NOT NULL,
        payload TEXT NOT NULL,
        status TEXT NOT NULL DEFAULT 'pending'
            CHECK (status IN ('pending', 'done', 'failed')),
        result TEXT,
        done_at REAL
    );
    CREATE INDEX commands_by_status ON commands (status, id);
    CREATE TABLE board_state (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        journal_id INTEGER NOT NULL,
        updated_at REAL NOT NULL,
        public TEXT NOT NULL,
        private TEXT,
        health TEXT
    );
    """,
    # 2: tournaments, kept as the list of their events (see store/tournaments.py).
    """
    CREATE TABLE tournaments (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        name TEXT NOT NULL,
        created_at REAL NOT NULL,
        settings TEXT NOT NULL
    );
    CREATE TABLE tournament_events (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        tournament_id INTEGER NOT NULL REFERENCES tournaments (id),
        at REAL NOT NULL,
        actor TEXT NOT NULL,
        kind TEXT NOT NULL,
        payload TEXT NOT NULL,
        request_id TEXT,
        undone_at REAL,
        undone_by TEXT
    );
    CREATE INDEX tournament_events_by_tournament ON tournament_events (tournament_id, id);
    CREATE UNIQUE INDEX tournament_events_by_request ON tournament_events (tournament_id, request_id);
    """,
    # 3: digital games (lobby): each game as its saved JSON, and its seats (see store/games.py).
    """
    CREATE TABLE digital_games (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        game TEXT NOT NULL,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL,
        version INTEGER NOT NULL DEFAULT 1,
        hot_seat INTEGER NOT NULL DEFAULT 0,
        host_hash TEXT NOT NULL,
        status TEXT NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'over')),
        state TEXT NOT NULL
    );
    CREATE TABLE digital_game_seats (
        game_id INTEGER NOT NULL REFERENCES digital_games (id),
        seat INTEGER NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('human', 'ai')),
        level TEXT,
        name TEXT NOT NULL,
        join_code TEXT UNIQUE,
        token_hash TEXT,
        joined_at REAL,
        PRIMARY KEY (game_id, seat)
    );
    """,
    # 4: digital games played as tournament tables (see store/tournament_tables.py). Panels before
    # version 4 created the table themselves when first used: an older database may have it already.
    """
    CREATE TABLE IF NOT EXISTS digital_tournament_tables (
        game_id INTEGER PRIMARY KEY,
        tournament_id INTEGER NOT NULL,
        round INTEGER NOT NULL,
        table_number INTEGER NOT NULL,
        created_at REAL NOT NULL,
        entered_at REAL,
        refused TEXT
    );
    CREATE INDEX IF NOT EXISTS digital_tournament_tables_by_table
        ON digital_tournament_tables (tournament_id, round, table_number);
    """,
    # 5: a lobby game also ends when its host abandons it or nobody plays it for a while, and it
    # remembers the address that created it (open games are capped per device). SQLite cannot widen
    # a CHECK in place: both tables are rebuilt, the seats first pointing at the new games table so
    # that dropping the old one orphans nothing (foreign keys stay on), then both renamed back (the
    # rename carries the seats' reference along).
    """
    CREATE TABLE digital_games_v5 (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        game TEXT NOT NULL,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL,
        version INTEGER NOT NULL DEFAULT 1,
        hot_seat INTEGER NOT NULL DEFAULT 0,
        host_hash TEXT NOT NULL,
        status TEXT NOT NULL DEFAULT 'running'
            CHECK (status IN ('running', 'over', 'abandoned', 'expired')),
        state TEXT NOT NULL,
        creator TEXT
    );
    INSERT INTO digital_games_v5
        (id, game, created_at, updated_at, version, hot_seat, host_hash, status, state)
        SELECT id, game, created_at, updated_at, version, hot_seat, host_hash, status, state
        FROM digital_games;
    UPDATE sqlite_sequence SET seq = (SELECT seq FROM sqlite_sequence WHERE name = 'digital_games')
        WHERE name = 'digital_games_v5'
        AND EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'digital_games');
    CREATE TABLE digital_game_seats_v5 (
        game_id INTEGER NOT NULL REFERENCES digital_games_v5 (id),
        seat INTEGER NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('human', 'ai')),
        level TEXT,
        name TEXT NOT NULL,
        join_code TEXT UNIQUE,
        token_hash TEXT,
        joined_at REAL,
        PRIMARY KEY (game_id, seat)
    );
    INSERT INTO digital_game_seats_v5
        SELECT game_id, seat, kind, level, name, join_code, token_hash, joined_at FROM digital_game_seats;
    DROP TABLE digital_game_seats;
    DROP TABLE digital_games;
    ALTER TABLE digital_games_v5 RENAME TO digital_games;
    ALTER TABLE digital_game_seats_v5 RENAME TO digital_game_seats;
    CREATE INDEX digital_games_open_by_creator ON digital_games (status, creator);
    CREATE INDEX digital_games_by_change ON digital_games (status, updated_at);
    """,
    # 6: the event network (see store/outbox.py): what the board reports, numbered by its own
    # sequence, written with the journal entries it reports; and the uplink's side of the link.
    """
    CREATE TABLE IF NOT EXISTS outbox (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        journal_id INTEGER NOT NULL,
        kind TEXT NOT NULL,
        game_id INTEGER,
        at REAL NOT NULL,
        body TEXT NOT NULL
    );
    CREATE TABLE IF NOT EXISTS uplink_state (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        event TEXT NOT NULL,
        board TEXT NOT NULL,
        history TEXT NOT NULL,
        first_seq INTEGER NOT NULL,
        acked_seq INTEGER NOT NULL DEFAULT 0,
        connected INTEGER NOT NULL DEFAULT 0,
        updated_at REAL NOT NULL,
        assignment TEXT,
        note TEXT
    );
    """,
    # 7: the wiring wizard's progress, so it resumes after an interruption (see store/wiring.py).
    """
    CREATE TABLE IF NOT EXISTS wiring_progress (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        layout TEXT NOT NULL,
        started_at REAL NOT NULL,
        updated_at REAL NOT NULL,
        progress TEXT NOT NULL,
        view TEXT NOT NULL,
        running TEXT
    );
    """,
    # 8: each player's consent to reveal their pawns on the replay of a finished game (store/consents.py).
    """
    CREATE TABLE IF NOT EXISTS reveal_consents (
        source TEXT NOT NULL CHECK (source IN ('board', 'lobby')),
        game_id INTEGER NOT NULL,
        seat INTEGER NOT NULL CHECK (seat >= 0),
        at REAL NOT NULL,
        PRIMARY KEY (source, game_id, seat)
    );
    """,
    # 9: staff sessions kept server-side, so that a logout or a new PIN ends them (see
    # store/staff_sessions.py): the cookie carries only the session's id. Written to be applied
    # again harmlessly, like 4, 6, 7 and 8.
    """
    CREATE TABLE IF NOT EXISTS staff_generation (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        generation INTEGER NOT NULL
    );
    INSERT INTO staff_generation (id, generation) VALUES (1, 1) ON CONFLICT DO NOTHING;
    CREATE TABLE IF NOT EXISTS staff_sessions (
        id_hash TEXT PRIMARY KEY,
        generation INTEGER NOT NULL,
        created_at REAL NOT NULL,
        expires_at REAL NOT NULL,
        ended_at REAL
    );
    CREATE INDEX IF NOT EXISTS staff_sessions_by_expiry ON staff_sessions (expires_at);
    """,
    # 10: a season of events (see store/season.py): the events tournaments belong to (their id is the
    # one ``[central] event`` names, with a name, a place and dates), whether a tournament counts for
    # the general ranking (a friendly or demonstration one does not), and who changed either. The
    # tournaments already there count and belong to no event: they were all counted until now.
    """
    CREATE TABLE season_events (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        place TEXT NOT NULL DEFAULT '',
        starts_on TEXT,
        ends_on TEXT,
        created_at REAL NOT NULL
    );
    ALTER TABLE tournaments ADD COLUMN event TEXT REFERENCES season_events (id);
    ALTER TABLE tournaments ADD COLUMN counts INTEGER NOT NULL DEFAULT 1 CHECK (counts IN (0, 1));
    CREATE INDEX tournaments_by_event ON tournaments (event);
    CREATE TABLE season_audit (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        at REAL NOT NULL,
        actor TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('event', 'tournament')),
        subject TEXT NOT NULL,
        before TEXT,
        after TEXT NOT NULL
    );
    """,
    # 11: the board's slot health across games (see store/slot_health.py): one row per part of the board
    # (a slot, ``board``), its counters and what they make staff check, written by the board service
    # when a game ends.
    """
    CREATE TABLE slot_health (
        part TEXT PRIMARY KEY,
        counters TEXT NOT NULL,
        findings TEXT NOT NULL DEFAULT '[]',
        updated_at REAL NOT NULL
    );
    """,
    # 12: moves by request id (see store/move_requests.py): a move sent again is applied once, from any
    # server process; each id kept an hour.
    """
    CREATE TABLE move_requests (
        game_id INTEGER NOT NULL,
        request_id TEXT NOT NULL,
        version INTEGER NOT NULL,
        at REAL NOT NULL,
        PRIMARY KEY (game_id, request_id)
    );
    """,
]


# Migrations whose SQLite text does not read on PostgreSQL: the same change in PostgreSQL's words.
POSTGRESQL_MIGRATIONS: dict[int, str] = {
    # 5: PostgreSQL widens a CHECK and adds a column in place (its rebuild is SQLite's way).
    5: """
    ALTER TABLE digital_games DROP CONSTRAINT digital_games_status_check;
    ALTER TABLE digital_games ADD CONSTRAINT digital_games_status_check
        CHECK (status IN ('running', 'over', 'abandoned', 'expired'));
    ALTER TABLE digital_games ADD COLUMN creator TEXT;
    CREATE INDEX digital_games_open_by_creator ON digital_games (status, creator);
    CREATE INDEX digital_games_by_change ON digital_games (status, updated_at);
    """,
}

PANEL_SCHEMA_TABLE = "panel_schema"
"""Where PostgreSQL keeps the version of :data:`MIGRATIONS` (SQLite's ``user_version``)."""


class DatabaseError(sqlite3.DatabaseError):
    """The database file cannot be opened or is newer than this program."""


def _write_ahead_log(conn: sqlite3.Connection) -> str:
    """Put the database in WAL mode; the mode it is in. Switching a new file takes its exclusive lock, and
    SQLite answers "database is locked" at once, without waiting its busy timeout, while another process
    opening the same file at that moment holds it (the board service and the panel start together): tried
    again until the busy timeout has passed."""
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            return str(conn.execute("PRAGMA journal_mode = WAL").fetchone()[0])
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.02)


def connect(path: str | Path, *, cached_statements: int = 128) -> sqlite3.Connection:
    """Open (creating if needed) the database at *path*, migrated to the latest schema.

    The connection is in autocommit mode: group writes with :func:`transaction`.
    It may be shared between threads as long as callers serialise their use.
    *cached_statements*: the prepared statements it keeps (:func:`sqlite3.connect`'s).
    """
    if is_postgresql(path):  # never a file named after a DSN
        raise DatabaseError(f"{describe(path)}: a PostgreSQL database (store.dialect.open_database opens it)")
    path = Path(path)
    _create(path)
    make_private(path)
    try:
        conn = sqlite3.connect(
            path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=False,
            cached_statements=cached_statements, factory=FileConnection,
        )
        conn.row_factory = sqlite3.Row
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        mode = _write_ahead_log(conn)
        conn.execute("PRAGMA synchronous = FULL")
        conn.execute("PRAGMA foreign_keys = ON")
    except sqlite3.DatabaseError as exc:
        raise DatabaseError(f"{path}: cannot open the database ({exc})") from exc
    if str(mode).lower() != "wal":
        conn.close()
        raise DatabaseError(f"{path}: the database refused WAL mode (got {mode!r})")
    migrate(conn, source=str(path))
    for suffix in ("-wal", "-shm"):  # made by SQLite with the database's mode, less this process's umask
        same_mode(f"{path}{suffix}", path)
    return conn


def _create(path: Path) -> None:
    """A new database starts as an empty private file (an empty file is an empty SQLite database):
    sqlite3 would create it readable by every local user, and it holds the pawns' kinds."""
    try:
        private_folder(path.parent)
        if not path.exists():
            os.close(create_private(path))
    except FileExistsError:
        pass  # another process created it meanwhile
    except OSError as exc:
        raise DatabaseError(f"{path}: cannot create the database ({exc.strerror or exc})") from exc


def open_database(location: str | Path) -> Connection:
    """The database at *location*: a PostgreSQL DSN (:class:`store.dialect.PgDatabase`), else an
    SQLite file (created, migrated)."""
    if is_postgresql(location):
        try:
            return PgDatabase(str(location))
        except ConnectionError as exc:
            raise DatabaseError(str(exc)) from exc
    return connect(location)


def schema_version(conn: Connection) -> int:
    if isinstance(conn, sqlite3.Connection):
        return int(conn.execute("PRAGMA user_version").fetchone()[0])
    return table_version(conn, PANEL_SCHEMA_TABLE)


def migrate(conn: Connection, *, source: str = "database") -> int:
    """Apply the migrations this database lacks; return the resulting version."""
    if isinstance(conn, sqlite3.Connection):
        return apply_migrations(conn, MIGRATIONS, versions=None, source=source)
    return apply_migrations(
        conn, MIGRATIONS, versions=PANEL_SCHEMA_TABLE, source=source, postgresql=POSTGRESQL_MIGRATIONS
    )


def apply_migrations(
    conn: Connection,
    migrations: Sequence[str],
    *,
    versions: str | None,
    source: str = "database",
    postgresql: Mapping[int, str] | None = None,
    what: str = "schema",
) -> int:
    """Apply the *migrations* (script *n* makes version *n*) this database lacks; the resulting version.

    *versions* is the one-row table keeping the list's version (None: SQLite's ``user_version``);
    *postgresql* replaces, by version, a script whose SQLite text PostgreSQL cannot read.
    Each script runs in one transaction (DDL is transactional on both engines), after re-reading
    the version: two processes opening a new database at once both saw the old version, and the
    one that waited for the write lock must not apply the same migration again.
    """

    def version() -> int:
        return schema_version(conn) if versions is None else table_version(conn, versions)

    if engine(conn) == "postgresql":
        with transaction(conn):  # the versions table may be made by another process at this moment
            current = version()
    else:
        current = version()
    if current > len(migrations):
        raise DatabaseError(
            f"{source}: {what} version {current} is newer than this program knows ({len(migrations)});"
            " upgrade the program"
        )
    for number in range(current + 1, len(migrations) + 1):
        with transaction(conn):
            if version() >= number:
                continue
            script = migrations[number - 1]
            if engine(conn) == "postgresql":
                script = (postgresql or {}).get(number, script)
            # executescript would commit on its own; run statement by statement instead.
            for statement in statements(script):
                conn.execute(statement)
            if versions is None:
                conn.execute(f"PRAGMA user_version = {number}")
            else:
                conn.execute(
                    f"INSERT INTO {versions} (id, version) VALUES (1, ?)"
                    " ON CONFLICT (id) DO UPDATE SET version = excluded.version",
                    (number,),
                )
    return version()


def table_version(conn: Connection, table: str) -> int:
    conn.execute(
        f"CREATE TABLE IF NOT EXISTS {table}"
        " (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL)"
    )
    row = conn.execute(f"SELECT version FROM {table} WHERE id = 1").fetchone()
    return int(row[0]) if row else 0


@contextmanager
def transaction(conn: Connection) -> Iterator[Connection]:
    """``BEGIN IMMEDIATE`` … ``COMMIT``; rolled back if the block raises.

    IMMEDIATE takes the write lock at the start, so two writers never deadlock
    half-way through; the busy timeout makes the second one wait its turn.
    On PostgreSQL the same: one advisory lock first (:meth:`store.dialect.PgDatabase.transaction`).
    """
    if not isinstance(conn, sqlite3.Connection):
        with conn.transaction():
            yield conn
        return
    with turn(conn):  # the process's writers one after another (store/writer.py)
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
