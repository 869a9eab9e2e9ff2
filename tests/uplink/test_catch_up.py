"""Catching up after every kind of kill: zero rows lost, zero stored twice.

A board keeps writing its journal while the link is cut in every way a hall
cuts it: the broker killed (kill -9, its unsaved retained messages gone), the
uplink killed (kill -9, paho's queue gone with it), the board's power cut (the
board service and the uplink killed together, the database's last write torn
in its WAL). Each time, once the link is back, the event server holds exactly
the board's outbox, row for row, body for body.
"""

from __future__ import annotations

import shutil
import threading
import time
from pathlib import Path

from tests.hardware.helpers import Rig
from tests.servers.mosquitto import MosquittoBroker
from tests.uplink.helpers import Board, Central, UplinkProcess, broker_settings, wait_for


def _caught_up(central: Central, board: Board, timeout: float = 30.0) -> None:
    wait_for(lambda: central.acked(board.board) == board.outbox.last_seq(), timeout, "the board caught up")
    assert central.rows(board.board) == board.rows()  # nothing lost, every body as the board wrote it
    assert central.conflicts() == 0  # no number given to two different rows


class Writer:
    """Writes *count* journal entries, one every *every* seconds, in a thread (a game going on)."""

    def __init__(self, board: Board, count: int, every: float = 0.005) -> None:
        self.board, self.count, self.every = board, count, every
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        for _ in range(self.count):
            self.board.write()
            time.sleep(self.every)

    def join(self) -> None:
        self.thread.join(60)


def test_a_broker_killed_with_kill_9_loses_nothing(
    tmp_path: Path, secured: MosquittoBroker, central: Central
) -> None:
    board = Board(tmp_path / "board")
    uplink = UplinkProcess(board, secured).start()
    try:
        writer = Writer(board, 400)
        wait_for(lambda: central.acked("board-1") >= 100, what="rows flowing")
        secured.kill()  # retained acks and in-flight messages gone with it
        time.sleep(0.5)
        secured.start()
        writer.join()
        _caught_up(central, board)
        assert len(board.rows()) == 400
    finally:
        uplink.stop()


def test_an_uplink_killed_with_kill_9_loses_nothing(
    tmp_path: Path, secured: MosquittoBroker, central: Central
) -> None:
    board = Board(tmp_path / "board")
    uplink = UplinkProcess(board, secured).start()
    writer = Writer(board, 400)
    wait_for(lambda: central.acked("board-1") >= 100, what="rows flowing")
    uplink.kill()  # rows paho had taken but the broker had not: gone with the process
    time.sleep(0.3)
    uplink = UplinkProcess(board, secured).start()
    try:
        writer.join()
        _caught_up(central, board)
        assert central.ingest is not None
        # Rows the killed uplink had sent but not seen acknowledged come again: discarded, not stored twice.
        assert len(central.rows("board-1")) == 400
    finally:
        uplink.stop()


def test_the_event_server_down_for_twenty_games_gets_them_in_order(
    tmp_path: Path, secured: MosquittoBroker, central: Central
) -> None:
    board = Board(tmp_path / "board")
    uplink = UplinkProcess(board, secured).start()
    try:
        board.write(5)
        wait_for(lambda: central.acked("board-1") == 5, what="the first rows")
        central.stop()
        board.write(20 * 60)  # twenty games' worth of rows (a game is about 60)
        time.sleep(0.5)
        central.start()
        _caught_up(central, board)
    finally:
        uplink.stop()


def test_rows_the_broker_took_while_no_server_listened_are_sent_again(
    tmp_path: Path, secured: MosquittoBroker
) -> None:
    """The event server's first start after the boards: nothing queued them; the boards send them again."""
    board = Board(tmp_path / "board")
    uplink = UplinkProcess(board, secured).start()
    late = Central(tmp_path / "late", broker_settings(secured, "central"))
    try:
        board.write(30)
        wait_for(lambda: board.outbox.waiting() == 30 and uplink.alive(), what="rows written")
        time.sleep(0.5)  # sent to the broker, which had nobody to give them to
        late.start()
        _caught_up(late, board)
    finally:
        uplink.stop()
        late.stop()


def test_a_power_cut_on_the_board_tears_its_last_write_and_loses_nothing_sent(
    tmp_path: Path, secured: MosquittoBroker, central: Central
) -> None:
    live = Rig(tmp_path / "live")
    board = Board(tmp_path / "live")
    uplink = UplinkProcess(board, secured).start()
    live.new_game()
    live.place("a9")
    live.place("f5")
    wait_for(
        lambda: board.outbox.state() is not None and central.acked("board-1") == board.outbox.last_seq(),
        what="the game so far at the server",
    )
    sent = board.rows()
    # The power goes: the uplink dies first (so it cannot have seen the write that is torn)...
    uplink.kill()
    live.place("i1", "defense")
    cut = tmp_path / "cut"
    cut.mkdir()
    for name in ("board.db", "board.db-wal", "sim-board.json"):
        shutil.copyfile(tmp_path / "live" / name, cut / name)
    live.service.backend.close()
    live.conn.close()
    board.conn.close()
    # ... and the disk keeps the last transaction half written: the placement of i1 and its outbox rows.
    wal = cut / "board.db-wal"
    wal.write_bytes(wal.read_bytes()[:-100])

    after = Rig(cut)  # the board comes back: the pawn on i1 is the move of the player to move
    assert after.service.recovery is not None and after.service.recovery.recovered_slot == "i1"
    restored = Board(cut)
    assert restored.rows()[: len(sent)] == sent  # what was sent survived the cut
    uplink = UplinkProcess(restored, secured).start()
    try:
        _caught_up(central, restored)
        placements = [
            body
            for seq, body in central.rows("board-1")
            if central.conn.execute("SELECT kind FROM event_rows WHERE seq = ?", (seq,)).fetchone()[0]
            == "placement"
        ]
        assert [p.split('"slot":"')[1][:2] for p in placements] == ["a9", "f5", "i1"]
    finally:
        uplink.stop()
        after.close()
