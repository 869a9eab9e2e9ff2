"""``hautetension restore FILE``: put a backup back as the shared database (the board service stopped)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from configuration import CONFIG_OPTION_HELP, EX_CONFIG

EX_DATAERR = 65
"""The file is not a backup this program can put back (sysexits)."""


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "restore",
        help="put a backup back as the database (stop the board service first)",
        description="Replace the shared database with the backup FILE, after checking that it is an "
        "intact database of this program at a schema version it knows; the database it replaces is "
        "kept first in the backup folder. Refused while a board service runs (stop it first: "
        "systemctl stop hautetension-board). Exit status 0: restored; 65: FILE is not a usable backup; "
        "75: a board service holds the database; 1: it could not be written.",
    )
    parser.add_argument("file", type=Path, help="the backup to put back")
    parser.add_argument("--config", help=CONFIG_OPTION_HELP)
    parser.add_argument("--db", help="the database to replace (default: [store] path)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from configuration import ConfigError, StoreSettings, database_path, load_config
    from store.backup import BackupError, check_backup, restore_backup
    from store.claim import EX_CLAIMED, ClaimedError

    try:
        config = load_config(args.config)
        database = Path(args.db) if args.db else database_path(config)
        store = StoreSettings.from_config(config)
    except ConfigError as exc:
        print(f"hautetension restore: {exc}", file=sys.stderr)
        return EX_CONFIG
    try:
        check_backup(args.file)
    except BackupError as exc:
        print(f"hautetension restore: {exc}; nothing was changed", file=sys.stderr)
        return EX_DATAERR
    try:
        info, kept = restore_backup(args.file, database, keep_old_in=store.folder_for(database))
    except ClaimedError as exc:
        print(f"hautetension restore: {exc}: stop the board service first (systemctl stop "
              "hautetension-board, or Ctrl-C where it runs); nothing was changed", file=sys.stderr)
        return EX_CLAIMED
    except BackupError as exc:
        print(f"hautetension restore: {exc}", file=sys.stderr)
        return 1
    print(f"hautetension restore: {info.path} put back as {database} ({info.describe()})")
    if kept is not None:
        print(f"hautetension restore: the database it replaced is kept as {kept}")
    print("hautetension restore: restart the panel (systemctl restart hautetension-panel) and start the "
          "board service: it compares the board with the restored journal")
    return 0
