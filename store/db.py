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

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

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
]


class DatabaseError(sqlite3.DatabaseError):
    """The database file cannot be opened or is newer than this program."""


def connect(path: str | Path) -> sqlite3.Connection:
    """Open (creating if needed) the database at *path*, migrated to the latest schema.

    The connection is in autocommit mode: group writes with :func:`transaction`.
    It may be shared between threads as long as callers serialise their use.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        conn = sqlite3.connect(
            path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=False
        )
        conn.row_factory = sqlite3.Row
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        conn.execute("PRAGMA synchronous = FULL")
        conn.execute("PRAGMA foreign_keys = ON")
    except sqlite3.DatabaseError as exc:
        raise DatabaseError(f"{path}: cannot open the database ({exc})") from exc
    if str(mode).lower() != "wal":
        conn.close()
        raise DatabaseError(f"{path}: the database refused WAL mode (got {mode!r})")
    migrate(conn, source=str(path))
    return conn


def schema_version(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


def migrate(conn: sqlite3.Connection, *, source: str = "database") -> int:
    """Apply the migrations this database lacks; return the resulting version."""
    version = schema_version(conn)
    if version > len(MIGRATIONS):
        raise DatabaseError(
            f"{source}: schema version {version} is newer than this program knows ({len(MIGRATIONS)});"
            " upgrade the program"
        )
    for number in range(version + 1, len(MIGRATIONS) + 1):
        with transaction(conn):
            # Two processes opening a new file at once both saw the old version: the one
            # that waited for the write lock must not apply the same migration again.
            if schema_version(conn) >= number:
                continue
            # executescript would commit on its own; run statement by statement instead.
            for statement in _statements(MIGRATIONS[number - 1]):
                conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {number}")
    return schema_version(conn)


def _statements(script: str) -> Iterator[str]:
    for statement in script.split(";"):
        if statement.strip():
            yield statement


@contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """``BEGIN IMMEDIATE`` … ``COMMIT``; rolled back if the block raises.

    IMMEDIATE takes the write lock at the start, so two writers never deadlock
    half-way through; the busy timeout makes the second one wait its turn.
    """
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
