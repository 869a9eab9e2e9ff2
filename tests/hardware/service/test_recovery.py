"""Recovery in one process: the service stops without a word and a new one takes over.

(The same with a real process killed by SIGKILL is in test_recovery_kill.py.)
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

from hardware.service.recovery import RecoveryError

_spec = importlib.util.spec_from_file_location("service_rig", Path(__file__).with_name("test_service.py"))
assert _spec is not None and _spec.loader is not None
_rig_module = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_rig_module)
Rig = _rig_module.Rig

W_ROW = ["a9", "b9", "c9", "d9", "e9"]
"""A straight row to lamp W, which nobody owns in a three-player game."""


def _three_player_game_with_w_lit(folder: Path) -> Any:
    rig = Rig(folder)
    rig.new_game(("Ana", "Ben", "Cy"))
    for slot in W_ROW + ["i1", "h1"]:
        rig.place(slot)
    state = rig.state
    assert state["lamps"]["lit"] == ["W"] and state["game"]["status"] == "running"
    return rig


def _crash(rig: Any) -> None:
    """Stop without the loop's clean exit: no service-stop entry, nothing flushed on purpose."""
    rig.service.backend.close()
    rig.conn.close()


def test_a_restarted_service_resumes_the_same_game_turn_and_lamps(tmp_path: Path) -> None:
    before = _three_player_game_with_w_lit(tmp_path)
    view_before = before.state["game"]["view"]
    _crash(before)
    after = Rig(tmp_path)
    assert after.service.recovery.resumed, after.service.recovery.message
    state = after.state
    assert state["game"]["view"] == view_before and state["game"]["view"]["to_move"] == 1
    assert after.lamps_on() == {"W"} and state["anomalies"] == []
    start = after.journal.last_of_kind("service-start")
    assert start is not None and start.public["resumed"] is True and "Ben to move" in start.public["message"]
    after.place("g1")
    assert after.state["game"]["view"]["moves"][-1] == {"slot": "g1", "player": 1}
    after.close()


def test_a_board_changed_while_down_is_named_and_pauses_the_game(tmp_path: Path) -> None:
    before = _three_player_game_with_w_lit(tmp_path)
    _crash(before)
    pawns = json.loads((tmp_path / "sim-board.json").read_text())
    del pawns["c9"]  # someone took a pawn
    pawns["a1"] = "attack"  # and someone put two
    pawns["b1"] = "attack"
    (tmp_path / "sim-board.json").write_text(json.dumps(pawns))
    after = Rig(tmp_path)
    recovery = after.service.recovery
    assert not recovery.resumed and recovery.changed == ("a1", "b1", "c9")
    assert "changed while the board service was down" in recovery.message
    state = after.state
    assert {a["slot"]: a["kind"] for a in state["anomalies"]} == dict.fromkeys(
        ("a1", "b1", "c9"), "changed-while-down"
    )
    # The W row is open now: the lamps tell the truth.
    assert state["paused"] is True and after.lamps_on() == set()
    journaled = [e.public["slot"] for e in after.journal.tail(0, kinds=["anomaly"])]
    assert journaled == ["a1", "b1", "c9"]
    for slot in ("a1", "b1"):
        after.lift(slot)
    after.place("c9")
    assert after.state["anomalies"] == [] and after.state["paused"] is False and after.lamps_on() == {"W"}
    assert after.state["game"]["view"]["to_move"] == 1
    after.close()


def test_one_pawn_placed_while_down_is_the_move_of_the_player_to_move(tmp_path: Path) -> None:
    before = _three_player_game_with_w_lit(tmp_path)
    _crash(before)
    pawns = json.loads((tmp_path / "sim-board.json").read_text())
    pawns["g1"] = "defense"
    (tmp_path / "sim-board.json").write_text(json.dumps(pawns))
    after = Rig(tmp_path)
    assert after.service.recovery.resumed and after.service.recovery.recovered_slot == "g1"
    assert after.state["game"]["view"]["moves"][-1] == {"slot": "g1", "player": 1}
    assert after.state["game"]["view"]["to_move"] == 2
    after.close()


def test_open_anomalies_survive_a_restart(tmp_path: Path) -> None:
    before = Rig(tmp_path)
    before.new_game()
    before.place("a9")
    before.place("b9")
    before.lift("a9")
    [anomaly] = before.state["anomalies"]
    _crash(before)
    after = Rig(tmp_path)
    assert after.state["anomalies"] == [anomaly] and not after.service.recovery.resumed
    after.place("a9")
    assert after.state["anomalies"] == [] and after.state["game"]["view"]["to_move"] == 0
    after.close()


def test_a_finished_game_stays_finished_with_its_points(tmp_path: Path) -> None:
    before = Rig(tmp_path)
    before.new_game()
    for slot in ["f9", "f8", "f7", "f6", "f5"]:
        before.place(slot)
    game = before.state["game"]
    assert game["status"] == "over"
    _crash(before)
    after = Rig(tmp_path)
    assert after.state["game"] == game and after.state["anomalies"] == [] and after.lamps_on() == {"N"}
    after.close()


def test_an_unreplayable_journal_is_a_clear_error(tmp_path: Path) -> None:
    before = Rig(tmp_path)
    before.new_game()
    before.place("a9")
    before.conn.execute(
        "UPDATE journal SET public = json_set(public, '$.slot', 'z0') WHERE kind = 'placement'"
    )
    _crash(before)
    with pytest.raises(RecoveryError, match="cannot replay placement"):
        Rig(tmp_path)


def test_commands_left_from_before_a_restart_are_not_carried_out(tmp_path: Path) -> None:
    from store.commands import CommandKind, CommandStatus

    before = Rig(tmp_path)
    stale = before.commands.submit(CommandKind.NEW_GAME, {"players": ["Ana", "Ben"]})
    before.conn.execute("UPDATE commands SET at = at - 60 WHERE id = ?", (stale,))
    fresh = before.commands.submit(CommandKind.LAMP_TEST, {"on": True})
    _crash(before)
    after = Rig(tmp_path)
    command = after.commands.get(stale)
    assert command is not None and command.status is CommandStatus.FAILED
    assert "queued 60 s ago" in command.result["error"] and after.state["game"] is None  # type: ignore[index]
    after.run()
    done = after.commands.get(fresh)
    assert done is not None and done.status is CommandStatus.DONE and after.lamps_on() == set("NESW")
    after.close()


def test_a_power_cut_in_the_middle_of_a_journal_write(tmp_path: Path) -> None:
    """The disk as a power cut leaves it: the last transaction's WAL frames half written."""
    import shutil

    before = Rig(tmp_path / "live")
    before.new_game()
    before.place("a9")
    before.place("i1", "defense")
    assert before.journal.last_of_kind("placement").public["slot"] == "i1"  # type: ignore[union-attr]
    cut = tmp_path / "cut"
    cut.mkdir()
    # Copy the files while the service still has the database open (its WAL not checkpointed).
    for name in ("board.db", "board.db-wal", "sim-board.json"):
        shutil.copyfile(tmp_path / "live" / name, cut / name)
    _crash(before)
    wal = cut / "board.db-wal"
    wal.write_bytes(wal.read_bytes()[:-100])  # the last frame, holding the placement's commit, is torn

    after = Rig(cut)
    assert after.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert [e.public["slot"] for e in after.journal.tail(0, kinds=["placement"])] == ["a9", "i1"]
    # The torn placement is gone from the journal; the pawn is on the board: it is the move of Ben.
    assert after.service.recovery.resumed and after.service.recovery.recovered_slot == "i1"
    assert after.state["game"]["view"]["moves"] == [{"slot": "a9", "player": 0}, {"slot": "i1", "player": 1}]
    after.close()
