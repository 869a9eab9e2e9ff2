"""Helpers for the hardware tests: the board service on the simulated board, driven step by step."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from configuration import ConfigFile
from games.hautetension.layout import load_layout
from hardware.backends import SimBoard
from hardware.clock import SimulatedClock
from hardware.service import BoardService, BoardSettings
from hardware.service.sim import SimBoardFile
from hardware.settings import load_settings
from store.commands import Command, CommandKind, Commands, CommandStatus
from store.db import connect
from store.journal import Journal


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
        are about what comes after it: tests/hardware/test_pregame.py is about the check)."""
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
