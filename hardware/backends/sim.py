"""The ``sim`` board backend: the real GPIO backend on the virtual board's mock pins.

The scanner, debounce, lamps and button are :class:`~hardware.backends.gpio.GpioBoard`'s,
in real time; the pins are gpiozero's mock pins wired to a
:class:`~hardware.virtual.board.VirtualBoard`. Its :attr:`SimBoard.virtual_board`
is how the board service (and the panel's simulated-board page, through the
service) places and lifts pawns and presses the button by hand.

The scanner claims the select and signal lines as groups, as it does on
gpiozero's lgpio factory (one call per select step and one per read, 32 per
scan), and the virtual board answers a group read at once, so an idle
simulated board costs about what an idle real one does. In real time (no
*clock* given) its multiplexers settle at once: the scanner does not wait
for electronics that do not exist (on a simulated clock they keep the
configured settle time, and the scanner waits it, which costs nothing there).
"""

from __future__ import annotations

from typing import Any

from games.hautetension.layout import Layout
from hardware.backends.gpio import GpioBoard, require_valid
from hardware.clock import Clock, MonotonicClock
from hardware.settings import HardwareSettings
from hardware.virtual.board import VirtualBoard


class SimBoard(GpioBoard):
    """The ``sim`` backend: :class:`GpioBoard` on a :class:`~hardware.virtual.board.VirtualBoard`.

    *groups* False reads the virtual board one pin per call through gpiozero's mock pins (the path
    RPi.GPIO takes on a real board)."""

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
        groups: bool = True,
        **options: Any,
    ) -> None:
        settle = None if clock is not None else 0.0
        clock = clock or MonotonicClock()
        require_valid(settings, layout)
        self.virtual_board = VirtualBoard(settings, layout, clock=clock, bounce_seconds=bounce_seconds,
                                          seed=seed, bank_read=bank_read, groups=groups and not bank_read,
                                          settle_seconds=settle)
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
