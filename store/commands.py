"""Commands from the panel to the board service.

The panel never touches the board: it queues a command here and the service,
the only writer of board state, carries it out on its next loop turn and
writes the outcome back (``done`` with a result, or ``failed`` with a reason a
person can read). The panel may wait for that outcome with :meth:`Commands.wait`.
"""

from __future__ import annotations

import enum
import json
import sqlite3
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from store.db import transaction


class CommandKind(enum.Enum):
    NEW_GAME = "new-game"
    """payload: {"players": [{"name", "colour"}], "first": int | "draw", "seed": int?,
    "handicap": {lamp: n}?, "assignment": id?} (``assignment``: the event's table it plays)"""
    ABANDON_GAME = "abandon-game"
    CONFIRM_RESULT = "confirm-result"
    """payload: {"seats": [int], "by": "player" | "staff"} — seats agree to an event game's result."""
    LAMP_TEST = "lamp-test"
    """payload: {"on": bool} — every lamp lit while on (refused during a game)."""
    SELF_TEST = "self-test"
    SIM_SLOT = "sim-slot"
    """payload: {"slot": "a9", "pawn": "attack" | "defense" | null} (sim backend only)."""
    SIM_BUTTON = "sim-button"
    """payload: {"held": bool} (sim backend only)."""
    PREGAME_CHECK = "pregame-check"
    """payload: {"action": "confirm", "not_lit": [lamps]} (the players saw the other lamps light) or
    {"action": "skip"} (staff) — the pre-game check of the game being set up."""
    WIRING = "wiring"
    """payload: {"action": one of :data:`WIRING_ACTIONS`, "slot"? (redo), "restart"?, "hold"? (start)}
    — the wiring wizard (refused during a game)."""


WIRING_ACTIONS = ("start", "stop", "redo", "accept", "reset")
"""What a ``WIRING`` command may ask (docs/hardware.md, "Wiring wizard")."""


class CommandStatus(enum.Enum):
    PENDING = "pending"
    DONE = "done"
    FAILED = "failed"


@dataclass(frozen=True)
class Command:
    id: int
    at: float
    kind: CommandKind
    payload: dict[str, Any]
    status: CommandStatus
    result: dict[str, Any] | None
    done_at: float | None

    def is_finished(self) -> bool:
        return self.status is not CommandStatus.PENDING


class Commands:
    """The command queue on one connection."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def submit(self, kind: CommandKind, payload: Mapping[str, Any] | None = None) -> int:
        with transaction(self.conn):
            cursor = self.conn.execute(
                "INSERT INTO commands (at, kind, payload) VALUES (?, ?, ?)",
                (time.time(), kind.value, json.dumps(dict(payload or {}), sort_keys=True)),
            )
        return int(cursor.lastrowid or 0)

    def pending(self, *, limit: int = 50) -> list[Command]:
        rows = self.conn.execute(
            "SELECT * FROM commands WHERE status = 'pending' ORDER BY id LIMIT ?", (limit,)
        )
        return [_command(row) for row in rows]

    def complete(
        self, command_id: int, result: Mapping[str, Any] | None = None, *,
        payload: Mapping[str, Any] | None = None,
    ) -> None:
        """Mark a command done. *payload*, if given, replaces the stored payload (the service
        blanks what must not stay readable, such as a simulated pawn's kind)."""
        self._finish(command_id, CommandStatus.DONE, dict(result or {}), payload)

    def fail(self, command_id: int, reason: str, *, payload: Mapping[str, Any] | None = None) -> None:
        self._finish(command_id, CommandStatus.FAILED, {"error": reason}, payload)

    def _finish(
        self,
        command_id: int,
        status: CommandStatus,
        result: dict[str, Any],
        payload: Mapping[str, Any] | None,
    ) -> None:
        with transaction(self.conn):
            self.conn.execute(
                "UPDATE commands SET status = ?, result = ?, done_at = ? WHERE id = ? AND status = 'pending'",
                (status.value, json.dumps(result, sort_keys=True), time.time(), command_id),
            )
            if payload is not None:
                self.conn.execute(
                    "UPDATE commands SET payload = ? WHERE id = ?",
                    (json.dumps(dict(payload), sort_keys=True), command_id),
                )

    def get(self, command_id: int) -> Command | None:
        row = self.conn.execute("SELECT * FROM commands WHERE id = ?", (command_id,)).fetchone()
        return None if row is None else _command(row)

    def wait(self, command_id: int, *, timeout: float = 3.0, interval: float = 0.01) -> Command | None:
        """Poll until the command is finished; ``None`` if it is unknown, else the
        command as it stands when finished or when *timeout* runs out."""
        deadline = time.monotonic() + timeout
        while True:
            command = self.get(command_id)
            if command is None or command.is_finished() or time.monotonic() >= deadline:
                return command
            time.sleep(interval)


def _command(row: sqlite3.Row) -> Command:
    return Command(
        id=int(row["id"]),
        at=float(row["at"]),
        kind=CommandKind(row["kind"]),
        payload=json.loads(row["payload"]),
        status=CommandStatus(row["status"]),
        result=json.loads(row["result"]) if row["result"] else None,
        done_at=None if row["done_at"] is None else float(row["done_at"]),
    )
