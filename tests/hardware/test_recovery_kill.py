"""Kill a real board service process with SIGKILL mid-game and start it again.

The service runs as ``hautetension board --backend sim`` in a child process;
the test drives the virtual board through SIM_SLOT commands in the shared
database, exactly as the panel does.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from store.commands import CommandKind, Commands, CommandStatus
from store.db import connect
from store.journal import Journal

BIN = Path(sys.executable).with_name("hautetension")
W_ROW = ["a9", "b9", "c9", "d9", "e9"]


class ServiceProcess:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.db = folder / "board.db"
        env = {k: v for k, v in os.environ.items() if k not in ("HAUTETENSION_CONFIG", "NOTIFY_SOCKET")}
        env["HAUTETENSION_CONFIG"] = str(folder / "config.toml")
        (folder / "config.toml").write_text("[board]\nsettle_ms = 100\n")
        self.proc = subprocess.Popen(
            [str(BIN), "board", "--backend", "sim", "--db", str(self.db), "--min-turn", "0"],
            cwd=folder,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
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
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream:
                stream.close()
        self.conn.close()


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
