"""The scanner's lgpio group path, on gpiozero's own lgpio factory over the virtual lgpio.

Chosen by itself on the lgpio factory, with a logged fallback; the groups sit
on the gpiochip gpiozero opened, on lines gpiozero never claims, and every way
out (close, or a failure while opening or reading) frees them.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from gpiozero import DigitalOutputDevice
from gpiozero.exc import GPIOPinInUse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.hautetension.layout import Layout
from games.hautetension.pawn import PawnKind
from hardware.backends.gpio import GpioBoard
from hardware.backends.sim import SimBoard
from hardware.clock import SimulatedClock
from hardware.exc import PinAccessError
from hardware.lgpio_group import gpiozero_held
from hardware.scanner import MultiplexerScanner
from hardware.settings import HardwareSettings, LampWiring, Signal
from hardware.virtual.board import VirtualBoard
from hardware.virtual.lgpio import PI5_LINES, PI5_REVISION, VirtualLgpio, installed, lgpio_pin_factory

pytestmark = pytest.mark.pin_paths("lgpio-group")

PI4_REVISION = 0xC03111
SELECT = (5, 6, 13, 19)
SIGNAL = (4, 17, 18, 27, 22, 23, 24, 10, 9, 25)
SCAN_LOG = "hardware.scanner"


def shared_signal() -> HardwareSettings:
    return HardwareSettings(signal_gpios=(), shared_signal_gpio=4,
                            enable_gpios=(17, 18, 27, 22, 23, 24, 10, 9, 25, 7))


class GrouplessLgpio(VirtualLgpio):
    """An lgpio without (some of) the group calls."""

    group_read = None  # type: ignore[assignment]
    group_write = None  # type: ignore[assignment]


class FailingLgpio(VirtualLgpio):
    """Fails one call from its (*after* + 1)-th use on, with an lgpio error code (raised or returned).

    A failing call does nothing else: a failed free leaves the lines held.
    """

    def __init__(self, chips: dict[int, tuple[int, Any]], *, call: str, after: int = 0, code: int) -> None:
        super().__init__(chips)
        self.failing, self.after, self.code = call, after, code

    def _fails(self, name: str) -> bool:
        if name != self.failing or self.calls[name] < self.after:
            return False
        self.calls[name] += 1
        return True

    def gpiochip_open(self, gpiochip: int) -> int:
        return self._u2i(self.code) if self._fails("gpiochip_open") else super().gpiochip_open(gpiochip)

    def group_claim_input(self, handle: int, gpio: Any, lFlags: int = 0) -> int:  # noqa: N803
        if self._fails("group_claim_input"):
            return self._u2i(self.code)
        return super().group_claim_input(handle, gpio, lFlags)

    def group_free(self, handle: int, gpio: int) -> int:
        return self._u2i(self.code) if self._fails("group_free") else super().group_free(handle, gpio)

    def group_read(self, handle: int, gpio: int) -> list[int]:
        if self._fails("group_read"):
            return self._u2i_list([self.code, 0])
        return super().group_read(handle, gpio)


@contextmanager
def lgpio_pins(board: VirtualBoard, *, lgpio: VirtualLgpio | None = None, chip: int | None = None,
               revision: int = PI5_REVISION) -> Iterator[tuple[VirtualLgpio, Any]]:
    """gpiozero's lgpio factory on a virtual lgpio wired to *board* (gpiochip0 unless *lgpio* says)."""
    with installed(lgpio or VirtualLgpio({0: (PI5_LINES, board)})) as lg:
        factory = lgpio_pin_factory(chip=chip, revision=revision)
        try:
            yield lg, factory
        finally:
            factory.close()
            board.close()


def new_board(settings: HardwareSettings, layout: Layout) -> VirtualBoard:
    return VirtualBoard(settings, layout, clock=SimulatedClock())


def scanner_on(settings: HardwareSettings, layout: Layout, factory: Any,
               board: VirtualBoard) -> MultiplexerScanner:
    return MultiplexerScanner(settings, layout, pin_factory=factory, clock=board.clock)


def presence_level(scanner: MultiplexerScanner, layout: Layout, slot: str) -> bool:
    ref = scanner.settings.slot_map(layout)[slot].channel_of(Signal.PRESENCE)
    assert ref is not None
    return scanner.scan()[scanner.index(ref)]


def held_lines(lg: VirtualLgpio, gpios: tuple[int, ...] = SELECT + SIGNAL, chip: int = 0) -> set[int | None]:
    return {lg.holder(chip, g) for g in gpios}


def assert_claimable_by_gpiozero(factory: Any, gpio: int) -> None:
    DigitalOutputDevice(gpio, pin_factory=factory).close()


# ---------------------------------------------------------------------------- same readings


MOVES = st.lists(st.tuples(st.integers(0, 79), st.sampled_from(["attack", "defense", "lift", "noisy"]),
                           st.integers(1, 5)), max_size=10)


@pytest.mark.parametrize("shared", [False, True], ids=["signal-per-mux", "shared-signal"])
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(moves=MOVES, bounce=st.sampled_from([0.0, 0.008]), seed=st.integers(0, 3))
def test_the_group_path_reads_the_same_as_gpiozero_on_the_same_wiring(
        pinwheel: Layout, make_rig: Any, shared: bool, moves: list[tuple[int, str, int]], bounce: float,
        seed: int) -> None:
    s = shared_signal() if shared else HardwareSettings()
    grouped = make_rig(s, bounce_seconds=bounce, seed=seed)
    assert grouped.board.scanner.groups is not None
    clock = SimulatedClock()
    plain = SimBoard(s, pinwheel, clock=clock, bounce_seconds=bounce, seed=seed)
    try:
        assert plain.scanner.bank is None  # gpiozero's mock pins, one pin per call
        for index, action, scans in moves:
            slot = pinwheel.slots[index]
            for virtual in (plain.virtual_board, grouped.virtual):
                if action == "noisy":
                    virtual.make_noisy(slot, 0.3)
                elif action == "lift" and slot in virtual.pawns:
                    virtual.lift(slot)
                elif action != "lift" and slot not in virtual.pawns:
                    virtual.place(slot, PawnKind.ATTACK if action == "attack" else PawnKind.DEFENSE)
            for _ in range(scans):
                clock.advance(plain.scan_period)
                grouped.clock.advance(plain.scan_period)
                events = plain.poll()
                assert grouped.board.poll() == events
                assert grouped.board.scanner.levels == plain.scanner.levels
                assert dict(grouped.board.snapshot()) == dict(plain.snapshot())
    finally:
        plain.close()


def test_the_rig_on_this_path_reads_through_the_groups(rig: Any) -> None:
    assert rig.board.health()["bank_read"] == "lgpio group_read (gpiochip0)"
    rig.virtual.place("e4", PawnKind.ATTACK)
    assert dict(rig.board.snapshot()) == {}
    rig.run(0.05)
    assert dict(rig.board.snapshot()) == {"e4": PawnKind.ATTACK}


# ---------------------------------------------------------------------------- choosing the path


def test_the_lgpio_factory_reads_through_groups_and_logs_it(pinwheel: Layout,
                                                            caplog: pytest.LogCaptureFixture) -> None:
    s = HardwareSettings()
    board = new_board(s, pinwheel)
    with (lgpio_pins(board) as (lg, factory), caplog.at_level(logging.INFO, logger=SCAN_LOG),
          scanner_on(s, pinwheel, factory, board) as scanner):
        assert scanner.bank_read == "lgpio group_read (gpiochip0)"
        assert scanner.path == ("lgpio group_read (gpiochip0): select GPIO 5, 6, 13, 19 as one output group, "
                                "signal GPIO 4, 17, 18, 27, 22, 23, 24, 10, 9, 25 as one input group")
        [record] = [r for r in caplog.records if r.name == SCAN_LOG]
        assert record.levelno == logging.INFO
        assert record.getMessage() == (f"multiplexer scan on VirtualPiLGPIOFactory: {scanner.path}; "
                                       "32 GPIO operations per scan")
        lg.calls.clear()
        scanner.scan()
        assert lg.calls == {"group_write": 16, "group_read": 16}


@pytest.mark.parametrize("why", ["no group calls", "held by gpiozero", "chip unknown", "bank_read off"])
def test_without_groups_the_scanner_reads_per_pin_and_says_why(pinwheel: Layout, why: str,
                                                                caplog: pytest.LogCaptureFixture) -> None:
    s = HardwareSettings(bank_read="off") if why == "bank_read off" else HardwareSettings()
    board = new_board(s, pinwheel)
    lgpio = GrouplessLgpio({0: (PI5_LINES, board)}) if why == "no group calls" else None
    with lgpio_pins(board, lgpio=lgpio) as (lg, factory), caplog.at_level(logging.INFO, logger=SCAN_LOG):
        if why == "held by gpiozero":
            # A gpiozero device made and closed on a signal line: gpiozero keeps the line claimed.
            DigitalOutputDevice(17, pin_factory=factory).close()
            assert gpiozero_held(factory, SIGNAL) == [17]
        if why == "chip unknown":  # a gpiozero whose lgpio factory keeps the chip number to itself
            type(factory).chip = None
        with scanner_on(s, pinwheel, factory, board) as scanner:
            expected = {
                "no group calls": ("per-pin reads (this lgpio has no group calls (group_read, group_write "
                                   "missing))", logging.WARNING),
                "held by gpiozero": ("per-pin reads (GPIO 17 already claimed through gpiozero in this "
                                     "process, which keeps them until its pin factory closes)",
                                     logging.WARNING),
                "chip unknown": ("per-pin reads (this gpiozero's lgpio factory does not say which gpiochip "
                                 "it opened)", logging.WARNING),
                "bank_read off": ("per-pin reads (bank_read = off)", logging.INFO),
            }[why]
            [record] = [r for r in caplog.records if r.name == SCAN_LOG]
            assert (scanner.path, record.levelno) == expected
            assert scanner.groups is None and scanner.ops_per_scan == 176
            board.place("b9", PawnKind.DEFENSE)
            assert presence_level(scanner, pinwheel, "b9") is False  # read right, per pin
            assert lg.calls["group_read"] == 0 and lg.calls["gpio_read"] == 160


@pytest.mark.parametrize(("revision", "gpiochip4_exists", "chip"), [
    (PI5_REVISION, True, 4),  # a Pi 5 on an older kernel: the RP1 is gpiochip4
    (PI5_REVISION, False, 0),  # a Pi 5 on a newer kernel
    (PI4_REVISION, True, 0),  # not a Pi 5: gpiochip0 whatever else exists
])
def test_the_groups_are_on_the_gpiochip_gpiozero_opened(
        pinwheel: Layout, monkeypatch: pytest.MonkeyPatch, revision: int, gpiochip4_exists: bool,
        chip: int) -> None:
    real_exists = os.path.exists
    monkeypatch.setattr(os.path, "exists",
                        lambda path: gpiochip4_exists if path == "/dev/gpiochip4" else real_exists(path))
    s = HardwareSettings()
    board, elsewhere = new_board(s, pinwheel), new_board(s, pinwheel)
    lg = VirtualLgpio({chip: (PI5_LINES, board), 4 - chip: (PI5_LINES, elsewhere)})
    with lgpio_pins(board, lgpio=lg, revision=revision) as (_, factory):
        assert factory.chip == chip  # gpiozero's own choice
        with scanner_on(s, pinwheel, factory, board) as scanner:
            assert scanner.bank_read == f"lgpio group_read (gpiochip{chip})"
            assert held_lines(lg, chip=4 - chip) == {None}
            board.place("a9", PawnKind.DEFENSE)
            assert presence_level(scanner, pinwheel, "a9") is False
    elsewhere.close()


# ---------------------------------------------------------------------------- who holds the lines


def test_the_group_lines_are_never_gpiozero_s_and_are_freed_on_close(pinwheel: Layout) -> None:
    s = HardwareSettings()
    board = new_board(s, pinwheel)
    with lgpio_pins(board) as (lg, factory):
        gpiozero_handle = lg.open_handles()[0]
        with GpioBoard(s, pinwheel, pin_factory=factory, clock=board.clock) as gpio_board:
            [groups_handle] = set(lg.open_handles()) - {gpiozero_handle}
            assert held_lines(lg) == {groups_handle}
            assert gpiozero_held(factory, SELECT + SIGNAL) == []
            assert lg.holder(0, 12) == gpiozero_handle  # a lamp: still a gpiozero device
            assert lg.holder(0, s.button_gpio) == gpiozero_handle
            with pytest.raises(GPIOPinInUse):  # reserved: gpiozero refuses before claiming
                DigitalOutputDevice(5, pin_factory=factory)
            assert lg.holder(0, 5) == groups_handle
            assert gpio_board.health()["gpio_ops_per_scan"] == 32
        assert held_lines(lg) == {None}
        assert lg.open_handles() == [gpiozero_handle]
        assert_claimable_by_gpiozero(factory, 5)


def test_closing_twice_is_harmless(pinwheel: Layout) -> None:
    s = HardwareSettings()
    board = new_board(s, pinwheel)
    with lgpio_pins(board) as (lg, factory):
        scanner = scanner_on(s, pinwheel, factory, board)
        scanner.close()
        scanner.close()
        assert held_lines(lg) == {None} and len(lg.open_handles()) == 1


# ---------------------------------------------------------------------------- every way out frees the groups


@pytest.mark.parametrize("busy", [17, 13], ids=["signal-line", "select-line"])
def test_a_line_another_process_holds_fails_clearly_and_claims_nothing(pinwheel: Layout, busy: int) -> None:
    s = HardwareSettings()
    board = new_board(s, pinwheel)
    with lgpio_pins(board) as (lg, factory):
        other = lg.gpiochip_open(0)  # the board service, say
        lg.gpio_claim_input(other, busy)
        with pytest.raises(PinAccessError) as raised:
            scanner_on(s, pinwheel, factory, board)
        role, gpios = ("signal", SIGNAL) if busy == 17 else ("select", SELECT)
        lines = ", ".join(map(str, gpios))
        hint = "is another controller (the board service) already running?"
        claim = f"claim the {role} lines (GPIO {lines}) as one group on gpiochip0"
        assert str(raised.value) == f"cannot {claim}: GPIO busy; {hint}"
        assert held_lines(lg) - {None} == {other}
        assert len(lg.open_handles()) == 2  # gpiozero's and the other process's: ours is closed
        assert_claimable_by_gpiozero(factory, 5 if busy == 17 else 4)  # reservations released


@pytest.mark.parametrize("exceptions", [True, False], ids=["raised", "returned"])
@pytest.mark.parametrize(("call", "after", "message"), [
    ("gpiochip_open", 1, "cannot open gpiochip0: GPIO operation not permitted"),
    ("group_claim_input", 0, "cannot claim the signal lines (GPIO 4, 17, 18, 27, 22, 23, 24, 10, 9, 25) "
                             "as one group on gpiochip0: GPIO operation not permitted"),
])
def test_a_failing_lgpio_call_while_opening_frees_what_was_claimed(pinwheel: Layout, call: str, after: int,
                                                                    message: str, exceptions: bool) -> None:
    s = HardwareSettings()
    board = new_board(s, pinwheel)
    lg = FailingLgpio({0: (PI5_LINES, board)}, call=call, after=after, code=VirtualLgpio.NOT_PERMITTED)
    with lgpio_pins(board, lgpio=lg) as (_, factory):
        lg.exceptions = exceptions  # after gpiozero opened its own handle
        with pytest.raises(PinAccessError, match="^" + message.replace("(", r"\(").replace(")", r"\)") + "$"):
            scanner_on(s, pinwheel, factory, board)
        assert held_lines(lg) == {None}
        assert len(lg.open_handles()) == 1
        lg.exceptions = True
        assert_claimable_by_gpiozero(factory, 5)


def test_a_device_that_fails_after_the_groups_frees_them(pinwheel: Layout) -> None:
    # Shared-signal board: the enable lines stay gpiozero devices, made after the groups.
    s = shared_signal()
    board = new_board(s, pinwheel)
    with lgpio_pins(board) as (lg, factory):
        other = lg.gpiochip_open(0)
        lg.gpio_claim_output(other, 7)  # the last enable line
        with pytest.raises(lg.error, match="GPIO busy"):  # gpiozero's own lgpio pin raises it
            scanner_on(s, pinwheel, factory, board)
        assert held_lines(lg, SELECT + (4,)) == {None}
        assert len(lg.open_handles()) == 2


def test_a_lamp_that_cannot_be_claimed_frees_the_scanner_groups(pinwheel: Layout) -> None:
    s = HardwareSettings(lamps={"N": LampWiring(12), "E": LampWiring(16), "S": LampWiring(20),
                                "W": LampWiring(21, feedback_gpio=8)})
    board = new_board(s, pinwheel)
    with lgpio_pins(board) as (lg, factory):
        other = lg.gpiochip_open(0)
        lg.gpio_claim_output(other, 8)
        with pytest.raises(lg.error, match="GPIO busy"):
            GpioBoard(s, pinwheel, pin_factory=factory, clock=board.clock)
        assert held_lines(lg) == {None}
        assert len(lg.open_handles()) == 2


def test_a_free_that_fails_on_close_still_closes_the_handle(pinwheel: Layout) -> None:
    s = HardwareSettings()
    board = new_board(s, pinwheel)
    lg = FailingLgpio({0: (PI5_LINES, board)}, call="group_free", code=VirtualLgpio.GPIO_NOT_ALLOCATED)
    with lgpio_pins(board, lgpio=lg) as (_, factory):
        scanner = scanner_on(s, pinwheel, factory, board)
        with pytest.raises(lg.error, match="GPIO not allocated"):
            scanner.close()
        assert held_lines(lg) == {None} and len(lg.open_handles()) == 1
        assert_claimable_by_gpiozero(factory, 5)
        scanner.close()  # and closing again does nothing


@pytest.mark.parametrize("exceptions", [True, False], ids=["raised", "returned"])
def test_a_failing_group_read_fails_the_scan_not_the_readings(pinwheel: Layout, exceptions: bool) -> None:
    s = HardwareSettings()
    board = new_board(s, pinwheel)
    lg = FailingLgpio({0: (PI5_LINES, board)}, call="group_read", after=16, code=VirtualLgpio.BAD_READ)
    with lgpio_pins(board, lgpio=lg) as (_, factory), scanner_on(s, pinwheel, factory, board) as scanner:
        lg.exceptions = exceptions
        board.place("c7", PawnKind.ATTACK)
        first = list(scanner.scan())  # 16 good reads
        expected = lg.error if exceptions else PinAccessError
        with pytest.raises(expected, match="bad GPIO read"):
            scanner.scan()
        assert scanner.scan_count == 1 and scanner.levels == first  # the failed scan changed nothing


def test_the_group_path_works_with_lgpio_exceptions_off(pinwheel: Layout) -> None:
    s = HardwareSettings()
    board = new_board(s, pinwheel)
    with lgpio_pins(board) as (lg, factory):
        lg.exceptions = False
        with scanner_on(s, pinwheel, factory, board) as scanner:
            assert scanner.groups is not None
            board.place("h2", PawnKind.DEFENSE)
            assert presence_level(scanner, pinwheel, "h2") is False
