"""Kill a real board service process with SIGKILL mid-game and start it again.

The service runs as ``hautetension board --backend sim`` in a child process;
the test drives the virtual board through SIM_SLOT commands in the shared
database, exactly as the panel does.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from store.commands import CommandKind
from store.db import connect
from store.journal import Journal
from tests.hardware.helpers import ServiceProcess

W_ROW = ["a9", "b9", "c9", "d9", "e9"]


@pytest.fixture
def processes(tmp_path: Path) -> Iterator[list[ServiceProcess]]:
    started: list[ServiceProcess] = []
    yield started
    for process in started:
        if process.proc.poll() is None:
            process.close()


def _start(tmp_path: Path, processes: list[ServiceProcess]) -> ServiceProcess:
    process = ServiceProcess(tmp_path)
    processes.append(process)
    return process


def test_kill_9_mid_game_then_restart_resumes_same_game_turn_and_lamps(
    tmp_path: Path, processes: list[ServiceProcess]
) -> None:
    first = _start(tmp_path, processes)
    first.command(CommandKind.NEW_GAME, {"players": [{"name": n} for n in ("Ana", "Ben", "Cy")],
                                         "pregame_check": "skip"})
    for slot in W_ROW + ["i1"]:
        first.place(slot)
    before = first.state
    assert before["lamps"]["lit"] == ["W"] and before["game"]["view"]["to_move"] == 0
    first.kill()

    second = _start(tmp_path, processes)
    after = second.state
    assert after["game"] == before["game"]
    assert after["lamps"]["lit"] == ["W"] and after["anomalies"] == []
    start = second.journal.last_of_kind("service-start")
    assert start is not None and start.public["resumed"] is True and start.public["pid"] == second.proc.pid
    second.place("h1")
    assert second.state["game"]["view"]["moves"][-1] == {"slot": "h1", "player": 0}
    assert second.stop() == 0
    stop = Journal(connect(tmp_path / "board.db")).last_of_kind("service-stop")
    assert stop is not None and stop.public["pid"] == second.proc.pid


def test_kill_9_right_after_a_pawn_and_a_board_changed_while_down(
    tmp_path: Path, processes: list[ServiceProcess]
) -> None:
    first = _start(tmp_path, processes)
    first.command(CommandKind.NEW_GAME,
                  {"players": [{"name": "Ana"}, {"name": "Ben"}], "pregame_check": "skip"})
    first.place("a9")
    first.place("i1", "defense", wait=False)  # killed before or after the scanner confirms it
    first.kill()

    second = _start(tmp_path, processes)
    moves = second.state["game"]["view"]["moves"]
    assert moves == [{"slot": "a9", "player": 0}, {"slot": "i1", "player": 1}]
    assert second.state["anomalies"] == [] and second.state["game"]["view"]["to_move"] == 0
    second.kill()

    board = json.loads((tmp_path / "board.db.sim-board.json").read_text())
    assert board == {"a9": "attack", "i1": "defense"}
    del board["a9"]
    (tmp_path / "board.db.sim-board.json").write_text(json.dumps(board))
    third = _start(tmp_path, processes)
    start = third.journal.last_of_kind("service-start")
    assert start is not None and start.public["resumed"] is False
    assert start.public["changed_while_down"] == ["a9"] and "a9" in start.public["message"]
    assert third.state["paused"] is True
    assert [a["kind"] for a in third.state["anomalies"]] == ["changed-while-down"]
    third.place("a9")
    third._wait(lambda: not third.state["anomalies"], "the anomaly to close")
    assert third.state["paused"] is False and third.state["game"]["view"]["to_move"] == 0
    assert third.stop() == 0
