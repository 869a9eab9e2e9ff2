"""Opening the event server's database: the panel's tables plus the event's own.

The event server is the same Flask panel in another role, so its database
carries every table a board's panel has (tournaments above all, and the board
tables its shared pages expect, empty here), migrated by :func:`store.db.connect`,
plus the ``event_`` tables of :mod:`store.event.sql`, versioned on their own
in ``event_schema`` so that a migration added to either list never renumbers
the other.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from store.db import DatabaseError, connect, transaction
from store.event import sql


def connect_event(path: str | Path) -> sqlite3.Connection:
    """Open (creating if needed) the event server's database at *path*, migrated."""
    conn = connect(path)
    try:
        migrate_event(conn, source=str(path))
    except BaseException:
        conn.close()
        raise
    return conn


def event_schema_version(conn: sqlite3.Connection) -> int:
    conn.execute(sql.SCHEMA_TABLE)
    row = conn.execute(sql.SCHEMA_VERSION).fetchone()
    return int(row[0]) if row else 0


def migrate_event(conn: sqlite3.Connection, *, source: str = "database") -> int:
    """Apply the event migrations this database lacks; return the resulting version."""
    version = event_schema_version(conn)
    if version > len(sql.MIGRATIONS):
        raise DatabaseError(
            f"{source}: event schema version {version} is newer than this program knows"
            f" ({len(sql.MIGRATIONS)}); upgrade the program"
        )
    for number in range(version + 1, len(sql.MIGRATIONS) + 1):
        with transaction(conn):
            if event_schema_version(conn) >= number:
                continue  # another process migrated it while this one waited for the lock
            for statement in sql.MIGRATIONS[number - 1].split(";"):
                if statement.strip():
                    conn.execute(statement)
            conn.execute(sql.SET_SCHEMA_VERSION, (number,))
    return event_schema_version(conn)
