"""The virtual lgpio follows lgpio 0.2's documented API and its C library's behaviour.

The expected signatures, constants, error codes and texts are lgpio 0.2.2's
(``lgpio.py``); the claim, group and error behaviour is ``lgGpio.c``'s.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from typing import Any

import pytest

from hardware.virtual.lgpio import VirtualLgpio


class Wires:
    """Lines as plain levels: what was driven, or the pull (an input with no pull reads *floating*)."""

    def __init__(self, floating: bool = False) -> None:
        self.levels: dict[int, bool] = {}
        self.configured: dict[int, tuple[bool, str]] = {}
        self.calls: list[tuple[str, tuple[int, ...]]] = []
        self.floating = floating

    def configure_line(self, gpio: int, *, output: bool, level: bool = False, pull: str = "floating") -> None:
        self.configured[gpio] = (output, pull)
        if output:
            self.levels[gpio] = level
        elif pull != "floating":
            self.levels[gpio] = pull == "up"

    def read_lines(self, gpios: Sequence[int], *, group: bool) -> list[bool]:
        self.calls.append(("read", tuple(gpios)))
        return [self.levels.get(g, self.floating) for g in gpios]

    def write_lines(self, levels: Sequence[tuple[int, bool]], *, counted: bool = True) -> None:
        self.calls.append(("write", tuple(g for g, _ in levels)))
        self.levels.update(levels)


@pytest.fixture
def wires() -> Wires:
    return Wires()


@pytest.fixture
def lg(wires: Wires) -> VirtualLgpio:
    return VirtualLgpio({0: (54, wires), 4: (54, Wires())})


def error_of(call: Any, *args: Any) -> str:
    with pytest.raises(VirtualLgpio.error) as raised:
        call(*args)
    return str(raised.value.value)


# lgpio 0.2.2's signatures, as ``inspect`` shows them on the real module.
SIGNATURES = {
    "gpiochip_open": "(gpiochip)",
    "gpiochip_close": "(handle)",
    "gpio_get_mode": "(handle, gpio)",
    "gpio_claim_input": "(handle, gpio, lFlags=0)",
    "gpio_claim_output": "(handle, gpio, level=0, lFlags=0)",
    "gpio_free": "(handle, gpio)",
    "group_claim_input": "(handle, gpio, lFlags=0)",
    "group_claim_output": "(handle, gpio, levels=[0], lFlags=0)",
    "group_free": "(handle, gpio)",
    "gpio_read": "(handle, gpio)",
    "gpio_write": "(handle, gpio, level)",
    "group_read": "(handle, gpio)",
    "group_write": "(handle, gpio, group_bits, group_mask=18446744073709551615)",
    "error_text": "(errnum)",
}


@pytest.mark.parametrize("name", sorted(SIGNATURES))
def test_calls_take_lgpio_s_parameters_and_defaults(lg: VirtualLgpio, name: str) -> None:
    params = inspect.signature(getattr(lg, name)).parameters.values()
    shown = ", ".join(p.name if p.default is inspect.Parameter.empty
                      else f"{p.name}={list(p.default) if isinstance(p.default, tuple) else p.default}"
                      for p in params)
    assert f"({shown})" == SIGNATURES[name]


def test_constants_and_error_texts_are_lgpio_s(lg: VirtualLgpio) -> None:
    flags = (lg.SET_ACTIVE_LOW, lg.SET_OPEN_DRAIN, lg.SET_OPEN_SOURCE, lg.SET_PULL_UP, lg.SET_PULL_DOWN,
             lg.SET_PULL_NONE)
    assert flags == (4, 8, 16, 32, 64, 128)
    assert (lg.RISING_EDGE, lg.FALLING_EDGE, lg.BOTH_EDGES, lg.GROUP_ALL) == (1, 2, 3, 2**64 - 1)
    texts = {lg.BAD_HANDLE: "unknown handle", lg.GPIO_BUSY: "GPIO busy", lg.NOT_GROUP_LEADER:
             "GPIO not the group leader", lg.GPIO_NOT_ALLOCATED: "GPIO not allocated",
             lg.BAD_GPIO_NUMBER: "bad GPIO number", lg.CANNOT_OPEN_CHIP: "can not open gpiochip",
             lg.BAD_GROUP_SIZE: "bad group size", lg.GPIO_NOT_AN_OUTPUT: "GPIO not set as an output"}
    assert texts == {-5: "unknown handle", -79: "GPIO busy", -87: "GPIO not the group leader",
                     -80: "GPIO not allocated", -73: "bad GPIO number", -78: "can not open gpiochip",
                     -74: "bad group size", -104: "GPIO not set as an output"}
    assert {code: lg.error_text(code) for code in texts} == texts
    assert lg.error_text(-999) == "unknown error"
    error = lg.error("GPIO busy")
    assert (error.value, error.args, str(error)) == ("GPIO busy", ("GPIO busy",), "'GPIO busy'")


def test_a_handle_carries_its_chip_number(lg: VirtualLgpio) -> None:
    first, second = lg.gpiochip_open(0), lg.gpiochip_open(4)
    assert (first, second) == (0, 1 | 4 << 16)
    assert lg.gpiochip_close(second) == 0
    assert error_of(lg.gpiochip_open, 1) == "can not open gpiochip"
    assert error_of(lg.gpiochip_close, second) == "unknown handle"


def test_group_read_returns_the_group_size_and_one_bit_per_line_in_group_order(
        lg: VirtualLgpio, wires: Wires) -> None:
    h = lg.gpiochip_open(0)
    wires.levels.update({4: True, 17: False, 18: True})
    assert lg.group_claim_input(h, [18, 4, 17]) == 0
    assert lg.group_read(h, 18) == [3, 0b011]  # 18 is bit 0, 4 bit 1, 17 bit 2
    assert wires.calls == [("read", (18, 4, 17))]  # one call for the whole group
    wires.levels[17] = True
    assert lg.group_read(h, 18) == [3, 0b111]


def test_group_write_changes_the_masked_lines_and_returns_the_group_size(lg: VirtualLgpio,
                                                                        wires: Wires) -> None:
    h = lg.gpiochip_open(0)
    assert lg.group_claim_output(h, [5, 6, 13, 19], [1, 0, 1]) == 0  # levels padded with 0
    assert [wires.levels[g] for g in (5, 6, 13, 19)] == [True, False, True, False]
    assert lg.group_write(h, 5, 0b1010, 0b0011) == 4  # lines 0 and 1 only
    assert [wires.levels[g] for g in (5, 6, 13, 19)] == [False, True, True, False]
    assert lg.group_write(h, 5, 0b1111) == 4  # default mask: every line
    assert lg.group_read(h, 5) == [4, 0b1111]  # an output group reads what was written
    assert lg.gpio_read(h, 13) == 1  # a member can be read alone


def test_only_the_group_leader_names_the_group(lg: VirtualLgpio) -> None:
    h = lg.gpiochip_open(0)
    lg.group_claim_output(h, [5, 6])
    lg.group_claim_input(h, [4, 17])
    assert error_of(lg.group_read, h, 17) == "GPIO not the group leader"
    assert error_of(lg.group_write, h, 6, 1) == "GPIO not the group leader"
    assert error_of(lg.group_free, h, 6) == "GPIO not the group leader"
    assert error_of(lg.group_read, h, 22) == "GPIO not allocated"
    assert error_of(lg.group_read, h, 60) == "bad GPIO number"
    assert error_of(lg.group_write, h, 4, 1) == "bad GPIO write"  # an input group cannot be written
    assert error_of(lg.gpio_write, h, 17, 1) == "GPIO not set as an output"


def test_a_line_held_by_another_request_is_busy(lg: VirtualLgpio) -> None:
    ours, theirs = lg.gpiochip_open(0), lg.gpiochip_open(0)
    lg.gpio_claim_input(theirs, 17)
    assert error_of(lg.group_claim_input, ours, [4, 17, 18]) == "GPIO busy"
    assert error_of(lg.gpio_claim_output, ours, 17) == "GPIO busy"
    assert lg.holder(0, 4) is None  # a refused group claims nothing
    assert error_of(lg.gpio_read, ours, 17) == "GPIO not allocated"  # lgpio's auto-claim failed
    # A group never frees what this handle holds: its own lines are busy too ...
    lg.gpio_claim_input(ours, 4)
    assert error_of(lg.group_claim_input, ours, [4, 18]) == "GPIO busy"
    assert error_of(lg.group_claim_input, ours, [18, 18]) == "GPIO busy"
    # ... while a single line held alone is freed and claimed again the other way.
    assert lg.gpio_claim_output(ours, 4, 1) == 0
    assert lg.gpio_get_mode(ours, 4) & 2  # kernel: output
    assert lg.gpiochip_close(theirs) == 0  # closing a handle frees its lines
    assert lg.group_claim_input(ours, [17, 18]) == 0


def test_claiming_again_the_same_way_changes_nothing_not_even_the_pull(lg: VirtualLgpio,
                                                                       wires: Wires) -> None:
    h = lg.gpiochip_open(0)
    assert lg.gpio_claim_input(h, 4, lg.SET_PULL_NONE) == 0
    assert lg.gpio_claim_input(h, 4, lg.SET_PULL_UP) == 0  # "already an input": flags unchanged
    assert wires.configured[4] == (False, "floating")
    assert lg.gpio_get_mode(h, 4) & 0xFF == 1 | lg.SET_PULL_NONE
    lg.gpio_free(h, 4)  # what gpiozero does to change a pull
    lg.gpio_claim_input(h, 4, lg.SET_PULL_UP)
    assert wires.configured[4] == (False, "up") and lg.gpio_read(h, 4) == 1


def test_mode_reports_lgpio_s_bits_to_the_owner_only(lg: VirtualLgpio) -> None:
    ours, theirs = lg.gpiochip_open(0), lg.gpiochip_open(0)
    lg.group_claim_output(ours, [5, 6])
    assert lg.gpio_get_mode(ours, 6) == (1 | 2) | (2 | 8) << 8  # in use, output | LG output, group
    assert lg.gpio_get_mode(theirs, 6) == 1 | 2
    assert lg.gpio_get_mode(ours, 7) == 0


def test_freeing_a_group_frees_all_its_lines(lg: VirtualLgpio) -> None:
    h = lg.gpiochip_open(0)
    lg.group_claim_input(h, [4, 17, 18])
    assert lg.group_free(h, 4) == 0
    assert [lg.holder(0, g) for g in (4, 17, 18)] == [None, None, None]
    assert error_of(lg.group_free, h, 4) == "GPIO not allocated"


def test_gpio_write_claims_an_unclaimed_line_as_an_output(lg: VirtualLgpio, wires: Wires) -> None:
    h = lg.gpiochip_open(0)
    assert lg.gpio_write(h, 12, 1) == 0
    assert wires.levels[12] is True and lg.holder(0, 12) == h


def test_bad_group_sizes_and_lines_are_refused(lg: VirtualLgpio) -> None:
    h = lg.gpiochip_open(0)
    assert lg.group_claim_input(h, []) == 0  # lgpio.py answers 0 without asking the library
    assert error_of(lg.group_claim_input, h, list(range(54)) + list(range(11))) == "bad group size"
    assert error_of(lg.group_claim_input, h, [4, 99]) == "GPIO operation not permitted"
    assert error_of(lg.group_claim_input, h, [4, 54]) == "unexpected error"  # the kernel's EINVAL
    assert error_of(lg.gpio_get_mode, h, 54) == "bad GPIO number"


def test_active_low_lines_read_and_write_inverted(lg: VirtualLgpio, wires: Wires) -> None:
    h = lg.gpiochip_open(0)
    lg.group_claim_output(h, [5, 6], [1, 0], lg.SET_ACTIVE_LOW)
    assert (wires.levels[5], wires.levels[6]) == (False, True)
    assert lg.group_read(h, 5) == [2, 0b01]


def test_with_exceptions_off_errors_come_back_as_negative_codes(lg: VirtualLgpio) -> None:
    lg.exceptions = False
    h = lg.gpiochip_open(0)
    assert lg.gpiochip_open(3) == lg.CANNOT_OPEN_CHIP
    assert lg.group_read(h, 4) == [lg.GPIO_NOT_ALLOCATED, 0]
    lg.group_claim_input(h, [4, 17])
    assert lg.group_claim_input(lg.gpiochip_open(0), [17]) == lg.GPIO_BUSY
    assert lg.group_write(h, 4, 1) == lg.BAD_WRITE
    assert lg.group_read(h | 7, 4) == [lg.BAD_HANDLE, 0]


def test_every_call_is_counted(lg: VirtualLgpio) -> None:
    h = lg.gpiochip_open(0)
    lg.group_claim_input(h, [4, 17])
    for _ in range(3):
        lg.group_read(h, 4)
    assert lg.calls == {"gpiochip_open": 1, "group_claim_input": 1, "group_read": 3}
