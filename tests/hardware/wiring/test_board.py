"""What the wiring wizard needs of the board: the scanner reading every channel, the virtual board
rewired otherwise than configured, the scrambled map and the simulated builder."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from games.hautetension.layout import Layout
from games.hautetension.pawn import PawnKind
from hardware.clock import SimulatedClock
from hardware.scanner import MultiplexerScanner
from hardware.settings import ChannelRef, HardwareSettings, ReferenceChannel, Signal, SlotWiring
from hardware.virtual.board import VirtualBoard
from hardware.wiring.demo import SimulatedBuilder, scramble

# An eleventh multiplexer (signal on GPIO 11) that the computed map leaves unwired.
ELEVEN = HardwareSettings(signal_gpios=(4, 17, 18, 27, 22, 23, 24, 10, 9, 25, 11))


@pytest.mark.pin_paths("gpiozero", "lgpio-pins", "lgpio-group")
def test_the_scanner_reads_every_channel_only_while_asked(
        pinwheel: Layout, pin_path: str, pin_factory_for: Callable[[VirtualBoard], Any]) -> None:
    clock = SimulatedClock()
    board = VirtualBoard(ELEVEN, pinwheel, clock=clock)
    scanner = MultiplexerScanner(ELEVEN, pinwheel, pin_factory=pin_factory_for(board), clock=clock)
    spare = ChannelRef(10, 5)
    board.stick(spare.multiplexer, spare.channel, False)
    board.stick(9, 15, False)  # i1's conduction: wired, read either way
    ops = scanner.ops_per_scan
    scanner.scan()
    assert scanner.level(spare) is True and scanner.level(ChannelRef(9, 15)) is False  # spare: not read
    scanner.read_every_channel()
    assert scanner.every_channel
    # One pin per call reads 16 more; one group read takes the eleventh signal line along.
    assert scanner.ops_per_scan == ops + (0 if pin_path == "lgpio-group" else 16)
    scanner.scan()
    assert scanner.level(spare) is False and scanner.level(ChannelRef(9, 15)) is False
    scanner.read_every_channel(False)
    assert scanner.ops_per_scan == ops
    board.unstick(spare.multiplexer, spare.channel)
    scanner.scan()
    assert scanner.level(spare) is False  # not read again: it keeps its last level
    scanner.close()
    board.close()


def test_a_shared_signal_board_reads_every_channel_too(pinwheel: Layout) -> None:
    settings = HardwareSettings(signal_gpios=(), shared_signal_gpio=4,
                                enable_gpios=(17, 18, 27, 22, 23, 24, 10, 9, 25, 11, 8))
    clock = SimulatedClock()
    board = VirtualBoard(settings, pinwheel, clock=clock)
    scanner = MultiplexerScanner(settings, pinwheel, pin_factory=board.factory, clock=clock)
    board.stick(10, 3, False)
    board.place("a9", PawnKind.ATTACK)
    scanner.read_every_channel()
    for _ in range(2):
        levels = scanner.scan()
        closed = {ChannelRef(*divmod(i, 16)) for i, level in enumerate(levels) if not level}
        assert closed == {ChannelRef(10, 3), ChannelRef(0, 0), ChannelRef(0, 1)}
    scanner.close()
    board.close()


def test_a_rewired_virtual_board_answers_on_its_new_channels(pinwheel: Layout) -> None:
    board = VirtualBoard(HardwareSettings(), pinwheel)
    board.place("a9", PawnKind.DEFENSE)
    board.rewire({**HardwareSettings().slot_map(pinwheel),
                  "a9": SlotWiring(ChannelRef(9, 15), ChannelRef(0, 0)),
                  "i1": SlotWiring(ChannelRef(0, 1), ChannelRef(9, 14))})
    low, now = board.settings.active_high, board.clock.now()
    assert board.channel_level(ChannelRef(9, 15), True, now) is low  # a9's presence, closed, moved
    assert board.channel_level(ChannelRef(0, 0), True, now) is not low  # a9's conduction: open
    board.lift("a9")
    assert board.channel_level(ChannelRef(9, 15), True, now) is not low
    board.close()


def test_scramble_swaps_multiplexers_permutes_channels_and_crosses_one_slot(pinwheel: Layout) -> None:
    settings = HardwareSettings()
    computed = settings.slot_map(pinwheel)
    wiring = scramble(settings, pinwheel, seed=22)
    assert wiring == scramble(settings, pinwheel, seed=22) and wiring != scramble(settings, pinwheel, seed=23)
    refs = [w.channel_of(s) for w in wiring.values() for s in Signal]
    assert len(set(refs)) == 160  # still one channel per contact
    moved = {c.multiplexer: w.presence.multiplexer  # type: ignore[union-attr]
             for slot, w in wiring.items() if (c := computed[slot].presence) is not None}
    assert len(set(moved.values())) == 10 and any(a != b for a, b in moved.items())
    uncrossed = scramble(settings, pinwheel, seed=22, cross=False)
    crossed = [slot for slot in wiring if wiring[slot] != uncrossed[slot]]
    assert len(crossed) == 1
    assert wiring[crossed[0]] == SlotWiring(uncrossed[crossed[0]].conduction, uncrossed[crossed[0]].presence)
    with pytest.raises(ValueError, match="without reference channels"):
        scramble(HardwareSettings(references=(ReferenceChannel(0, 0, False),)), pinwheel, seed=1)


def test_the_simulated_builder_does_what_the_view_asks(pinwheel: Layout) -> None:
    board = VirtualBoard(HardwareSettings(), pinwheel)
    view: dict[str, Any] = {"task": "clear", "slot": None}
    builder = SimulatedBuilder(board, lambda: view, pace=1)
    board.place("c3", PawnKind.ATTACK)
    assert builder.act(0) == "lift the pawn from c3" and not board.pawns
    view.update(task="defense", slot="a9")
    assert builder.act(0.5) is None  # not yet: one move at its pace
    assert builder.act(1) == "place a defense pawn on a9"
    view.update(task="attack")
    assert builder.act(2) == "lift the pawn from a9"
    assert builder.act(3) == "place an attack pawn on a9" and board.pawns == {"a9": PawnKind.ATTACK}
    view.update(task="defense", slot="b9")
    assert builder.act(4) == "lift the pawn from a9"
    assert builder.act(5) == "place a defense pawn on b9"
    view.update(task="done", slot=None)
    assert builder.act(6) == "lift the pawn from b9"
    assert builder.act(7) is None
    board.close()
