"""The ``gpio`` board backend: multiplexers, lamps and button on the Pi's pins.

:class:`GpioBoard` puts together the :class:`~hardware.scanner.MultiplexerScanner`,
the :class:`~hardware.monitor.BoardMonitor` (debounce and faults), the
:class:`~hardware.devices.Lamps` and the :class:`~hardware.devices.TestButton`.
Each :meth:`~GpioBoard.poll` is one scan cycle. The lamp test lives in
:class:`~hardware.devices.Lamps`: while the button is (debounced) held, every
lamp lights. A long press (``long_press_s``) emits
:class:`~hardware.events.ButtonLongPress` and runs the health self-test; the
report is kept in :meth:`~GpioBoard.health` and every failure also comes out
as a fault.

Where lamps have current-feedback inputs they are also watched during play
(every ``FEEDBACK_EVERY`` scans): a lamp steady for ``lamp_feedback_ms`` that
draws current when off, or none when on, is a ``lamp-feedback`` fault until it
behaves again.

The ``sim`` backend is this same class on the virtual board's pin factory
(:func:`hardware.backends.open_backend`).
"""

from __future__ import annotations

import atexit
import weakref
from collections import deque
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from games.hautetension.layout import Layout
from games.hautetension.pawn import PawnKind
from hardware.clock import Clock, MonotonicClock
from hardware.devices import Lamps, TestButton
from hardware.events import BoardEvent, ButtonLongPress, ButtonPressed, ButtonReleased, Fault, FaultKind
from hardware.exc import BoardClaimedError, HardwareConfigError
from hardware.monitor import BoardMonitor
from hardware.scanner import MultiplexerScanner, default_pin_factory
from hardware.settings import HardwareSettings, check_wiring
from store.claim import Claim, ClaimedError

if TYPE_CHECKING:
    from hardware.virtual.board import VirtualBoard

FEEDBACK_EVERY = 10
"""Lamp-current feedback inputs are read every this many scans (4 reads; lamps change rarely)."""

DEVICES = Path("/dev")
"""Where the pin factories' device files are."""

_open_boards: weakref.WeakSet[GpioBoard] = weakref.WeakSet()


@atexit.register
def _lamps_off_at_exit() -> None:
    # Lamps must not stay lit (or half-driven) after the process stops.
    for board in list(_open_boards):
        board.close()


def pin_devices(pin_factory: Any) -> list[Path]:
    """The device files through which *pin_factory* drives the pins: the board claims them for its life.

    The gpiochip of gpiozero's lgpio factory, ``/dev/gpiomem`` for RPi.GPIO and
    gpiozero's native factory; none for mock pins (they live in this process,
    where gpiozero refuses a pin claimed twice) nor pigpio (its daemon holds the pins)."""
    names = {cls.__name__ for cls in type(pin_factory).__mro__}
    if "LGPIOFactory" in names:
        return [DEVICES / f"gpiochip{pin_factory.chip}"]
    if names & {"RPiGPIOFactory", "NativeFactory"}:
        return [DEVICES / "gpiomem"]
    return []


def claim_pins(pin_factory: Any) -> list[Claim]:
    """Claim the device files of *pin_factory* (:func:`pin_devices`); :class:`BoardClaimedError` if another
    process holds one. A device that cannot be opened is left to the pin factory, which says why."""
    claims: list[Claim] = []
    for device in pin_devices(pin_factory):
        try:
            claims.append(Claim(device, what=f"the GPIO chip {device}", create=False))
        except ClaimedError as exc:
            for claim in claims:
                claim.release()
            raise BoardClaimedError(f"{exc}: one board service per board; stop that one first") from None
        except OSError:
            continue
    return claims


def require_valid(settings: HardwareSettings, layout: Layout) -> None:
    """Refuse a wiring that cannot work, before any pin is claimed."""
    problems = check_wiring(settings, layout)
    if problems:
        raise HardwareConfigError(problems)


class GpioBoard:
    """A board read through GPIO multiplexers; implements :class:`hardware.backend.BoardBackend`."""

    virtual_board: VirtualBoard | None = None
    """A real board has no hands but the players' (the ``sim`` backend has)."""

    def __init__(
        self,
        settings: HardwareSettings,
        layout: Layout,
        *,
        pin_factory: Any = None,
        clock: Clock | None = None,
        name: str = "gpio",
        selftest_on_long_press: bool = True,
    ) -> None:
        require_valid(settings, layout)
        self.name = name
        self.settings = settings
        self.layout = layout
        self.scan_period = settings.scan_period
        self.clock = clock or MonotonicClock()
        self.selftest_on_long_press = selftest_on_long_press
        self.last_selftest: Any = None
        self._closed = False
        self._parts: list[Any] = []
        if pin_factory is None:
            pin_factory = default_pin_factory()
        self._claims = claim_pins(pin_factory)
        try:
            self.scanner = self._keep(MultiplexerScanner(settings, layout, pin_factory=pin_factory,
                                                         clock=self.clock))
            self.lamps = self._keep(Lamps(settings.lamps, pin_factory=pin_factory))
            self.button = self._keep(TestButton(settings.button_gpio, pull_up=settings.button_pull_up,
                                                pin_factory=pin_factory))
        except BaseException:
            self._close_parts()
            raise
        refs = {ref for w in settings.slot_map(layout).values()
                for ref in (w.presence, w.conduction) if ref is not None}
        refs |= {r.ref for r in settings.references}
        self.monitor = BoardMonitor(settings, layout, index={ref: self.scanner.index(ref) for ref in refs},
                                    position={ref: self.scanner.position(ref) for ref in refs})
        self.pin_factory = self.scanner.pin_factory
        self._scan_times: deque[float] = deque(maxlen=64)
        self._long_press_sent = False
        self._lamp_watch: dict[str, tuple[bool, float]] = {}
        self._sensed = self.lamps.has_feedback
        self._safe_shown = False
        _open_boards.add(self)

    @property
    def raw_channels(self) -> MultiplexerScanner:
        """The scanner: its levels are every channel's (once it reads them all) for the wiring wizard."""
        scanner: MultiplexerScanner = self.scanner
        return scanner

    def _keep(self, part: Any) -> Any:
        self._parts.append(part)
        return part

    # ------------------------------------------------------------------ BoardBackend

    def poll(self) -> list[BoardEvent]:
        """One scan cycle: read every channel and the button, return what it confirmed.

        A scan that reads what the last one read, on a board where nothing is pending, ends here:
        one int compared, the button read (and, every ``FEEDBACK_EVERY`` scans, the lamp currents)."""
        if self._closed:
            self._check_open()
        # Stamped when the scan starts: a scan that takes longer (the first after a change, on the
        # virtual board) must not shorten the time the debounce sees between this scan and the next.
        now = self.clock.now()
        snapshot = self.scanner.sample()
        self._scan_times.append(now)
        events: list[BoardEvent] = []
        changed = self.button.update(now, self.settings.debounce)
        if changed is not None or self._pressed_at is not None:
            self._poll_button(now, changed, events)
        monitor = self.monitor
        if snapshot != monitor.last or not monitor.settled:
            events += monitor.update(snapshot, now)
            self._show_safe()
        if self._sensed and self.scanner.scan_count % FEEDBACK_EVERY == 0:
            self._watch_lamp_current(now, events)
            self._show_safe()
        return events

    def _show_safe(self) -> None:
        """Lamps in their safe state exactly while the scanner is faulted."""
        faulted = self.monitor.scanner_faulted
        if faulted != self._safe_shown:
            self._safe_shown = faulted
            self.lamps.safe = faulted

    def _watch_lamp_current(self, now: float, events: list[BoardEvent]) -> None:
        """A lamp steady for the feedback time must draw current exactly when it is on."""
        shown = self.lamps.shown
        for name in self._sensed:
            on = name in shown
            seen_on, since = self._lamp_watch.get(name, (not on, now))
            if seen_on != on:
                self._lamp_watch[name] = (on, now)
                continue
            if now - since < self.settings.lamp_feedback_seconds:
                continue
            key = f"lamp {name}"
            if self.lamps.draws_current(name) == on:
                events += self.monitor.clear_fault(FaultKind.LAMP_FEEDBACK, key, now)
                continue
            problem = ("is on but draws no current (bulb, fuse or driver)" if on
                       else "is off but draws current (stuck relay or shorted driver)")
            fault = Fault(FaultKind.LAMP_FEEDBACK, f"lamp {name} {problem}", now)
            events += self.monitor.add_fault(fault, key)

    def _poll_button(self, now: float, changed: bool | None, events: list[BoardEvent]) -> None:
        """The button's events, once :meth:`TestButton.update` saw a change or while it is held."""
        if changed is True:
            events.append(ButtonPressed(now))
            self._long_press_sent = False
        elif changed is False:
            # first sighting to first sighting: the debounce delay cancels out
            held = self.button.changed_at - (self._pressed_at or self.button.changed_at)
            events.append(ButtonReleased(now, held_for=held))
        if changed is not None:
            self._pressed_at = self.button.pressed_at if changed else None
            self.lamps.test = bool(changed)
        if (self.button.is_pressed and not self._long_press_sent and self._pressed_at is not None
                and now - self._pressed_at >= self.settings.long_press_seconds):
            self._long_press_sent = True
            events.append(ButtonLongPress(now))
            if self.selftest_on_long_press:
                from hardware.selftest import run_selftest

                self.last_selftest = run_selftest(self)
                events += self.last_selftest.faults

    _pressed_at: float | None = None

    def snapshot(self) -> Mapping[str, PawnKind]:
        return self.monitor.snapshot()

    def set_lamps(self, lit: frozenset[str]) -> None:
        self._check_open()
        self.lamps.lit = lit

    def lamps_safe(self) -> None:
        if not self._closed:
            self.lamps.off()

    def is_faulted(self) -> bool:
        return self.monitor.scanner_faulted

    def health(self) -> dict[str, Any]:
        times = self._scan_times
        rate = (len(times) - 1) / (times[-1] - times[0]) if len(times) > 1 and times[-1] > times[0] else 0.0
        return {
            "backend": self.name,
            "pin_factory": type(self.pin_factory).__name__,
            "scan_count": self.scanner.scan_count,
            "scans_per_second": round(rate, 1),
            "last_scan_seconds": self.scanner.last_scan_seconds,
            "gpio_ops_per_scan": self.scanner.ops_per_scan,
            "select_writes_per_scan": self.scanner.writes_per_scan,
            "bank_read": self.scanner.bank_read,
            "scan_path": self.scanner.path,
            "faulted": self.is_faulted(),
            "faults": [_fault_dict(f) for f in self.monitor.active_faults.values()],
            "flicker": self.monitor.flicker_counts(self.clock.now()),
            "references": self.reference_status(),
            "multiplexers": [{"multiplexer": m.number, "dead": m.dead} for m in self.monitor.multiplexers],
            "lamps": {"lit": sorted(self.lamps.lit), "shown": sorted(self.lamps.shown),
                      "test": self.lamps.test, "safe": self.lamps.safe},
            "lamp_feedback": self.lamp_feedback_status(),
            "button": {"pressed": self.button.is_pressed},
            "selftest": None if self.last_selftest is None else self.last_selftest.to_dict(),
        }

    def reference_status(self) -> list[dict[str, Any]]:
        result = []
        for ref, (reference, _) in self.monitor.references.items():
            level = self.scanner.level(ref)
            result.append({"multiplexer": ref.multiplexer, "channel": ref.channel,
                           "expected": "high" if reference.level else "low",
                           "read": "high" if level else "low", "ok": level == reference.level})
        return result

    def lamp_currents(self) -> dict[str, bool]:
        return {name: bool(self.lamps.draws_current(name)) for name in self.lamps.has_feedback}

    def lamp_feedback_status(self) -> dict[str, Any]:
        return {name: {"on": name in self.lamps.shown, "current": self.lamps.draws_current(name)}
                for name in self.lamps.has_feedback}

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        _open_boards.discard(self)
        self._close_parts()

    def _close_parts(self) -> None:
        try:
            self._close_devices()
        finally:
            for claim in self._claims:
                claim.release()
            self._claims.clear()

    def _close_devices(self) -> None:
        # Lamps first: they must end off even if closing something else fails.
        for part in sorted(self._parts, key=lambda p: not isinstance(p, Lamps)):
            part.close()
        self._parts.clear()

    def _check_open(self) -> None:
        if self._closed:
            raise RuntimeError(f"the {self.name} board is closed")

    def __enter__(self) -> GpioBoard:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _fault_dict(fault: Any) -> dict[str, Any]:
    return {"kind": fault.kind.value, "message": fault.message, "slot": fault.slot,
            "multiplexer": fault.multiplexer, "channel": fault.channel,
            "scanner_faulted": fault.scanner_faulted, "at": fault.at}
