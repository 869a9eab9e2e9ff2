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

DEMO_PLAYERS = [{"name": "Ana", "colour": "red"}, {"name": "Ben", "colour": "blue"}]


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


def _die_with_parent() -> None:
    """In the child: get SIGTERM if ``hautetension run`` itself is killed (Linux), so no
    board service is left running on its own after a ``kill -9`` of the parent."""
    if sys.platform.startswith("linux"):
        import ctypes

        PR_SET_PDEATHSIG = 1
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


class Controller:
    """The two child processes."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.children: dict[str, subprocess.Popen[bytes]] = {}

    def _command(self, *words: str) -> list[str]:
        command = [sys.executable, "-m", "hautetension", *words, "--db", self.args.db]
        return command + (["--config", self.args.config] if self.args.config else [])

    def start_board(self) -> subprocess.Popen[bytes]:
        self.children["board service"] = subprocess.Popen(
            self._command("board", "--backend", "sim"), preexec_fn=_die_with_parent
        )
        return self.children["board service"]

    def start_uplink(self) -> None:
        self.children["uplink"] = subprocess.Popen(
            self._command("uplink", "--broker", self.args.broker, "--board-id", self.args.board_id,
                          "--event", self.args.event),
            preexec_fn=_die_with_parent,
        )

    def start_panel(self) -> None:
        self.children["panel"] = subprocess.Popen(
            self._command("panel", "--host", self.args.host, "--port", str(self.args.port)),
            preexec_fn=_die_with_parent,
        )

    def dead(self) -> str | None:
        for name, child in self.children.items():
            if child.poll() is not None:
                return f"the {name} stopped (exit status {child.returncode})"
        return None

    def stop(self) -> None:
        # The panel stops cleanly on SIGINT (as on Ctrl-C), the board service and the uplink on SIGTERM.
        for name, child in self.children.items():
            if child.poll() is None:
                child.send_signal(signal.SIGINT if name == "panel" else signal.SIGTERM)
        deadline = time.monotonic() + 10
        for child in self.children.values():
            try:
                child.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()


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
        command = commands.wait(
            commands.submit(
                CommandKind.NEW_GAME, {"players": DEMO_PLAYERS, "first": 0, "pregame_check": "skip"}
            ),
            timeout=5,
        )
        if command is None or command.status is not CommandStatus.DONE:
            reason = (command.result or {}).get("error") if command else "no answer"
            return f"no demo game ({reason})"
        return f"demo game {command.result['game'] if command.result else '?'} started: Ana plays first"
    finally:
        conn.close()


def run(args: argparse.Namespace) -> int:
    db = Path(args.db)
    controller = Controller(args)

    def _terminate(signum: int, _frame: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, _terminate)
    # Ctrl-C must work even if we were started with SIGINT ignored (a background job).
    signal.signal(signal.SIGINT, _terminate)
    try:
        board = controller.start_board()
        problem = _wait_for_heartbeat(db, board.pid, controller)
        if problem:
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
        while True:
            problem = controller.dead()
            if problem:
                print(f"hautetension run: {problem}; stopping", file=sys.stderr)
                return 1
            time.sleep(0.5)
    except KeyboardInterrupt:
        print("hautetension run: stopping", file=sys.stderr)
        return 0
    finally:
        controller.stop()
