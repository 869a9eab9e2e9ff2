"""Opening a board backend by name: ``gpio``, ``sim`` (alias ``mock``) or ``serial``.

``sim`` is the real GPIO backend (scanner, debounce, lamps, button) on the
virtual board's mock pins, in real time. Its :attr:`SimBoard.virtual_board`
is how the board service (and the panel's simulated-board page) places and
lifts pawns and presses the button by hand.
"""

from __future__ import annotations

from typing import Any

from configuration import ConfigFile
from games.hautetension.layout import Layout
from hardware.backend import BoardBackend
from hardware.clock import Clock, MonotonicClock
from hardware.exc import PinAccessError, UnknownBackendError
from hardware.gpio_backend import GpioBoard, require_valid
from hardware.settings import HardwareSettings, load_settings
from hardware.virtual import VirtualBoard

BACKENDS = ("gpio", "sim", "mock", "serial")


class SimBoard(GpioBoard):
    """The ``sim`` backend: :class:`GpioBoard` on a :class:`~hardware.virtual.VirtualBoard`."""

    virtual_board: VirtualBoard

    def __init__(
        self,
        settings: HardwareSettings,
        layout: Layout,
        *,
        clock: Clock | None = None,
        bounce_seconds: float = 0.0,
        seed: int = 0,
        bank_read: bool = False,
        **options: Any,
    ) -> None:
        clock = clock or MonotonicClock()
        require_valid(settings, layout)
        self.virtual_board = VirtualBoard(settings, layout, clock=clock, bounce_seconds=bounce_seconds,
                                          seed=seed, bank_read=bank_read)
        try:
            super().__init__(settings, layout, pin_factory=self.virtual_board.factory, clock=clock,
                             name="sim", **options)
        except BaseException:
            self.virtual_board.close()
            raise

    def close(self) -> None:
        if not self._closed:
            super().close()
            self.virtual_board.close()


def open_backend(
    kind: str,
    config: ConfigFile,
    *,
    layout: Layout,
    port: str | None = None,
    pin_factory: Any = None,
) -> BoardBackend:
    """Open the board backend *kind* as *config* describes it."""
    if kind == "serial":
        from hardware.serial_backend import open_serial_backend

        backend: BoardBackend = open_serial_backend(config, layout=layout, port=port)
        return backend
    if kind not in BACKENDS:
        raise UnknownBackendError(f"no board backend {kind!r} (choose from {', '.join(BACKENDS)})")
    settings = load_settings(config, layout)
    if kind in ("sim", "mock"):
        return SimBoard(settings, layout)
    if pin_factory is None:
        pin_factory = make_pin_factory(settings.pin_factory)
    from gpiozero.exc import GPIOZeroError

    try:
        return GpioBoard(settings, layout, pin_factory=pin_factory)
    except GPIOZeroError as exc:
        raise PinAccessError(f"cannot claim the board's pins ({exc}); is another controller "
                             "(the board service) already running?") from exc


def make_pin_factory(name: str | None) -> Any:
    """The gpiozero pin factory *name* (``lgpio``, ``rpigpio``, ``pigpio``, ``native``), or gpiozero's choice.

    Fails with :class:`PinAccessError` and a message that says what to do
    when no factory can reach the pins (not a Pi, library missing, no access).
    """
    import warnings

    from gpiozero import Device
    from gpiozero.exc import BadPinFactory, PinFactoryFallback

    try:
        with warnings.catch_warnings():
            # gpiozero warns for every factory it tries on the way; the error below says it all.
            warnings.simplefilter("ignore", PinFactoryFallback)
            if name:
                from importlib.metadata import entry_points

                group = entry_points(group="gpiozero_pin_factories")
                matches = [ep for ep in group if ep.name.lower() == name.lower()]
                if not matches:
                    known = ", ".join(sorted(ep.name for ep in group))
                    raise PinAccessError(f"gpiozero has no pin factory {name!r} (known: {known})")
                return matches[0].load()()
            return Device._default_pin_factory()
    except PinAccessError:
        raise
    except (BadPinFactory, ImportError, OSError, RuntimeError) as exc:
        raise PinAccessError(
            f"cannot reach the GPIO pins ({exc}); on a Pi install the 'pi' extra (lgpio on a Pi 5, "
            "RPi.GPIO on older boards) and check access to /dev/gpiochip*; "
            "elsewhere use the simulated board (--backend sim)"
        ) from exc
