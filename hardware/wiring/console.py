"""What ``hautetension wiring learn`` and ``apply`` do, for a builder at a terminal.

Two ways to run the wizard, chosen by whether the board service runs (its
heartbeat in the database is fresh):

- **through the service** (:func:`learn_through_service`): the service holds
  the board, so the command sends ``WIRING`` commands through the command
  queue and shows the view the service keeps in the database, as the staff
  page ``/staff/wiring`` does (both may be open at once);
- **on its own** (:func:`learn_here`): no service holds the board, so the
  command opens the backend itself and runs the same learner.

Either way the progress is in the database, so an interrupted wizard resumes
from either side. Typed lines steer it: ``redo SLOT``, ``accept`` (leave out
the channels closed on the empty board), ``quit``. Once every slot is learned,
:func:`finish` shows the change to the configuration file, asks to confirm,
keeps a backup, writes it, runs ``config check`` and the self-test, and says
which channels could become reference channels.
"""

from __future__ import annotations

import contextlib
import os
import select
import sqlite3
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TextIO

from configuration import ConfigError
from games.hautetension.layout import Layout
from hardware.backend import BoardBackend
from hardware.clock import Clock, MonotonicClock
from hardware.exc import WiringError
from hardware.settings import HardwareSettings
from hardware.wiring.config import changed_slots, diff, reference_advice, updated_text, write
from hardware.wiring.demo import SimulatedBuilder
from hardware.wiring.learner import LearnedWiring, LearnTiming, Progress, WiringLearner
from hardware.wiring.session import WiringSession
from store.commands import CommandKind, Commands, CommandStatus
from store.journal import Journal
from store.wiring import WiringProgress

STALE_HEARTBEAT_S = 5.0
"""A board service whose heartbeat is older than this is not running."""
HELP = "type: redo SLOT (learn a slot again), accept (leave out channels closed on the empty board), quit"
SHOWN = 12
"""Contacts that move listed one by one before the file's difference (which has them all)."""


class Lines(Protocol):
    """Where the builder's typed lines come from."""

    def poll(self) -> list[str]:
        """The lines typed since the last call (without waiting)."""

    def ask(self, question: str) -> str:
        """Ask and wait for one line ('' at the end of the input)."""


class TypedLines:
    """Lines from a terminal or a pipe, read without blocking the scan loop."""

    def __init__(self, stream: TextIO, out: TextIO) -> None:
        self.stream, self.out = stream, out
        self._buffer = ""
        self._ended = False

    def poll(self) -> list[str]:
        while not self._ended and self._ready():
            chunk = os.read(self.stream.fileno(), 4096).decode(errors="replace")
            if not chunk:
                self._ended = True
                break
            self._buffer += chunk
        *lines, self._buffer = self._buffer.split("\n")
        return [line.strip() for line in lines if line.strip()]

    def _ready(self) -> bool:
        try:
            return bool(select.select([self.stream], [], [], 0)[0])
        except (OSError, ValueError):  # closed, or not a real file
            self._ended = True
            return False

    def ask(self, question: str) -> str:
        print(question, end=" ", file=self.out, flush=True)
        while "\n" not in self._buffer and not self._ended:
            chunk = os.read(self.stream.fileno(), 4096).decode(errors="replace")
            self._ended = not chunk
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition("\n")
        return line.strip()


class ViewPrinter:
    """Prints what changed between two views of the wizard: slots learned, the task, the problems."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self._learned: set[str] = set()
        self._instruction = ""
        self._problems: set[str] = set()

    def show(self, view: Mapping[str, Any]) -> None:
        learned = view.get("learned") or {}
        for slot in [s for s in learned if s not in self._learned]:
            w = learned[slot]
            self._say(f"  {slot} learned ({view.get('count')}/{view.get('total')}): presence multiplexer "
                      f"{w['presence'][0]} channel {w['presence'][1]}, conduction multiplexer "
                      f"{w['conduction'][0]} channel {w['conduction'][1]}")
        self._learned = set(learned)
        instruction = str(view.get("instruction", ""))
        if instruction != self._instruction:
            self._instruction = instruction
            self._say(f"> {instruction}")
        problems = {str(p.get("message")) for p in view.get("problems") or []}
        for message in sorted(problems - self._problems):
            self._say(f"  ! {message}")
        self._problems = problems

    def _say(self, text: str) -> None:
        print(text, file=self.out, flush=True)


@dataclass
class Steering:
    """What the builder typed, turned into wizard actions."""

    lines: Lines
    out: TextIO

    def actions(self) -> Iterator[dict[str, Any]]:
        for line in self.lines.poll():
            words = line.split()
            if words[0] in ("quit", "q", "stop"):
                yield {"action": "stop"}
            elif words[0] == "redo" and len(words) == 2:
                yield {"action": "redo", "slot": words[1]}
            elif words[0] == "accept" and len(words) == 1:
                yield {"action": "accept"}
            else:
                print(f"  ? {line!r}: {HELP}", file=self.out, flush=True)


def is_done(view: Mapping[str, Any]) -> bool:
    """Every slot learned and the last pawn lifted."""
    return bool(view.get("complete")) and not view.get("leftover")


def service_running(conn: sqlite3.Connection, *, now: float | None = None) -> bool:
    state = Journal(conn).state()
    return state is not None and (now or time.time()) - state.updated_at < STALE_HEARTBEAT_S


def refuse_during_game(conn: sqlite3.Connection) -> None:
    """The wizard reads raw channels: never while the journal says a game runs (as the self-test)."""
    state = Journal(conn).state()
    game = (state.public if state else {}).get("game")
    if isinstance(game, dict) and game.get("status") == "running":
        raise WiringError(f"the wiring wizard reads raw slot readings, which a running game keeps secret: "
                          f"abandon or finish game {game.get('id')} first")


# ---------------------------------------------------------------------------- on its own


def learn_here(backend: BoardBackend, layout: Layout, store: WiringProgress, *, out: TextIO, lines: Lines,
               restart: bool = False, demo: bool = False, timing: LearnTiming | None = None,
               clock: Clock | None = None) -> Progress | None:
    """Run the wizard on *backend* until every slot is learned (its progress) or the builder quits (None)."""
    clock = clock or MonotonicClock()
    owner = f"hautetension wiring learn (pid {os.getpid()})"
    session = WiringSession(backend, layout, store=store, owner=owner, now=clock.now(), restart=restart,
                            timing=timing)
    virtual = backend.virtual_board
    builder = SimulatedBuilder(virtual, session.view, pace=max(0.05, session.learner.timing.hold / 2)) \
        if demo and virtual is not None else None
    printer, steering = ViewPrinter(out), Steering(lines, out)
    print(f"learning the wiring of the {backend.name} board ({len(layout.slots)} slots); {HELP}", file=out)
    try:
        while True:
            backend.poll()
            now = clock.now()
            session.scanned(now)
            for action in steering.actions():
                if action["action"] == "stop":
                    return None
                try:
                    if action["action"] == "redo":
                        session.redo(action["slot"], now)
                    else:
                        session.accept_closed(now)
                except WiringError as exc:
                    print(f"  ? {exc}", file=out, flush=True)
            view = session.view()
            printer.show(view)
            if is_done(view):
                return session.learner.progress
            if builder is not None:
                builder.act(now)
            clock.wait(backend.scan_period)
    finally:
        session.close()
        backend.close()


# ---------------------------------------------------------------------------- through the service


def learn_through_service(conn: sqlite3.Connection, *, out: TextIO, lines: Lines, restart: bool = False,
                          hold: float | None = None, timeout: float = 5.0, interval: float = 0.1,
                          sleep: Callable[[float], None] = time.sleep) -> Progress | None:
    """Run the wizard in the board service; its progress once every slot is learned, None if stopped.
    Raises :class:`WiringError` with the service's reason when it refuses, or when it stops answering."""
    store = WiringProgress(conn)
    start: dict[str, Any] = {"action": "start", "restart": restart}
    if hold is not None:
        start["hold"] = hold
    send(conn, start, timeout=timeout)
    print(f"learning the wiring through the board service; {HELP}", file=out)
    printer, steering = ViewPrinter(out), Steering(lines, out)
    try:
        while True:
            record = store.load()
            if record is not None:
                printer.show(record.view)
                if is_done(record.view):
                    return Progress.from_json(record.progress)
            for action in steering.actions():
                if action["action"] == "stop":
                    return None
                try:
                    send(conn, action, timeout=timeout)
                except WiringError as exc:
                    print(f"  ? {exc}", file=out, flush=True)
            if not service_running(conn):
                raise WiringError("the board service stopped answering; the progress is kept: "
                                  "run hautetension wiring learn again")
            sleep(interval)
    finally:
        with contextlib.suppress(WiringError):
            send(conn, {"action": "stop"}, timeout=timeout)


def send(conn: sqlite3.Connection, payload: Mapping[str, Any], *, timeout: float) -> dict[str, Any]:
    """Queue a ``WIRING`` command and wait for the service's answer (withdrawn if none comes)."""
    commands = Commands(conn)
    command_id = commands.submit(CommandKind.WIRING, payload)
    command = commands.wait(command_id, timeout=timeout)
    if command is None or not command.is_finished():
        commands.fail(command_id, "withdrawn: the board service did not answer in time")
        raise WiringError(f"the board service did not answer within {timeout:g} s")
    if command.status is CommandStatus.FAILED:
        raise WiringError(str((command.result or {}).get("error")))
    return command.result or {}


# ---------------------------------------------------------------------------- the end


def learned(progress: Progress, settings: HardwareSettings, layout: Layout) -> LearnedWiring:
    """The result of a complete *progress* (``WiringError`` naming the slots still to learn)."""
    try:
        return WiringLearner.for_board(settings, layout.slots, settings.slot_map(layout),
                                       progress=progress).result()
    except ValueError as exc:
        raise WiringError(str(exc)) from None


@dataclass
class Finish:
    """What :func:`finish` needs besides the result: where the file is and how to check the board."""

    path: Path
    settings: HardwareSettings
    layout: Layout
    check: Callable[[Path], int]
    """``config check`` on the written file: its exit status."""
    selftest: Callable[[], int] | None
    """The self-test on the new map (its exit status), or None when the board service holds the board."""


def finish(result: LearnedWiring, how: Finish, *, out: TextIO, lines: Lines, yes: bool = False) -> int:
    """Show the change, confirm, back up, write, check, self-test, advise; the exit status."""
    text = how.path.read_text(encoding="utf-8") if how.path.exists() else ""
    stamp = time.strftime("%Y-%m-%d %H:%M")
    try:
        new = updated_text(text, result.slots, how.settings, how.layout,
                           note=f"learned by hautetension wiring learn on {stamp}; the slots not listed "
                                "keep the computed map")
    except ConfigError as exc:
        print(f"cannot write the map into {how.path}: {exc}", file=out)
        return 2
    for slot, signals in result.bounced.items():
        contacts = " and ".join(s.value for s in signals)
        print(f"note: {slot}'s {contacts} contact bounced while it was learned: clean it (and redo it if "
              "in doubt)", file=out)
    if new is None:
        print(f"{how.path} already has this map: nothing to write", file=out)
    else:
        moved = changed_slots(result.slots, how.settings, how.layout)
        shown = [f"  {line}" for line in moved[:SHOWN]]
        if len(moved) > SHOWN:
            shown.append(f"  … and {len(moved) - SHOWN} more (the difference below has them all)")
        print(f"{len(moved)} contact(s) move:", *shown, sep="\n", file=out)
        print(diff(text, new, how.path), file=out)
        if not yes and lines.ask(f"Write this into {how.path}? [y/N]").lower() not in ("y", "yes"):
            print("not written; the learned map stays in the database: hautetension wiring apply", file=out)
            return 1
        backup = write(how.path, new)
        print(f"written {how.path}" + (f"; the old file is kept as {backup}" if backup else ""), file=out)
    status = how.check(how.path)
    if status != 0:
        return status
    advice = reference_advice(result, how.settings)
    print("channels for reference channels:", *(f"  {line}" for line in advice), sep="\n", file=out)
    if how.selftest is None:
        print("the board service still uses the old map: restart it to load the new one "
              "(sudo systemctl restart hautetension-board), then check it with: hautetension game self-test",
              file=out)
        return 0
    return how.selftest()
