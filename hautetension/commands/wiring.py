"""``hautetension wiring learn | apply | reset``: the wiring wizard, which learns the board's slot map.

``learn`` runs the wizard through the board service when it runs (the staff
page ``/staff/wiring`` steers the same one), else on the board itself; then
writes the map into ``[hardware.slots]`` of the configuration file (the
difference shown and confirmed, a backup kept) and runs ``config check`` and
the self-test. ``apply`` does that last part for a wizard finished on the
staff page; ``reset`` forgets the progress. See docs/hardware.md, "Wiring wizard".
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from pathlib import Path
from typing import Any

from configuration import CONFIG_OPTION_HELP, ConfigFile

LEARN = """The display (or this terminal) names one slot at a time: put a defense pawn on it, then replace it
with an attack pawn, then lift it. The wizard watches every channel of every multiplexer, learns which one is
the slot's presence contact and which its conduction contact, and explains every mistake. Type
"redo SLOT" to learn a slot again, "accept" to leave out channels closed on the empty board, "quit" to
stop (the progress is kept: run it again to resume)."""


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("wiring", help="the wiring wizard: learn the board's slot map")
    actions = parser.add_subparsers(dest="wiring_command", metavar="ACTION", required=True)
    learn = actions.add_parser("learn", help="learn which channels each slot is wired to, then write the map",
                               description=LEARN)
    learn.add_argument("--backend", choices=("gpio", "sim", "mock"),
                       help="without a board service: the board to open (default: [board] backend, else sim)")
    learn.add_argument("--restart", action="store_true", help="forget the saved progress and start over")
    learn.add_argument("--hold", type=float, metavar="SECONDS",
                       help="how long the contacts must stay still before a step counts (default 0.5)")
    learn.add_argument("--demo", action="store_true",
                       help="sim only: simulated hands place and lift the pawns as asked")
    learn.add_argument("--scramble", type=int, metavar="SEED",
                       help="sim only: wire the virtual board otherwise than configured (multiplexers "
                            "swapped, channels permuted, one slot's contacts crossed) for the wizard to find")
    learn.set_defaults(func=run_learn)
    apply = actions.add_parser("apply", help="write the map a finished wizard learned (the staff page's) "
                                             "into the configuration file")
    apply.set_defaults(func=run_apply)
    reset = actions.add_parser("reset", help="forget the wizard's progress")
    reset.set_defaults(func=run_reset)
    for sub in (learn, apply, reset):
        sub.add_argument("--config", help=CONFIG_OPTION_HELP + "; learn and apply write the map into it "
                                                               "(created if missing)")
        sub.add_argument("--db", help="database file (default: [store] path)")
        sub.add_argument("--layout", help="layout name or file (default: [board] layout, else pinwheel-80)")
        sub.add_argument("--timeout", type=float, default=5.0,
                         help="seconds to wait for the board service's answers (default 5)")
    for sub in (learn, apply):
        sub.add_argument("--yes", action="store_true", help="write the map without asking")


def _fail(message: object, status: int = 2) -> int:
    print(f"hautetension wiring: {message}", file=sys.stderr)
    return status


def _config(path: str | None) -> ConfigFile:
    """The configuration file; one named on the command line that does not exist yet is created at the end."""
    from configuration import load_config

    if path and not Path(path).exists():
        return ConfigFile(path=Path(path))
    return load_config(path)


def run_learn(args: argparse.Namespace) -> int:
    from configuration import ConfigError
    from games.exc import LayoutError
    from hardware.console import layout_for
    from hardware.exc import HardwareError
    from hardware.wiring.console import (
        TypedLines,
        learn_here,
        learn_through_service,
        refuse_during_game,
        service_running,
    )
    from hardware.wiring.learner import LearnTiming
    from store.db import DatabaseError
    from store.wiring import WiringProgress

    lines = TypedLines(sys.stdin, sys.stdout)
    timing = LearnTiming(hold=args.hold) if args.hold is not None else None
    try:
        config = _config(args.config)
        layout = layout_for(config, args.layout)
        if config.path is None:
            return _fail("no configuration file to write the map into: name one with --config FILE "
                         "(it is created if it does not exist)")
        conn = _connect(args, config)
    except (ConfigError, LayoutError, DatabaseError) as exc:
        return _fail(exc)
    try:
        refuse_during_game(conn)
        if service_running(conn):
            if args.demo or args.scramble is not None or args.backend:
                return _fail("the board service holds the board: --backend, --demo and --scramble work "
                             "only without it (stop it: systemctl stop hautetension-board)")
            progress = learn_through_service(conn, out=sys.stdout, lines=lines, restart=args.restart,
                                             hold=args.hold, timeout=args.timeout)
            on_its_own = False
        else:
            backend = _open(args, config, layout)
            if isinstance(backend, int):
                return backend
            progress = learn_here(backend, layout, WiringProgress(conn), out=sys.stdout, lines=lines,
                                  restart=args.restart, demo=args.demo, timing=timing)
            on_its_own = True
    except HardwareError as exc:
        return _fail(exc, 1)
    finally:
        conn.close()
    if progress is None:
        print("stopped; the progress is kept: run hautetension wiring learn again to resume")
        return 0
    return _finish(args, config, layout, progress, lines, on_its_own=on_its_own)


def _connect(args: argparse.Namespace, config: ConfigFile) -> Any:
    from configuration import database_path
    from store.db import connect

    path = Path(args.db or database_path(config))
    conn = connect(path)
    keep_owner(path)
    return conn


def keep_owner(database: Path) -> None:
    """Run as root (to write the configuration in /etc), the command must not leave SQLite's ``-wal`` and
    ``-shm`` files owned by root beside the database: the board service could not open it any more."""
    if os.geteuid() != 0:
        return
    owner = database.stat()
    for suffix in ("-wal", "-shm"):
        side = database.with_name(database.name + suffix)
        with contextlib.suppress(OSError):
            if (side.stat().st_uid, side.stat().st_gid) != (owner.st_uid, owner.st_gid):
                os.chown(side, owner.st_uid, owner.st_gid)


def _open(args: argparse.Namespace, config: ConfigFile, layout: Any) -> Any:
    """The board this command learns on its own (no board service), or an exit status."""
    from hardware.backends import open_backend
    from hardware.exc import HardwareError
    from hardware.wiring.demo import scramble

    board = config.data.get("board", {})
    kind = args.backend or (board.get("backend") if isinstance(board, dict) else None) or "sim"
    if kind == "serial":
        return _fail("the serial board's microcontroller reads the channels with its own map: the wizard "
                     "learns the map of a board the Pi scans (the gpio backend)")
    try:
        backend = open_backend(str(kind), config, layout=layout)
    except HardwareError as exc:
        return _fail(exc)
    virtual = backend.virtual_board
    if (args.demo or args.scramble is not None) and virtual is None:
        backend.close()
        return _fail("--demo and --scramble work only on the simulated board (--backend sim)")
    if args.scramble is not None and virtual is not None:
        settings = backend.raw_channels.settings  # type: ignore[union-attr]
        virtual.rewire(scramble(settings, layout, seed=args.scramble))
    return backend


def _finish(args: argparse.Namespace, config: ConfigFile, layout: Any, progress: Any, lines: Any, *,
            on_its_own: bool) -> int:
    from hardware.console import run_selftest_command
    from hardware.exc import HardwareError
    from hardware.settings import HardwareSettings
    from hardware.wiring.console import Finish, finish, learned

    path = config.path
    if path is None:
        return _fail("no configuration file to write the map into: name one with --config FILE")
    try:
        settings = HardwareSettings.from_config(config)
        result = learned(progress, settings, layout)
    except HardwareError as exc:
        return _fail(exc)

    def check(written: Path) -> int:
        from configuration import load_config
        from hardware.console import config_check
        from hautetension.commands.config_cmd import SECTIONS, other_sections

        return config_check(load_config(written), layout_name=args.layout, out=sys.stdout, err=sys.stderr,
                            other_sections=other_sections(), sections=SECTIONS)

    def selftest() -> int:
        from configuration import load_config

        opened = _open(_no_scramble(args), load_config(path), layout)
        if isinstance(opened, int):
            return opened
        return run_selftest_command(opened, out=sys.stdout)

    how = Finish(path=path, settings=settings, layout=layout, check=check,
                 selftest=selftest if on_its_own else None)
    return finish(result, how, out=sys.stdout, lines=lines, yes=args.yes)


def _no_scramble(args: argparse.Namespace) -> argparse.Namespace:
    # The new map is the board's wiring: the simulated board opened with it is wired that way already.
    return argparse.Namespace(**{**vars(args), "scramble": None, "demo": False})


def run_apply(args: argparse.Namespace) -> int:
    from configuration import ConfigError
    from games.exc import LayoutError
    from hardware.console import layout_for
    from hardware.exc import HardwareError
    from hardware.wiring.console import TypedLines, service_running
    from hardware.wiring.learner import Progress
    from store.db import DatabaseError
    from store.wiring import WiringProgress

    try:
        config = _config(args.config)
        layout = layout_for(config, args.layout)
        conn = _connect(args, config)
    except (ConfigError, LayoutError, DatabaseError) as exc:
        return _fail(exc)
    try:
        record = WiringProgress(conn).load()
        running = service_running(conn)
    finally:
        conn.close()
    if record is None:
        return _fail("no wiring has been learned: run hautetension wiring learn (or the staff page)")
    if record.layout != layout.name:
        return _fail(f"the learned wiring is for layout {record.layout}, not {layout.name} (--layout)")
    try:
        progress = Progress.from_json(record.progress)
    except ValueError as exc:
        return _fail(exc)
    if not record.view.get("complete"):
        return _fail(f"the wizard has learned {record.view.get('count')} of {record.view.get('total')} "
                     "slots: finish it first")
    args.backend = args.demo = args.scramble = None
    try:
        lines = TypedLines(sys.stdin, sys.stdout)
        return _finish(args, config, layout, progress, lines, on_its_own=not running)
    except HardwareError as exc:
        return _fail(exc, 1)


def run_reset(args: argparse.Namespace) -> int:
    from configuration import ConfigError
    from hardware.exc import WiringError
    from hardware.wiring.console import send, service_running
    from store.db import DatabaseError
    from store.wiring import WiringProgress

    try:
        config = _config(args.config)
        conn = _connect(args, config)
    except (ConfigError, DatabaseError) as exc:
        return _fail(exc)
    try:
        if service_running(conn):
            forgotten = bool(send(conn, {"action": "reset"}, timeout=args.timeout).get("forgotten"))
        else:
            forgotten = WiringProgress(conn).clear()
    except WiringError as exc:
        return _fail(exc, 1)
    finally:
        conn.close()
    print("the wiring wizard's progress is forgotten" if forgotten else "there was no progress to forget")
    return 0
