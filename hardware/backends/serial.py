"""The ``serial`` board backend: a scanning microcontroller on a USB serial cable.

The microcontroller scans and debounces the slots itself (same slot map and
debounce rule as :mod:`hardware`) and streams snapshots; this adapter turns
the link events of :class:`firmware_bridge.host.BoardLink` into the board
events every backend emits, so the board service cannot tell it from direct
GPIO:

* a snapshot becomes :class:`PawnLifted` / :class:`PawnPlaced` for every slot
  that changed since the last one (lifts first, then placements, each in the
  layout's reading order);
* the button flag becomes :class:`ButtonPressed` / :class:`ButtonReleased`,
  and :class:`ButtonLongPress` once it has been held ``long_press_s``;
* a lost link becomes ``Fault(DISCONNECTED, scanner_faulted=True)`` (or
  ``LINK_ERROR`` for a device that speaks another protocol or board size), and
  :class:`FaultCleared` when the handshake succeeds again; meanwhile the lamps
  are in their safe state (the device is off or has put them out itself);
* a burst of damaged frames becomes ``Fault(LINK_ERROR)`` without
  ``scanner_faulted`` (frames are checked, so readings stay trustworthy);
* a slot that conducts with no pawn becomes ``Fault(CONDUCTION_WITHOUT_PRESENCE)``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from firmware_bridge.exc import LinkConfigError
from firmware_bridge.host import (
    BoardLink,
    ButtonChanged,
    LinkDown,
    LinkEvent,
    LinkSettings,
    LinkTrouble,
    LinkTroubleCleared,
    LinkUp,
    Snapshot,
)
from games.hautetension.layout import Layout
from games.hautetension.pawn import PawnKind
from hardware.events import (
    BoardEvent,
    ButtonLongPress,
    ButtonPressed,
    ButtonReleased,
    Fault,
    FaultCleared,
    FaultKind,
    PawnLifted,
    PawnPlaced,
)
from hardware.exc import BoardClaimedError, HardwareConfigError
from store.claim import holder_of_path

if TYPE_CHECKING:
    from configuration import ConfigFile
    from hardware.virtual.board import VirtualBoard


class SerialBackend:
    """A board whose slots are read by a microcontroller at the end of *link*."""

    name = "serial"
    virtual_board: VirtualBoard | None = None
    """A real board: no hands but the players'."""
    selftest_on_long_press = False
    """The device runs no self-test: a long press is reported, and the service journals it."""
    raw_channels = None
    """The device reads the channels with its own map (PROTOCOL.md): no raw levels for the wiring wizard."""

    def __init__(
        self,
        link: BoardLink,
        *,
        layout: Layout,
        long_press: float = 3.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.link = link
        self.layout = layout
        self.scan_period = link.settings.poll_period
        self.long_press = long_press
        self._clock = clock
        self._slots = layout.slots
        self._lamp_bits = {lamp: 1 << i for i, lamp in enumerate(layout.lamps)}
        self._presence = 0
        self._conduction = 0
        self._stray = 0  # slots conducting without a pawn, already reported
        self._occupancy: dict[str, PawnKind] = {}
        self._button_since: float | None = None
        self._long_press_sent = False
        self._link_fault: FaultKind | None = None
        self._have_snapshot = False
        self._pending: list[BoardEvent] = []
        self._closed = False

    # -- BoardBackend -------------------------------------------------------------

    def poll(self) -> list[BoardEvent]:
        return self.poll_wait(0.0)

    def poll_wait(self, timeout: float) -> list[BoardEvent]:
        """:meth:`poll`, waiting up to *timeout* seconds for the device to say something."""
        events, self._pending = self._pending, []
        for link_event in self.link.poll(timeout):
            events.extend(self._translate(link_event))
        events.extend(self._check_long_press(self._clock()))
        return events

    def snapshot(self) -> Mapping[str, PawnKind]:
        return dict(self._occupancy)

    def set_lamps(self, lit: frozenset[str]) -> None:
        mask = 0
        for lamp in lit:
            if lamp not in self._lamp_bits:
                known = ", ".join(self._lamp_bits)
                raise ValueError(f"there is no lamp {lamp!r} on this board (lamps: {known})")
            mask |= self._lamp_bits[lamp]
        self.link.set_lamps(mask)

    def lamps_safe(self) -> None:
        self.link.set_lamps(0)

    def lamp_currents(self) -> Mapping[str, bool]:
        return {}  # the microcontroller's link carries no lamp-current readings

    def is_faulted(self) -> bool:
        return not (self.link.connected and self._have_snapshot)

    def health(self) -> Mapping[str, Any]:
        report: dict[str, Any] = {"backend": self.name, "faulted": self.is_faulted()}
        # The Pi itself touches no pin to scan; the device walks 16 select steps and reads two signals a slot.
        report["gpio_ops_per_scan"] = 0
        report["device_gpio_ops_per_scan"] = 16 + 2 * len(self._slots)
        report["link"] = self.link.health()
        report["lamps"] = sorted(lamp for lamp, bit in self._lamp_bits.items() if self.link.lamps & bit)
        return report

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self.link.close()

    def __enter__(self) -> SerialBackend:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- start-up -------------------------------------------------------------------

    def start(self, wait: float) -> None:
        """Connect now and wait up to *wait* seconds for the first snapshot.

        Its events (the pawns already on the board, or the fault if the
        device is not there) are returned by the next :meth:`poll`.
        """
        deadline = self._clock() + wait
        while not self._have_snapshot and self._clock() < deadline:
            events = self.poll_wait(min(0.02, max(0.0, deadline - self._clock())))
            self._pending.extend(events)  # poll_wait() has just taken the earlier ones: give them back
            if self._link_fault is not None and self.link.state == BoardLink.DISCONNECTED:
                break  # the device is not there: report it, and keep trying from poll()

    # -- link events → board events ----------------------------------------------------

    def _translate(self, event: LinkEvent) -> list[BoardEvent]:
        if isinstance(event, Snapshot):
            return self._on_snapshot(event)
        if isinstance(event, ButtonChanged):
            return self._on_button(event.pressed, event.at)
        if isinstance(event, LinkDown):
            return self._on_down(event)
        if isinstance(event, LinkUp):
            return self._on_up(event)
        if isinstance(event, LinkTrouble):
            return [Fault(FaultKind.LINK_ERROR, f"serial link: {event.message}", event.at)]
        if isinstance(event, LinkTroubleCleared):
            return [FaultCleared(FaultKind.LINK_ERROR, f"serial link: {event.message}", event.at)]
        return []  # health reports are kept by the link for health()

    def _on_down(self, event: LinkDown) -> list[BoardEvent]:
        events: list[BoardEvent] = []
        if self._button_since is not None:  # a held button cannot be seen any more: let it go
            events.extend(self._on_button(False, event.at))
        self._have_snapshot = False
        if self._link_fault is None:
            kind = FaultKind.LINK_ERROR if event.incompatible else FaultKind.DISCONNECTED
            self._link_fault = kind
            events.append(Fault(kind, f"board disconnected: {event.reason}", event.at, scanner_faulted=True))
        return events

    def _on_up(self, event: LinkUp) -> list[BoardEvent]:
        kind, self._link_fault = self._link_fault, None
        if kind is None:
            return []
        return [FaultCleared(kind, f"board connected ({event.firmware})", event.at)]

    def _on_snapshot(self, snap: Snapshot) -> list[BoardEvent]:
        self._have_snapshot = True
        events: list[BoardEvent] = []
        presence = snap.presence
        attack = presence & snap.conduction
        changed_presence = presence ^ self._presence
        changed_kind = (attack ^ (self._presence & self._conduction)) & presence & self._presence
        old_presence = self._presence
        self._presence, self._conduction = presence, snap.conduction
        lifted = (changed_presence & old_presence) | changed_kind
        placed = (changed_presence & presence) | changed_kind
        for i in _bits(lifted):
            slot = self._slots[i]
            events.append(PawnLifted(slot, self._occupancy.pop(slot), snap.at))
        for i in _bits(placed):
            slot = self._slots[i]
            kind = PawnKind.ATTACK if attack >> i & 1 else PawnKind.DEFENSE
            self._occupancy[slot] = kind
            events.append(PawnPlaced(slot, kind, snap.at))
        events.extend(self._check_stray(snap.conduction & ~presence, snap.at))
        if snap.button != (self._button_since is not None):
            events.extend(self._on_button(snap.button, snap.at))
        return events

    def _check_stray(self, stray: int, at: float) -> list[BoardEvent]:
        events: list[BoardEvent] = []
        for i in _bits(stray & ~self._stray):
            events.append(
                Fault(
                    FaultKind.CONDUCTION_WITHOUT_PRESENCE,
                    f"slot {self._slots[i]} conducts with no pawn in it",
                    at,
                    slot=self._slots[i],
                )
            )
        for i in _bits(self._stray & ~stray):
            events.append(
                FaultCleared(FaultKind.CONDUCTION_WITHOUT_PRESENCE, f"slot {self._slots[i]} reads right", at,
                             slot=self._slots[i])
            )
        self._stray = stray
        return events

    def _on_button(self, pressed: bool, at: float) -> list[BoardEvent]:
        if pressed == (self._button_since is not None):
            return []
        if pressed:
            self._button_since = at
            self._long_press_sent = False
            return [ButtonPressed(at)]
        held = at - (self._button_since or at)
        self._button_since = None
        return [ButtonReleased(at, max(0.0, held))]

    def _check_long_press(self, now: float) -> list[BoardEvent]:
        if self._button_since is None or self._long_press_sent:
            return []
        if now - self._button_since < self.long_press:
            return []
        self._long_press_sent = True
        return [ButtonLongPress(now)]


def _bits(mask: int) -> list[int]:
    """Indices of the set bits of *mask*, lowest first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def serial_settings(config: ConfigFile, *, port: str | None = None) -> LinkSettings:
    """The ``[serial]`` settings of *config* (long press from ``[hardware]`` unless set here)."""
    section = dict(config.section("serial"))
    hardware = config.section("hardware")
    if "long_press_s" not in section and isinstance(hardware.get("long_press_s"), int | float):
        section["long_press_s"] = hardware["long_press_s"]
    try:
        settings = LinkSettings.from_dict(section, source=f"{config.describe()} [serial]")
    except LinkConfigError as exc:
        raise HardwareConfigError(exc.problems, source=exc.source) from None
    return settings.with_port(port)


def open_serial_backend(
    config: ConfigFile,
    *,
    layout: Layout,
    port: str | None = None,
    open_port: Callable[..., Any] | None = None,
    wait: float | None = None,
) -> SerialBackend:
    """Open the ``serial`` backend described by ``[serial]`` (``port`` overrides its port).

    Waits up to the handshake time for the first snapshot, so the first
    :meth:`SerialBackend.poll` reports the pawns already on the board. A
    device that is not there is not an error: the backend reports it as a
    fault and keeps trying to reconnect.
    """
    settings = serial_settings(config, port=port)
    if "://" not in settings.port:  # a device, not a pyserial URL
        holder = holder_of_path(settings.port)
        if holder is not None:
            raise BoardClaimedError(f"the serial port {settings.port} is already in use by "
                                    f"{holder.describe()}: one board service per board; stop that one first")
    link = BoardLink(
        settings, slot_count=len(layout.slots), lamp_count=len(layout.lamps), open_port=open_port
    )
    backend = SerialBackend(link, layout=layout, long_press=settings.long_press)
    backend.start(settings.handshake_timeout if wait is None else wait)
    return backend
