"""The multiplexer walk and the debounce (firmware/scanner.py), under CPython and MicroPython."""

# ruff: noqa: UP031 -- %-formatting is what every MicroPython build supports

from fake_machine import Board, make_machine
from firmware_harness import TICKS_PERIOD, Clock, config, raises, scanner


def mux_scanner(board: Board, slots: int = 80) -> object:
    machine = make_machine(board)
    pin = machine.Pin
    cfg = config.BOARD
    return scanner.MuxScanner(
        [pin(n, pin.OUT) for n in cfg["select_pins"]],
        [pin(n, pin.IN, pin.PULL_UP) for n in cfg["signal_pins"]],
        slots,
    )


def bits(value: int) -> int:
    count = 0
    while value:
        count += value & 1
        value >>= 1
    return count


def test_scan_reads_every_slot_through_the_multiplexers() -> None:
    board = Board()
    mux = mux_scanner(board)
    placed = {0: True, 7: False, 8: True, 41: False, 79: True}
    for slot in placed:
        board.place(slot, placed[slot])
    board.conduction_faults.add(50)
    expected = bytearray(80)
    for slot in placed:
        expected[slot] = scanner.PRESENT | (scanner.CONDUCTS if placed[slot] else 0)
    expected[50] = scanner.CONDUCTS
    assert mux.scan() == expected
    # 16 select steps, ten signals read at each: 160 reads per scan.
    assert mux.pin_reads == 160


def test_the_select_lines_walk_the_gray_code() -> None:
    board = Board()
    mux = mux_scanner(board)
    board.select_writes = []  # the scanner set every line low when it was built
    mux.scan()
    writes = mux.pin_writes
    mux.scan()
    # Each pin write moved the lines to the next Gray value: one line per step, the step back to
    # the start included (a step that changed two lines would show a value in between).
    assert board.select_writes == list(scanner.GRAY[1:]) + list(scanner.GRAY), board.select_writes
    assert mux.pin_writes - writes == 16
    walk = list(scanner.GRAY) + [scanner.GRAY[0]]
    assert sorted(scanner.GRAY) == list(range(16))
    assert [bits(walk[i] ^ walk[i + 1]) for i in range(16)] == [1] * 16


def test_a_board_with_fewer_slots_reads_only_the_channels_it_has() -> None:
    board = Board({"slot_count": 20})
    mux = mux_scanner(board, slots=20)
    board.place(19, True)
    readings = mux.scan()
    assert len(readings) == 20 and readings[19] == scanner.PRESENT | scanner.CONDUCTS
    assert mux.pin_reads == 40  # three multiplexers, the third one half used


def test_too_many_slots_for_the_multiplexers_is_refused() -> None:
    machine = make_machine(Board())
    pins = [machine.Pin(n) for n in range(10)]
    error = raises(ValueError, scanner.MuxScanner, pins[:4], pins, 81)
    assert "81 slots need 162 channels" in str(error)
    error = raises(ValueError, scanner.MuxScanner, pins[:3], pins, 80)
    assert "4 select lines" in str(error)


def test_active_high_signals() -> None:
    board = Board({"active_low": False})
    machine = make_machine(board)
    cfg = config.BOARD
    mux = scanner.MuxScanner(
        [machine.Pin(n, machine.Pin.OUT) for n in cfg["select_pins"]],
        [machine.Pin(n, machine.Pin.IN) for n in cfg["signal_pins"]],
        80,
        active_low=False,
    )
    board.place(33, False)
    readings = mux.scan()
    assert readings[33] == scanner.PRESENT and sum(readings) == scanner.PRESENT


def test_debounce_needs_three_scans_and_fifteen_ms() -> None:
    d = scanner.Debouncer(1, 3, 15)
    assert d.update(bytearray([1]), 0) == []
    assert d.update(bytearray([1]), 2) == []
    assert d.update(bytearray([1]), 4) == []  # three scans, but only 4 ms
    assert d.pending()
    assert d.update(bytearray([1]), 14) == []
    assert d.update(bytearray([1]), 15) == [0]
    assert d.stable[0] == 1 and not d.pending()


def test_debounce_restarts_on_a_flicker() -> None:
    d = scanner.Debouncer(1, 3, 15)
    for t, value in ((0, 1), (5, 1), (10, 0), (20, 1), (30, 1)):
        assert d.update(bytearray([value]), t) == []
    assert d.update(bytearray([1]), 35) == [0]  # 20 → 35: fifteen ms and three scans since the flicker


def test_debounce_slow_scans_still_need_three() -> None:
    d = scanner.Debouncer(1, 3, 15)
    assert d.update(bytearray([3]), 0) == []
    assert d.update(bytearray([3]), 100) == []
    assert d.update(bytearray([3]), 200) == [0]


def test_debounce_a_new_candidate_restarts_the_count() -> None:
    d = scanner.Debouncer(2, 3, 15)
    assert d.update(bytearray([1, 0]), 0) == []
    assert d.update(bytearray([3, 0]), 10) == []  # attack, not defence: a new candidate
    assert d.update(bytearray([3, 0]), 20) == []
    assert d.update(bytearray([3, 0]), 25) == [0]
    assert list(d.stable) == [3, 0]


def test_debounce_across_the_ticks_wrap() -> None:
    with Clock(before_wrap=6) as clock:
        d = scanner.Debouncer(1, 3, 15)
        times = []
        changed = []
        for _ in range(4):
            times.append(clock.ms)
            changed.append(d.update(bytearray([1]), clock.ms))
            clock.advance(5)
        # 6 ms before the wrap, then -1, 4 and 9 ms after it: confirmed on the fourth scan, 15 ms on.
        assert times[0] == TICKS_PERIOD - 6 and times[-1] == 9
        assert changed == [[], [], [], [0]]
        # Compared with a plain subtraction the wrap would look like a jump back of 2**30 ms.
        assert times[-1] - times[0] < 0


def test_bitmaps_put_slot_i_on_bit_i() -> None:
    stable = bytearray(80)
    stable[0] = scanner.PRESENT | scanner.CONDUCTS
    stable[9] = scanner.PRESENT
    stable[79] = scanner.CONDUCTS
    presence, conduction = scanner.bitmaps(stable)
    assert len(presence) == 10 and len(conduction) == 10
    assert int.from_bytes(presence, "little") == (1 << 0) | (1 << 9)
    assert int.from_bytes(conduction, "little") == (1 << 0) | (1 << 79)
