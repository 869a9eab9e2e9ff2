from __future__ import annotations

import threading
from pathlib import Path

from store.commands import CommandKind, Commands, CommandStatus
from store.db import connect


def test_submitted_command_is_pending_until_completed(tmp_path: Path) -> None:
    commands = Commands(connect(tmp_path / "c.db"))
    command_id = commands.submit(CommandKind.SIM_SLOT, {"slot": "a9", "pawn": "attack"})
    [pending] = commands.pending()
    assert pending.id == command_id and pending.kind is CommandKind.SIM_SLOT
    assert pending.payload == {"slot": "a9", "pawn": "attack"}
    commands.complete(command_id, {"ok": True})
    assert commands.pending() == []
    done = commands.get(command_id)
    assert done is not None and done.status is CommandStatus.DONE and done.result == {"ok": True}


def test_failed_command_keeps_its_reason_and_cannot_be_finished_twice(tmp_path: Path) -> None:
    commands = Commands(connect(tmp_path / "c.db"))
    command_id = commands.submit(CommandKind.LAMP_TEST, {"on": True})
    commands.fail(command_id, "a game is running")
    commands.complete(command_id, {"ok": True})
    failed = commands.get(command_id)
    assert failed is not None and failed.status is CommandStatus.FAILED
    assert failed.result == {"error": "a game is running"}


def test_wait_returns_when_another_connection_completes(tmp_path: Path) -> None:
    path = tmp_path / "c.db"
    panel = Commands(connect(path))
    service = Commands(connect(path))
    command_id = panel.submit(CommandKind.ABANDON_GAME)
    timer = threading.Timer(0.05, service.complete, args=(command_id, {"abandoned": True}))
    timer.start()
    finished = panel.wait(command_id, timeout=5)
    timer.join()
    assert finished is not None and finished.status is CommandStatus.DONE


def test_wait_gives_up_on_a_command_nobody_takes(tmp_path: Path) -> None:
    commands = Commands(connect(tmp_path / "c.db"))
    command_id = commands.submit(CommandKind.SELF_TEST)
    still = commands.wait(command_id, timeout=0.05)
    assert still is not None and still.status is CommandStatus.PENDING
    assert commands.wait(9999, timeout=0.01) is None


def test_finishing_a_command_can_blank_its_payload(tmp_path: Path) -> None:
    commands = Commands(connect(tmp_path / "c.db"))
    placed = commands.submit(CommandKind.SIM_SLOT, {"slot": "a9", "pawn": "defense"})
    refused = commands.submit(CommandKind.SIM_SLOT, {"slot": "e5", "pawn": "defense"})
    kept = commands.submit(CommandKind.LAMP_TEST, {"on": True})
    commands.complete(placed, {"slot": "a9"}, payload={"slot": "a9", "pawn": "hidden"})
    commands.fail(refused, "no slot e5", payload={"slot": "e5", "pawn": "hidden"})
    commands.complete(kept)
    assert commands.get(placed).payload == {"slot": "a9", "pawn": "hidden"}  # type: ignore[union-attr]
    assert commands.get(refused).payload == {"slot": "e5", "pawn": "hidden"}  # type: ignore[union-attr]
    assert commands.get(kept).payload == {"on": True}  # type: ignore[union-attr]
