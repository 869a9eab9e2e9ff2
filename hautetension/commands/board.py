"""``hautetension board``: run the board service (what the systemd unit starts)."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import sys
import threading
from pathlib import Path
from typing import Any, NamedTuple

from configuration import CONFIG_OPTION_HELP, EX_CONFIG
from hautetension.stopping import stop_on_signals


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "board",
        help="run the board service: scan, rules, lamps and journal",
        description="Run the board service until SIGTERM or Ctrl-C: follow the physical game, drive the "
        "lamps, write the journal, carry out commands from the panel. Resumes the game in "
        "progress after a crash or power cut.",
    )
    parser.add_argument("--config", help=CONFIG_OPTION_HELP)
    parser.add_argument(
        "--backend",
        choices=("gpio", "serial", "sim", "mock"),
        help="board backend (default: [board] backend, else sim)",
    )
    parser.add_argument(
        "--db",
        help="database file (default: [store] path, else var/hautetension.db without a configuration file)",
    )
    parser.add_argument("--layout", help="layout name or file (default: [board] layout, else pinwheel-80)")
    parser.add_argument("--port", help="serial port of the scanning microcontroller (serial backend)")
    parser.add_argument(
        "--sim-board",
        help="sim only: file keeping the virtual board's pawns "
        "(default: [board] sim_board_file, else next to the database)",
    )
    parser.add_argument(
        "--min-turn",
        type=float,
        metavar="SECONDS",
        help="a pawn sooner than this after the last one is a second pawn in the same turn "
        "(default: [board] min_turn_s, else 1.0; 0 disables)",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from configuration import ConfigError
    from games.exc import LayoutError
    from store.claim import EX_CLAIMED, ClaimedError, claim_database
    from store.db import DatabaseError, connect

    try:
        setup = _setup(args)
    except (ConfigError, LayoutError) as exc:  # BoardConfigError is a ConfigError
        print(f"hautetension board: {exc}", file=sys.stderr)
        return EX_CONFIG
    with contextlib.ExitStack() as held:
        try:
            held.enter_context(claim_database(setup.database))
            conn = connect(setup.database)
        except ClaimedError as exc:
            print(f"hautetension board: {exc}: a database has one board service; stop that one first "
                  "(systemctl stop hautetension-board, or Ctrl-C where it runs) or give this one "
                  "another --db", file=sys.stderr)
            return EX_CLAIMED
        except DatabaseError as exc:
            print(f"hautetension board: {exc}", file=sys.stderr)
            return EX_CONFIG
        held.callback(conn.close)
        return _serve(args, setup, conn, held)


class _Setup(NamedTuple):
    config: Any
    settings: Any
    layout: Any
    database: Path
    store: Any


def _setup(args: argparse.Namespace) -> _Setup:
    from configuration import StoreSettings, database_path, load_config
    from games.hautetension.layout import load_layout
    from hardware.service import BoardSettings

    config = load_config(args.config)
    settings = BoardSettings.from_config(config)
    if args.backend:
        settings = dataclasses.replace(settings, backend="sim" if args.backend == "mock" else args.backend)
    if args.min_turn is not None:
        settings = dataclasses.replace(settings, min_turn=max(0.0, args.min_turn))
    layout = load_layout(args.layout or settings.layout)
    database = Path(args.db) if args.db else database_path(config)
    return _Setup(config, settings, layout, database, StoreSettings.from_config(config))


def _serve(args: argparse.Namespace, setup: _Setup, conn: Any, held: contextlib.ExitStack) -> int:
    from hardware.backends import open_backend
    from hardware.exc import BoardClaimedError, HardwareError, SimBoardFileError
    from hardware.service import BoardService
    from hardware.service.notify import SystemdNotifier
    from hardware.service.recovery import RecoveryError
    from hardware.service.sim import SimBoardFile, default_sim_file
    from hardware.service.writer import JournalWriteError
    from store.backup import RollingBackups
    from store.claim import EX_CLAIMED, ClaimedError
    from store.commands import Commands
    from store.journal import Journal

    config, settings, layout, db_path, store = setup
    backups = RollingBackups(db_path, folder=store.folder_for(db_path), keep=store.backups_kept)
    held.callback(backups.close)  # the last game's copy is finished before the process ends
    sim_file = None
    try:
        if settings.backend == "sim":
            sim_file = SimBoardFile(args.sim_board or settings.sim_board_file or default_sim_file(db_path))
            held.enter_context(sim_file.claim())
        backend = open_backend(settings.backend, config, layout=layout, port=args.port)
    except (ClaimedError, BoardClaimedError) as exc:
        print(f"hautetension board: {exc}", file=sys.stderr)
        return EX_CLAIMED
    except HardwareError as exc:
        print(f"hautetension board: {exc}", file=sys.stderr)
        return EX_CONFIG if isinstance(exc, ValueError) else 1
    except ImportError as exc:
        print(f"hautetension board: the {settings.backend} backend is not available ({exc})", file=sys.stderr)
        return EX_CONFIG
    stop = threading.Event()
    stop_on_signals(stop.set)
    try:
        with BoardService(
            backend,
            layout,
            journal=Journal(conn),
            commands=Commands(conn),
            settings=settings,
            notifier=SystemdNotifier(),
            sim_file=sim_file,
            backups=backups,
        ) as service:
            recovery = service.start()
            print(
                f"hautetension board: {backend.name} board, database {db_path}; "
                f"{recovery.message if recovery else 'ready'}",
                file=sys.stderr,
                flush=True,
            )
            service.run(stop)
            if service.writer is not None and service.writer.waiting:
                writer = service.writer
                fault = writer.fault.describe() if writer.fault else "refused"
                print(f"hautetension board: {writer.waiting} journal entries and answers could not be "
                      "written "
                      f"to {writer.database} ({fault}) and are lost; at the next start the board is "
                      "compared with the journal", file=sys.stderr)
                return 1
    except JournalWriteError as exc:
        print(f"hautetension board: {exc}", file=sys.stderr)
        return 1
    except RecoveryError as exc:
        print(f"hautetension board: cannot replay the journal: {exc}", file=sys.stderr)
        return 1
    except SimBoardFileError as exc:
        print(f"hautetension board: {exc}", file=sys.stderr)
        return EX_CONFIG
    return 0
