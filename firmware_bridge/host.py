"""The host end of the serial link: a driver for the scanning microcontroller.

:class:`BoardLink` owns the serial port (pyserial). Each :meth:`BoardLink.poll`
reads what arrived, decodes it, keeps the conversation of PROTOCOL.md going
(handshake, lamp commands and their acknowledgements, keepalives, snapshot
requests) and returns what happened as link events: :class:`LinkUp`,
:class:`LinkDown`, :class:`Snapshot`, :class:`ButtonChanged`,
:class:`HealthReport`, :class:`LinkTrouble`, :class:`LinkTroubleCleared`.

The link never raises once opened: a pulled cable, a device reset, a silent
device or a damaged frame become events, and the driver reconnects with
backoff on its own. It is meant for one thread (the board service loop);
:mod:`hardware.backends.serial` turns its events into board events.
"""

from __future__ import annotations

import collections
import contextlib
import logging
import select
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any, ClassVar

import serial

from configuration import ConfigError, Section, SectionSettings, keys_of
from firmware_bridge import framing, messages
from firmware_bridge.exc import LinkClosedError, LinkConfigError

log = logging.getLogger(__name__)


# --------------------------------------------------------------------------- settings


@dataclass(frozen=True)
class LinkSettings(SectionSettings):
    """Typed ``[serial]`` settings (times in seconds); see docs/firmware-bridge.md."""

    section: ClassVar[str] = "serial"
    error: ClassVar[type[ConfigError]] = LinkConfigError

    port: str = "/dev/ttyACM0"
    baudrate: int = 115200
    heartbeat: float = 0.5
    """How often the device sends a snapshot when nothing changes, and the host a keepalive."""
    timeout: float = 2.0
    """Silence from the device for this long means it is gone."""
    handshake_timeout: float = 1.0
    ack_timeout: float = 0.25
    """A lamp command not acknowledged in this time is sent again."""
    host_timeout: float = 3.0
    """The device puts its lamps out when the host says nothing this long."""
    reconnect_min: float = 0.25
    reconnect_max: float = 5.0
    poll_period: float = 0.005
    """Seconds between two polls in the board service loop."""
    health_interval: float = 5.0
    """How often the device's health report is asked for (0: never)."""
    error_threshold: int = 5
    """This many damaged frames within ``error_window`` is reported as link trouble."""
    error_window: float = 5.0
    long_press: float = 3.0

    KEYS: ClassVar[tuple[str, ...]] = ()
    """Every key of ``[serial]``, as :meth:`read` reads them (set below the class)."""

    @classmethod
    def read(cls, s: Section) -> LinkSettings:
        """The settings the ``[serial]`` table *s* declares (its problems are noted in *s*)."""
        settings = cls(
            port=s.text("port", cls.port, what="a device path or pyserial URL", empty=False),
            baudrate=s.integer("baudrate", cls.baudrate, minimum=1),
            heartbeat=s.number("heartbeat_ms", cls.heartbeat, above=0, unit="ms"),
            timeout=s.number("timeout_ms", cls.timeout, above=0, unit="ms"),
            handshake_timeout=s.number("handshake_ms", cls.handshake_timeout, above=0, unit="ms"),
            ack_timeout=s.number("ack_ms", cls.ack_timeout, above=0, unit="ms"),
            host_timeout=s.number("host_timeout_ms", cls.host_timeout, minimum=0, unit="ms"),
            reconnect_min=s.number("reconnect_min_ms", cls.reconnect_min, above=0, unit="ms"),
            reconnect_max=s.number("reconnect_max_ms", cls.reconnect_max, above=0, unit="ms"),
            poll_period=s.number("poll_period_ms", cls.poll_period, above=0, unit="ms"),
            health_interval=s.number("health_interval_s", cls.health_interval, minimum=0),
            error_threshold=s.integer("error_threshold", cls.error_threshold, minimum=1),
            error_window=s.number("error_window_s", cls.error_window, above=0),
            long_press=s.number("long_press_s", cls.long_press, above=0),
        )
        s.check(settings.check())
        return settings

    def check(self) -> list[str]:
        """Problems in combinations of values (each alone may be fine)."""
        problems = []
        if self.timeout <= self.heartbeat:
            problems.append(
                f"timeout_ms ({self.timeout * 1000:g}) must be longer than heartbeat_ms "
                f"({self.heartbeat * 1000:g}), or every quiet moment looks like a pulled cable"
            )
        if self.reconnect_max < self.reconnect_min:
            problems.append("reconnect_max_ms must not be shorter than reconnect_min_ms")
        if self.heartbeat * 1000 > 0xFFFF or self.host_timeout * 1000 > 0xFFFF:
            problems.append("heartbeat_ms and host_timeout_ms must be at most 65535")
        if self.host_timeout and self.host_timeout <= self.heartbeat:
            problems.append("host_timeout_ms must be longer than heartbeat_ms (the host's keepalive period)")
        return problems

    def with_port(self, port: str | None) -> LinkSettings:
        return replace(self, port=port) if port else self


LinkSettings.KEYS = keys_of(LinkSettings.read)


# --------------------------------------------------------------------------- link events


@dataclass(frozen=True)
class LinkUp:
    """The handshake succeeded: snapshots follow."""

    at: float
    firmware: str
    version: int
    reset_cause: int


@dataclass(frozen=True)
class LinkDown:
    """The device is gone or unusable; ``incompatible`` when it speaks another protocol or board size."""

    at: float
    reason: str
    incompatible: bool = False


@dataclass(frozen=True)
class Snapshot:
    """The device's debounced readings: bit *i* of each bitmap is slot *i*."""

    at: float
    seq: int
    presence: int
    conduction: int
    button: bool
    flags: int


@dataclass(frozen=True)
class ButtonChanged:
    at: float
    pressed: bool


@dataclass(frozen=True)
class HealthReport:
    at: float
    values: Mapping[str, int]


@dataclass(frozen=True)
class LinkTrouble:
    """Damaged frames keep arriving (the link still works: frames are checked)."""

    at: float
    message: str


@dataclass(frozen=True)
class LinkTroubleCleared:
    at: float
    message: str


LinkEvent = LinkUp | LinkDown | Snapshot | ButtonChanged | HealthReport | LinkTrouble | LinkTroubleCleared

PortOpener = Callable[..., Any]


# --------------------------------------------------------------------------- the driver


class BoardLink:
    """The scanning microcontroller at the end of a serial cable.

    *slot_count* and *lamp_count* are what the host's layout expects; a device
    that scans another number of slots is refused. *open_port* (default
    :func:`serial.serial_for_url`) and *clock* are swappable for tests.
    """

    DISCONNECTED = "disconnected"
    HANDSHAKE = "handshake"
    CONNECTED = "connected"

    def __init__(
        self,
        settings: LinkSettings,
        *,
        slot_count: int,
        lamp_count: int,
        open_port: PortOpener | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if slot_count > messages.MAX_SLOTS:
            raise LinkConfigError(f"the link carries at most {messages.MAX_SLOTS} slots, not {slot_count}")
        self.settings = settings
        self.slot_count = slot_count
        self.lamp_count = lamp_count
        self._open_port = open_port or serial.serial_for_url
        self._clock = clock
        self._port: Any = None
        self._events: list[LinkEvent] = []
        self._decoder = framing.Decoder()
        self.state = self.DISCONNECTED
        self._closed = False
        self._down_reported: bool | None = None  # None: never connected nor failed yet
        self._next_attempt = clock()
        self._backoff = settings.reconnect_min
        self._hello_at = 0.0
        self._last_rx = 0.0
        self._last_tx = 0.0
        self._last_health_request = 0.0
        self._last_resync = -1e9
        self._tx_seq = 0
        self._expected_snap: int | None = None
        self._lamps = 0
        self._lamps_pending: tuple[int, float] | None = None  # (frame seq, sent at)
        self._bad_seen = 0
        self._bad_times: collections.deque[float] = collections.deque()
        self._trouble = False
        self.firmware = ""
        self.device_version: int | None = None
        self.device_health: Mapping[str, int] = {}
        self.counters = collections.Counter[str]()
        self.last_down_reason = ""

    # -- public interface ------------------------------------------------------

    @property
    def connected(self) -> bool:
        return self.state == self.CONNECTED

    @property
    def lamps(self) -> int:
        """The lamp mask the host wants (bit *i*: lamp *i*)."""
        return self._lamps

    def poll(self, timeout: float = 0.0) -> list[LinkEvent]:
        """Do one round of link work; wait up to *timeout* seconds for bytes to arrive."""
        if self._closed:
            raise LinkClosedError("the serial link is closed")
        now = self._clock()
        if self._port is None:
            if now >= self._next_attempt:
                self._connect(now)
            elif timeout > 0:
                time.sleep(min(timeout, self._next_attempt - now))
            return self._drain()
        data = self._read(timeout)
        now = self._clock()
        # Only good frames prove the device is alive: a line full of noise is not.
        for frame in self._decoder.feed(data):
            self._last_rx = now
            self._handle(frame, now)
            if self._port is None:
                return self._drain()
        self._check_damage(now)
        self._check_timers(now)
        return self._drain()

    def _drain(self) -> list[LinkEvent]:
        events, self._events = self._events, []
        return events

    def set_lamps(self, mask: int) -> None:
        """Ask the device to light exactly the lamps of *mask*; resent until acknowledged."""
        self._lamps = mask & ((1 << self.lamp_count) - 1)
        if self.connected:
            self._send_lamps(self._clock())

    def request_snapshot(self) -> None:
        if self.connected:
            self._send(messages.SNAPSHOT_REQUEST, b"")

    def request_health(self) -> None:
        if self.connected:
            self._last_health_request = self._clock()
            self._send(messages.HEALTH_REQUEST, b"")

    def health(self) -> dict[str, Any]:
        """Link state and counters, JSON-able (no slot readings)."""
        return {
            "state": self.state,
            "port": self.settings.port,
            "firmware": self.firmware,
            "protocol_version": messages.PROTOCOL_VERSION,
            "device_protocol_version": self.device_version,
            "last_disconnect": self.last_down_reason,
            "frames_received": self._decoder.frames,
            "bad_frames": self._decoder.bad_frames + self._decoder.oversize + self.counters["bad_payloads"],
            "lost_snapshots": self.counters["lost_snapshots"],
            "resends": self.counters["resends"],
            "connects": self.counters["connects"],
            "disconnects": self.counters["disconnects"],
            "device_errors": self.counters["device_errors"],
            "device": dict(self.device_health),
        }

    def close(self) -> None:
        """Put the lamps out (if the device still listens) and release the port."""
        if self._closed:
            return
        if self._port is not None:
            self._send_safe_lamps()
            self._close_port()
        self._closed = True
        self.state = self.DISCONNECTED

    def __enter__(self) -> BoardLink:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- connecting -------------------------------------------------------------------

    def _connect(self, now: float) -> None:
        s = self.settings
        try:
            # exclusive: pyserial flocks the port, so a second controller cannot open it too.
            port = self._open_port(s.port, baudrate=s.baudrate, timeout=0, write_timeout=s.ack_timeout,
                                   exclusive=True)
        except (serial.SerialException, OSError, ValueError) as exc:
            self._retry_later(now, f"cannot open {s.port}: {_why(exc)}")
            return
        self._port = port
        self._decoder.reset()
        self._tx_seq = 0
        self.state = self.HANDSHAKE
        self._hello_at = now
        self._last_rx = now
        # A lone delimiter first ends whatever partial frame the device was holding.
        self._write(framing.DELIMITER)
        self._send_hello()

    def _send_hello(self) -> None:
        s = self.settings
        payload = messages.pack_hello(
            messages.PROTOCOL_VERSION, round(s.heartbeat * 1000), round(s.host_timeout * 1000)
        )
        self.state = self.HANDSHAKE
        self._hello_at = self._clock()
        self._send(messages.HELLO, payload)

    def _on_hello_reply(self, frame: framing.Frame, now: float) -> None:
        version, slots, lamps, reason, reset_cause, firmware = messages.unpack_hello_reply(frame.payload)
        if reason == messages.R_BOOT:
            self.counters["device_resets"] += 1
            if self.state == self.CONNECTED:
                self._report_down(now, f"device restarted (reset cause {reset_cause})")
            self._send_hello()  # the device forgot the handshake: do it again
            return
        if self.state != self.HANDSHAKE:
            return  # an answer to a hello already answered
        self.firmware = firmware
        self.device_version = version
        if version != messages.PROTOCOL_VERSION:
            self._drop(
                now,
                f"firmware {firmware!r} speaks protocol v{version}, this host v{messages.PROTOCOL_VERSION}: "
                "flash the firmware shipped with this release",
                incompatible=True,
            )
            return
        if slots != self.slot_count or lamps < self.lamp_count:
            self._drop(
                now,
                f"the device scans {slots} slots and drives {lamps} lamps; "
                f"the layout has {self.slot_count} slots and {self.lamp_count} lamps",
                incompatible=True,
            )
            return
        self.state = self.CONNECTED
        self._backoff = self.settings.reconnect_min
        self._expected_snap = None
        self.counters["connects"] += 1
        self._down_reported = False
        self._events.append(LinkUp(now, firmware, version, reset_cause))
        self._send_lamps(now)

    def _retry_later(self, now: float, reason: str, *, incompatible: bool = False) -> None:
        delay = self.settings.reconnect_max if incompatible else self._backoff
        self._next_attempt = now + delay
        self._backoff = min(self._backoff * 2, self.settings.reconnect_max)
        self._report_down(now, reason, incompatible=incompatible)

    def _report_down(self, now: float, reason: str, *, incompatible: bool = False) -> None:
        if self._down_reported:
            return
        self._down_reported = True
        self.last_down_reason = reason
        self.counters["disconnects"] += 1
        self._lamps_pending = None
        log.info("scanning board link down: %s", reason)
        self._events.append(LinkDown(now, reason, incompatible))

    def _drop(self, now: float, reason: str, *, incompatible: bool = False) -> None:
        """Give up on the open port: lamps out if the device still listens, close, retry later."""
        if self._port is not None:
            self._send_safe_lamps()
            self._close_port()
        self.state = self.DISCONNECTED
        self._retry_later(now, reason, incompatible=incompatible)

    def _close_port(self) -> None:
        port, self._port = self._port, None
        with contextlib.suppress(serial.SerialException, OSError):
            port.close()

    # -- reading and writing --------------------------------------------------------------

    def _read(self, timeout: float) -> bytes:
        port = self._port
        try:
            if timeout > 0:
                self._wait_readable(port, timeout)
            return bytes(port.read(max(1, port.in_waiting)))
        except (serial.SerialException, OSError) as exc:
            self._drop(self._clock(), f"cable pulled or device gone ({_why(exc)})")
            return b""

    @staticmethod
    def _wait_readable(port: Any, timeout: float) -> None:
        try:
            fd = port.fileno()
        except (AttributeError, OSError, serial.SerialException):
            time.sleep(min(timeout, 0.001))  # a URL port (loop://, socket://) without a descriptor
            return
        select.select([fd], [], [], timeout)

    def _send(self, kind: int, payload: bytes) -> int:
        seq = self._tx_seq
        self._tx_seq = (seq + 1) & 0xFFFF
        self._write(framing.encode_frame(kind, seq, payload))
        return seq

    def _write(self, data: bytes) -> None:
        if self._port is None:
            return
        try:
            self._port.write(data)
        except (serial.SerialException, OSError) as exc:
            # Raised inside set_lamps() there is no event list at hand: the next poll reports it.
            self._drop(self._clock(), f"cannot write to the device ({_why(exc)})")
            return
        self._last_tx = self._clock()

    def _send_lamps(self, now: float) -> None:
        seq = self._send(messages.LAMPS, messages.pack_lamps(self._lamps))
        self._lamps_pending = (seq, now)

    def _send_safe_lamps(self) -> None:
        # If the write fails the device is gone, and lost its lamps with its power.
        with contextlib.suppress(serial.SerialException, OSError):
            self._port.write(framing.encode_frame(messages.LAMPS, self._tx_seq, messages.pack_lamps(0)))

    # -- frames from the device -----------------------------------------------------------

    def _handle(self, frame: framing.Frame, now: float) -> None:
        try:
            self._dispatch(frame, now)
        except messages.PayloadError as exc:
            # A frame with a good CRC but a payload this host cannot read: count it like damage.
            self.counters["bad_payloads"] += 1
            log.warning("scanning board sent a bad %s payload: %s", messages.NAMES.get(frame.type, "?"), exc)
            self._note_damage(now)

    def _dispatch(self, frame: framing.Frame, now: float) -> None:
        kind = frame.type
        if kind == messages.HELLO_REPLY:
            self._on_hello_reply(frame, now)
        elif self.state != self.CONNECTED:
            return  # nothing counts before the handshake
        elif kind == messages.SNAPSHOT:
            self._on_snapshot(frame, now)
        elif kind == messages.BUTTON:
            self._events.append(ButtonChanged(now, messages.unpack_button(frame.payload)))
        elif kind == messages.ACK:
            acked_type, acked_seq = messages.unpack_ack(frame.payload)
            if acked_type == messages.LAMPS and self._lamps_pending and self._lamps_pending[0] == acked_seq:
                self._lamps_pending = None
        elif kind == messages.HEALTH:
            self.device_health = messages.unpack_health(frame.payload)
            self._events.append(HealthReport(now, self.device_health))
        elif kind == messages.ERROR:
            self._on_error(frame, now)
        else:
            self.counters["unknown_frames"] += 1

    def _on_snapshot(self, frame: framing.Frame, now: float) -> None:
        seq, flags, slots, presence, conduction = messages.unpack_snapshot(frame.payload)
        if slots != self.slot_count:
            raise messages.PayloadError(f"snapshot of {slots} slots, expected {self.slot_count}")
        if self._expected_snap is not None and seq != self._expected_snap:
            lost = (seq - self._expected_snap) & 0xFFFF
            self.counters["lost_snapshots"] += lost
            log.info("scanning board: %d snapshot(s) lost before #%d, asking for a full one", lost, seq)
            self._resync(now, force=True)
        self._expected_snap = (seq + 1) & 0xFFFF
        self._events.append(
            Snapshot(
                now,
                seq,
                int.from_bytes(presence, "little"),
                int.from_bytes(conduction, "little"),
                bool(flags & messages.F_BUTTON),
                flags,
            )
        )

    def _on_error(self, frame: framing.Frame, now: float) -> None:
        code, ref_type, ref_seq, text = messages.unpack_error(frame.payload)
        self.counters["device_errors"] += 1
        log.info("scanning board reports: %s (%s)", messages.ERROR_NAMES.get(code, code), text)
        if code == messages.E_NOT_READY:
            self._send_hello()
        elif code in (messages.E_BAD_FRAME, messages.E_BAD_PAYLOAD) and self._lamps_pending:
            self._send_lamps(now)  # it may have been our lamp command that got damaged
            self.counters["resends"] += 1

    # -- timers ---------------------------------------------------------------------------

    def _check_timers(self, now: float) -> None:
        s = self.settings
        if self._port is None:
            return
        if self.state == self.HANDSHAKE and now - self._hello_at > s.handshake_timeout:
            self._drop(now, f"no answer to the handshake within {s.handshake_timeout:g} s")
            return
        if now - self._last_rx > s.timeout:
            self._drop(now, f"device silent for {s.timeout:g} s")
            return
        if self.state != self.CONNECTED:
            return
        if self._lamps_pending and now - self._lamps_pending[1] > s.ack_timeout:
            self.counters["resends"] += 1
            self._send_lamps(now)
        elif now - self._last_tx >= s.heartbeat:
            self._send_lamps(now)  # keepalive: the device would put its lamps out after host_timeout
        if s.health_interval and now - self._last_health_request >= s.health_interval:
            self.request_health()

    def _check_damage(self, now: float) -> None:
        bad = self._decoder.bad_frames + self._decoder.oversize
        if bad != self._bad_seen:
            self._bad_seen = bad
            self._note_damage(now)
        window = self.settings.error_window
        while self._bad_times and now - self._bad_times[0] > window:
            self._bad_times.popleft()
        if self._trouble and not self._bad_times:
            self._trouble = False
            self._events.append(LinkTroubleCleared(now, f"no damaged frame for {window:g} s"))

    def _note_damage(self, now: float) -> None:
        self._bad_times.append(now)
        self._resync(now)  # the damaged frame may have been a snapshot
        if not self._trouble and len(self._bad_times) >= self.settings.error_threshold:
            self._trouble = True
            self._events.append(
                LinkTrouble(now, f"{len(self._bad_times)} damaged frames in {self.settings.error_window:g} s")
            )

    def _resync(self, now: float, *, force: bool = False) -> None:
        if self.connected and (force or now - self._last_resync >= self.settings.ack_timeout):
            self._last_resync = now
            self.request_snapshot()


def _why(exc: BaseException) -> str:
    return str(exc) or type(exc).__name__
