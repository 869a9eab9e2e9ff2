"""The multiplexers' lines as two lgpio groups: one call per select step, one per read.

gpiozero's pin API moves one pin per call. On a Pi 5 (gpiozero's lgpio pin
factory) each read is a Python property, an lgpio call and an ioctl, and each
write two lgpio calls (gpiozero asks the line's mode before writing it): the
Gray walk's 16 writes + 160 reads are 192 lgpio calls per scan. lgpio can claim
lines of a gpiochip as one group and read or write the whole group with one
ioctl, so the scanner claims

- the signal lines (one per multiplexer, or the shared one) as one input group:
  ``group_read`` gives their levels as one int, bit *i* being the *i*-th line of
  the group, which the scanner treats like a bank read;
- the select lines as one output group: ``group_write`` with a mask changes
  the one line each Gray step toggles;

16 + 16 = 32 calls per scan. Enable lines (shared-signal boards), lamps, the
button and the lamp-feedback inputs stay gpiozero devices.

The groups live on a handle of their own, opened on the gpiochip gpiozero's
``LGPIOFactory`` chose (``factory.chip``: gpiochip4 on a Pi 5 with an older
kernel, gpiochip0 otherwise). The kernel lets a line be held by one request
only, so the lines must not be gpiozero's: :func:`open_lgpio_groups` refuses
(and the scanner falls back to per-pin reads) when gpiozero already holds one
of them in this process, and :class:`LgpioGroups` reserves them in gpiozero's
pin reservations while it holds them, so no gpiozero device can claim them.
Closing frees both groups and the handle; so does any failure while opening.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable, Sequence
from typing import Any

from hardware.exc import PinAccessError

GROUP_CALLS = ("group_claim_input", "group_claim_output", "group_read", "group_write", "group_free")
"""The lgpio calls the group path needs (lgpio has had them since its first releases)."""


def is_lgpio_factory(factory: Any) -> bool:
    """Whether *factory* is gpiozero's lgpio pin factory (or a subclass of it)."""
    return "LGPIOFactory" in {cls.__name__ for cls in type(factory).__mro__}


def gpiozero_held(factory: Any, gpios: Sequence[int]) -> list[int]:
    """Those of *gpios* that gpiozero has made a pin for in this process.

    gpiozero's lgpio pins claim their line when made and keep it until the
    factory closes (closing a device only makes the line an input again).
    """
    names = {getattr(info, "name", None) for info in getattr(factory, "pins", {})}
    return [g for g in gpios if f"GPIO{g}" in names]


def open_lgpio_groups(
    factory: Any,
    *,
    select_gpios: Sequence[int],
    select_code: int,
    signal_gpios: Sequence[int],
    pull: str,
) -> tuple[LgpioGroups | None, str]:
    """The groups on *factory*'s gpiochip, or None and why not (the caller falls back to per-pin reads).

    Errors while claiming are raised (:class:`~hardware.exc.PinAccessError`):
    per-pin reads could not claim those lines either.
    """
    lgpio = importlib.import_module("lgpio")  # loaded already: gpiozero's lgpio factory imports it
    missing = [name for name in GROUP_CALLS if not callable(getattr(lgpio, name, None))]
    if missing:
        return None, f"this lgpio has no group calls ({', '.join(missing)} missing)"
    if not isinstance(getattr(factory, "chip", None), int):
        return None, "this gpiozero's lgpio factory does not say which gpiochip it opened"
    held = gpiozero_held(factory, [*select_gpios, *signal_gpios])
    if held:
        return None, (f"GPIO {', '.join(map(str, held))} already claimed through gpiozero in this process, "
                      "which keeps them until its pin factory closes")
    groups = LgpioGroups(lgpio, factory, select_gpios=select_gpios, select_code=select_code,
                         signal_gpios=signal_gpios, pull=pull)
    return groups, groups.name


class LgpioGroups:
    """The select lines as one lgpio output group and the signal lines as one input group.

    Implements the scanner's bank reader (:meth:`read`, :meth:`bit`) and its
    select writer (:meth:`write`). *select_code* is the code the select lines
    start at (bit *i* = select line *i*); *pull* is ``up``, ``down`` or ``none``.
    """

    def __init__(
        self,
        lgpio: Any,
        factory: Any,
        *,
        select_gpios: Sequence[int],
        select_code: int,
        signal_gpios: Sequence[int],
        pull: str,
    ) -> None:
        self._lgpio = lgpio
        self._factory = factory
        self.chip = int(factory.chip)
        self.select_gpios = tuple(select_gpios)
        self.signal_gpios = tuple(signal_gpios)
        self.name = f"lgpio group_read (gpiochip{self.chip})"
        self.settles_at_once = False  # real multiplexers on a real ribbon: the scanner waits the settle time
        self._bits = {gpio: i for i, gpio in enumerate(self.signal_gpios)}
        self._handle: int | None = None
        self._leaders: list[int] = []
        self._reserved = False
        try:
            self._open(select_code, pull)
        except BaseException:
            self.close()
            raise
        self._signal_leader = self.signal_gpios[0]
        self._select_leader = self.select_gpios[0]
        # Bound once to the handle and the groups: the scan calls these 32 times per scan, straight
        # into lgpio (one Python call each, whose result the scanner checks).
        self.group_read: Callable[[], Sequence[int]] = functools.partial(
            lgpio.group_read, self._handle, self._signal_leader)
        self.group_write: Callable[[int, int], int] = functools.partial(
            lgpio.group_write, self._handle, self._select_leader)

    def _open(self, select_code: int, pull: str) -> None:
        lines = [*self.select_gpios, *self.signal_gpios]
        # gpiozero refuses (GPIOPinInUse) any device on a reserved line, before claiming it.
        self._reserved = True  # first: a reservation that fails half-way is released too
        self._factory.reserve_pins(self, *lines)
        lgpio = self._lgpio
        self._handle = self._checked(f"open gpiochip{self.chip}", lgpio.gpiochip_open, self.chip)
        levels = [select_code >> bit & 1 for bit in range(len(self.select_gpios))]
        self._checked(self._claiming("select", self.select_gpios), lgpio.group_claim_output,
                      self._handle, list(self.select_gpios), levels, 0)
        self._leaders.append(self.select_gpios[0])
        self._checked(self._claiming("signal", self.signal_gpios), lgpio.group_claim_input,
                      self._handle, list(self.signal_gpios), self._pull_flag(pull))
        self._leaders.append(self.signal_gpios[0])

    def _pull_flag(self, pull: str) -> int:
        lgpio = self._lgpio
        # lgpio 0.2 names the bias flags SET_PULL_*, 0.1 named them SET_BIAS_* (gpiozero copes the same way).
        names = {"up": ("SET_PULL_UP", "SET_BIAS_PULL_UP"), "down": ("SET_PULL_DOWN", "SET_BIAS_PULL_DOWN"),
                 "none": ("SET_PULL_NONE", "SET_BIAS_DISABLE")}[pull]
        return int(getattr(lgpio, names[0], None) or getattr(lgpio, names[1]))

    def _claiming(self, role: str, gpios: Sequence[int]) -> str:
        lines = ", ".join(map(str, gpios))
        return f"claim the {role} lines (GPIO {lines}) as one group on gpiochip{self.chip}"

    def _checked(self, doing: str, call: Any, *args: Any) -> int:
        """Run an lgpio call; raise :class:`PinAccessError` on an error, raised or returned."""
        try:
            status = int(call(*args))
        except self._lgpio.error as exc:
            raise PinAccessError(self._explain(doing, str(getattr(exc, "value", exc)))) from exc
        if status < 0:  # lgpio.exceptions turned off: errors come back as negative codes
            raise PinAccessError(self._explain(doing, str(self._lgpio.error_text(status))))
        return status

    @staticmethod
    def _explain(doing: str, text: str) -> str:
        hint = ("; is another controller (the board service) already running?" if "busy" in text.lower()
                else "")
        return f"cannot {doing}: {text}{hint}"

    # ------------------------------------------------------------------ the scanner's interface

    def read(self) -> int:
        """Levels of the signal lines as one int: bit :meth:`bit` (gpio) is that line's level."""
        count, bits = self.group_read()
        if count < 0:
            raise self.error("read the signal group", count)
        return int(bits)

    def error(self, doing: str, status: int) -> PinAccessError:
        """The error for an lgpio call that returned *status* (lgpio's exceptions off)."""
        return PinAccessError(self._explain(doing, str(self._lgpio.error_text(status))))

    def bit(self, gpio: int) -> int | None:
        """Where *gpio*'s level is in :meth:`read`'s int (its place in the group), None if not in it."""
        return self._bits.get(gpio)

    def write(self, bits: int, mask: int) -> None:
        """Set the select lines whose *mask* bit is set to their bit in *bits* (bit i = select line i)."""
        status = self.group_write(bits, mask)
        if status < 0:
            raise self.error("write the select group", status)

    # ------------------------------------------------------------------ lifetime

    def _conflicts_with(self, other: Any) -> bool:
        """gpiozero's reservation check: nothing else may use these lines."""
        return True

    def close(self) -> None:
        """Free both groups and the handle, and the reservations; safe to call twice."""
        handle, self._handle = self._handle, None
        try:
            if handle is not None:
                try:
                    for leader in reversed(self._leaders):
                        self._lgpio.group_free(handle, leader)
                finally:
                    # Closing the handle frees whatever it still holds, even if a free failed.
                    self._lgpio.gpiochip_close(handle)
        finally:
            self._leaders.clear()
            if self._reserved:
                self._reserved = False
                self._factory.release_all(self)

    def __repr__(self) -> str:
        state = "closed" if self._handle is None else "open"
        return (f"<LgpioGroups gpiochip{self.chip} select={list(self.select_gpios)} "
                f"signal={list(self.signal_gpios)} {state}>")
