"""A virtual lgpio: the ``lgpio`` module's API on virtual gpiochips wired to the virtual board.

lgpio, the library under gpiozero's ``LGPIOFactory`` (the Pi 5's pin factory),
talks to Linux gpiochip devices: a process opens a chip, claims lines one by
one or as a group, reads and writes them and frees them; the kernel refuses a
line that another request holds. :class:`VirtualLgpio` follows lgpio 0.2's
Python module (signatures, defaults, return values, error codes and texts) and
the behaviour of its C library (``lgGpio.c``) for every call that gpiozero's
lgpio pin factory and the scanner's group path make:

- ``gpiochip_open(gpiochip)`` returns a handle with the chip number in bits
  16 and up; every other call masks it with ``0xffff``;
- a single-line claim of a line this handle already holds the same way does
  nothing (not even change its flags), and a single line held alone is freed
  before it is claimed again the other way; a group claim never frees
  anything, so it fails with ``GPIO busy`` on any line already held, by this
  handle or another;
- ``group_read(handle, leader)`` returns ``[group size, bits]`` (bit *i* = the
  *i*-th line of the group); ``group_write(handle, leader, bits, mask)``
  changes the lines whose mask bit is set and returns the group size;
- an error is a negative code; with ``exceptions`` true (lgpio's default, which
  gpiozero relies on) it is raised as ``error(error_text(code))``, otherwise
  returned (as ``[code, 0]`` by ``group_read``).

The lines are the virtual board's wires (:meth:`VirtualBoard.configure_line`,
:meth:`~VirtualBoard.read_lines`, :meth:`~VirtualBoard.write_lines`), so the
real scanner, gpiozero's own ``LGPIOFactory`` and the virtual electronics run
together: install it as the ``lgpio`` module with :func:`installed` and build
the factory with :func:`lgpio_pin_factory`. Every call is counted by name in
:attr:`VirtualLgpio.calls`. Alerts, PWM, waves, I2C, SPI and serial are not
modelled (nothing here uses them).
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Protocol

PI5_REVISION = 0xC04170
"""A Raspberry Pi 5's revision code (what gpiozero reads from the device tree)."""

PI5_LINES = 54
"""Lines of the Pi 5's RP1 gpiochip."""


class GpioLines(Protocol):
    """The wires behind a gpiochip's lines (the virtual board implements it)."""

    def configure_line(self, gpio: int, *, output: bool, level: bool = False, pull: str = "floating") -> None:
        """The line is claimed: an output at *level*, or an input with *pull*."""

    def read_lines(self, gpios: Sequence[int], *, group: bool) -> list[bool]:
        """The physical levels of *gpios*, read by one call."""

    def write_lines(self, levels: Sequence[tuple[int, bool]], *, counted: bool = True) -> None:
        """Drive these output lines in one call."""


class LgpioError(Exception):
    """``lgpio.error``: raised with the error text as its value (and printed as its repr)."""

    def __init__(self, value: str) -> None:
        super().__init__(value)
        self.value = value

    def __str__(self) -> str:
        return repr(self.value)


@dataclass
class _Request:
    """One line request to the kernel: a single line, or a group whose first line is the leader."""

    handle: int
    gpios: tuple[int, ...]
    output: bool
    flags: int
    values: list[int] = field(default_factory=list)

    @property
    def is_group(self) -> bool:
        return len(self.gpios) > 1


@dataclass
class _Chip:
    number: int
    lines: int
    wires: GpioLines
    requests: dict[int, _Request] = field(default_factory=dict)
    """Line → the request holding it, whichever handle made it (the kernel's view)."""
    outputs: set[int] = field(default_factory=set)
    """Lines whose direction is output (kept after they are freed, as the hardware keeps it)."""


class VirtualLgpio:
    """lgpio's module API over virtual gpiochips; see the module docstring.

    *chips* maps a gpiochip number to its line count and wires.
    """

    # GPIO levels and group mask
    LOW = OFF = CLEAR = 0
    HIGH = ON = SET = 1
    TIMEOUT = 2
    GROUP_ALL = 0xFFFFFFFFFFFFFFFF

    # Line flags (lgpio 0.2 names; gpiozero falls back to the SET_BIAS_* names of 0.1)
    SET_ACTIVE_LOW = 4
    SET_OPEN_DRAIN = 8
    SET_OPEN_SOURCE = 16
    SET_PULL_UP = 32
    SET_PULL_DOWN = 64
    SET_PULL_NONE = 128

    # Edge flags (gpiozero reads them at import)
    RISING_EDGE = 1
    FALLING_EDGE = 2
    BOTH_EDGES = 3

    # Error codes and texts (lgpio 0.2.2's, for the calls modelled here)
    OKAY = 0
    BAD_HANDLE = -5
    NOT_PERMITTED = -7
    BAD_GPIO_NUMBER = -73
    BAD_GROUP_SIZE = -74
    BAD_READ = -76
    BAD_WRITE = -77
    CANNOT_OPEN_CHIP = -78
    GPIO_BUSY = -79
    GPIO_NOT_ALLOCATED = -80
    UNEGPECTED_ERROR = -85  # sic: lgpio's spelling
    NOT_GROUP_LEADER = -87
    GPIO_NOT_AN_OUTPUT = -104
    _TEXTS = {
        BAD_HANDLE: "unknown handle",
        NOT_PERMITTED: "GPIO operation not permitted",
        BAD_GPIO_NUMBER: "bad GPIO number",
        BAD_GROUP_SIZE: "bad group size",
        BAD_READ: "bad GPIO read",
        BAD_WRITE: "bad GPIO write",
        CANNOT_OPEN_CHIP: "can not open gpiochip",
        GPIO_BUSY: "GPIO busy",
        GPIO_NOT_ALLOCATED: "GPIO not allocated",
        UNEGPECTED_ERROR: "unexpected error",
        NOT_GROUP_LEADER: "GPIO not the group leader",
        GPIO_NOT_AN_OUTPUT: "GPIO not set as an output",
    }
    _GROUP_MAX = 64  # GPIOHANDLES_MAX
    _IN_USE, _IS_OUT = 1, 2  # kernel line-info flags
    _LG_INPUT, _LG_OUTPUT, _LG_GROUP = 1, 2, 8  # lgpio's own mode bits (reported << 8)

    error = LgpioError

    def __init__(self, chips: dict[int, tuple[int, GpioLines]]) -> None:
        self.exceptions = True
        self.calls: Counter[str] = Counter()
        self._chips = {number: _Chip(number, lines, wires) for number, (lines, wires) in chips.items()}
        self._handles: dict[int, _Chip] = {}
        self._next_handle = 0

    # ------------------------------------------------------------------ errors

    def error_text(self, errnum: int) -> str:
        return self._TEXTS.get(errnum, "unknown error")

    def _u2i(self, status: int) -> int:
        if status < 0 and self.exceptions:
            raise self.error(self.error_text(status))
        return status

    # ------------------------------------------------------------------ chips

    def gpiochip_open(self, gpiochip: int) -> int:
        self.calls["gpiochip_open"] += 1
        chip = self._chips.get(gpiochip)
        if chip is None:
            return self._u2i(self.CANNOT_OPEN_CHIP)
        handle = self._next_handle
        self._next_handle += 1
        self._handles[handle] = chip
        return self._u2i(handle | gpiochip << 16)

    def gpiochip_close(self, handle: int) -> int:
        self.calls["gpiochip_close"] += 1
        handle &= 0xFFFF
        chip = self._handles.pop(handle, None)
        if chip is None:
            return self._u2i(self.BAD_HANDLE)
        for request in {id(r): r for r in chip.requests.values() if r.handle == handle}.values():
            self._release(chip, request)
        return self._u2i(self.OKAY)

    def gpio_get_mode(self, handle: int, gpio: int) -> int:
        self.calls["gpio_get_mode"] += 1
        chip, status = self._line(handle, gpio)
        if chip is None:
            return self._u2i(status)
        request = chip.requests.get(gpio)
        kernel = (self._IS_OUT if gpio in chip.outputs else 0)
        if request is not None:
            kernel |= self._IN_USE | (request.flags & 0xFC)
        mode = 0
        if request is not None and request.handle == handle & 0xFFFF:
            mode = (self._LG_OUTPUT if request.output else self._LG_INPUT) | (
                self._LG_GROUP if request.is_group else 0)
        return self._u2i(kernel | mode << 8)

    # ------------------------------------------------------------------ claims

    def gpio_claim_input(self, handle: int, gpio: int, lFlags: int = 0) -> int:  # noqa: N803 - lgpio's name
        self.calls["gpio_claim_input"] += 1
        return self._u2i(self._claim(handle, lFlags, [gpio], None, output=False))

    def gpio_claim_output(self, handle: int, gpio: int, level: int = 0, lFlags: int = 0) -> int:  # noqa: N803
        self.calls["gpio_claim_output"] += 1
        return self._u2i(self._claim(handle, lFlags, [gpio], [level], output=True))

    def group_claim_input(self, handle: int, gpio: Sequence[int], lFlags: int = 0) -> int:  # noqa: N803
        self.calls["group_claim_input"] += 1
        if not len(gpio):  # lgpio.py returns 0 for an empty list without asking the library
            return 0
        return self._u2i(self._claim(handle, lFlags, list(gpio), None, output=False))

    def group_claim_output(self, handle: int, gpio: Sequence[int], levels: Sequence[int] = (0,),
                           lFlags: int = 0) -> int:  # noqa: N803
        self.calls["group_claim_output"] += 1
        if not len(gpio):
            return 0
        padded = list(levels) + [0] * (len(gpio) - len(levels))
        return self._u2i(self._claim(handle, lFlags, list(gpio), padded, output=True))

    def gpio_free(self, handle: int, gpio: int) -> int:
        self.calls["gpio_free"] += 1
        return self._u2i(self._free(handle, gpio))

    def group_free(self, handle: int, gpio: int) -> int:
        self.calls["group_free"] += 1
        return self._u2i(self._free(handle, gpio))

    # ------------------------------------------------------------------ reads and writes

    def gpio_read(self, handle: int, gpio: int) -> int:
        self.calls["gpio_read"] += 1
        chip, status = self._line(handle, gpio)
        if chip is None:
            return self._u2i(status)
        request = self._owned(chip, handle, gpio)
        if request is None:  # lgpio claims an unclaimed line as an input on first read
            if self._claim(handle, 0, [gpio], None, output=False) < 0:
                return self._u2i(self.GPIO_NOT_ALLOCATED)
            request = chip.requests[gpio]
        level = chip.wires.read_lines([gpio], group=False)[0]
        return self._u2i(int(level) ^ self._active_low(request))

    def gpio_write(self, handle: int, gpio: int, level: int) -> int:
        self.calls["gpio_write"] += 1
        chip, status = self._line(handle, gpio)
        if chip is None:
            return self._u2i(status)
        request = self._owned(chip, handle, gpio)
        if request is None or not request.output:
            if request is not None and request.is_group:
                return self._u2i(self.GPIO_NOT_AN_OUTPUT)
            return self._u2i(self._claim(handle, 0, [gpio], [level], output=True))
        request.values[request.gpios.index(gpio)] = int(level != 0)
        self._drive(chip, request)
        return self._u2i(self.OKAY)

    def group_read(self, handle: int, gpio: int) -> list[int]:
        self.calls["group_read"] += 1
        request, chip, status = self._leader(handle, gpio)
        if request is None or chip is None:
            return self._u2i_list([status, 0])
        levels = chip.wires.read_lines(request.gpios, group=True)
        flip = self._active_low(request)
        bits = sum(1 << i for i, level in enumerate(levels) if int(level) ^ flip)
        return self._u2i_list([len(request.gpios), bits])

    def group_write(self, handle: int, gpio: int, group_bits: int, group_mask: int = GROUP_ALL) -> int:
        self.calls["group_write"] += 1
        request, chip, status = self._leader(handle, gpio)
        if request is None or chip is None:
            return self._u2i(status)
        if not request.output:  # the kernel refuses to set an input request's values
            return self._u2i(self.BAD_WRITE)
        for i in range(len(request.gpios)):
            if group_mask >> i & 1:
                request.values[i] = group_bits >> i & 1
        self._drive(chip, request)
        return self._u2i(len(request.gpios))

    # ------------------------------------------------------------------ the library's bookkeeping

    def _u2i_list(self, result: list[int]) -> list[int]:
        if result[0] < 0 and self.exceptions:
            raise self.error(self.error_text(result[0]))
        return result

    def _chip_of(self, handle: int) -> _Chip | None:
        return self._handles.get(handle & 0xFFFF)

    def _line(self, handle: int, gpio: int) -> tuple[_Chip | None, int]:
        chip = self._chip_of(handle)
        if chip is None:
            return None, self.BAD_HANDLE
        if not 0 <= gpio < chip.lines:
            return None, self.BAD_GPIO_NUMBER
        return chip, self.OKAY

    def _owned(self, chip: _Chip, handle: int, gpio: int) -> _Request | None:
        request = chip.requests.get(gpio)
        return request if request is not None and request.handle == handle & 0xFFFF else None

    def _leader(self, handle: int, gpio: int) -> tuple[_Request | None, _Chip | None, int]:
        chip, status = self._line(handle, gpio)
        if chip is None:
            return None, None, status
        request = self._owned(chip, handle, gpio)
        if request is None:
            return None, chip, self.GPIO_NOT_ALLOCATED
        if request.gpios[0] != gpio:
            return None, chip, self.NOT_GROUP_LEADER
        return request, chip, self.OKAY

    def _claim(self, handle: int, flags: int, gpios: list[int], values: list[int] | None, *,
               output: bool) -> int:
        chip = self._chip_of(handle)
        if chip is None:
            return self.BAD_HANDLE
        handle &= 0xFFFF
        if len(gpios) == 1 and 0 <= gpios[0] < chip.lines:
            held = self._owned(chip, handle, gpios[0])
            if held is not None and held.output == output:
                return self.OKAY  # "nothing to do, already an input/output": flags unchanged
            if held is not None and not held.is_group:
                self._release(chip, held)  # a single line is freed before it is claimed again
        if not 0 < len(gpios) <= self._GROUP_MAX:
            return self.BAD_GROUP_SIZE
        if any(g < 0 or g > chip.lines for g in gpios):  # lgpio's own check (note: > lines)
            return self.NOT_PERMITTED
        if any(g >= chip.lines for g in gpios):  # the kernel's EINVAL
            return self.UNEGPECTED_ERROR
        if len(set(gpios)) != len(gpios) or any(g in chip.requests for g in gpios):
            return self.GPIO_BUSY  # the kernel's EBUSY: a line can be in one request only
        request = _Request(handle, tuple(gpios), output, flags,
                           [int(v != 0) for v in values] if values is not None else [0] * len(gpios))
        for gpio in gpios:
            chip.requests[gpio] = request
        pull = ("up" if flags & self.SET_PULL_UP else "down" if flags & self.SET_PULL_DOWN else "floating")
        flip = self._active_low(request)
        for gpio, value in zip(gpios, request.values, strict=True):
            if output:
                chip.outputs.add(gpio)
            else:
                chip.outputs.discard(gpio)
            chip.wires.configure_line(gpio, output=output, level=bool(value ^ flip), pull=pull)
        return self.OKAY

    def _free(self, handle: int, gpio: int) -> int:
        chip, status = self._line(handle, gpio)
        if chip is None:
            return status
        request = self._owned(chip, handle, gpio)
        if request is None:
            return self.GPIO_NOT_ALLOCATED
        if request.gpios[0] != gpio:
            return self.NOT_GROUP_LEADER
        self._release(chip, request)
        return self.OKAY

    def _release(self, chip: _Chip, request: _Request) -> None:
        for gpio in request.gpios:
            if chip.requests.get(gpio) is request:
                del chip.requests[gpio]

    def _active_low(self, request: _Request) -> int:
        return 1 if request.flags & self.SET_ACTIVE_LOW else 0

    def _drive(self, chip: _Chip, request: _Request) -> None:
        flip = self._active_low(request)
        levels = zip(request.gpios, request.values, strict=True)
        chip.wires.write_lines([(gpio, bool(value ^ flip)) for gpio, value in levels])

    # ------------------------------------------------------------------ for tests

    def holder(self, gpiochip: int, gpio: int) -> int | None:
        """The handle (low 16 bits) whose request holds the line, or None (the kernel's view)."""
        request = self._chips[gpiochip].requests.get(gpio)
        return None if request is None else request.handle

    def open_handles(self) -> list[int]:
        return sorted(self._handles)


@contextmanager
def installed(lgpio: VirtualLgpio) -> Iterator[VirtualLgpio]:
    """Make *lgpio* the ``lgpio`` module that ``import lgpio`` (and gpiozero) get, inside the block.

    gpiozero's ``gpiozero.pins.lgpio`` binds the module when it is imported, so
    it is imported afresh inside the block and forgotten after it.
    """
    names = ("lgpio", "gpiozero.pins.lgpio")
    saved = {name: sys.modules.get(name) for name in names}
    sys.modules["lgpio"] = lgpio  # type: ignore[assignment]
    sys.modules.pop("gpiozero.pins.lgpio", None)
    try:
        yield lgpio
    finally:
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module


def lgpio_pin_factory(*, chip: int | None = None, revision: int = PI5_REVISION) -> Any:
    """gpiozero's own ``LGPIOFactory`` (on the installed lgpio), on a Pi of *revision*.

    Only the revision is made up (gpiozero reads it from the device tree);
    *chip* None lets gpiozero choose the gpiochip as it does on a Pi.
    """
    from gpiozero.pins.lgpio import LGPIOFactory

    class VirtualPiLGPIOFactory(LGPIOFactory):  # type: ignore[misc]
        def _get_revision(self) -> int:
            return revision

    return VirtualPiLGPIOFactory(chip=chip)
