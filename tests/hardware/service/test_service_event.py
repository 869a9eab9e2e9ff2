"""An event's game on the board: the assignment it came from, its lamp order, the players' "I agree"."""

from __future__ import annotations

from pathlib import Path

import pytest

from games.hautetension.outcome import Lighting
from store.commands import CommandKind, CommandStatus
from store.outbox import Outbox
from tests.hardware.helpers import Rig
from tournaments.points import game_points

ASSIGNMENT = "0f3c2a9be1d84c55a0b7c1d2e3f40516"
N_COLUMN = ["f9", "f8", "f7", "f6", "f5"]  # closes N: the first seat's lamp


def _finished(rig: Rig, *, assignment: str | None = ASSIGNMENT) -> None:
    extra = {"assignment": assignment} if assignment else {}
    assert rig.new_game(("Ana", "Ben"), **extra).status is CommandStatus.DONE
    for slot in N_COLUMN:
        rig.place(slot)
    assert rig.state["game"]["status"] == "over"


def _confirm(rig: Rig, seats: list[int], by: str = "player") -> tuple[CommandStatus, dict[str, object]]:
    command = rig.command(CommandKind.CONFIRM_RESULT, {"seats": seats, "by": by})
    return command.status, command.result or {}


def test_the_assignment_goes_into_the_games_start_end_and_state(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    _finished(rig)
    start = rig.journal.last_of_kind("game-start")
    end = rig.journal.last_of_kind("game-end")
    assert start is not None and start.public["assignment"] == ASSIGNMENT
    assert end is not None and end.public["assignment"] == ASSIGNMENT
    game = rig.state["game"]
    assert (game["assignment"], game["confirmed"]) == (ASSIGNMENT, [])
    rig.close()


def test_the_end_of_a_game_carries_its_lamp_order(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    _finished(rig, assignment=None)
    end = rig.journal.last_of_kind("game-end")
    assert end is not None and "assignment" not in end.public
    lightings = [Lighting.from_dict(x) for x in end.public["lightings"]]
    assert lightings == [Lighting((0,), by=0)]  # Ana's own pawn closed her lamp's row
    assert tuple(end.public["points"]) == game_points(2, lightings)
    assert "assignment" not in rig.state["game"]  # a free game is not an event's: nothing to confirm
    rig.close()


def test_a_bad_assignment_is_refused_and_no_game_starts(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    command = rig.new_game(("Ana", "Ben"), assignment="not an id!")
    assert command.status is CommandStatus.FAILED and "assignment must be" in (command.result or {})["error"]
    assert rig.state["game"] is None
    rig.close()


def test_each_seat_agrees_once_and_staff_may_agree_for_all(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    _finished(rig)
    assert _confirm(rig, [1]) == (CommandStatus.DONE, {"game": 1, "confirmed": [1]})
    before = len(rig.journal.tail(0, limit=10_000))
    assert _confirm(rig, [1]) == (CommandStatus.DONE, {"game": 1, "confirmed": [1]})  # tapped twice
    assert len(rig.journal.tail(0, limit=10_000)) == before
    assert _confirm(rig, [0, 1], by="staff")[1]["confirmed"] == [0, 1]
    entries = rig.journal.tail(0, kinds=["result-confirmed"])
    assert [(e.public["seats"], e.public["by"], e.game_id) for e in entries] == [
        ([1], "player", 1),
        ([0], "staff", 1),
    ]
    assert rig.state["game"]["confirmed"] == [0, 1]
    outbox = [r for r in Outbox(rig.conn).rows(0, limit=1000) if r.kind == "result-confirmed"]
    assert [r.game_id for r in outbox] == [1, 1]  # reported to the event, under the game
    rig.close()


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        ({"seats": [2], "by": "player"}, "seats are numbers from 0 to 1"),
        ({"seats": [], "by": "player"}, "seats are numbers"),
        ({"seats": [True], "by": "player"}, "seats are numbers"),
        ({"seats": [0], "by": "somebody"}, 'by is "player" or "staff"'),
    ],
)
def test_a_confirmation_that_cannot_be_is_refused(
    tmp_path: Path, payload: dict[str, object], message: str
) -> None:
    rig = Rig(tmp_path)
    _finished(rig)
    command = rig.command(CommandKind.CONFIRM_RESULT, payload)
    assert command.status is CommandStatus.FAILED and message in (command.result or {})["error"]
    assert rig.state["game"]["confirmed"] == []
    rig.close()


def test_nothing_to_confirm_before_the_end_or_for_a_free_game(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    rig.new_game(("Ana", "Ben"), assignment=ASSIGNMENT)
    command = rig.command(CommandKind.CONFIRM_RESULT, {"seats": [0], "by": "player"})
    assert command.status is CommandStatus.FAILED and "is running: there is no result" in str(command.result)
    rig.command(CommandKind.ABANDON_GAME)
    command = rig.command(CommandKind.CONFIRM_RESULT, {"seats": [0], "by": "player"})
    assert command.status is CommandStatus.FAILED and "abandoned" in str(command.result)
    rig.close()
    free = Rig(tmp_path / "free")
    _finished(free, assignment=None)
    command = free.command(CommandKind.CONFIRM_RESULT, {"seats": [0], "by": "player"})
    assert command.status is CommandStatus.FAILED and "started from an event's table" in str(command.result)
    free.close()


def test_a_restart_keeps_the_assignment_and_who_agreed(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    _finished(rig)
    _confirm(rig, [0])
    rig.service.backend.close()
    rig.conn.close()
    after = Rig(tmp_path)
    game = after.state["game"]
    assert (game["assignment"], game["confirmed"], game["status"]) == (ASSIGNMENT, [0], "over")
    assert _confirm(after, [1])[1]["confirmed"] == [0, 1]
    after.close()
