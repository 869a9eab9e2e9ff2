"""A virtual board on gpiozero's mock pin factory, for development and tests.

:class:`VirtualBoard` wires mock pins the way the real board is wired (same
``[hardware]`` settings): its multiplexers watch the select (and enable) pins
and answer on the signal pins with the level of the selected channel, as
74HC4067 chips would, including their settle time (a read sooner than the
settle delay after a select change still sees the previously selected
channel). Pawns are placed and lifted by hand (:meth:`VirtualBoard.place`,
:meth:`VirtualBoard.lift`); contacts can bounce; faults can be injected: a
stuck channel, a dead multiplexer, a pulled cable, a noisy slot, a blown or
shorted lamp. Lamp outputs are plain mock pins; lamp feedback inputs follow
the lamp's state.

The real scanner runs unchanged on top of it; only the pin factory differs.
Every pin access the scanner makes is counted (:attr:`VirtualBoard.ops`), so
tests and benchmarks measure GPIO operations per scan from the pins' side.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gpiozero.pins.mock import MockFactory, MockPin

from games.hautetension.layout import Layout
from games.hautetension.pawn import PawnKind
from hardware.clock import Clock, SimulatedClock
from hardware.settings import ChannelRef, HardwareSettings, Signal, SlotWiring

_EPSILON = 1e-9
"""Clock arithmetic tolerance: a wait of exactly the settle time counts as settled."""


class VirtualBoardFactory(MockFactory):  # type: ignore[misc]
    """gpiozero's :class:`MockFactory`, as the virtual board's pins live in it."""

    board: VirtualBoard


class VirtualBankFactory(VirtualBoardFactory):
    """A virtual board whose pin factory can read GPIO 0-31 in one call (like pigpio's read_bank_1)."""

    board: VirtualBoard

    def read_bank(self) -> int:
        self.board.ops += 1
        self.board.bank_reads += 1
        if self._inputs is None:  # the pins are all made when the board is built
            self._inputs = [(int(str(info.name)[4:]), pin) for info, pin in self.pins.items()
                            if str(info.name).startswith("GPIO") and int(str(info.name)[4:]) < 32]
        word = 0
        for number, pin in self._inputs:
            if pin._function == "input" and (pin._level() if isinstance(pin, _VirtualPin) else pin._state):
                word |= 1 << number
        return word

    _inputs: list[tuple[int, MockPin]] | None = None


class _VirtualPin(MockPin):  # type: ignore[misc]
    board: VirtualBoard

    def _level(self) -> bool:
        return bool(self._state)


class VirtualLinePin(_VirtualPin):
    """A select or enable line: the multiplexers see every change, with its time."""

    def __init__(self, factory: Any, info: Any, board: VirtualBoard) -> None:
        self.board = board
        super().__init__(factory, info)

    def _set_state(self, value: Any) -> None:
        self.board.ops += 1
        self.board.line_writes += 1
        before = self._state
        super()._set_state(value)
        if self._state != before:
            self.board._lines_changed()


class VirtualSignalPin(_VirtualPin):
    """A multiplexer's common output: reads the selected channel (``mux`` None: the shared line)."""

    def __init__(self, factory: Any, info: Any, board: VirtualBoard, mux: int | None) -> None:
        self.board = board
        self.mux = mux
        super().__init__(factory, info)

    def _get_state(self) -> bool:
        self.board.ops += 1
        self.board.signal_reads += 1
        return self._level()

    def _level(self) -> bool:
        return self.board._signal_level(self.mux, bool(self._state))


class VirtualFeedbackPin(_VirtualPin):
    """A lamp-current sense input: active while the lamp draws current."""

    def __init__(self, factory: Any, info: Any, board: VirtualBoard, lamp: str) -> None:
        self.board = board
        self.lamp = lamp
        super().__init__(factory, info)

    def _get_state(self) -> bool:
        return self._level()

    def _level(self) -> bool:
        wiring = self.board.settings.lamps[self.lamp]
        return self.board.lamp_draws_current(self.lamp) == wiring.feedback_active_high


@dataclass
class _Contact:
    closed: bool = False
    changed_at: float = float("-inf")
    bounce: float = 0.0


class VirtualBoard:
    """The board's electronics, simulated; see the module docstring.

    *clock* must be the clock the scanner uses (a :class:`SimulatedClock` in
    tests, so settle and debounce times pass without sleeping). *settle_seconds*
    is the multiplexers' settle time (default: the configured settle time, so a
    correctly configured scanner always reads the right channel). *bounce_seconds*
    is how long contacts bounce after a pawn moves (0: clean contacts). *seed*
    makes bounce and noise reproducible. *bank_read* gives the pin factory a
    one-call bank read.
    """

    def __init__(
        self,
        settings: HardwareSettings,
        layout: Layout,
        *,
        clock: Clock | None = None,
        settle_seconds: float | None = None,
        bounce_seconds: float = 0.0,
        seed: int = 0,
        bank_read: bool = False,
    ) -> None:
        self.settings = settings
        self.layout = layout
        self.clock = clock or SimulatedClock()
        self.settle_seconds = settings.settle_seconds if settle_seconds is None else settle_seconds
        self.bounce_seconds = bounce_seconds
        self._rng = random.Random(seed)
        self.ops = 0
        self.line_writes = 0
        self.signal_reads = 0
        self.bank_reads = 0
        self.factory: VirtualBoardFactory = (VirtualBankFactory if bank_read else VirtualBoardFactory)()
        self.factory.board = self
        self._wiring: dict[ChannelRef, tuple[str, Signal]] = {}
        self._contacts: dict[tuple[str, Signal], _Contact] = {}
        self.pawns: dict[str, PawnKind] = {}
        self.rewire(settings.slot_map(layout))
        self._references = {r.ref: r.level for r in settings.references}
        self._stuck: dict[ChannelRef, bool] = {}
        self._dead: set[int] = set()
        self._noisy: dict[str, float] = {}
        self._blown: set[str] = set()
        self._shorted: set[str] = set()
        self._pins_by_gpio: dict[int, MockPin] = {}
        self._make_pins()
        # The chips' outputs follow the select lines after the settle delay: a short
        # history of (time, selection) is what a read looks back into.
        self._selections: deque[tuple[float, tuple[int, int | None]]] = deque(
            [(float("-inf"), self._read_selection())], maxlen=256)

    # ---------------------------------------------------------------- wiring

    def _make_pins(self) -> None:
        s, f = self.settings, self.factory
        self.select_pins = [f.pin(g, pin_class=VirtualLinePin, board=self) for g in s.select_gpios]
        self.enable_pins = [f.pin(g, pin_class=VirtualLinePin, board=self) for g in s.enable_gpios]
        if s.shared_signal_gpio is not None:
            self.signal_pins = [f.pin(s.shared_signal_gpio, pin_class=VirtualSignalPin, board=self, mux=None)]
        else:
            self.signal_pins = [f.pin(g, pin_class=VirtualSignalPin, board=self, mux=m)
                                for m, g in enumerate(s.signal_gpios)]
        self.lamp_pins = {lamp: f.pin(w.gpio) for lamp, w in s.lamps.items()}
        self.feedback_pins = {
            lamp: f.pin(w.feedback_gpio, pin_class=VirtualFeedbackPin, board=self, lamp=lamp)
            for lamp, w in s.lamps.items() if w.feedback_gpio is not None
        }
        self.button_pin = f.pin(s.button_gpio)

    def rewire(self, wiring: Mapping[str, SlotWiring]) -> None:
        """Move the wires: each slot's contacts now reach these channels, whatever the configuration
        says (a board built otherwise than configured, for the wiring wizard). Pawns stay where they are."""
        self._wiring = {}
        for slot, w in wiring.items():
            for signal in Signal:
                ref = w.channel_of(signal)
                if ref is not None:
                    self._wiring[ref] = (slot, signal)
                    if (slot, signal) not in self._contacts:
                        kind = self.pawns.get(slot)
                        closed = kind is not None and (signal is Signal.PRESENCE or kind.conducts)
                        self._contacts[(slot, signal)] = _Contact(closed=closed)

    def _read_selection(self) -> tuple[int, int | None]:
        code = sum(1 << bit for bit, pin in enumerate(self.select_pins) if pin._state)
        active = [m for m, pin in enumerate(self.enable_pins)
                  if bool(pin._state) == self.settings.enable_active_high]
        enabled = active[0] if len(active) == 1 else (None if not active else -1)
        return code, enabled

    def _lines_changed(self) -> None:
        self._selections.append((self.clock.now(), self._read_selection()))

    def _visible_selection(self, now: float) -> tuple[int, int | None]:
        """The selection the outputs show at *now*: the latest one older than the settle time."""
        horizon = now - self.settle_seconds + _EPSILON
        for at, selection in reversed(self._selections):
            if at <= horizon:
                return selection
        return self._selections[0][1]

    def _signal_level(self, mux: int | None, pulled: bool) -> bool:
        now = self.clock.now()
        code, enabled = self._visible_selection(now)
        if mux is None:  # shared line: the one enabled multiplexer drives it
            if enabled is None or enabled < 0:
                return pulled if enabled is None else self._rng.random() < 0.5
            mux = enabled
        return self.channel_level(ChannelRef(mux, code), pulled, now)

    def channel_level(self, ref: ChannelRef, pulled: bool, now: float) -> bool:
        """The electrical level on *ref* right now; *pulled* is what the line reads undriven."""
        if ref.multiplexer in self._dead:
            return pulled
        if ref in self._stuck:
            return self._stuck[ref]
        if ref in self._references:
            return self._references[ref]
        key = self._wiring.get(ref)
        if key is None:
            return pulled
        contact = self._contacts[key]
        closed = contact.closed
        if now - contact.changed_at < contact.bounce:
            closed = self._rng.random() < 0.5
        noise = self._noisy.get(key[0], 0.0)
        if noise and self._rng.random() < noise:
            closed = not closed
        return self.settings.active_high if closed else not self.settings.active_high

    # ---------------------------------------------------------------- pawns

    def place(self, slot: str, kind: PawnKind, *, bounce: float | None = None) -> None:
        """Stand a pawn in *slot*: presence closes, and conduction too for an attack pawn."""
        self.layout.check_slot(slot)
        if slot in self.pawns:
            raise ValueError(f"slot {slot} already holds a pawn")
        self.pawns[slot] = kind
        self._move(slot, Signal.PRESENCE, True, bounce)
        self._move(slot, Signal.CONDUCTION, kind.conducts, bounce)

    def lift(self, slot: str, *, bounce: float | None = None) -> PawnKind:
        """Take the pawn out of *slot*; return its kind."""
        self.layout.check_slot(slot)
        if slot not in self.pawns:
            raise ValueError(f"slot {slot} is empty")
        kind = self.pawns.pop(slot)
        self._move(slot, Signal.PRESENCE, False, bounce)
        self._move(slot, Signal.CONDUCTION, False, bounce)
        return kind

    def clear(self) -> None:
        for slot in list(self.pawns):
            self.lift(slot, bounce=0.0)

    def _move(self, slot: str, signal: Signal, closed: bool, bounce: float | None) -> None:
        contact = self._contacts.get((slot, signal))
        if contact is None or contact.closed == closed:
            return
        contact.closed = closed
        contact.changed_at = self.clock.now()
        contact.bounce = self.bounce_seconds if bounce is None else bounce

    def close_contact(self, slot: str, signal: Signal, closed: bool = True) -> None:
        """Close (or open) one contact by itself, as a bent or dirty contact would."""
        self._move(self.layout.check_slot(slot), signal, closed, 0.0)

    # ---------------------------------------------------------------- button

    def press_button(self) -> None:
        (self.button_pin.drive_low if self.settings.button_pull_up else self.button_pin.drive_high)()

    def release_button(self) -> None:
        (self.button_pin.drive_high if self.settings.button_pull_up else self.button_pin.drive_low)()

    # ---------------------------------------------------------------- lamps

    def lamp_is_on(self, lamp: str) -> bool:
        """Whether the lamp's output pin is at its active level."""
        pin = self.lamp_pins[lamp]
        return pin._function == "output" and bool(pin._state) == self.settings.lamps[lamp].active_high

    def lit_lamps(self) -> frozenset[str]:
        return frozenset(lamp for lamp in self.lamp_pins if self.lamp_is_on(lamp))

    def lamp_draws_current(self, lamp: str) -> bool:
        if lamp in self._shorted:
            return True
        return self.lamp_is_on(lamp) and lamp not in self._blown

    # ---------------------------------------------------------------- faults

    def stick(self, multiplexer: int, channel: int, level: bool) -> None:
        """A channel that reads *level* whatever stands in its slot."""
        self._stuck[ChannelRef(multiplexer, channel)] = level

    def unstick(self, multiplexer: int, channel: int) -> None:
        self._stuck.pop(ChannelRef(multiplexer, channel), None)

    def kill_multiplexer(self, multiplexer: int) -> None:
        """The chip loses power or its signal wire: the line reads its pull level."""
        self._dead.add(multiplexer)

    def revive_multiplexer(self, multiplexer: int) -> None:
        self._dead.discard(multiplexer)

    def pull_cable(self, multiplexers: Iterable[int] | None = None) -> None:
        """The ribbon to the multiplexers comes off (all of them, or those named)."""
        targets = range(self.settings.multiplexers) if multiplexers is None else multiplexers
        self._dead.update(targets)

    def make_noisy(self, slot: str, probability: float = 0.3) -> None:
        """Every read of *slot*'s contacts flips with this probability."""
        self._noisy[self.layout.check_slot(slot)] = probability

    def quiet(self, slot: str) -> None:
        self._noisy.pop(slot, None)

    def blow_lamp(self, lamp: str) -> None:
        """The bulb is gone: no current even when driven."""
        self._blown.add(lamp)

    def short_lamp(self, lamp: str) -> None:
        """Current flows even when the lamp is off (a welded relay, a shorted transistor)."""
        self._shorted.add(lamp)

    def repair_lamp(self, lamp: str) -> None:
        self._blown.discard(lamp)
        self._shorted.discard(lamp)

    # ---------------------------------------------------------------- another Pi-side driver

    # The virtual lgpio (:mod:`hardware.virtual_lgpio`) drives the same wires as the
    # mock pins do, through these three calls. A call that touches a scanner line counts
    # one operation, however many lines it covers: that is what a group call costs.

    def configure_line(self, gpio: int, *, output: bool, level: bool = False, pull: str = "floating") -> None:
        """GPIO *gpio* is claimed: as an output driven to *level*, or as an input with *pull*."""
        pin = self._line_pin(gpio)
        if output:
            pin._function = "output"
            self.write_lines([(gpio, level)], counted=False)
            return
        pin._function = "input"
        pin._pull = pull
        if pull != "floating":
            pin._change_state(pull == "up")

    def read_lines(self, gpios: Sequence[int], *, group: bool) -> list[bool]:
        """The levels on *gpios* as one call reads them (an output reads what it drives)."""
        pins = [self._line_pin(g) for g in gpios]
        if any(isinstance(pin, VirtualSignalPin) for pin in pins):
            self.ops += 1
            if group:
                self.bank_reads += 1
            else:
                self.signal_reads += 1
        return [pin._level() if isinstance(pin, _VirtualPin) else bool(pin._state) for pin in pins]

    def write_lines(self, levels: Sequence[tuple[int, bool]], *, counted: bool = True) -> None:
        """Drive output GPIOs to these levels in one call; the multiplexers see one change."""
        changed = touched = False
        for gpio, level in levels:
            pin = self._line_pin(gpio)
            moved = bool(pin._change_state(bool(level)))
            if isinstance(pin, VirtualLinePin):
                touched = True
                changed |= moved
        if touched and counted:
            self.ops += 1
            self.line_writes += 1
        if changed:
            self._lines_changed()

    def _line_pin(self, gpio: int) -> MockPin:
        pin = self._pins_by_gpio.get(gpio)
        if pin is None:
            pin = self._pins_by_gpio[gpio] = self.factory.pin(gpio)
        return pin

    def reset_counts(self) -> None:
        self.ops = self.line_writes = self.signal_reads = self.bank_reads = 0

    def close(self) -> None:
        self.factory.close()
