"""The board's lamps and its test button, as gpiozero devices.

:class:`Lamps` owns the four lamp outputs (gpiozero :class:`~gpiozero.LED`)
and their optional current-feedback inputs. It implements the lamp test: while
:attr:`Lamps.test` is on (the button is held) every lamp lights, whatever the
circuit says; and the safe state: while :attr:`Lamps.safe` is on (the scanner
cannot be trusted) the circuit's lamps stay off. The lamp test still works in
the safe state, because it does not depend on the readings and it is how
staff check the bulbs. Pins are written only when a lamp actually changes.

:class:`TestButton` is the push-button, polled once per scan and debounced like
the slots (a gpiozero :class:`~gpiozero.Button` would start a hold thread and
edge callbacks for something the scan loop already looks at 200 times a second).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from gpiozero import LED, InputDevice

from hardware.monitor import Debounced
from hardware.settings import DebounceSettings, LampWiring


class Lamps:
    """The board's lamps; see the module docstring."""

    def __init__(self, wiring: Mapping[str, LampWiring], *, pin_factory: Any = None) -> None:
        self.wiring = dict(wiring)
        self._leds: dict[str, LED] = {}
        self._feedback: dict[str, InputDevice] = {}
        self._lit: frozenset[str] = frozenset()
        self._test = False
        self._safe = False
        self._shown: dict[str, bool] = {}
        self.writes = 0
        try:
            for name, w in self.wiring.items():
                self._leds[name] = LED(w.gpio, active_high=w.active_high, initial_value=False,
                                       pin_factory=pin_factory)
                self._shown[name] = False
                if w.feedback_gpio is not None:
                    self._feedback[name] = InputDevice(w.feedback_gpio, pull_up=None,
                                                       active_state=w.feedback_active_high,
                                                       pin_factory=pin_factory)
        except BaseException:
            self.close()
            raise

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self.wiring)

    @property
    def lit(self) -> frozenset[str]:
        """The lamps the circuit asks for (see :attr:`shown` for what the pins do)."""
        return self._lit

    @lit.setter
    def lit(self, lamps: Iterable[str]) -> None:
        lamps = frozenset(lamps)
        unknown = lamps - set(self._leds)
        if unknown:
            raise ValueError(f"no lamp named {', '.join(sorted(unknown))} (lamps: {', '.join(self._leds)})")
        self._lit = lamps
        self._apply()

    @property
    def test(self) -> bool:
        return self._test

    @test.setter
    def test(self, on: bool) -> None:
        self._test = bool(on)
        self._apply()

    @property
    def safe(self) -> bool:
        return self._safe

    @safe.setter
    def safe(self, on: bool) -> None:
        self._safe = bool(on)
        self._apply()

    @property
    def shown(self) -> frozenset[str]:
        """The lamps whose outputs are on right now."""
        return frozenset(name for name, on in self._shown.items() if on)

    def _apply(self) -> None:
        if self._test:
            wanted = set(self._leds)
        elif self._safe:
            wanted = set()
        else:
            wanted = set(self._lit)
        self.drive({name: name in wanted for name in self._leds})

    def drive(self, states: Mapping[str, bool]) -> None:
        """Set outputs directly (the self-test uses this; normal use goes through :attr:`lit`)."""
        for name, on in states.items():
            if self._shown.get(name) != on and name in self._leds:
                led = self._leds[name]
                led.on() if on else led.off()
                self._shown[name] = on
                self.writes += 1

    def restore(self) -> None:
        """Drive the outputs from :attr:`lit`, :attr:`test` and :attr:`safe` again."""
        self._apply()

    @property
    def has_feedback(self) -> tuple[str, ...]:
        return tuple(self._feedback)

    def draws_current(self, name: str) -> bool | None:
        """The lamp's feedback input (None: this lamp has none)."""
        device = self._feedback.get(name)
        return None if device is None else bool(device.is_active)

    def off(self) -> None:
        """The safe state: every lamp off, lamp test cancelled."""
        self._lit = frozenset()
        self._test = False
        self._apply()

    def close(self) -> None:
        for led in self._leds.values():
            try:
                led.off()
            finally:
                led.close()
        for device in self._feedback.values():
            device.close()
        self._leds.clear()
        self._feedback.clear()

    def __enter__(self) -> Lamps:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class TestButton:
    """The board's push-button, debounced on the scan's clock."""

    __test__ = False  # not a pytest test class, whatever its name

    def __init__(self, gpio: int, *, pull_up: bool = True, pin_factory: Any = None) -> None:
        self._device = InputDevice(gpio, pull_up=pull_up, pin_factory=pin_factory)
        # Read as a pin, not through the device (which asks its pin the same, several calls deeper).
        self._pin = self._device.pin
        self._pressed_level = not pull_up
        self._state = Debounced(0)
        self.pressed_at: float | None = None

    @property
    def is_pressed(self) -> bool:
        """The debounced state."""
        return bool(self._state.stable)

    @property
    def changed_at(self) -> float:
        """When the current debounced state was first seen (before the debounce delay)."""
        return self._state.since

    def update(self, now: float, rule: DebounceSettings) -> bool | None:
        """Read the pin once; return the new state if it just changed, else None."""
        state = self._state
        pressed = self._pin.state == self._pressed_level
        if pressed == state.stable and state.candidate is None:
            return None  # as it was, and nothing pending: what Debounced.update would conclude
        if state.update(int(pressed), now, rule):
            self.pressed_at = self._state.since if self._state.stable else None
            return bool(self._state.stable)
        return None

    def close(self) -> None:
        self._device.close()
