"""Message types of the serial link and their payloads, shared by host and firmware.

Like :mod:`firmware_bridge.framing`, this file is copied unchanged onto the
microcontroller, so it keeps to what MicroPython runs: ``struct``, tuples and
plain functions, no dataclasses and no ``typing`` at run time.

Every ``pack_*`` function returns a payload (bytes) and every ``unpack_*``
function returns a tuple, or raises :class:`PayloadError` for a payload of the
wrong size or with out-of-range fields. Byte order is little-endian
throughout. PROTOCOL.md describes every message in prose.
"""

# ruff: noqa: UP031 -- %-formatting is what every MicroPython build supports

import struct

PROTOCOL_VERSION = 1

# Host to device.
HELLO = 0x01
LAMPS = 0x02
SNAPSHOT_REQUEST = 0x03
HEALTH_REQUEST = 0x04
# Device to host.
HELLO_REPLY = 0x81
SNAPSHOT = 0x82
BUTTON = 0x83
HEALTH = 0x84
# Either way.
ACK = 0x10
ERROR = 0x11

NAMES = {
    HELLO: "hello",
    LAMPS: "lamps",
    SNAPSHOT_REQUEST: "snapshot-request",
    HEALTH_REQUEST: "health-request",
    HELLO_REPLY: "hello-reply",
    SNAPSHOT: "snapshot",
    BUTTON: "button",
    HEALTH: "health",
    ACK: "ack",
    ERROR: "error",
}

# ERROR codes.
E_BAD_FRAME = 1
E_UNKNOWN_TYPE = 2
E_BAD_PAYLOAD = 3
E_VERSION_MISMATCH = 4
E_NOT_READY = 5

ERROR_NAMES = {
    E_BAD_FRAME: "bad frame",
    E_UNKNOWN_TYPE: "unknown message type",
    E_BAD_PAYLOAD: "bad payload",
    E_VERSION_MISMATCH: "protocol version mismatch",
    E_NOT_READY: "no handshake yet",
}

# SNAPSHOT flags.
F_BUTTON = 0x01
"""The test button is held."""
F_CHANGED = 0x02
"""Sent because a debounced reading changed (else: heartbeat or request)."""
F_REQUESTED = 0x04
"""Sent in answer to a SNAPSHOT_REQUEST."""

# HELLO_REPLY reasons.
R_ANSWER = 0
R_BOOT = 1
"""Sent unprompted when the firmware starts: the device has just reset."""

MAX_SLOTS = 512
MAX_TEXT = 48

_HELLO = "<BHH"
_HELLO_REPLY = "<BHBBB"
_SNAPSHOT_HEAD = "<HBH"
_ACK = "<BH"
_ERROR = "<BBH"
_HEALTH = "<IIIIIIIIBB"

HEALTH_FIELDS = (
    "uptime_ms",
    "scans",
    "scan_us",
    "loop_max_us",
    "rx_frames",
    "rx_bad_frames",
    "tx_frames",
    "mem_free",
    "reset_cause",
    "lamps",
)


class PayloadError(ValueError):
    """A payload whose size or fields do not match its message type."""


def _unpack(fmt: str, payload: bytes) -> tuple:
    if len(payload) != struct.calcsize(fmt):
        raise PayloadError("expected %d bytes, got %d" % (struct.calcsize(fmt), len(payload)))
    return struct.unpack(fmt, payload)


def bitmap_size(slot_count: int) -> int:
    """Bytes in one bitmap of *slot_count* bits."""
    return (slot_count + 7) // 8


def pack_hello(version: int, heartbeat_ms: int, host_timeout_ms: int) -> bytes:
    return struct.pack(_HELLO, version, heartbeat_ms, host_timeout_ms)


def unpack_hello(payload: bytes) -> tuple:
    """(version, heartbeat_ms, host_timeout_ms).

    Only the version byte is read when the payload has another size, so that
    a device can still tell a host of another protocol version what it speaks.
    """
    if len(payload) >= 1 and len(payload) != struct.calcsize(_HELLO):
        return (payload[0], 0, 0)
    return _unpack(_HELLO, payload)


def pack_hello_reply(
    version: int, slot_count: int, lamp_count: int, reason: int, reset_cause: int, firmware: str
) -> bytes:
    text = firmware.encode()[:MAX_TEXT]
    return struct.pack(_HELLO_REPLY, version, slot_count, lamp_count, reason, reset_cause) + text


def unpack_hello_reply(payload: bytes) -> tuple:
    """(version, slot_count, lamp_count, reason, reset_cause, firmware)."""
    size = struct.calcsize(_HELLO_REPLY)
    if len(payload) < size:
        raise PayloadError("hello-reply shorter than %d bytes" % size)
    fields = struct.unpack(_HELLO_REPLY, payload[:size])
    return fields + (_text(payload[size:]),)


def pack_snapshot(snap_seq: int, flags: int, slot_count: int, presence: bytes, conduction: bytes) -> bytes:
    size = bitmap_size(slot_count)
    if len(presence) != size or len(conduction) != size:
        raise PayloadError("bitmaps of %d slots take %d bytes each" % (slot_count, size))
    return struct.pack(_SNAPSHOT_HEAD, snap_seq, flags, slot_count) + bytes(presence) + bytes(conduction)


def unpack_snapshot(payload: bytes) -> tuple:
    """(snap_seq, flags, slot_count, presence, conduction); bitmaps as bytes, bit i = slot i."""
    head = struct.calcsize(_SNAPSHOT_HEAD)
    if len(payload) < head:
        raise PayloadError("snapshot shorter than its header")
    snap_seq, flags, slot_count = struct.unpack(_SNAPSHOT_HEAD, payload[:head])
    if slot_count > MAX_SLOTS:
        raise PayloadError("snapshot of %d slots exceeds %d" % (slot_count, MAX_SLOTS))
    size = bitmap_size(slot_count)
    if len(payload) != head + 2 * size:
        raise PayloadError("snapshot of %d slots must be %d bytes" % (slot_count, head + 2 * size))
    presence = payload[head : head + size]
    conduction = payload[head + size :]
    return (snap_seq, flags, slot_count, presence, conduction)


def pack_lamps(mask: int) -> bytes:
    return bytes((mask & 0xFF,))


def unpack_lamps(payload: bytes) -> int:
    """Bit i lights lamp i (the layout's lamp order)."""
    if len(payload) != 1:
        raise PayloadError("lamps payload is one byte")
    return payload[0]


def pack_button(pressed: bool) -> bytes:
    return b"\x01" if pressed else b"\x00"


def unpack_button(payload: bytes) -> bool:
    if len(payload) != 1 or payload[0] > 1:
        raise PayloadError("button payload is one byte, 0 or 1")
    return payload[0] == 1


def pack_ack(acked_type: int, acked_seq: int) -> bytes:
    return struct.pack(_ACK, acked_type, acked_seq)


def unpack_ack(payload: bytes) -> tuple:
    """(acked_type, acked_seq)."""
    return _unpack(_ACK, payload)


def pack_error(code: int, ref_type: int, ref_seq: int, text: str = "") -> bytes:
    return struct.pack(_ERROR, code, ref_type, ref_seq) + text.encode()[:MAX_TEXT]


def unpack_error(payload: bytes) -> tuple:
    """(code, ref_type, ref_seq, text)."""
    size = struct.calcsize(_ERROR)
    if len(payload) < size:
        raise PayloadError("error payload shorter than %d bytes" % size)
    return struct.unpack(_ERROR, payload[:size]) + (_text(payload[size:]),)


def pack_health(values: tuple) -> bytes:
    """*values* in :data:`HEALTH_FIELDS` order."""
    return struct.pack(_HEALTH, *values)


def unpack_health(payload: bytes) -> dict:
    values = _unpack(_HEALTH, payload)
    return {name: values[i] for i, name in enumerate(HEALTH_FIELDS)}


def _text(raw: bytes) -> str:
    try:
        return bytes(raw).decode()
    except UnicodeError:
        return repr(bytes(raw))
