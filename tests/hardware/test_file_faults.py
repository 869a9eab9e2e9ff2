"""File faults say what they are: the simulated board's file, a folder or a database that turns read-only.

Before: a corrupt or unreadable sim-board file was taken as an empty board (and
staff were told to put back pawns nobody had moved); a SIM_SLOT in a read-only
folder, or a journal write the database refused, raised out of the loop with a
traceback and left the command pending.
"""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import time
from pathlib import Path

import pytest

from configuration import EX_CONFIG
from games.hautetension.pawn import PawnKind
from hardware.exc import SimBoardFileError
from hardware.service import STALE_COMMAND_S
from hardware.service.sim import SimBoardFile
from hardware.service.writer import RETRY_S
from store.commands import CommandKind, Commands, CommandStatus
from store.db import connect
from store.journal import Journal
from tests.hardware.helpers import Rig, ServiceProcess, board_command, read_only_folder, unwritable

# The pre-game check is skipped: these tests are about files, not lamps.
PLAYERS = {"players": [{"name": "Ana"}, {"name": "Ben"}], "pregame_check": "skip"}

CORRUPT = {
    "not JSON": (b'{"a9": "attack", "b9', "are not JSON"),
    "not an object": (b'["a9", "attack"]', "a JSON object such as"),
    "not a kind": (b'{"a9": "attack", "b9": "gold"}', "not b9: 'gold'"),
    "not text": (b"\xff\xfe\x00garbage", "cannot read"),
    "a slot the layout lacks": (b'{"a9": "attack", "z42": "defense"}', "does not have (z42)"),
}


@pytest.mark.parametrize("case", sorted(CORRUPT))
def test_a_corrupt_sim_board_file_stops_the_start_saying_which_file(tmp_path: Path, case: str) -> None:
    content, words = CORRUPT[case]
    (tmp_path / "sim-board.json").write_bytes(content)
    rig = Rig(tmp_path, start=False)
    try:
        with pytest.raises(SimBoardFileError) as refused:
            rig.service.start()
        message = str(refused.value)
        assert message.startswith(f"{tmp_path / 'sim-board.json'}: ") and words in message
        assert "delete it to start with an empty virtual board" in message
        assert rig.journal.last_id() == 0  # not taken for an empty board: nothing journaled, no anomaly
    finally:
        rig.close()


def test_an_unreadable_sim_board_file(tmp_path: Path) -> None:
    (tmp_path / "sim-board.json").mkdir()  # cannot be read as a file, whoever the user is
    with pytest.raises(SimBoardFileError, match="cannot read the simulated board's pawns .*Is a directory"):
        SimBoardFile(tmp_path / "sim-board.json").load()


def test_no_file_yet_is_an_empty_board(tmp_path: Path) -> None:
    assert SimBoardFile(tmp_path / "sim-board.json").load() == {}


def test_the_board_command_exits_78_with_the_message_and_no_traceback(tmp_path: Path) -> None:
    db = tmp_path / "board.db"
    (tmp_path / "board.db.sim-board.json").write_text('{"a9": "attack", ')
    command, env = board_command(tmp_path, db)
    done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == EX_CONFIG and "Traceback" not in done.stderr
    assert f"{tmp_path / 'board.db.sim-board.json'}: the simulated board's pawns are not JSON" in done.stderr
    journal = Journal(connect(db))
    assert [e.kind for e in journal.tail(0)] == []  # it did not start on an empty board
    journal.conn.close()


# -- private files (they say which pawns conduct) --------------------------------------------------


def test_the_sim_board_file_is_private(tmp_path: Path) -> None:
    saved = os.umask(0o022)
    try:
        sim = SimBoardFile(tmp_path / "var" / "board.json")
        sim.save({"a9": PawnKind.ATTACK})
        assert stat.S_IMODE(sim.path.stat().st_mode) == 0o600
        assert stat.S_IMODE(sim.path.parent.stat().st_mode) == 0o700
        os.chmod(sim.path, 0o644)  # an older checkout's
        assert sim.load() == {"a9": PawnKind.ATTACK}
        assert stat.S_IMODE(sim.path.stat().st_mode) == 0o600
    finally:
        os.umask(saved)


def test_every_file_of_a_running_service_is_private(tmp_path: Path) -> None:
    saved = os.umask(0o022)  # the service inherits it, as from a developer's shell
    try:
        service = ServiceProcess(tmp_path)
    finally:
        os.umask(saved)
    try:
        service.command(CommandKind.NEW_GAME, PLAYERS)
        service.place("a9")
        names = ["board.db", "board.db-wal", "board.db-shm", "board.db.lock", "board.db.sim-board.json",
                 "board.db.sim-board.json.lock"]
        modes = {name: stat.S_IMODE((tmp_path / name).stat().st_mode) for name in names}
        assert modes == dict.fromkeys(names, 0o600)
        assert service.stop() == 0
    finally:
        service.close()


# -- a folder that turns read-only while the service runs --------------------------------------


def test_sim_slot_in_a_read_only_folder_is_answered_and_nothing_moves(tmp_path: Path) -> None:
    service = ServiceProcess(tmp_path)
    try:
        service.command(CommandKind.NEW_GAME, PLAYERS)
        service.place("a9")
        with read_only_folder(tmp_path):
            command = service.commands.wait(
                service.commands.submit(CommandKind.SIM_SLOT, {"slot": "i1", "pawn": "defense"}), timeout=5)
            assert command is not None and command.status is CommandStatus.FAILED
            error = (command.result or {})["error"]
            sim_file = tmp_path / 'board.db.sim-board.json'
            assert error.startswith(f"{sim_file}: cannot save the simulated board")
            assert "nothing was moved" in error and f"make {tmp_path} writable" in error
            time.sleep(0.3)
            assert "i1" not in service.state["pawns"]
            assert service.proc.poll() is None
        service.place("i1", "defense")  # writable again: it works again
        assert service.state["game"]["view"]["moves"][-1] == {"slot": "i1", "player": 1}
        assert service.stop() == 0
        assert "Traceback" not in service.stderr
    finally:
        service.close()


def _database_files(folder: Path) -> list[Path]:
    # Not -shm: SQLite maps it in memory, and writing a mapping of a file that cannot be written is
    # SIGBUS (see docs/board-service.md, "A database that cannot be written").
    return [folder, *(folder / name for name in ("board.db", "board.db-wal"))]


def test_a_database_that_refuses_writes_loses_nothing_and_answers_every_command(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    try:
        rig.new_game()
        rig.place("a9")
        abandon = rig.commands.submit(CommandKind.ABANDON_GAME, {})  # carried out as writing stops
        with rig.conn:
            late = rig.conn.execute(  # queued long ago: its sender has given up by the time it can run
                "INSERT INTO commands (at, kind, payload) VALUES (?, 'lamp-test', '{\"on\": true}')",
                (time.time() - STALE_COMMAND_S - 5,)).lastrowid
        written = rig.journal.last_id()
        with unwritable(*_database_files(tmp_path)):
            rig.backend.virtual_board.place("i1", PawnKind.DEFENSE)  # a hand on the board meanwhile
            rig.run(0.1)  # no exception: the loop goes on
            writer = rig.service.writer
            assert writer is not None and writer.fault is not None and writer.waiting > 0
            assert f"cannot write to {tmp_path / 'board.db'}" in rig.service._status_line()
            assert rig.service.referee.running is None  # the abandon was carried out, in memory
            assert rig.journal.last_id() == written
            assert rig.commands.get(abandon).status is CommandStatus.PENDING  # type: ignore[union-attr]
            rig.run(2 * RETRY_S)  # still refused: still waiting, still running
            assert writer.fault is not None
        rig.run(RETRY_S + 0.1)
        assert writer.fault is None and writer.waiting == 0
        done = rig.commands.get(abandon)
        assert done is not None and done.status is CommandStatus.DONE and done.result == {"game": 1}
        stale = rig.commands.get(int(late or 0))
        assert stale is not None and stale.status is CommandStatus.FAILED
        assert "while the database could not be written (from " in (stale.result or {})["error"]
        kinds = rig.kinds()[rig.kinds().index("game-start"):]
        assert "game-end" in kinds and kinds.count("slot") == 2  # a9, and i1 placed during the outage
        assert rig.state["pawns"].keys() == {"a9", "i1"} and rig.state["game"]["status"] == "abandoned"
    finally:
        rig.close()


def test_stopped_while_the_database_refuses_writes(tmp_path: Path) -> None:
    """A real service: no traceback, the lost entries counted, exit status 1; started again, it resumes."""
    service = ServiceProcess(tmp_path)
    try:
        service.command(CommandKind.NEW_GAME, PLAYERS)
        service.place("a9")
        with unwritable(*_database_files(tmp_path)):
            time.sleep(1.5)  # a heartbeat is refused
            service.proc.send_signal(signal.SIGTERM)
            assert service.proc.wait(timeout=10) == 1
            assert service.proc.stderr is not None
            stderr = service.proc.stderr.read()
        assert "Traceback" not in stderr
        assert f"cannot write to the database {tmp_path / 'board.db'}" in stderr
        assert "could not be written" in stderr and "are lost" in stderr
    finally:
        service.close()
    again = ServiceProcess(tmp_path)
    try:
        assert again.state["game"]["view"]["moves"] == [{"slot": "a9", "player": 0}]
        assert again.state["anomalies"] == []
        assert again.stop() == 0
    finally:
        again.close()


def test_commands_table_readable_by_the_panel_keeps_no_kind_after_an_outage(tmp_path: Path) -> None:
    """The answer written late is the same redacted one: the sim pawn's kind never stays in the table."""
    rig = Rig(tmp_path)
    try:
        slot = Commands(rig.conn).submit(CommandKind.SIM_SLOT, {"slot": "c3", "pawn": "attack"})
        with unwritable(*_database_files(tmp_path)[1:]):  # the folder stays writable: the pawn is saved
            rig.run(0.05)
            assert rig.service.writer is not None and rig.service.writer.fault is not None
        rig.run(RETRY_S + 0.1)
        command = rig.commands.get(slot)
        assert command is not None and command.status is CommandStatus.DONE
        assert command.payload == {"slot": "c3", "pawn": "hidden"}
        assert "attack" not in json.dumps(command.result)
    finally:
        rig.close()


def test_an_outage_is_told_once_and_its_end_once(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Only heartbeats are refused (nothing else happens): it is not taken for over until one is written."""
    rig = Rig(tmp_path)
    try:
        with unwritable(*_database_files(tmp_path)), caplog.at_level("WARNING", "hardware.service.writer"):
            rig.run(4 * RETRY_S)
            assert rig.service.writer is not None and rig.service.writer.fault is not None
            rig.run(0.01)
        with caplog.at_level("WARNING", "hardware.service.writer"):
            rig.run(2 * RETRY_S)
        told = [r.getMessage() for r in caplog.records if r.name == "hardware.service.writer"]
        assert len(told) == 2, told
        assert told[0].startswith(f"cannot write to the database {tmp_path / 'board.db'}")
        assert told[1].startswith(f"the database {tmp_path / 'board.db'} can be written again")
        assert rig.service.writer.fault is None
    finally:
        rig.close()
