"""The wiring wizard end to end on a virtual board wired with a scrambled map: the real scanner
reads every channel, the learner recovers the exact map, the configuration file gets it (every
other line kept), and the board then plays a game correctly with the new configuration."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from configuration import load_config
from games.hautetension.layout import Layout
from games.hautetension.pawn import PawnKind
from hardware.backends.gpio import GpioBoard
from hardware.clock import SimulatedClock
from hardware.selftest import run_selftest
from hardware.service import BoardService, BoardSettings
from hardware.settings import HardwareSettings, load_settings
from hardware.virtual.board import VirtualBoard
from hardware.wiring.config import updated_text, write
from hardware.wiring.demo import SimulatedBuilder, scramble
from hardware.wiring.learner import LearnTiming
from hardware.wiring.session import WiringSession
from store.commands import CommandKind, Commands
from store.db import connect
from store.journal import Journal, JournalKind
from store.wiring import WiringProgress

FAST = LearnTiming(hold=0.05, patience=60.0)
CONFIG = """\
# The board in the back room (hand-written: every byte of this must survive)
[board]
backend = "gpio"   # the real pins
layout = "pinwheel-80"

[hardware]
settle_us = 10
bank_read = "auto"

[hardware.debounce]
scans = 3
min_ms = 15
"""


def learn(board: GpioBoard, virtual: VirtualBoard, layout: Layout, clock: SimulatedClock,
          store: WiringProgress) -> WiringSession:
    session = WiringSession(board, layout, store=store, owner="test", now=clock.now(), timing=FAST)
    builder = SimulatedBuilder(virtual, session.view, pace=0.03)
    deadline = clock.now() + 600
    while not (session.learner.is_complete() and not virtual.pawns) and clock.now() < deadline:
        clock.advance(board.scan_period)
        board.poll()
        session.scanned(clock.now())
        builder.act(clock.now())
    return session


def test_the_wizard_recovers_a_scrambled_map_and_the_board_then_plays_a_game(
        tmp_path: Path, pinwheel: Layout) -> None:
    path = tmp_path / "config.toml"
    path.write_text(CONFIG)
    old = load_settings(load_config(path), pinwheel)
    clock = SimulatedClock()
    virtual = VirtualBoard(old, pinwheel, clock=clock, bank_read=True)
    physical = scramble(old, pinwheel, seed=22)
    virtual.rewire(physical)
    board = GpioBoard(old, pinwheel, pin_factory=virtual.factory, clock=clock)

    # With the configured map the board is misread: a pawn on f9 shows elsewhere, or as a fault.
    virtual.place("f9", PawnKind.ATTACK)
    for _ in range(10):
        clock.advance(board.scan_period)
        board.poll()
    assert "f9" not in board.snapshot() and (board.snapshot() or board.monitor.active_faults)
    virtual.lift("f9")
    for _ in range(10):
        clock.advance(board.scan_period)
        board.poll()

    conn = connect(tmp_path / "board.db")
    session = learn(board, virtual, pinwheel, clock, WiringProgress(conn))
    result = session.learner.result()
    assert result.slots == physical
    assert result.free == () and result.closed_on_empty == () and result.bounced == {}
    session.close()
    assert not board.scanner.every_channel
    board.close()

    text = updated_text(CONFIG, result.slots, old, pinwheel, note="learned by the wiring wizard")
    assert text is not None
    assert text.startswith(CONFIG + "\n[hardware.slots]\n# learned by the wiring wizard\n")
    backup = write(path, text)
    assert backup is not None and backup.read_text() == CONFIG
    new = load_settings(load_config(path), pinwheel)
    assert new.slot_map(pinwheel) == physical
    assert updated_text(text, result.slots, new, pinwheel, note="again") is None  # nothing left to write

    board = GpioBoard(new, pinwheel, pin_factory=virtual.factory, clock=clock)
    for _ in range(10):
        clock.advance(board.scan_period)
        board.poll()
    report = run_selftest(board)
    assert report.is_ok(), report.lines()
    play_a_game(board, virtual, pinwheel, clock, conn)
    conn.close()
    virtual.close()


def play_a_game(board: GpioBoard, virtual: VirtualBoard, layout: Layout, clock: SimulatedClock,
                conn: sqlite3.Connection) -> None:
    """Ana (lamp N) closes the straight row f9-f5 to her own lamp while Ben places along row 1:
    every pawn is seen on its slot, lamp N lights, Ana is out and Ben wins."""
    journal, commands = Journal(conn), Commands(conn)
    service = BoardService(board, layout, journal=journal, commands=commands, clock=clock.now,
                           settings=BoardSettings(min_turn=0.0, settle=0.05), sleep=clock.wait)
    service.start()

    def run(seconds: float = 0.06) -> None:
        end = clock.now() + seconds
        while clock.now() < end:
            clock.advance(board.scan_period)
            service.step()

    commands.submit(CommandKind.NEW_GAME, {"players": [{"name": "Ana"}, {"name": "Ben"}], "first": 0,
                                         "pregame_check": "skip"})
    run()
    moves = ["f9", "a1", "f8", "b1", "f7", "c1", "f6", "d1", "f5"]
    for slot in moves:
        virtual.place(slot, PawnKind.ATTACK)
        run()
    placements = [e.public for e in journal.tail(0, limit=1000) if e.kind is JournalKind.PLACEMENT]
    assert [p["slot"] for p in placements] == moves
    assert [p["player"] for p in placements] == [0, 1] * 4 + [0]
    assert placements[-1]["lit"] == ["N"] and placements[-1]["eliminated"] == [0]
    assert virtual.lit_lamps() == frozenset({"N"})
    end = journal.last_of_kind(JournalKind.GAME_END)
    assert end is not None and end.public["outcome"]["winners"] == [1]
    assert not [e for e in journal.tail(0, limit=1000) if e.kind is JournalKind.ANOMALY]
    service.close()


def test_eleven_multiplexers_leave_one_free_for_reference_channels(tmp_path: Path, pinwheel: Layout) -> None:
    settings = HardwareSettings(signal_gpios=(4, 17, 18, 27, 22, 23, 24, 10, 9, 25, 11))
    clock = SimulatedClock()
    virtual = VirtualBoard(settings, pinwheel, clock=clock, bank_read=True)
    physical = scramble(settings, pinwheel, seed=5)
    virtual.rewire(physical)
    board = GpioBoard(settings, pinwheel, pin_factory=virtual.factory, clock=clock)
    conn = connect(tmp_path / "board.db")
    session = learn(board, virtual, pinwheel, clock, WiringProgress(conn))
    result = session.learner.result()
    assert result.slots == physical
    used = {w.presence for w in physical.values()} | {w.conduction for w in physical.values()}
    assert len(result.free) == 16 and not used & set(result.free)
    session.close()
    board.close()
    conn.close()
    virtual.close()
