"""Helpers for the hardware tests: the board service on the simulated board, driven step by step."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from configuration import ConfigFile
from games.hautetension.layout import load_layout
from hardware.backends.sim import SimBoard
from hardware.clock import SimulatedClock
from hardware.service import BoardService, BoardSettings
from hardware.service.sim import SimBoardFile
from hardware.settings import load_settings
from store.commands import Command, CommandKind, Commands, CommandStatus
from store.db import connect
from store.journal import Journal

BIN = Path(sys.executable).with_name("hautetension")


class Rig:
    """A board service on a virtual board, driven step by step."""

    def __init__(
        self,
        folder: Path,
        *,
        min_turn: float = 0.0,
        start: bool = True,
        hardware: dict[str, Any] | None = None,
        database: Path | None = None,
    ) -> None:
        self.folder = folder
        self.layout = load_layout()
        self.clock = SimulatedClock()
        self.backend = SimBoard(
            load_settings(ConfigFile({"hardware": hardware or {}}), self.layout),
            self.layout,
            clock=self.clock,
        )
        self.conn = connect(database or folder / "board.db")
        self.journal = Journal(self.conn)
        self.commands = Commands(self.conn)
        self.sim_file = SimBoardFile(folder / "sim-board.json")
        self.service = BoardService(
            self.backend,
            self.layout,
            journal=self.journal,
            commands=self.commands,
            settings=BoardSettings(min_turn=min_turn, settle=0.05),
            clock=self.clock.now,
            sleep=self.clock.wait,
            sim_file=self.sim_file,
        )
        if start:
            self.service.start()

    def run(self, seconds: float = 0.06) -> None:
        end = self.clock.now() + seconds
        while self.clock.now() < end:
            self.clock.advance(self.backend.scan_period)
            self.service.step()

    def command(self, kind: CommandKind, payload: dict[str, Any] | None = None) -> Command:
        command_id = self.commands.submit(kind, payload or {})
        self.run(0.03)
        command = self.commands.get(command_id)
        assert command is not None and command.is_finished(), command
        return command

    def place(self, slot: str, kind: str = "attack", *, wait: float = 0.06) -> None:
        assert self.command(CommandKind.SIM_SLOT, {"slot": slot, "pawn": kind}).status is CommandStatus.DONE
        self.run(wait)

    def hold_button(self, seconds: float = 1.0) -> None:
        """Hold the test button for *seconds*, then release it (the pre-game check's hold)."""
        self.command(CommandKind.SIM_BUTTON, {"held": True})
        self.run(seconds)
        self.command(CommandKind.SIM_BUTTON, {"held": False})
        self.run()

    def lift(self, slot: str) -> None:
        assert self.command(CommandKind.SIM_SLOT, {"slot": slot, "pawn": None}).status is CommandStatus.DONE
        self.run()

    def new_game(self, names: tuple[str, ...] = ("Ana", "Ben"), **extra: Any) -> Command:
        """Start a game; without ``pregame_check="ask"`` staff skip the pre-game check (most tests
        are about what comes after it: tests/hardware/service/test_pregame.py is about the check)."""
        players = [
            {"name": n, "colour": c} for n, c in zip(names, ("red", "blue", "black", "white"), strict=False)
        ]
        return self.command(CommandKind.NEW_GAME, {"players": players, "pregame_check": "skip", **extra})

    @property
    def state(self) -> dict[str, Any]:
        state = self.journal.state()
        assert state is not None
        return state.public

    def kinds(self) -> list[str]:
        return [e.kind for e in self.journal.tail(0, limit=10_000)]

    def lamps_on(self) -> set[str]:
        return {lamp for lamp in self.layout.lamps if self.backend.virtual_board.lamp_is_on(lamp)}

    def close(self) -> None:
        self.service.close()
        self.conn.close()


def board_command(folder: Path, db: Path, *options: str) -> tuple[list[str], dict[str, str]]:
    """``hautetension board`` on the sim backend with *db*, and its environment (a config in *folder*)."""
    env = {k: v for k, v in os.environ.items() if k not in ("HAUTETENSION_CONFIG", "NOTIFY_SOCKET")}
    env["HAUTETENSION_CONFIG"] = str(folder / "config.toml")
    if not (folder / "config.toml").exists():
        (folder / "config.toml").write_text("[board]\nsettle_ms = 100\n")
    return [str(BIN), "board", "--backend", "sim", "--db", str(db), "--min-turn", "0", *options], env


class ServiceProcess:
    """A real ``hautetension board --backend sim`` process, driven through its database as the panel does."""

    def __init__(self, folder: Path, *options: str, db: Path | None = None) -> None:
        self.folder = folder
        self.db = db or folder / "board.db"
        command, env = board_command(folder, self.db, *options)
        self.proc = subprocess.Popen(command, cwd=folder, env=env, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
        self.stderr = ""
        """What the process wrote on stderr, once it is closed."""
        self.conn = connect(self.db)
        self.journal = Journal(self.conn)
        self.commands = Commands(self.conn)
        self._wait(lambda: self._health_pid() == self.proc.pid, "the service's first heartbeat")

    def _health_pid(self) -> int | None:
        state = self.journal.state()
        return None if state is None or not state.health else state.health["service"]["pid"]

    def _wait(self, predicate: Any, what: str, timeout: float = 10.0) -> None:
        deadline = time.monotonic() + timeout
        while not predicate():
            if self.proc.poll() is not None:
                raise AssertionError(
                    f"the service exited ({self.proc.returncode}): {self.proc.stderr.read()}"
                )  # type: ignore[union-attr]
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what}")
            time.sleep(0.02)

    @property
    def state(self) -> dict[str, Any]:
        state = self.journal.state()
        assert state is not None
        return state.public

    def command(self, kind: CommandKind, payload: dict[str, Any]) -> dict[str, Any]:
        command = self.commands.wait(self.commands.submit(kind, payload), timeout=5.0)
        assert command is not None and command.status is CommandStatus.DONE, command
        return command.result or {}

    def place(self, slot: str, kind: str = "attack", *, wait: bool = True) -> None:
        self.command(CommandKind.SIM_SLOT, {"slot": slot, "pawn": kind})
        if wait:
            self._wait(lambda: slot in self.state["pawns"], f"the pawn on {slot}")

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=5)
        self.close()

    def stop(self) -> int:
        self.proc.send_signal(signal.SIGTERM)
        code = self.proc.wait(timeout=5)
        self.close()
        return code

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        if self.proc.stderr is not None and not self.proc.stderr.closed:
            self.stderr = self.proc.stderr.read()
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream:
                stream.close()
        self.conn.close()


@contextlib.contextmanager
def unwritable(*paths: Path) -> Iterator[None]:
    """Make *paths* unwritable even through files already open, as a read-only remount of the SD card
    does to a running service: ``chattr +i`` (root only; skips the test otherwise)."""
    done = subprocess.run(["chattr", "+i", *map(str, paths)], capture_output=True, text=True)
    if done.returncode != 0:
        subprocess.run(["chattr", "-i", *map(str, paths)], capture_output=True)
        pytest.skip("making an open file unwritable needs chattr +i, which needs root and ext2/3/4 "
                    f"or a file system like it: {done.stderr.strip() or 'refused'}")
    try:
        yield
    finally:
        subprocess.run(["chattr", "-i", *map(str, paths)], check=True)


@contextlib.contextmanager
def read_only_folder(folder: Path) -> Iterator[None]:
    """No file can be created in *folder* any more (those in it stay writable): chmod a-w, or
    ``chattr +i`` as root, whom the permissions do not stop."""
    if os.geteuid() == 0:
        with unwritable(folder):
            yield
        return
    mode = folder.stat().st_mode
    folder.chmod(0o555)
    try:
        yield
    finally:
        folder.chmod(mode)


class LiveService:
    """The board service on the simulated board, in a thread (real time, no minimum time between turns)."""

    def __init__(self, database: Path) -> None:
        layout = load_layout()
        backend = SimBoard(load_settings(ConfigFile({}), layout), layout)
        self.conn = connect(database)
        self.service = BoardService(
            backend,
            layout,
            journal=Journal(self.conn),
            commands=Commands(self.conn),
            settings=BoardSettings(min_turn=0, settle=0.02, command_interval=0.005),
        )
        self.service.start()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self.service.run, args=(self._stop,), daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(5)
        self.service.close()
        self.conn.close()
