"""The wiring wizard in the board service: the WIRING command, never during a game, slot events
ignored while it runs, its progress in the database, resumed after a restart."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from games.hautetension.pawn import PawnKind
from hardware.wiring.demo import SimulatedBuilder
from store.commands import CommandKind, CommandStatus
from store.journal import JournalKind
from store.wiring import WiringProgress
from tests.hardware.helpers import Rig


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[Rig]:
    made = Rig(tmp_path)
    yield made
    made.close()


def wiring(rig: Rig, action: str, **payload: Any) -> Any:
    return rig.command(CommandKind.WIRING, {"action": action, **payload})


def view(rig: Rig) -> dict[str, Any]:
    record = WiringProgress(rig.conn).load()
    assert record is not None
    return record.view


def learn_slots(rig: Rig, count: int) -> None:
    """Let simulated hands do as the wizard says until *count* slots are learned."""
    builder = SimulatedBuilder(rig.backend.virtual_board, lambda: view(rig), pace=0.05)
    for _ in range(20_000):
        if view(rig)["count"] >= count and not rig.backend.virtual_board.pawns:
            return
        rig.run(0.01)
        builder.act(rig.clock.now())
    raise AssertionError(view(rig))


def test_the_service_runs_the_wizard_and_keeps_its_progress(rig: Rig) -> None:
    started = wiring(rig, "start", hold=0.05)
    assert started.status is CommandStatus.DONE and started.result["running"] is True
    assert started.result["view"]["task"] == "clear"
    assert rig.service.health()["service"]["wiring"] is True
    assert rig.backend.scanner.every_channel
    learn_slots(rig, 3)
    saved = WiringProgress(rig.conn).load()
    assert saved is not None and saved.running == "board service" and saved.layout == "pinwheel-80"
    assert sorted(saved.progress["learned"]) == ["a9", "b9", "c9"]
    assert saved.progress["learned"]["a9"] == {"presence": [0, 0], "conduction": [0, 1]}
    # No slot event reached the referee while the wizard ran: the slot names meant nothing.
    assert JournalKind.SLOT not in rig.kinds() and JournalKind.ANOMALY not in rig.kinds()
    redo = wiring(rig, "redo", slot="b9")
    assert redo.status is CommandStatus.DONE and redo.result["view"]["slot"] == "b9"
    refused = wiring(rig, "redo", slot="z9")
    assert refused.status is CommandStatus.FAILED and "no slot" in refused.result["error"]
    rig.backend.virtual_board.place("h5", PawnKind.ATTACK)  # left on the board when the wizard stops
    rig.run(0.1)
    stopped = wiring(rig, "stop")
    assert stopped.status is CommandStatus.DONE and stopped.result == {"running": False}
    assert not rig.backend.scanner.every_channel
    assert WiringProgress(rig.conn).load().running is None  # type: ignore[union-attr]
    # The referee now sees the pawn under the configured map: a pawn with no game.
    assert rig.state["anomalies"][0]["kind"] == "no-game" and rig.state["anomalies"][0]["slot"] == "h5"


def test_the_wizard_resumes_after_the_service_restarts(tmp_path: Path) -> None:
    first = Rig(tmp_path)
    wiring(first, "start", hold=0.05)
    learn_slots(first, 2)
    first.close()  # the service stops (or dies) with the wizard running
    second = Rig(tmp_path)
    try:
        resumed = wiring(second, "start", hold=0.05)
        assert resumed.result["view"]["count"] == 2 and resumed.result["view"]["task"] == "clear"
        learn_slots(second, 3)
        assert view(second)["learned"]["c9"] == {"presence": [0, 4], "conduction": [0, 5]}
        restarted = wiring(second, "stop"), wiring(second, "start", restart=True, hold=0.05)
        assert restarted[1].result["view"]["count"] == 0
    finally:
        second.close()


def test_never_during_a_game(rig: Rig) -> None:
    assert rig.new_game().status is CommandStatus.DONE
    refused = wiring(rig, "start")
    assert refused.status is CommandStatus.FAILED
    assert refused.result["error"] == ("the wiring wizard reads raw slot readings, which a running game keeps"
                                       " secret: abandon or finish the game first")
    assert wiring(rig, "stop").status is CommandStatus.DONE  # stopping is always fine
    assert rig.service.wiring is None and WiringProgress(rig.conn).load() is None


def test_no_game_starts_while_the_wizard_runs(rig: Rig) -> None:
    wiring(rig, "start")
    refused = rig.new_game()
    assert refused.status is CommandStatus.FAILED
    assert "the wiring wizard is running" in refused.result["error"]
    wiring(rig, "stop")
    assert rig.new_game().status is CommandStatus.DONE


def test_bad_wiring_commands_are_refused_with_their_reason(rig: Rig) -> None:
    cases = [
        ({"action": "dance"}, "must be one of start, stop, redo, accept, reset"),
        ({"action": "redo", "slot": "a9"}, "not running: start it first"),
        ({"action": "start", "hold": 60}, "hold must be a number of seconds from 0.02 to 5"),
        ({"action": "start", "hold": True}, "hold must be a number"),
    ]
    for payload, reason in cases:
        command = rig.command(CommandKind.WIRING, payload)
        assert command.status is CommandStatus.FAILED and reason in command.result["error"], command
    wiring(rig, "start")
    assert "nothing to leave out" in wiring(rig, "accept").result["error"]
    assert "stop it before forgetting" in wiring(rig, "reset").result["error"]
    assert wiring(rig, "start").status is CommandStatus.DONE  # already running: its view
    wiring(rig, "stop")
    assert wiring(rig, "reset").result == {"running": False, "forgotten": True}
    assert wiring(rig, "reset").result == {"running": False, "forgotten": False}


def test_channels_closed_on_the_empty_board_are_left_out_by_command(rig: Rig) -> None:
    rig.backend.virtual_board.stick(3, 3, False)  # stuck closed (active low)
    wiring(rig, "start", hold=0.05)
    rig.run(0.2)
    problem = view(rig)["problems"][0]
    assert problem["kind"] == "closed-on-empty-board" and problem["channels"] == [[3, 3]]
    accepted = wiring(rig, "accept")
    assert accepted.result["accepted"] == ["multiplexer 3 channel 3"]
    rig.run(0.2)
    assert view(rig)["task"] == "defense" and view(rig)["ignored"] == [[3, 3]]


def test_the_serial_board_has_no_raw_channels_for_the_wizard() -> None:
    from hardware.backends.serial import SerialBackend
    from hardware.exc import WiringError
    from hardware.wiring.session import WiringSession

    assert SerialBackend.raw_channels is None
    with pytest.raises(WiringError, match="reads its channels itself"):
        WiringSession(SerialBackend.__new__(SerialBackend), None, store=None, owner="t", now=0.0)  # type: ignore[arg-type]
