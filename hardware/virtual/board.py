"""A virtual board on gpiozero's mock pin factory, for development and tests.

:class:`VirtualBoard` wires mock pins the way the real board is wired (same
``[hardware]`` settings): its multiplexers watch the select (and enable) pins
and answer on the signal pins with the level of the selected channel, as
74HC4067 chips would, including their settle time (a read sooner than the
settle delay after a select change still sees the previously selected
channel). Pawns are placed and lifted by hand (:meth:`VirtualBoard.place`,
:meth:`VirtualBoard.lift`); contacts can bounce; faults can be injected: a
stuck channel, a dead multiplexer, a pulled cable, a noisy slot, a worn contact
(:meth:`VirtualBoard.age`), a blown or shorted lamp. Lamp outputs are plain
mock pins; lamp feedback inputs follow the lamp's state.

The real scanner runs unchanged on top of it; only the pin factory differs.
Every pin access the scanner makes is counted (:attr:`VirtualBoard.ops`), so
tests and benchmarks measure GPIO operations per scan from the pins' side.

With ``groups=True`` (the ``sim`` backend) its pin factory also claims the
select lines as one output group and the signal lines as one input group
(:meth:`VirtualGroupFactory.open_groups`), as lgpio does on a Pi: one call
per select step, one per read, 32 per scan. A group read answers at once:
the signal levels of each selection are kept as one int until something on
the board changes (a pawn, a fault, a bouncing or noisy contact), so the
simulated board costs the scanner what the real one does.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from time import monotonic
from typing import Any

from gpiozero.pins.mock import MockFactory, MockPin, PinState

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


class VirtualGroupFactory(VirtualBoardFactory):
    """A virtual board whose pin factory claims the scanner's lines as two groups (as lgpio does)."""

    board: VirtualBoard

    def open_groups(self, *, select_gpios: Sequence[int], select_code: int, signal_gpios: Sequence[int],
                    pull: str) -> tuple[VirtualGroups | None, str]:
        """The select lines as one output group, the signal lines as one input group (the scanner's
        :class:`~hardware.scanner.LineGroups`); ``None`` and why when the lines are not all the board's."""
        board = self.board
        if tuple(select_gpios) != tuple(board.settings.select_gpios):
            return None, "the select lines are not the virtual board's"
        return VirtualGroups(board, select_code=select_code, signal_gpios=signal_gpios, pull=pull), \
            "virtual group_read"


class VirtualGroups:
    """The virtual board's select and signal lines claimed as two groups; see the module docstring.

    :attr:`write` and :attr:`read` have lgpio's shapes (``group_write(bits, mask)`` returns the group's
    size, ``group_read()`` returns ``(size, bits)``, bit *i* being the *i*-th signal line)."""

    def __init__(self, board: VirtualBoard, *, select_code: int, signal_gpios: Sequence[int],
                 pull: str) -> None:
        self.board = board
        self.name = "virtual group_read"
        self.select_gpios = tuple(board.settings.select_gpios)
        self.signal_gpios = tuple(signal_gpios)
        self._bits = {gpio: i for i, gpio in enumerate(self.signal_gpios)}
        factory = board.factory
        self._reserved = True
        factory.reserve_pins(self, *self.select_gpios, *self.signal_gpios)
        for gpio in self.signal_gpios:
            board.configure_line(gpio, output=False, pull=pull)
        for i, gpio in enumerate(self.select_gpios):
            board.configure_line(gpio, output=True, level=bool(select_code >> i & 1))
        self.settles_at_once = board.settle_seconds == 0
        """The virtual multiplexers of the real-time ``sim`` backend switch at once: nothing to wait for."""
        self.group_write: Callable[[int, int], int] = board.group_write
        self.group_read: Callable[[], Sequence[int]] = board.group_read
        board.claim_group(self.signal_gpios)

    def bit(self, gpio: int) -> int | None:
        return self._bits.get(gpio)

    def error(self, doing: str, status: int) -> Exception:
        return RuntimeError(f"cannot {doing}: virtual board error {status}")  # never: it always answers

    def _conflicts_with(self, other: Any) -> bool:
        return True  # gpiozero's reservation check: nothing else may use these lines

    def close(self) -> None:
        if self._reserved:
            self._reserved = False
            self.board.release_group()
            self.board.factory.release_all(self)


STATES_KEPT = 64
"""State changes a virtual pin remembers (gpiozero's ``MockPin.states``, for its ``assert_states``)."""


class _VirtualPin(MockPin):  # type: ignore[misc]
    """A mock pin of the virtual board: the lamps and the button as they are, and the base of the others."""

    board: VirtualBoard

    def clear_states(self) -> None:
        # gpiozero's MockPin keeps every state change of a pin, for ever: the scanner changes the
        # select lines 16 times a scan, 200 scans a second, and the board service on the sim
        # backend grew by about 12 MiB a minute (bench/soak.py). The last few are plenty for tests.
        self._last_change = monotonic()
        self.states: deque[PinState] = deque([PinState(0.0, self._state)], maxlen=STATES_KEPT)

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
    one-call bank read, *groups* group claims of the scanner's lines.
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
        groups: bool = False,
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
        # Every pin, lamps and button included, keeps a bounded history (see _VirtualPin).
        factory_class = (VirtualBankFactory if bank_read else VirtualGroupFactory if groups
                         else VirtualBoardFactory)
        self.factory: VirtualBoardFactory = factory_class(pin_class=_VirtualPin)
        self.factory.board = self
        self._wiring: dict[ChannelRef, tuple[str, Signal]] = {}
        self._contacts: dict[tuple[str, Signal], _Contact] = {}
        self.pawns: dict[str, PawnKind] = {}
        self.rewire(settings.slot_map(layout))
        self._references = {r.ref: r.level for r in settings.references}
        self._stuck: dict[ChannelRef, bool] = {}
        self._dead: set[int] = set()
        self._noisy: dict[str, float] = {}
        self._worn: dict[tuple[str, Signal], float] = {}
        self._blown: set[str] = set()
        self._shorted: set[str] = set()
        self._pins_by_gpio: dict[int, MockPin] = {}
        self._group: tuple[tuple[int, MockPin], ...] = ()
        self._make_pins()
        # The chips' outputs follow the select lines after the settle delay: a short
        # history of (time, selection) is what a read looks back into.
        self._selection = self._read_selection()
        self._selections: deque[tuple[float, tuple[int, int | None]]] = deque(
            [(float("-inf"), self._selection)], maxlen=256)
        # The group path: the signal lines' levels of each selection, while nothing moves on the board.
        self._words: dict[tuple[int, int | None], tuple[int, int]] = {}
        """Each selection's answer to a group read (size, bits), kept while nothing moves."""
        self._unsettled_until = float("-inf")

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
        if hasattr(self, "_words"):
            self._changed()

    def _read_selection(self) -> tuple[int, int | None]:
        if self._group:  # the select lines are the group's, which keeps their code
            code = self._selection[0]
        else:
            code = sum(1 << bit for bit, pin in enumerate(self.select_pins) if pin._state)
        active = [m for m, pin in enumerate(self.enable_pins)
                  if bool(pin._state) == self.settings.enable_active_high]
        enabled = active[0] if len(active) == 1 else (None if not active else -1)
        return code, enabled

    def _lines_changed(self) -> None:
        self._selection = self._read_selection()
        self._selections.append((self.clock.now(), self._selection))

    # ---------------------------------------------------------------- the group path

    def claim_group(self, signal_gpios: Sequence[int]) -> None:
        """The scanner claimed *signal_gpios* as one input group: :meth:`group_read` reads them."""
        pins = [self._line_pin(g) for g in signal_gpios]
        self._group = tuple((1 << i, pin) for i, pin in enumerate(pins))
        self._select_count = len(self.select_pins)
        self._group_size = len(self._group)
        self._words.clear()

    def release_group(self) -> None:
        """The groups are freed: the select pins show the code the group left them at."""
        code = self._selection[0]
        for bit, pin in enumerate(self.select_pins):
            pin._state = bool(code >> bit & 1)
        self._group = ()
        self._words.clear()

    def group_write(self, bits: int, mask: int) -> int:
        """Set the select lines whose *mask* bit is set to their bit in *bits*; lgpio's group size back.

        The select pins themselves are not moved (nothing but this group drives them while it holds
        them): the multiplexers follow the selection kept here."""
        self.ops += 1
        self.line_writes += 1
        code, enabled = self._selection
        new = code ^ (code ^ bits) & mask
        if new != code:
            self._selection = selection = (new, enabled)
            if self.settle_seconds:  # the outputs follow after the settle time: keep when
                self._selections.append((self.clock.now(), selection))
        return self._select_count

    def group_read(self) -> tuple[int, int]:
        """The signal group's levels (bit *i*: its *i*-th line) as lgpio gives them: (group size, bits).

        Answered at once from the levels kept for the selection while the board is still."""
        self.ops += 1
        self.bank_reads += 1
        selection = self._selection
        if self.settle_seconds:
            now = self.clock.now()
            if now - self._selections[-1][0] < self.settle_seconds - _EPSILON:
                selection = self._visible_selection(now)
        answer = self._words.get(selection)
        if answer is None:
            now = self.clock.now()
            answer = (self._group_size, self._group_word(selection, now))
            if now >= self._unsettled_until and not self._noisy and selection[1] != -1:
                self._words[selection] = answer
        return answer

    def _group_word(self, selection: tuple[int, int | None], now: float) -> int:
        code, enabled = selection
        word = 0
        for bit, pin in self._group:
            pulled = bool(pin._state)
            if not isinstance(pin, VirtualSignalPin):  # a line no multiplexer drives
                level = pulled
            elif pin.mux is not None:
                level = self.channel_level(ChannelRef(pin.mux, code), pulled, now)
            elif enabled is None or enabled < 0:  # shared line: the one enabled multiplexer drives it
                level = pulled if enabled is None else self._rng.random() < 0.5
            else:
                level = self.channel_level(ChannelRef(enabled, code), pulled, now)
            if level:
                word |= bit
        return word

    def _changed(self, until: float = float("-inf")) -> None:
        """Something on the board moved: the kept group levels are stale (and stay so while it bounces)."""
        self._words.clear()
        self._unsettled_until = max(self._unsettled_until, until)

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
        wear = self._worn.get((slot, signal))
        if closed and wear is not None and self._rng.random() < wear:
            closed = False  # a worn contact: the pawn stands there, the springs no longer touch it
        if contact is None or contact.closed == closed:
            return
        contact.closed = closed
        contact.changed_at = self.clock.now()
        contact.bounce = self.bounce_seconds if bounce is None else bounce
        self._changed(contact.changed_at + contact.bounce)

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
        self._changed()

    def unstick(self, multiplexer: int, channel: int) -> None:
        self._stuck.pop(ChannelRef(multiplexer, channel), None)
        self._changed()

    def kill_multiplexer(self, multiplexer: int) -> None:
        """The chip loses power or its signal wire: the line reads its pull level."""
        self._dead.add(multiplexer)
        self._changed()

    def revive_multiplexer(self, multiplexer: int) -> None:
        self._dead.discard(multiplexer)
        self._changed()

    def pull_cable(self, multiplexers: Iterable[int] | None = None) -> None:
        """The ribbon to the multiplexers comes off (all of them, or those named)."""
        targets = range(self.settings.multiplexers) if multiplexers is None else multiplexers
        self._dead.update(targets)
        self._changed()

    def make_noisy(self, slot: str, probability: float = 0.3) -> None:
        """Every read of *slot*'s contacts flips with this probability."""
        self._noisy[self.layout.check_slot(slot)] = probability
        self._changed()

    def age(self, slot: str, signal: Signal = Signal.CONDUCTION, wear: float = 1.0) -> None:
        """Wear one contact of *slot*: a pawn placed there fails to close it with probability *wear*
        (1: it never closes any more; 0: as new). What the slot health finds before players do."""
        if not 0.0 <= wear <= 1.0:
            raise ValueError("a contact's wear is from 0 (new) to 1 (never closes)")
        self._worn[(self.layout.check_slot(slot), signal)] = wear

    def quiet(self, slot: str) -> None:
        self._noisy.pop(slot, None)
        self._changed()

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

    # The virtual lgpio (:mod:`hardware.virtual.lgpio`) drives the same wires as the
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
        if hasattr(self, "_words"):
            self._changed()

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
