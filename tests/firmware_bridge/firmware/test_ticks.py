"""MicroPython's wrapping ticks, which the firmware's timing relies on, under CPython and MicroPython."""

from firmware_harness import ON_MICROPYTHON, TICKS_PERIOD, app, scanner, ticks_add, ticks_diff

HALF = TICKS_PERIOD // 2
CASES = [
    ((0, 0), 0),
    ((5, TICKS_PERIOD - 5), 10),  # across the wrap, forwards
    ((TICKS_PERIOD - 5, 5), -10),  # and backwards
    ((HALF - 1, 0), HALF - 1),  # the furthest ticks_diff can see ahead...
    ((HALF, 0), -HALF),  # ...one more and it reads as the past: no timestamp may grow this old
    ((7, -993), 1000),  # a negative start (ticks_add was not used) still works: only the low bits count
]


def test_the_tests_ticks_diff_is_micropythons() -> None:
    assert [ticks_diff(end, start) for (end, start), _ in CASES] == [diff for _, diff in CASES]
    assert ticks_add(TICKS_PERIOD - 1, 1) == 0 and ticks_add(0, -1) == TICKS_PERIOD - 1
    if ON_MICROPYTHON:
        import time

        assert [time.ticks_diff(end, start) for (end, start), _ in CASES] == [diff for _, diff in CASES]
        assert time.ticks_add(0, -1) == TICKS_PERIOD - 1
        assert time.ticks_add(TICKS_PERIOD - 1, 1) == 0


def test_the_firmware_uses_micropythons_ticks_on_micropython() -> None:
    if ON_MICROPYTHON:
        import time

        assert app.ticks_ms is time.ticks_ms and app.ticks_diff is time.ticks_diff
        assert scanner._ticks_diff is time.ticks_diff and app.sleep_ms is time.sleep_ms
    else:  # CPython's stand-ins: monotonic, never wrapping
        assert app.ticks_diff(5, TICKS_PERIOD - 5) == 10 - TICKS_PERIOD
        assert scanner._ticks_diff(3, 1) == 2
        assert app.ticks_us() // 1000 - app.ticks_ms() in (-1, 0, 1)
