"""The pre-game check: every lamp lights while the test button is held, before play.

First the check alone (no I/O: the button's times and the lamp currents are
handed to it), then through the board service on the simulated board, with
and without lamp-current feedback, a blown bulb, a skip and a restart.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from hardware.service.pregame import MIN_HOLD_S, CheckRefused, CheckStatus, PregameCheck
from hautetension.commands.game import describe
from store.commands import CommandKind, CommandStatus
from tests.hardware.helpers import Rig

LAMPS = ("N", "E", "S", "W")
FEEDBACK = {
    "N": {"gpio": 12, "feedback_gpio": 7}, "E": {"gpio": 16, "feedback_gpio": 8},
    "S": {"gpio": 20, "feedback_gpio": 11}, "W": {"gpio": 21, "feedback_gpio": 14},
}
"""Every lamp with a current-feedback input."""


def hold(check: PregameCheck, *, drew: tuple[str, ...] = LAMPS, seconds: float = 1.0) -> list[Any]:
    check.button(True, 10.0)
    check.currents({lamp: lamp in drew for lamp in check.sensed})
    return check.button(False, 10.0 + seconds)


def test_sensed_lamps_that_drew_current_pass_without_asking_the_players() -> None:
    check = PregameCheck(1, LAMPS, frozenset(LAMPS))
    [entry] = hold(check)
    assert check.status is CheckStatus.PASSED and check.is_done
    assert entry.kind == "pregame-check"
    assert entry.public == {"game": 1, "result": "passed", "lamps": dict.fromkeys(LAMPS, "current"),
                            "failed": [], "by": "current", "attempt": 1, "held_s": 1.0}


def test_a_lamp_that_drew_no_current_fails_and_names_it_until_a_new_hold_passes() -> None:
    check = PregameCheck(1, LAMPS, frozenset(LAMPS))
    [entry] = hold(check, drew=("N", "S", "W"))
    assert check.status is CheckStatus.FAILED and not check.is_done
    assert entry.public["failed"] == ["E"] and entry.public["lamps"]["E"] == "failed"
    assert check.to_public()["failed"] == ["E"]
    [again] = hold(check)
    assert again.public["result"] == "passed" and again.public["attempt"] == 2


def test_lamps_without_feedback_are_confirmed_by_the_players() -> None:
    check = PregameCheck(1, LAMPS, frozenset({"N"}))
    assert hold(check) == []  # no verdict yet: the players say what they saw
    assert check.status is CheckStatus.CONFIRM and check.to_public()["ask"] == ["E", "S", "W"]
    [entry] = check.confirm([])
    assert entry.public["result"] == "passed" and entry.public["by"] == "players"
    assert entry.public["lamps"] == {"N": "current", "E": "seen", "S": "seen", "W": "seen"}


def test_a_lamp_the_players_did_not_see_light_fails() -> None:
    check = PregameCheck(1, LAMPS)
    hold(check)
    [entry] = check.confirm(["W"])
    assert check.status is CheckStatus.FAILED and entry.public["failed"] == ["W"]
    with pytest.raises(CheckRefused, match="hold the test button first"):
        check.confirm([])  # a failed lamp is looked at, then the button held again
    hold(check)
    assert check.confirm([])[0].public["attempt"] == 2 and check.is_done


def test_the_players_confirm_only_lamps_without_feedback_and_only_after_a_hold() -> None:
    check = PregameCheck(1, LAMPS, frozenset({"N"}))
    with pytest.raises(CheckRefused, match="hold the test button first"):
        check.confirm([])
    hold(check)
    with pytest.raises(CheckRefused, match="not N, X"):
        check.confirm(["N", "X"])
    assert check.status is CheckStatus.CONFIRM  # a refused answer changes nothing


def test_a_tap_is_not_a_check() -> None:
    check = PregameCheck(1, LAMPS, frozenset(LAMPS))
    assert hold(check, seconds=MIN_HOLD_S / 2) == []
    assert check.status is CheckStatus.WAITING and check.to_public()["short"] is True
    assert check.attempts == 0


def test_staff_skip_is_a_verdict_and_a_finished_check_takes_nothing_more() -> None:
    check = PregameCheck(1, LAMPS)
    [entry] = check.skip()
    assert entry.public["result"] == "skipped" and entry.public["by"] == "staff"
    assert set(entry.public["lamps"].values()) == {"unchecked"} and check.is_done
    with pytest.raises(CheckRefused, match="over already"):
        check.skip()
    with pytest.raises(CheckRefused, match="is over"):
        check.confirm([])
    assert hold(check) == []  # the button after the check is the ordinary lamp test


def test_a_check_replays_from_its_journal_entries() -> None:
    check = PregameCheck(1, LAMPS, frozenset(LAMPS))
    [failed] = hold(check, drew=("N",))
    again = PregameCheck(1, LAMPS, frozenset(LAMPS))
    again.replay(failed.public)
    assert again.to_public() == check.to_public()


# -- through the board service ------------------------------------------------------------------------


@pytest.fixture
def rig(tmp_path: Path) -> Any:
    r = Rig(tmp_path)
    yield r
    r.close()


@pytest.fixture
def sensed(tmp_path: Path) -> Any:
    r = Rig(tmp_path, hardware={"lamps": FEEDBACK})
    yield r
    r.close()


def check_entries(rig: Rig) -> list[dict[str, Any]]:
    return [e.public for e in rig.journal.tail(0, limit=10_000) if e.kind == "pregame-check"]


def test_nobody_plays_before_the_players_confirm_the_lamps(rig: Rig) -> None:
    assert rig.new_game(pregame_check="ask").status is CommandStatus.DONE
    game = rig.state["game"]
    assert game["check"]["status"] == "waiting" and game["view"]["to_move"] is None
    assert "hold the test button" in "\n".join(describe(rig.state, heartbeat_age=0))
    rig.place("f9")
    [anomaly] = rig.state["anomalies"]
    assert "before the pre-game check is over" in anomaly["message"]
    rig.lift("f9")
    rig.hold_button()
    assert rig.state["game"]["check"]["ask"] == list(LAMPS)
    done = rig.command(CommandKind.PREGAME_CHECK, {"action": "confirm", "not_lit": []})
    assert done.status is CommandStatus.DONE and done.result["check"]["status"] == "passed"
    assert rig.state["game"]["view"]["to_move"] == 0
    rig.place("f9")
    assert rig.state["game"]["view"]["moves"] == [{"slot": "f9", "player": 0}]
    [entry] = check_entries(rig)
    assert entry["result"] == "passed" and entry["by"] == "players"


def test_a_blown_bulb_stops_the_game_from_starting_and_says_which(sensed: Rig) -> None:
    sensed.new_game(pregame_check="ask")
    sensed.backend.virtual_board.blow_lamp("S")
    sensed.hold_button()
    check = sensed.state["game"]["check"]
    assert check["status"] == "failed" and check["failed"] == ["S"]
    assert sensed.state["game"]["view"]["to_move"] is None
    assert "lamp(s) S did not light" in "\n".join(describe(sensed.state, heartbeat_age=0))
    refused = sensed.command(CommandKind.PREGAME_CHECK, {"action": "confirm", "not_lit": []})
    assert refused.status is CommandStatus.FAILED and "hold the test button" in refused.result["error"]
    sensed.backend.virtual_board.repair_lamp("S")
    sensed.hold_button()
    assert sensed.state["game"]["check"]["status"] == "passed"
    assert sensed.state["game"]["view"]["to_move"] == 0
    assert [(e["result"], e["failed"], e["by"]) for e in check_entries(sensed)] == [
        ("failed", ["S"], "current"), ("passed", [], "current")]


def test_staff_skip_the_check_at_setup_or_while_it_waits(rig: Rig) -> None:
    rig.new_game()  # the rig's default: skipped at setup
    assert rig.state["game"]["check"]["status"] == "skipped"
    assert [e["by"] for e in check_entries(rig)] == ["staff"]
    rig.command(CommandKind.ABANDON_GAME)
    rig.new_game(pregame_check="ask")
    skipped = rig.command(CommandKind.PREGAME_CHECK, {"action": "skip"})
    assert skipped.status is CommandStatus.DONE and rig.state["game"]["view"]["to_move"] == 0
    again = rig.command(CommandKind.PREGAME_CHECK, {"action": "skip"})
    assert again.status is CommandStatus.FAILED and "no game is waiting" in again.result["error"]


@pytest.mark.parametrize("payload", [{"action": "pass"}, {"action": "confirm", "not_lit": "N"}, {}])
def test_a_bad_check_command_is_refused_with_the_reason(rig: Rig, payload: dict[str, Any]) -> None:
    rig.new_game(pregame_check="ask")
    command = rig.command(CommandKind.PREGAME_CHECK, payload)
    assert command.status is CommandStatus.FAILED and command.result["error"]
    assert rig.state["game"]["check"]["status"] == "waiting"


def test_a_restart_keeps_where_the_check_was(tmp_path: Path) -> None:
    first = Rig(tmp_path, hardware={"lamps": FEEDBACK})
    first.new_game(pregame_check="ask")
    first.backend.virtual_board.blow_lamp("N")
    first.hold_button()
    first.close()
    second = Rig(tmp_path, hardware={"lamps": FEEDBACK})
    try:
        check = second.state["game"]["check"]
        assert check["status"] == "failed" and check["failed"] == ["N"]
        assert second.state["game"]["view"]["to_move"] is None
        second.hold_button()
        assert second.state["game"]["check"]["status"] == "passed"
        assert second.state["game"]["check"]["attempts"] == 2
    finally:
        second.close()
