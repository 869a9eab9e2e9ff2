"""``hautetension backup [FILE]``: a consistent copy of the live database, while the service runs."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from configuration import CONFIG_OPTION_HELP, EX_CONFIG

FAILED = 1


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "backup",
        help="copy the live database (games, journal, tournaments) to a file, while the service runs",
        description="Write a consistent copy of the shared database with SQLite's online backup API: the "
        "database as it was at one instant, complete, checked, in one self-contained file. The board "
        "service and the panel go on meanwhile. Exit status 0: written; 1: it could not be.",
    )
    parser.add_argument(
        "file", nargs="?", type=Path,
        help="where to write it; a folder (a USB stick's, say) gets hautetension-DATE-TIME.db inside "
        "(default: that name in the current folder)",
    )
    parser.add_argument("--config", help=CONFIG_OPTION_HELP)
    parser.add_argument("--db", help="the database to copy (default: [store] path)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from configuration import ConfigError, database_path, load_config
    from store.backup import BackupError, write_backup

    try:
        database = Path(args.db) if args.db else database_path(load_config(args.config))
    except ConfigError as exc:
        print(f"hautetension backup: {exc}", file=sys.stderr)
        return EX_CONFIG
    target: Path = args.file or Path(".")
    if target.is_dir():
        target = target / time.strftime("hautetension-%Y%m%d-%H%M%S.db")
    try:
        info = write_backup(database, target)
    except BackupError as exc:
        print(f"hautetension backup: {exc}", file=sys.stderr)
        return FAILED
    print(f"hautetension backup: {database} copied to {info.path} ({info.describe()})")
    return 0
