"""``hautetension event demo``: a whole event on one laptop (what ``make event`` calls).

Starts, as local processes: Mosquitto on a free loopback port, or the one
``--broker-port`` gives (``make event BROKER_PORT=…``), (with one
password per board and the event's ACL, as at a real event), the event server
(``hautetension central``) and three virtual boards (``hautetension run
--broker``, each with its board service, panel and uplink). Once every board has
reported, it accepts them ("Table 1", …), creates a tournament of twelve
players ready for round 1, prints every address, and stops everything on
Ctrl-C. The demo's files are in ``var/event-demo/`` (made afresh each time).
"""

from __future__ import annotations

import argparse
import functools
import os
import pwd
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from hautetension.children import Children, Stopped, own_session_dying_with_parent
from hautetension.stopping import interrupt, stop_on_signals

DEMO_PIN = "246810"
PLAYERS = [
    "Ana",
    "Ben",
    "Cleo",
    "Dan",
    "Eve",
    "Fox",
    "Gus",
    "Hana",
    "Ivo",
    "Jade",
    "Kim",
    "Leo",
    "Mia",
    "Ned",
    "Oda",
    "Pia",
]
EVENT = "demo"
ACL = Path(__file__).resolve().parents[2] / "systemd" / "mosquitto-hautetension.acl"
BROKER_CONF = ACL.with_name("mosquitto-hautetension.conf")
PLACE_KEYS = frozenset(
    {"listener", "password_file", "acl_file", "certfile", "keyfile", "cafile", "tls_version", "persistence",
     "persistence_location", "per_listener_settings", "allow_anonymous"}
)
"""What says where the broker listens and keeps its files (each set up its own way by the demo and the
tests), as opposed to how it treats clients."""


def broker_rules(conf: Path = BROKER_CONF) -> list[str]:
    """The shipped Mosquitto configuration's rules for clients (pinned client ids, size, queue and in-flight
    limits): what the demo and the tests run with, the same lines a real event's broker has."""
    lines = (line.strip() for line in conf.read_text(encoding="utf-8").splitlines())
    return [line for line in lines if line and not line.startswith("#") and line.split()[0] not in PLACE_KEYS]


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("event", help="a local event: broker, event server and virtual boards")
    actions = parser.add_subparsers(dest="event_command", metavar="ACTION", required=True)
    demo = actions.add_parser(
        "demo",
        help="run a demo event on this machine (make event)",
        description="Mosquitto, the event server and virtual boards as local processes, with a tournament "
        "ready to make round 1. Ctrl-C stops everything.",
    )
    demo.add_argument(
        "--port",
        type=int,
        default=8090,
        help="the event server's port; the boards take the next ones (default: %(default)s)",
    )
    demo.add_argument(
        "--broker-port",
        type=_port,
        default=None,
        metavar="PORT",
        help="Mosquitto's port (default: a free one the system gives; make event BROKER_PORT=…)",
    )
    demo.add_argument(
        "--boards",
        type=int,
        default=3,
        choices=range(1, 11),
        metavar="N",
        help="virtual boards, 1 to 10 (default: %(default)s)",
    )
    demo.add_argument(
        "--players",
        type=int,
        default=12,
        choices=range(4, len(PLAYERS) + 1),
        metavar="N",
        help=f"players registered, 4 to {len(PLAYERS)} (default: %(default)s)",
    )
    demo.add_argument("--folder", default="var/event-demo", help="the demo's files (default: %(default)s)")
    demo.set_defaults(func=run_demo)


def _port(text: str) -> int:
    """A TCP port number from the command line (argparse says the error)."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a port is a whole number, not {text!r}") from None
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"a port is 1 to 65535, not {port}")
    return port


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _port_taken(port: int) -> bool:
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return True
    return False


def _mosquitto() -> tuple[str, str] | None:
    search = os.pathsep.join([os.environ.get("PATH", ""), "/usr/sbin", "/usr/local/sbin"])
    broker, passwd = shutil.which("mosquitto", path=search), shutil.which("mosquitto_passwd", path=search)
    return (broker, passwd) if broker and passwd else None


class Demo:
    """The demo's processes and files."""

    def __init__(self, args: argparse.Namespace, binaries: tuple[str, str]) -> None:
        self.args = args
        self.folder = Path(args.folder).resolve()
        self.binaries = binaries
        self.broker_port = args.broker_port or _free_port()
        self.broker_url = f"mqtt://127.0.0.1:{self.broker_port}"
        self.children = Children(preexec_fn=own_session_dying_with_parent)
        self.boards = [f"board-{n}" for n in range(1, args.boards + 1)]
        self.passwords = {user: secrets.token_urlsafe(12) for user in ["central", *self.boards]}

    # -- files ------------------------------------------------------------------------------

    def prepare(self) -> None:
        from webpanel.auth import hash_pin

        if self.folder.exists():
            _stop_left_broker(self.folder / "broker")
            shutil.rmtree(self.folder)
        broker = self.folder / "broker"
        broker.mkdir(parents=True)
        passwords = broker / "passwords"
        passwords.touch(mode=0o600)
        for user, password in self.passwords.items():
            subprocess.run(
                [self.binaries[1], "-b", str(passwords), user, password], check=True, capture_output=True
            )
            (self.folder / f"{user}.password").write_text(password + "\n")
        shutil.copyfile(ACL, broker / "acl")
        # The broker runs as whoever runs the demo: started as root, Mosquitto would otherwise drop to its
        # own user, which cannot reach these files when a parent folder is 0700 (as `make run` leaves var/).
        (broker / "mosquitto.conf").write_text(
            f"user {_invoking_user()}\n"
            f"per_listener_settings false\nlistener {self.broker_port} 127.0.0.1\nallow_anonymous false\n"
            f"password_file {passwords}\nacl_file {broker / 'acl'}\npersistence false\nlog_dest stderr\n"
            "log_type error\nlog_type warning\n" + "".join(f"{line}\n" for line in broker_rules())
        )
        pin_hash = hash_pin(DEMO_PIN)
        (self.folder / "central.toml").write_text(
            f'[central]\nevent = "{EVENT}"\nusername = "central"\n'
            f'password_file = "{self.folder / "central.password"}"\n'
            f'[panel]\nstaff_pin_hash = "{pin_hash}"\n'
        )
        for board in self.boards:
            (self.folder / f"{board}.toml").write_text(
                f'[uplink]\npassword_file = "{self.folder / (board + ".password")}"\n'
                f'[panel]\nstaff_pin_hash = "{pin_hash}"\n'
            )

    # -- processes --------------------------------------------------------------------------

    def _start(self, name: str, command: list[str]) -> None:
        with (self.folder / f"{name}.log").open("ab") as log:
            self.children.start(name, command, output=log)

    def start(self) -> None:
        here = [sys.executable, "-m", "hautetension"]
        self._start("mosquitto", [self.binaries[0], "-c", str(self.folder / "broker" / "mosquitto.conf")])
        (self.folder / "broker.pid").write_text(f"{self.children.pid('mosquitto')}\n")
        self._start(
            "central",
            [
                *here,
                "central",
                "--config",
                str(self.folder / "central.toml"),
                "--port",
                str(self.args.port),
                "--broker",
                self.broker_url,
                "--db",
                str(self.folder / "central.db"),
            ],
        )
        for index, board in enumerate(self.boards, start=1):
            self._start(
                board,
                [
                    *here,
                    "run",
                    "--config",
                    str(self.folder / f"{board}.toml"),
                    "--port",
                    str(self.args.port + index),
                    "--db",
                    str(self.folder / f"{board}.db"),
                    "--broker",
                    self.broker_url,
                    "--board-id",
                    board,
                    "--event",
                    EVENT,
                ],
            )

    def dead(self) -> str | None:
        stopped = self.children.first_stopped()
        return self.said(stopped) if stopped else None

    def said(self, stopped: Stopped) -> str:
        """What stopped, with the last lines it wrote (the reason, most often)."""
        log = self.folder / f"{stopped.name}.log"
        said = f"{stopped.name} stopped (exit status {stopped.status}; see {log})"
        last = _last_lines(log)
        return f"{said}; its last words:\n" + "\n".join(f"    {line}" for line in last) if last else said

    def stop(self) -> None:
        # The boards and the event server first (their goodbye goes through the broker), the broker last.
        self.children.stop(signal_for=lambda name: signal.SIGTERM if name == "mosquitto" else signal.SIGINT,
                           timeout=15)

    # -- the event --------------------------------------------------------------------------

    def set_up_event(self, timeout: float = 60.0) -> int:
        """Wait for every board, accept them, create the tournament; its id."""
        from store.event.boards import Boards
        from store.event.db import connect_event
        from store.season import Calendar
        from store.tournaments import Tournaments
        from tournaments.tournament import Tournament

        deadline = time.monotonic() + timeout
        conn = None
        try:
            while True:
                problem = self.dead()
                if problem:
                    raise RuntimeError(problem)
                if conn is None and (self.folder / "central.db").exists():
                    conn = connect_event(self.folder / "central.db")
                if conn is not None and {b.id for b in Boards(conn).all()} >= set(self.boards):
                    break
                if time.monotonic() > deadline:
                    raise RuntimeError(f"the boards did not all report within {timeout:g} s")
                time.sleep(0.2)
            for index, board in enumerate(self.boards, start=1):
                Boards(conn).accept(board, f"Table {index}", actor="make event")
            # A demonstration: played like any tournament, never counted in the general ranking.
            event = Calendar(conn).ensure(EVENT, name="Demonstration", actor="make event")
            store = Tournaments(conn)
            tid = store.create("Demo event", seed=2026, event=event.id, counts=False).id
            for name in PLAYERS[: self.args.players]:
                store.record(tid, functools.partial(Tournament.register, name=name), actor="make event")
            return tid
        finally:
            if conn is not None:
                conn.close()


def _stop_left_broker(folder: Path) -> None:
    """A demo killed with kill -9 can leave its broker behind (one that changed user loses the signal that
    would have stopped it with its parent): stop it, if it is still that broker."""
    pid_file = folder.parent / "broker.pid"
    try:
        pid = int(pid_file.read_text())
        command = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except (OSError, ValueError):
        return
    if str(folder / "mosquitto.conf").encode() in command:
        os.kill(pid, signal.SIGTERM)
        for _ in range(50):
            if not Path(f"/proc/{pid}").exists():
                return
            time.sleep(0.1)


def _invoking_user() -> str:
    """The user the demo runs as: its broker stays that user, so it reads its files wherever they are."""
    try:
        return pwd.getpwuid(os.geteuid()).pw_name
    except KeyError:  # a uid without a name (a container's): Mosquitto takes names only
        return "root" if os.geteuid() == 0 else os.environ.get("USER", "nobody")


def _last_lines(log: Path, count: int = 5, limit: int = 16_384) -> list[str]:
    """The last *count* non-empty lines of *log* (read from its last *limit* bytes); none if unreadable."""
    try:
        with log.open("rb") as f:
            f.seek(max(0, f.seek(0, os.SEEK_END) - limit))
            tail = f.read().decode("utf-8", "replace")
    except OSError:
        return []
    return [line.rstrip() for line in tail.splitlines() if line.strip()][-count:]


def run_demo(args: argparse.Namespace) -> int:
    binaries = _mosquitto()
    if binaries is None:
        print(
            "hautetension event demo: Mosquitto is missing (apt-get install mosquitto; make event installs it"
            " when it may)",
            file=sys.stderr,
        )
        return 1
    panels = range(args.port, args.port + args.boards + 1)
    if args.broker_port is not None and args.broker_port in panels:
        print(
            f"hautetension event demo: the broker's port {args.broker_port} is one of the event server's and"
            f" the boards' ({panels.start}–{panels.stop - 1}): choose another with --broker-port"
            " (make event BROKER_PORT=…)",
            file=sys.stderr,
        )
        return 1
    taken = [p for p in panels if _port_taken(p)]
    if taken:
        print(
            f"hautetension event demo: port(s) {', '.join(map(str, taken))} are taken: "
            f"choose others with --port (make event EVENT_PORT=…)",
            file=sys.stderr,
        )
        return 1
    if args.broker_port is not None and _port_taken(args.broker_port):
        print(
            f"hautetension event demo: the broker's port {args.broker_port} is taken: choose another with"
            " --broker-port (make event BROKER_PORT=…), or leave it out for a free one",
            file=sys.stderr,
        )
        return 1
    demo = Demo(args, binaries)
    stop_on_signals(interrupt)
    try:
        demo.prepare()
        demo.start()
        tid = demo.set_up_event()
        base = f"http://127.0.0.1:{args.port}"
        lines = [
            f"Demo event ({args.boards} board(s), {args.players} players, tournament {tid};"
            " Ctrl-C stops it):",
            f"  event server (staff PIN {DEMO_PIN}): {base}/event  — make round 1 there",
            f"  wall display: {base}/event/wall",
            *(
                f"  {board}: http://127.0.0.1:{args.port + i}/table (its table), "
                f"http://127.0.0.1:{args.port + i}/sim (place pawns)"
                for i, board in enumerate(demo.boards, 1)
            ),
            f"  broker: {demo.broker_url}; files and logs: {demo.folder}",
        ]
        print("\n".join(lines), flush=True)
        stopped = demo.children.wait_for_first_to_stop()
        print(f"hautetension event demo: {demo.said(stopped)}; stopping", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("hautetension event demo: stopping", file=sys.stderr)
        return 0
    except RuntimeError as exc:
        print(f"hautetension event demo: {exc}", file=sys.stderr)
        return 1
    finally:
        demo.stop()
