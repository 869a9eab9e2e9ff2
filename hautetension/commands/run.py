"""``hautetension run``: the whole controller on the simulated board, for a laptop (``make run``).

Starts two child processes sharing one database: the board service on the
virtual board and the web panel. Starts a two-player demo game if none is
running (so the first click on the panel's board places a pawn), prints the
address, and stops both cleanly on Ctrl-C.

With ``--broker`` the board joins an event: a third child, the uplink,
reports it to the event server as ``--board-id``, and no demo game is started
(the board waits for the table the event assigns it, on its ``/table`` page).
"""

from __future__ import annotations

import argparse
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from hautetension.children import Children, Stopped
from hautetension.stopping import interrupt, stop_on_signals
from store.claim import EX_CLAIMED

DEMO_PLAYERS = [{"name": "Ana", "colour": "red"}, {"name": "Ben", "colour": "blue"}]
DEMO_GAME = {"players": DEMO_PLAYERS, "first": 0, "pregame_check": "skip", "skipped_by": "demo"}
"""The demo game: nobody holds the simulated board's test button, so the demo skips the lamps' check,
and the journal, the record and the replay say that it was the demo."""


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "run",
        help="run the board service on the simulated board and the web panel (make run)",
        description="Run the controller with no hardware: the board service on the virtual board and the "
        "web panel, sharing one database. Ctrl-C stops both.",
    )
    parser.add_argument("--host", default="127.0.0.1", help="panel address (default: %(default)s)")
    parser.add_argument("--port", type=int, default=8080, help="panel port (default: %(default)s)")
    parser.add_argument("--db", default="var/hautetension.db", help="database file (default: %(default)s)")
    parser.add_argument("--config", help="configuration file passed to both processes (default: none needed)")
    parser.add_argument(
        "--no-demo", dest="demo", action="store_false", help="do not start a demo game when none is running"
    )
    parser.add_argument("--broker", metavar="URL", help="join an event: its broker, mqtt://HOST:PORT "
                        "(starts the uplink too; default: no event)")
    parser.add_argument("--board-id", default="board-1", help="with --broker: this board's id "
                        "(default: %(default)s)")
    parser.add_argument("--event", default="demo",
                        help="with --broker: the event's id (default: %(default)s)")
    parser.set_defaults(func=run)


class Controller:
    """The child processes: the board service, the panel, and with ``--broker`` the uplink."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.children = Children()

    def _command(self, *words: str) -> list[str]:
        command = [sys.executable, "-m", "hautetension", *words, "--db", self.args.db]
        return command + (["--config", self.args.config] if self.args.config else [])

    def start_board(self) -> subprocess.Popen[bytes]:
        return self.children.start("board service", self._command("board", "--backend", "sim"))

    def start_uplink(self) -> None:
        args = self.args
        uplink = ["uplink", "--broker", args.broker, "--board-id", args.board_id, "--event", args.event]
        self.children.start("uplink", self._command(*uplink))

    def start_panel(self) -> None:
        self.children.start(
            "panel", self._command("panel", "--host", self.args.host, "--port", str(self.args.port))
        )

    def dead(self) -> str | None:
        stopped = self.children.first_stopped()
        return _said(stopped) if stopped else None

    def stop(self) -> None:
        # The panel stops cleanly on SIGINT (as on Ctrl-C), the board service and the uplink on SIGTERM.
        self.children.stop(signal_for=lambda name: signal.SIGINT if name == "panel" else signal.SIGTERM)


def _said(stopped: Stopped) -> str:
    return f"the {stopped.name} stopped (exit status {stopped.status})"


def _wait_for_heartbeat(db: Path, pid: int, controller: Controller, timeout: float = 20.0) -> str | None:
    from store.db import connect
    from store.journal import Journal

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        problem = controller.dead()
        if problem:
            return problem
        if db.exists():
            conn = connect(db)
            try:
                state = Journal(conn).state()
            finally:
                conn.close()
            if state is not None and state.health and state.health.get("service", {}).get("pid") == pid:
                return None
        time.sleep(0.1)
    return f"the board service did not start within {timeout:g} s"


def _wait_for_port(host: str, port: int, controller: Controller, timeout: float = 20.0) -> str | None:
    """Wait until the panel accepts connections (so the address printed works when clicked)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        problem = controller.dead()
        if problem:
            return problem
        try:
            with socket.create_connection((host, port), timeout=0.5):
                return None
        except OSError:
            time.sleep(0.1)
    return f"the panel did not listen on {host}:{port} within {timeout:g} s"


def start_demo_game(db: Path) -> str:
    """Start Ana vs Ben on the virtual board unless a game is running; clears leftover pawns first."""
    from store.commands import CommandKind, Commands, CommandStatus
    from store.db import connect
    from store.journal import Journal

    conn = connect(db)
    try:
        journal, commands = Journal(conn), Commands(conn)
        state = journal.state()
        game = state.public.get("game") if state else None
        if game and game.get("status") == "running":
            return f"game {game['id']} resumed"
        pawns = ((state.private or {}).get("board") or {}) if state else {}
        for slot in sorted(pawns):
            commands.wait(commands.submit(CommandKind.SIM_SLOT, {"slot": slot, "pawn": None}), timeout=5)
        deadline = time.monotonic() + 5
        while pawns and time.monotonic() < deadline:
            current = journal.state()
            if current is not None and not current.public.get("pawns"):
                break
            time.sleep(0.05)
        command = commands.wait(commands.submit(CommandKind.NEW_GAME, DEMO_GAME), timeout=5)
        if command is None or command.status is not CommandStatus.DONE:
            reason = (command.result or {}).get("error") if command else "no answer"
            return f"no demo game ({reason})"
        return f"demo game {command.result['game'] if command.result else '?'} started: Ana plays first"
    finally:
        conn.close()


def run(args: argparse.Namespace) -> int:
    db = Path(args.db)
    controller = Controller(args)
    stop_on_signals(interrupt)
    try:
        board = controller.start_board()
        problem = _wait_for_heartbeat(db, board.pid, controller)
        if problem:
            if board.returncode == EX_CLAIMED:
                # The board service said who holds the database; one controller per database.
                print(f"hautetension run: {db} already has a controller: stop it first, or run this one "
                      "with another --db (make run DB=...)", file=sys.stderr)
                return EX_CLAIMED
            print(f"hautetension run: {problem}", file=sys.stderr)
            return 1
        controller.start_panel()
        problem = _wait_for_port(args.host, args.port, controller)
        if problem:
            print(f"hautetension run: {problem}", file=sys.stderr)
            return 1
        if args.broker:
            controller.start_uplink()
            print(f"hautetension run: board {args.board_id} of event {args.event} via {args.broker}",
                  file=sys.stderr)
        elif args.demo:
            print(f"hautetension run: {start_demo_game(db)}", file=sys.stderr)
        page = "table" if args.broker else ""
        print(
            f"Haute-Tension controller on the simulated board: http://{args.host}:{args.port}/{page} "
            "(Ctrl-C stops it)",
            flush=True,
        )
        stopped = controller.children.wait_for_first_to_stop()
        print(f"hautetension run: {_said(stopped)}; stopping", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("hautetension run: stopping", file=sys.stderr)
        return 0
    finally:
        controller.stop()
