"""``hautetension staff set-pin``: set the staff PIN of the panel's service mode."""

from __future__ import annotations

import argparse
import getpass
import sys
from pathlib import Path
from typing import Any


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("staff", help="staff service mode settings (the staff PIN)")
    commands = parser.add_subparsers(dest="staff_command", metavar="ACTION", required=True)
    set_pin = commands.add_parser(
        "set-pin",
        help="set the staff PIN (stored as a salted scrypt hash)",
        description="Set the staff PIN. With a configuration file, its hash goes to [panel] staff_pin_hash "
        "there; without one, to staff-pin.hash next to the database. The panel reads it at "
        "each login: no restart needed. Every staff session opened before ends.",
    )
    set_pin.add_argument("--config", help="configuration file to write the hash into")
    set_pin.add_argument("--db", help="database file (locates staff-pin.hash without a configuration file)")
    set_pin.add_argument(
        "--pin-stdin", action="store_true", help="read the PIN from standard input (scripts)"
    )
    set_pin.set_defaults(func=set_pin_command)


def _read_pin(from_stdin: bool) -> str:
    if from_stdin:
        return sys.stdin.readline().rstrip("\r\n")
    first = getpass.getpass("New staff PIN: ")
    if getpass.getpass("Again: ") != first:
        raise ValueError("the two PINs differ")
    return first


def set_pin_command(args: argparse.Namespace) -> int:
    from configuration import ConfigError, load_config
    from webpanel.auth import PinError, hash_pin, write_pin_hash_file, write_pin_hash_to_config
    from webpanel.config import PanelSettings

    database: Path | str | None = None

    try:
        config = load_config(args.config)
        settings = PanelSettings.from_config(config)
        pin_hash = hash_pin(_read_pin(args.pin_stdin))
        database = Path(args.db) if args.db else settings.database
        if config.path is not None:
            write_pin_hash_to_config(config.path, pin_hash)
            where = f"{config.path} ([panel] staff_pin_hash)"
        else:
            beside = Path(args.db).parent if args.db else None
            path = settings.staff_pin_path if beside is None else beside / settings.staff_pin_path.name
            write_pin_hash_file(path, pin_hash)
            where = str(path)
    except (PinError, ValueError, ConfigError) as exc:
        print(f"hautetension staff set-pin: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"hautetension staff set-pin: cannot write the PIN ({exc})", file=sys.stderr)
        return 1
    print(f"staff PIN set in {where}", file=sys.stderr)
    return _end_staff_sessions(database) if database is not None else 0


def _end_staff_sessions(database: Path | str) -> int:
    """End every staff session opened with the old PIN (after the new hash is written: see
    store/staff_sessions.py). *database*: a file, or an event server's PostgreSQL DSN."""
    import sqlite3

    from store.db import DatabaseError, open_database
    from store.dialect import is_postgresql
    from store.staff_sessions import StaffSessions

    if not is_postgresql(database) and not Path(database).exists():
        return 0  # no database yet, so no session to end (and none is made for it)
    try:
        conn = open_database(database)
        try:
            StaffSessions(conn).end_all()
        finally:
            conn.close()
    except (sqlite3.Error, OSError, DatabaseError) as exc:
        print(
            f"hautetension staff set-pin: the PIN is set, but the staff sessions opened before could not "
            f"be ended in {database} ({exc}): they last until they expire",
            file=sys.stderr,
        )
        return 1
    print("every staff session opened before has ended", file=sys.stderr)
    return 0
