"""The interface every board backend offers the board service.

A backend owns the physical I/O of one board: the 80 slots (scanned and
debounced), the four lamps and the test button. Three implementations share
it: ``gpio`` (multiplexers on the Pi's pins through gpiozero), ``serial`` (a
scanning microcontroller, :mod:`firmware_bridge`) and ``sim`` (the virtual
board on gpiozero's mock pin factory).

What a backend can do beyond scanning and the lamps is declared here too, so
the board service and the commands ask instead of probing: :attr:`BoardBackend.virtual_board`
(only ``sim`` has hands that place pawns),
:attr:`BoardBackend.selftest_on_long_press` and :attr:`BoardBackend.raw_channels` (the wiring
wizard reads every multiplexer channel; the ``serial`` device reads its own).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from games.hautetension.pawn import PawnKind
from hardware.events import BoardEvent

if TYPE_CHECKING:
    from hardware.settings import ChannelRef, HardwareSettings
    from hardware.virtual.board import VirtualBoard


class RawChannels(Protocol):
    """The scanner's raw level of every multiplexer channel (the wiring wizard and ``scan --raw`` read
    them)."""

    settings: HardwareSettings
    channels: int
    """Channels per multiplexer."""
    snapshot: int
    """The last scan's levels, one bit per channel (:meth:`position`): two scans that read the same are
    equal ints, so a change is found with one comparison."""
    @property
    def levels(self) -> list[bool]:
        """The last scan's electrical levels (True = high), index ``multiplexer * channels + channel``."""

    def position(self, ref: ChannelRef) -> int:
        """The channel's bit in :attr:`snapshot`."""

    def read_every_channel(self, on: bool = True) -> None:
        """Read every channel from the next scan on, wired or not (or only the wired ones again)."""


@runtime_checkable
class BoardBackend(Protocol):
    name: str
    """``"gpio"``, ``"serial"`` or ``"sim"``."""

    scan_period: float
    """Seconds between two calls of :meth:`poll` in the service loop."""

    selftest_on_long_press: bool
    """Whether a long press of the test button runs the self-test (``gpio``, ``sim``). The service
    turns it off while a game runs: the self-test reads raw slot readings. A backend whose long
    press runs no self-test (``serial``: the device only reports it) leaves it unread."""

    @property
    def virtual_board(self) -> VirtualBoard | None:
        """The simulated board's hands (place, lift, press the button), or ``None`` on a real board."""

    @property
    def raw_channels(self) -> RawChannels | None:
        """Every channel's raw level (``gpio``, ``sim``), or ``None`` (``serial``: the device scans)."""

    def poll(self) -> list[BoardEvent]:
        """Run one scan cycle and return the events it confirmed (possibly none)."""

    def snapshot(self) -> Mapping[str, PawnKind]:
        """The debounced occupancy: slot name → kind, for every occupied slot."""

    def set_lamps(self, lit: frozenset[str]) -> None:
        """Light exactly these lamps (lamp names of the layout)."""

    def lamps_safe(self) -> None:
        """Put every lamp in its safe state (off)."""

    def lamp_currents(self) -> Mapping[str, bool]:
        """Each lamp with a current-feedback input → whether it draws current now (the pre-game check
        reads them while the test button lights every lamp); lamps without one are left out."""

    def is_faulted(self) -> bool:
        """True while the readings cannot be trusted (dead multiplexer, link down)."""

    def health(self) -> Mapping[str, Any]:
        """A JSON-able health report for staff (link state, scan rate, faults, …)."""

    def close(self) -> None:
        """Release every pin and port; lamps end in their safe state."""
