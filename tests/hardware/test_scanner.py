"""The multiplexer scanner on the virtual board: Gray walk, GPIO operations, settle, bank reads.

Every test runs on each way of reaching the pins (see ``conftest.py``) unless
it is about one of them: the readings are the same on each, the operation
counts are the path's own.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from unittest.mock import MagicMock

import pytest
from gpiozero.exc import GPIOPinInUse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.hautetension.layout import Layout
from games.hautetension.pawn import PawnKind
from hardware.clock import SimulatedClock
from hardware.scanner import MultiplexerScanner, bank_reader_for, gray_codes
from hardware.settings import HardwareSettings, Signal
from hardware.virtual.board import VirtualBoard

pytestmark = pytest.mark.pin_paths("gpiozero", "lgpio-pins", "lgpio-group", "sim-group")

OpenScanner = Callable[..., tuple[MultiplexerScanner, VirtualBoard]]


@pytest.fixture
def open_scanner(pin_factory_for: Callable[[VirtualBoard], Any], pin_path: str) -> OpenScanner:
    """A scanner on a new virtual board, reaching its pins the way the path under test does."""

    def make(settings: HardwareSettings, layout: Layout, **board_options: Any) -> tuple[
            MultiplexerScanner, VirtualBoard]:
        clock = SimulatedClock()
        groups = pin_path == "sim-group" and not board_options.get("bank_read")
        board = VirtualBoard(settings, layout, clock=clock, groups=groups, **board_options)
        factory = board.factory if board_options.get("bank_read") else pin_factory_for(board)
        return MultiplexerScanner(settings, layout, pin_factory=factory, clock=clock), board

    return make


def counts(board: VirtualBoard) -> tuple[int, int, int, int]:
    """(operations, line writes, signal reads, bank or group reads) counted at the board's pins."""
    return board.ops, board.line_writes, board.signal_reads, board.bank_reads


@pytest.mark.parametrize("bits", [1, 2, 3, 4, 5])
def test_gray_codes_change_one_bit_per_step_cyclically(bits: int) -> None:
    codes = gray_codes(bits)
    assert sorted(codes) == list(range(2**bits))
    for a, b in zip(codes, codes[1:] + codes[:1], strict=True):
        assert bin(a ^ b).count("1") == 1


def expected_levels(settings: HardwareSettings, layout: Layout, board: VirtualBoard,
                    scanner: MultiplexerScanner) -> dict[int, bool]:
    result = {}
    for slot, wiring in settings.slot_map(layout).items():
        kind = board.pawns.get(slot)
        for signal in Signal:
            closed = kind is not None and (signal is Signal.PRESENCE or kind.conducts)
            idx = scanner.index(wiring.channel_of(signal))  # type: ignore[arg-type]
            result[idx] = settings.active_high if closed else not settings.active_high
    return result


def place_some(board: VirtualBoard, layout: Layout, pattern: list[int]) -> None:
    for slot, p in zip(layout.slots, pattern, strict=False):
        if p:
            board.place(slot, PawnKind.ATTACK if p == 2 else PawnKind.DEFENSE)


def test_gray_walk_costs_176_operations_per_pin_and_32_with_groups(pinwheel: Layout, pin_path: str,
                                                                    open_scanner: OpenScanner) -> None:
    scanner, board = open_scanner(HardwareSettings(), pinwheel)
    # Per pin: 16 select writes and 160 reads. lgpio groups: one group write per select step
    # and one group read per channel.
    expected = (32, 16, 0, 16) if pin_path in ("lgpio-group", "sim-group") else (176, 16, 160, 0)
    with scanner:
        assert scanner.ops_per_scan == expected[0]
        assert scanner.writes_per_scan == 16
        for _ in range(3):
            board.reset_counts()
            scanner.scan()
            assert counts(board) == expected


# The pins' own history: the virtual board's group write keeps none (its walk is the same compiled one).
@pytest.mark.pin_paths("gpiozero", "lgpio-pins", "lgpio-group")
def test_each_step_toggles_exactly_one_select_line(pinwheel: Layout, open_scanner: OpenScanner) -> None:
    scanner, board = open_scanner(HardwareSettings(), pinwheel)
    with scanner:
        for pin in board.select_pins:
            pin.clear_states()
        board.reset_counts()
        scanner.scan()
        # Every write changed its line (no redundant writes): 16 changes spread over the 4 lines.
        changes = [len(pin.states) - 1 for pin in board.select_pins]
        assert changes == [8, 4, 2, 2]
        assert board.line_writes == 16


# open_scanner makes a new board and scanner per example: nothing carries over between them.
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.integers(0, 2), min_size=80, max_size=80))
def test_levels_match_the_pawns_on_the_board(pinwheel: Layout, open_scanner: OpenScanner,
                                             pattern: list[int]) -> None:
    s = HardwareSettings()
    scanner, board = open_scanner(s, pinwheel)
    with scanner:
        place_some(board, pinwheel, pattern)
        levels = scanner.scan()
        expected = expected_levels(s, pinwheel, board, scanner)
        assert {i: levels[i] for i in expected} == expected


def test_reading_before_the_settle_time_sees_the_previous_channel(pinwheel: Layout,
                                                                  open_scanner: OpenScanner) -> None:
    s = HardwareSettings()
    scanner, board = open_scanner(s, pinwheel, settle_seconds=50e-6)  # slower chips than configured
    with scanner:
        board.place("b9", PawnKind.ATTACK)  # channels 0.2 and 0.3
        levels = scanner.scan()
        # Each read sees the code selected four steps (40 µs) earlier. In Gray order
        # 0 1 3 2 6 7 5 4 ..., codes 3 and 2 (steps 2, 3) come out at steps 6, 7: codes 5 and 4.
        assert {c for c in range(16) if not levels[c]} == {4, 5}
    fixed = HardwareSettings(settle_seconds=50e-6)
    scanner, board = open_scanner(fixed, pinwheel, settle_seconds=50e-6)
    with scanner:
        board.place("b9", PawnKind.ATTACK)
        levels = scanner.scan()
        assert {c for c in range(16) if not levels[c]} == {2, 3}


@pytest.mark.pin_paths("gpiozero")  # the virtual board's own bank read (what pigpio's read_bank_1 gives)
def test_bank_read_costs_one_operation_per_step_and_reads_the_same(pinwheel: Layout,
                                                                   open_scanner: OpenScanner) -> None:
    s = HardwareSettings()
    banked, bank_board = open_scanner(s, pinwheel, bank_read=True)
    plain, plain_board = open_scanner(s, pinwheel)
    with banked, plain:
        assert banked.bank_read == "virtual read_bank"
        assert banked.ops_per_scan == 32
        for board in (bank_board, plain_board):
            place_some(board, pinwheel, [2, 1, 0, 2] * 20)
        bank_board.reset_counts()
        assert banked.scan() == plain.scan()
        assert (bank_board.ops, bank_board.bank_reads, bank_board.signal_reads) == (32, 16, 0)


@pytest.mark.pin_paths("gpiozero")
def test_bank_read_can_be_turned_off(pinwheel: Layout, open_scanner: OpenScanner) -> None:
    s = HardwareSettings(bank_read="off")
    scanner, _ = open_scanner(s, pinwheel, bank_read=True)
    with scanner:
        assert scanner.bank_read is None
        assert scanner.ops_per_scan == 176
        assert scanner.path == "per-pin reads (bank_read = off)"


@pytest.mark.pin_paths("lgpio-group")
def test_lgpio_groups_can_be_turned_off_too(pinwheel: Layout, open_scanner: OpenScanner) -> None:
    scanner, board = open_scanner(HardwareSettings(bank_read="off"), pinwheel)
    with scanner:
        assert (scanner.groups, scanner.bank_read, scanner.ops_per_scan) == (None, None, 176)
        board.reset_counts()
        scanner.scan()
        assert counts(board) == (176, 16, 160, 0)


def shared_settings() -> HardwareSettings:
    return HardwareSettings(signal_gpios=(), shared_signal_gpio=4,
                            enable_gpios=(17, 18, 27, 22, 23, 24, 10, 9, 25, 7))


def test_shared_signal_board_is_walked_multiplexer_by_multiplexer(pinwheel: Layout,
                                                                  open_scanner: OpenScanner) -> None:
    s = shared_settings()
    scanner, board = open_scanner(s, pinwheel)
    with scanner:
        # 10 × 15 select toggles inside each walk, 19 enable changes between multiplexers
        # plus 1 at the wrap, no select toggle between walks (boustrophedon), 160 reads.
        assert scanner.ops_per_scan == 150 + 20 + 160
        place_some(board, pinwheel, [0, 2, 1] * 27)
        board.reset_counts()
        levels = scanner.scan()
        assert board.ops == scanner.ops_per_scan
        expected = expected_levels(s, pinwheel, board, scanner)
        assert {i: levels[i] for i in expected} == expected


def test_unwired_channels_are_not_read(pinwheel: Layout, pin_path: str, open_scanner: OpenScanner) -> None:
    s = HardwareSettings(signal_gpios=(4, 17, 18, 27, 22, 23, 24, 10, 9, 25, 8))  # an 11th, empty mux
    scanner, board = open_scanner(s, pinwheel)
    with scanner:
        board.reset_counts()
        scanner.scan()
        if pin_path in ("lgpio-group", "sim-group"):  # one group read per channel covers every signal line
            assert (board.bank_reads, board.signal_reads) == (16, 0) and scanner.ops_per_scan == 32
        else:
            assert board.signal_reads == 160 == scanner.ops_per_scan - 16


def test_bank_reader_for_pigpio_and_native_factories() -> None:
    class PiGPIOFactory:
        connection = MagicMock()

    pigpio = PiGPIOFactory()
    pigpio.connection.read_bank_1.return_value = 0b10000
    reader = bank_reader_for(pigpio)
    assert reader is not None and reader.name == "pigpio read_bank_1"
    assert reader.read() == 16

    class NativeFactory:
        mem = MagicMock(GPLEV_OFFSET=13)

    native = NativeFactory()
    native.mem.__getitem__.side_effect = lambda index: {13: 0b101}[index]
    reader = bank_reader_for(native)
    assert reader is not None and reader.read() == 5

    class LGPIOFactory:
        pass

    assert bank_reader_for(LGPIOFactory()) is None


def test_scanner_releases_its_pins(pinwheel: Layout, open_scanner: OpenScanner) -> None:
    s = HardwareSettings()
    scanner, board = open_scanner(s, pinwheel)
    with pytest.raises(GPIOPinInUse):  # while it is open, its pins are its own
        MultiplexerScanner(s, pinwheel, pin_factory=scanner.pin_factory, clock=board.clock)
    scanner.close()
    scanner.close()  # twice is harmless
    board.place("b9", PawnKind.ATTACK)
    with MultiplexerScanner(s, pinwheel, pin_factory=scanner.pin_factory, clock=board.clock) as again:
        assert again.path == scanner.path
        levels = again.scan()  # the same pins, claimed again, read the board as it is
        assert {i: levels[i] for i in expected_levels(s, pinwheel, board, again)} == expected_levels(
            s, pinwheel, board, again)
        assert not levels[again.index(s.slot_map(pinwheel)["b9"].presence)]  # type: ignore[arg-type]
