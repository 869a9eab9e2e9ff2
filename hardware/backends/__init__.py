"""The board backends, one module each, and opening one by name: ``gpio``, ``sim`` (alias ``mock``)
or ``serial``.

:mod:`~hardware.backends.gpio` drives the multiplexers, lamps and button on the
Pi's pins, :mod:`~hardware.backends.sim` is the same on the virtual board, and
:mod:`~hardware.backends.serial` listens to a scanning microcontroller; each
implements :class:`hardware.backend.BoardBackend`.

Each backend's modules are imported only when that backend is opened: the
``serial`` backend never imports gpiozero, the ``gpio`` backend not the
virtual board and its mock pins, and a process that opens no board (the
panel, the one-shot commands) none of them. ``sim`` is the real GPIO backend
on the virtual board's mock pins (:mod:`hardware.backends.sim`), so it needs
gpiozero too.
"""

from __future__ import annotations

import sys
from typing import Any

from configuration import ConfigFile
from games.hautetension.layout import Layout
from hardware.backend import BoardBackend
from hardware.exc import BoardClaimedError, PinAccessError, UnknownBackendError

BACKENDS = ("gpio", "sim", "mock", "serial")


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
        from hardware.backends.serial import open_serial_backend

        backend: BoardBackend = open_serial_backend(config, layout=layout, port=port)
        return backend
    if kind not in BACKENDS:
        raise UnknownBackendError(f"no board backend {kind!r} (choose from {', '.join(BACKENDS)})")
    from hardware.settings import load_settings

    settings = load_settings(config, layout)
    if kind in ("sim", "mock"):
        from hardware.backends.sim import SimBoard

        return SimBoard(settings, layout)
    from hardware.backends.gpio import GpioBoard

    if pin_factory is None:
        pin_factory = make_pin_factory(settings.pin_factory)
    try:
        return GpioBoard(settings, layout, pin_factory=pin_factory)
    except _pin_errors() as exc:
        raise BoardClaimedError(f"cannot claim the board's pins ({_describe(exc)}); is another controller "
                                "(the board service) already running?") from exc


def _pin_errors() -> tuple[type[BaseException], ...]:
    """What claiming a pin raises: gpiozero's errors, and lgpio's own ``lgpio.error`` ("GPIO busy": a line
    another process holds), which gpiozero's lgpio factory (a Pi 5's) lets through untranslated."""
    from gpiozero.exc import GPIOZeroError

    errors: list[type[BaseException]] = [GPIOZeroError]
    lgpio_error = getattr(sys.modules.get("lgpio"), "error", None)  # imported by that factory, if in use
    if isinstance(lgpio_error, type) and issubclass(lgpio_error, BaseException):
        errors.append(lgpio_error)
    return tuple(errors)


def _describe(exc: BaseException) -> str:
    text = str(exc).strip("'\"")
    return text if type(exc).__module__.startswith("gpiozero") else f"lgpio: {text}"


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
