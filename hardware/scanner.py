"""The multiplexer scanner: walks the select lines and reads the signal lines.

A scan visits every select code once, in Gray-code order (0, 1, 3, 2, 6, …),
so each step toggles exactly one select line, and the walk is a closed cycle
(the last code is one toggle away from the first), so every scan, the first
one included, costs the same. At each step the scanner waits the settle time
once and reads every signal line whose multiplexer has something wired on that
channel. With ten 16-channel multiplexers on four shared select lines that is
16 writes + 160 reads = 176 GPIO operations per scan, against 16 × 4 + 160 =
224 for setting all four lines at every step.

Boards built with one shared signal line and an enable line per multiplexer
are walked multiplexer by multiplexer, the Gray walk running forwards then
backwards (boustrophedon) so no step changes more than the lines it must.

If the pin factory can read a whole GPIO bank in one call (pigpio's
``read_bank_1``, the native factory's level register, the virtual board's
``read_bank``), each step reads all signals in one operation: 16 + 16 = 32
operations per scan. On gpiozero's lgpio factory (the Pi 5's) the scanner
claims the signal lines as one lgpio input group and the select lines as one
output group (:mod:`hardware.lgpio_group`): one call per select step and one
per read, 32 per scan as well; the virtual board of the ``sim`` backend
offers the same groups (:class:`LineGroups`).

A scan's result is one int, a bit per channel (:attr:`MultiplexerScanner.snapshot`),
so that an idle board, whose scans all read the same, costs the monitor one
comparison. Only RPi.GPIO has neither, and keeps the
per-pin reads. Which path a scanner took is logged (INFO, WARNING when an
lgpio factory had to fall back) and kept in :attr:`MultiplexerScanner.path`.

The scanner deals in electrical levels only (True = high); what a level means
(a pawn, a reference, a fault) is decided in :mod:`hardware.monitor`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from gpiozero import Device, DigitalOutputDevice, InputDevice

from games.hautetension.layout import Layout
from hardware.clock import Clock, MonotonicClock, stopwatch_of
from hardware.lgpio_group import is_lgpio_factory, open_lgpio_groups
from hardware.settings import ChannelRef, HardwareSettings

log = logging.getLogger(__name__)


def gray_codes(bits: int) -> list[int]:
    """The reflected Gray code of *bits* bits: consecutive codes differ in one bit, cyclically."""
    return [i ^ (i >> 1) for i in range(2**bits)]


@dataclass(frozen=True)
class Visit:
    """One position of the select lines (and enable lines) and what to read there."""

    code: int
    enabled: int | None
    """The multiplexer whose enable line is active (shared-signal boards), else None."""
    reads: tuple[ChannelRef, ...]


def plan_visits(settings: HardwareSettings, wired: set[ChannelRef]) -> list[Visit]:
    """The order in which a scan visits the channels that have something wired."""
    codes = gray_codes(len(settings.select_gpios))
    if not settings.shared_signal:
        return [
            Visit(code, None, tuple(ChannelRef(m, code) for m in range(settings.multiplexers)
                                    if ChannelRef(m, code) in wired))
            for code in codes
        ]
    visits = []
    for mux in range(settings.multiplexers):
        walk = codes if mux % 2 == 0 else codes[::-1]
        visits += [Visit(code, mux, (ChannelRef(mux, code),) if ChannelRef(mux, code) in wired else ())
                   for code in walk]
    return [v for v in visits if v.reads] or visits[:1]


class BankReader(Protocol):
    """Reads the levels of several GPIOs in one call."""

    name: str

    def read(self) -> int:
        """The levels as one int; :meth:`bit` says where each GPIO's level is."""

    def bit(self, gpio: int) -> int | None:
        """The bit of :meth:`read`'s int that holds *gpio*'s level; None if the read does not cover it."""


class _CallableBank:
    """A bank register read: bit n = GPIO n, for GPIO 0-31."""

    def __init__(self, name: str, read: Callable[[], int]) -> None:
        self.name = name
        self.read = read

    def bit(self, gpio: int) -> int | None:
        return gpio if 0 <= gpio < 32 else None


def bank_reader_for(factory: Any) -> BankReader | None:
    """A one-call read of GPIO 0-31 if *factory* offers one, else None."""
    kinds = {cls.__name__ for cls in type(factory).__mro__}
    if callable(getattr(factory, "read_bank", None)):
        return _CallableBank("virtual read_bank", factory.read_bank)
    if "PiGPIOFactory" in kinds:
        connection = factory.connection
        return _CallableBank("pigpio read_bank_1", connection.read_bank_1)
    if "NativeFactory" in kinds and getattr(factory, "mem", None) is not None:
        mem = factory.mem
        offset = mem.GPLEV_OFFSET
        return _CallableBank("native GPLEV0", lambda: int(mem[offset]))
    return None


class LineGroups(Protocol):
    """The select lines as one output group and the signal lines as one input group.

    lgpio's groups on a Pi (:class:`~hardware.lgpio_group.LgpioGroups`), the
    virtual board's in the ``sim`` backend (:class:`~hardware.virtual.board.VirtualGroups`).
    :attr:`group_write` and :attr:`group_read` are the two calls a scan makes,
    in lgpio's shapes, bound to the groups so that a step is one call each.
    """

    name: str
    select_gpios: tuple[int, ...]
    signal_gpios: tuple[int, ...]
    settles_at_once: bool
    """Whether a read right after a write sees the new channel (simulated multiplexers): no settle wait."""
    group_write: Callable[[int, int], int]
    """``(bits, mask)``: set the select lines whose mask bit is set; the group's size (negative: an error)."""
    group_read: Callable[[], Sequence[int]]
    """The signal lines: ``(size, bits)``, bit *i* the level of ``signal_gpios[i]`` (a negative size: an
    error)."""

    def bit(self, gpio: int) -> int | None:
        """Where *gpio*'s level is in a read's bits, None if the group does not hold it."""

    def error(self, doing: str, status: int) -> Exception:
        """The error to raise for a call that returned the negative *status*."""

    def close(self) -> None:
        """Free the lines."""


@dataclass(frozen=True)
class _Step:
    """One select step, compiled: what the scan loop does there, with nothing left to look up."""

    code: int
    mask: int
    """Select lines the group write changes (0: no group write at this step)."""
    writes: tuple[tuple[Any, bool], ...]
    """Lines written one pin per call (select lines off the group path, enable lines)."""
    settle: bool
    shift: int
    """Group path: where the step's read goes in the snapshot (``bits << shift``); -1: no read."""
    bank: tuple[tuple[int, int], ...]
    """Bank path: (bit of the bank word, snapshot bit) per channel read."""
    reads: tuple[tuple[Any, int], ...]
    """Per-pin path: (pin, snapshot bit) per channel read."""
    reads_bank: bool


class MultiplexerScanner:
    """Reads every wired multiplexer channel once per :meth:`sample`.

    *pin_factory* is any gpiozero pin factory (``None``: gpiozero's default).
    A scan's result is one integer, the *snapshot*: bit :meth:`position` of a
    channel is its level (1 = high), the bits of a select step being side by
    side (channel *c* of multiplexer *m* is bit ``c × multiplexers + m``), so
    a group read of the signal lines drops into place with one shift. Two
    scans that read the same are two equal ints: comparing them is all an idle
    board costs the monitor. :attr:`levels` gives the same as a list of
    booleans indexed ``multiplexer * channels + channel`` (:meth:`index`), for
    the wiring wizard, the self-test and the console. The snapshot is the same
    whichever way the pins are read (per pin, bank read or line groups).
    """

    def __init__(
        self,
        settings: HardwareSettings,
        layout: Layout,
        *,
        pin_factory: Any = None,
        clock: Clock | None = None,
    ) -> None:
        self.settings = settings
        self.clock = clock or MonotonicClock()
        self.channels = settings.channels_per_multiplexer
        wired = {ref for w in settings.slot_map(layout).values() for ref in (w.presence, w.conduction) if ref}
        wired |= {r.ref for r in settings.references}
        self._wired = wired
        self.every_channel = False
        """Whether a scan reads every channel, wired or not (:meth:`read_every_channel`)."""
        self.visits = plan_visits(settings, wired)
        self._devices: list[Any] = []
        self.groups: LineGroups | None = None
        self.bank: BankReader | None = None
        self.select: list[Any] = []
        self.enable: list[Any] = []
        self.signal: list[Any] = []
        self.scan_count = 0
        self.last_scan_seconds = 0.0
        every = (1 << settings.multiplexers * self.channels) - 1
        self.snapshot = every if settings.floating_level else 0
        """The last scan's levels, one bit per channel (see the class docstring); unread channels keep
        their last level (the floating level before the first read)."""
        try:
            self._open(pin_factory)
        except BaseException:
            self.close()
            raise

    def _open(self, pin_factory: Any) -> None:
        s = self.settings
        if pin_factory is None:
            pin_factory = default_pin_factory()
        self.pin_factory = pin_factory
        last = self.visits[-1]
        signal_gpios = [s.shared_signal_gpio] if s.shared_signal_gpio is not None else list(s.signal_gpios)
        self.path = self._open_groups(signal_gpios, last.code)
        if self.groups is None:
            self._open_pins(signal_gpios, last.code)
            self.path = self._choose_bank(signal_gpios) or self.path
        # Enable lines stay gpiozero devices on every path: they change once per multiplexer walk.
        self.enable = [
            self._add(DigitalOutputDevice(g, active_high=s.enable_active_high,
                                          initial_value=(m == last.enabled),
                                          pin_factory=pin_factory))
            for m, g in enumerate(s.enable_gpios)
        ]
        self._signal_gpios = signal_gpios
        self._stopwatch = stopwatch_of(self.clock)
        self._compile()
        self._log_path()

    def read_every_channel(self, on: bool = True) -> None:
        """From the next scan on, read every channel of every multiplexer (*on*), or only the wired ones.

        The wiring wizard needs it: a contact may be wired to a channel the configuration does not
        know. The levels of channels not read keep their last value."""
        if on == self.every_channel:
            return
        s = self.settings
        wired = ({ChannelRef(m, c) for m in range(s.multiplexers) for c in range(self.channels)}
                 if on else self._wired)
        self.visits = plan_visits(s, wired)
        self._compile()
        self.every_channel = on
        # Each walk starts where it ends; a shared-signal board's new walk may end elsewhere: go there.
        self._move_lines(self.visits[-1])

    def _move_lines(self, visit: Visit) -> None:
        states = self._line_states(visit)
        if self.groups is not None:
            status = self.groups.group_write(visit.code, (1 << len(self.settings.select_gpios)) - 1)
            if status < 0:
                raise self.groups.error("write the select group", status)
        pins = [d.pin for d in self.select] + [d.pin for d in self.enable]
        offset = len(self.settings.select_gpios) - len(self.select)
        # Disable before enable, so two multiplexers never drive the shared line at once.
        for pin, state in sorted(zip(pins, states[offset:], strict=True),
                                 key=lambda w: w[1] == self.settings.enable_active_high):
            pin.state = state

    def _open_pins(self, signal_gpios: list[int], code: int) -> None:
        """The select and signal lines as gpiozero devices, one pin per call."""
        s, factory = self.settings, self.pin_factory
        # Start the lines where the cyclic walk ends, so the first scan costs what every scan costs.
        self.select = [
            self._add(DigitalOutputDevice(g, initial_value=bool(code >> bit & 1), pin_factory=factory))
            for bit, g in enumerate(s.select_gpios)
        ]
        # InputDevice, not DigitalInputDevice: edge callbacks on lines that change at every
        # select step would only cost CPU; the scanner polls.
        self.signal = [self._add(_input(g, s.signal_pull, factory)) for g in signal_gpios]

    def _log_path(self) -> None:
        # On gpiozero's lgpio factory one pin per call is a fallback worth a warning, unless asked for.
        lgpio = is_lgpio_factory(self.pin_factory)
        fell_back = lgpio and self.groups is None and self.settings.bank_read == "auto"
        log.log(logging.WARNING if fell_back else logging.INFO, "multiplexer scan on %s: %s; %d GPIO "
                "operations per scan", type(self.pin_factory).__name__, self.path, self.ops_per_scan)

    def _open_groups(self, signal_gpios: list[int], code: int) -> str:
        """Claim the lines as two groups when the factory can (lgpio, the virtual board); the path taken,
        or why not."""
        if self.settings.bank_read != "auto":
            return "per-pin reads (bank_read = off)"
        factory = self.pin_factory
        options: dict[str, Any] = {"select_gpios": self.settings.select_gpios, "select_code": code,
                                   "signal_gpios": signal_gpios, "pull": self.settings.signal_pull}
        groups: LineGroups | None
        if is_lgpio_factory(factory):
            groups, why = open_lgpio_groups(factory, **options)
        elif callable(getattr(factory, "open_groups", None)):
            groups, why = factory.open_groups(**options)
        else:
            return "per-pin reads"
        if groups is None:
            return f"per-pin reads ({why})"
        self.groups = self._add(groups)
        return (f"{groups.name}: select GPIO {', '.join(map(str, groups.select_gpios))} as one output group, "
                f"signal GPIO {', '.join(map(str, groups.signal_gpios))} as one input group")

    def _choose_bank(self, signal_gpios: list[int]) -> str | None:
        """Use the factory's bank read if it has one that covers every signal line; the path, if so."""
        if self.settings.bank_read != "auto":
            return None
        bank = bank_reader_for(self.pin_factory)
        if bank is None or any(bank.bit(g) is None for g in signal_gpios):
            return None
        self.bank = bank
        return f"bank read ({bank.name})"

    def _add(self, device: Any) -> Any:
        self._devices.append(device)
        return device

    def index(self, ref: ChannelRef) -> int:
        """The channel's place in :attr:`levels`."""
        return ref.multiplexer * self.channels + ref.channel

    def position(self, ref: ChannelRef) -> int:
        """The channel's bit in :attr:`snapshot`."""
        return ref.channel * self.settings.multiplexers + ref.multiplexer

    def _line_states(self, visit: Visit) -> list[bool]:
        select = [bool(visit.code >> bit & 1) for bit in range(len(self.settings.select_gpios))]
        enable = [(m == visit.enabled) == self.settings.enable_active_high
                  for m in range(len(self.settings.enable_gpios))]
        return select + enable

    def _compile(self) -> None:
        """Turn the visits into steps, and choose the scan loop for the path."""
        grouped = self.groups is not None
        shared = self.settings.shared_signal
        signal_gpios = self._signal_gpios
        # Per-pin lines in the order of _line_states; select lines in a group have no pin.
        selects = [None] * len(self.settings.select_gpios) if grouped else [d.pin for d in self.select]
        lines: list[Any] = selects + [d.pin for d in self.enable]
        previous, previous_code = self._line_states(self.visits[-1]), self.visits[-1].code
        steps = []
        read_mask = 0
        for visit in self.visits:
            states = self._line_states(visit)
            writes = tuple((lines[i], states[i]) for i in range(len(lines))
                           if states[i] != previous[i] and lines[i] is not None)
            # Disable before enable, so two multiplexers never drive the shared line at once.
            writes = tuple(sorted(writes, key=lambda w: w[1] == self.settings.enable_active_high))
            mask = visit.code ^ previous_code if grouped else 0
            previous, previous_code = states, visit.code
            positions = [(0 if shared else ref.multiplexer, self.position(ref)) for ref in visit.reads]
            for _, at in positions:
                read_mask |= 1 << at
            shift = -1
            bank: tuple[tuple[int, int], ...] = ()
            reads: tuple[tuple[Any, int], ...] = ()
            if grouped and positions:
                # Non-shared: bit i of the group is multiplexer i, so the read lands at code × multiplexers.
                shift = self.position(visit.reads[0]) if shared else visit.code * self.settings.multiplexers
            elif self.bank is not None and positions:
                bank = tuple((self._bank_bit(signal_gpios[s]), 1 << at) for s, at in positions)
            elif not grouped and self.bank is None:
                reads = tuple((self.signal[s].pin, 1 << at) for s, at in positions)
            settle = bool((writes or mask) and positions) and not (grouped and self.groups.settles_at_once)  # type: ignore[union-attr]
            steps.append(_Step(visit.code, mask, writes, settle=settle,
                               shift=shift, bank=bank, reads=reads,
                               reads_bank=self.bank is not None and bool(positions)))
        self._steps = steps
        self._read_mask = read_mask
        self._group_walk = tuple((s.code, s.mask, s.writes, s.settle, s.shift) for s in steps)
        self._pin_walk = tuple((s.writes, s.settle, s.reads_bank, s.bank, s.reads) for s in steps)
        # The path's loop, bound once: a scan is one call to it.
        self.sample = self._sample_groups if grouped else self._sample_pins  # type: ignore[method-assign]

    def _bank_bit(self, gpio: int) -> int:
        bit = self.bank.bit(gpio) if self.bank is not None else None
        assert bit is not None, "only a bank read that covers every signal line is used"
        return bit

    @property
    def ops_per_scan(self) -> int:
        """GPIO operations in one scan: line writes + signal reads, a bank read or group call counting one."""
        return sum(self._step_writes(s) + (1 if s.reads_bank or s.shift >= 0 else len(s.reads))
                   for s in self._steps)

    @property
    def writes_per_scan(self) -> int:
        return sum(self._step_writes(s) for s in self._steps)

    @staticmethod
    def _step_writes(step: _Step) -> int:
        return len(step.writes) + (step.mask != 0)

    @property
    def bank_read(self) -> str | None:
        """The one-call read in use (a bank read or the signal group), or None (one pin per call)."""
        return self.groups.name if self.groups is not None else None if self.bank is None else self.bank.name

    # ------------------------------------------------------------------ scanning

    def sample(self) -> int:
        """Walk every channel once; return the :attr:`snapshot` (replaced by the path's loop in _compile)."""
        raise NotImplementedError  # pragma: no cover - _compile always sets it

    def _sample_groups(self) -> int:
        """The scan loop through line groups: per select step one group write and one group read.

        The settle wait spins only for what remains of the settle time after the write returned, and
        is waited whole, without spinning, on a clock whose time moves only when someone waits."""
        clock = self.clock
        groups = self.groups
        assert groups is not None
        write, read = groups.group_write, groups.group_read
        settle = self.settings.settle_seconds
        stopwatch = self._stopwatch
        wait = clock.wait
        started = clock.now()
        raw = 0
        for code, mask, writes, settles, shift in self._group_walk:
            if mask:
                status = write(code, mask)
                if status < 0:
                    raise groups.error("write the select group", status)
            for pin, value in writes:
                pin.state = value
            if settles:
                if stopwatch is None:
                    wait(settle)
                else:
                    end = stopwatch() + settle
                    while stopwatch() < end:
                        pass
            if shift >= 0:
                count, bits = read()
                if count < 0:
                    raise groups.error("read the signal group", count)
                raw |= bits << shift
        return self._took(raw, started)

    def _sample_pins(self) -> int:
        """The scan loop through gpiozero's pins: one write per changed line, a bank read or one read per
        channel."""
        clock = self.clock
        bank = self.bank
        settle = self.settings.settle_seconds
        stopwatch = self._stopwatch
        wait = clock.wait
        started = clock.now()
        raw = 0
        for writes, settles, reads_bank, bits, reads in self._pin_walk:
            for pin, value in writes:
                pin.state = value
            if settles:
                if stopwatch is None:
                    wait(settle)
                else:
                    end = stopwatch() + settle
                    while stopwatch() < end:
                        pass
            if reads_bank:
                word = bank.read()  # type: ignore[union-attr]
                for bit, at in bits:
                    if word >> bit & 1:
                        raw |= at
            else:
                for pin, at in reads:
                    if pin.state:
                        raw |= at
        return self._took(raw, started)

    def _took(self, raw: int, started: float) -> int:
        mask = self._read_mask
        self.snapshot = snapshot = self.snapshot & ~mask | raw & mask
        self.scan_count += 1
        self.last_scan_seconds = self.clock.now() - started
        return snapshot

    def scan(self) -> list[bool]:
        """One scan (:meth:`sample`); its levels as a list (:attr:`levels`)."""
        self.sample()
        return self.levels

    @property
    def levels(self) -> list[bool]:
        """Every channel's last level, indexed ``multiplexer * channels + channel`` (:meth:`index`)."""
        snapshot, multiplexers = self.snapshot, self.settings.multiplexers
        return [bool(snapshot >> (c * multiplexers + m) & 1)
                for m in range(multiplexers) for c in range(self.channels)]

    def level(self, ref: ChannelRef) -> bool:
        return bool(self.snapshot >> self.position(ref) & 1)

    def close(self) -> None:
        for device in reversed(self._devices):
            device.close()
        self._devices.clear()

    def __enter__(self) -> MultiplexerScanner:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def default_pin_factory() -> Any:
    """The pin factory a gpiozero device uses when it is given none (gpiozero's choice, made once)."""
    Device.ensure_pin_factory()
    return Device.pin_factory


def _input(gpio: int, pull: str, pin_factory: Any) -> InputDevice:
    if pull == "none":
        return InputDevice(gpio, pull_up=None, active_state=True, pin_factory=pin_factory)
    return InputDevice(gpio, pull_up=(pull == "up"), pin_factory=pin_factory)


def describe_plan(scanner: MultiplexerScanner) -> Sequence[str]:
    """One line per step, for ``hautetension config check --verbose`` and debugging."""
    lines = []
    for visit, step in zip(scanner.visits, scanner._steps, strict=True):
        enabled = "" if visit.enabled is None else f" enable {visit.enabled}"
        group = "1 group write, " if step.mask else ""
        read = ("1 group read" if step.shift >= 0 else "1 bank read" if step.reads_bank
                else f"{len(step.reads)} read(s)")
        lines.append(f"code {visit.code:2d}{enabled}: {group}{len(step.writes)} write(s), {read}")
    return lines
