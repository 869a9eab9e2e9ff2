"""Opening the event server's database: the panel's tables plus the event's own.

The event server is the same Flask panel in another role, so its database
carries every table a board's panel has (tournaments above all, and the board
tables its shared pages expect, empty here), migrated by :func:`store.db.migrate`,
plus the ``event_`` tables of :mod:`store.event.sql`, versioned on their own
in ``event_schema`` so that a migration added to either list never renumbers
the other.

The database is an SQLite file (one hall, one machine) or a PostgreSQL DSN
(``postgresql://…``: several server processes on one database); the same
store code runs on both (:mod:`store.dialect`).
"""

from __future__ import annotations

from pathlib import Path

from store.db import apply_migrations, migrate, open_database, table_version
from store.dialect import Connection, PgDatabase, describe
from store.event import sql

EVENT_SCHEMA_TABLE = "event_schema"


def connect_event(location: str | Path) -> Connection:
    """Open (creating if needed) the event server's database at *location*, migrated."""
    source = describe(location)
    conn = open_database(location)
    try:
        if isinstance(conn, PgDatabase):
            migrate(conn, source=source)
        migrate_event(conn, source=source)
    except BaseException:
        conn.close()
        raise
    return conn


def event_schema_version(conn: Connection) -> int:
    return table_version(conn, EVENT_SCHEMA_TABLE)


def migrate_event(conn: Connection, *, source: str = "database") -> int:
    """Apply the event migrations this database lacks; return the resulting version."""
    return apply_migrations(
        conn, sql.MIGRATIONS, versions=EVENT_SCHEMA_TABLE, source=source, what="event schema"
    )
