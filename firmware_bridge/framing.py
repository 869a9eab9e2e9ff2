"""Frames on the serial link: CRC-16, COBS and a decoder that resynchronises.

This one file runs on both ends of the cable: on the host under CPython and,
copied unchanged onto the microcontroller, under MicroPython. That is why it
uses no dataclasses, no ``typing`` at run time, no ``from __future__`` and
only the ``int``/``bytes``/``bytearray`` operations MicroPython implements
(annotations are ignored by MicroPython's compiler, and only name built-in
types so CPython can evaluate them).

A frame on the wire (see PROTOCOL.md)::

    COBS( type:u8 | seq:u16 little-endian | payload | crc:u16 big-endian ) 0x00

The CRC is CRC-16/CCITT-FALSE (polynomial 0x1021, initial value 0xFFFF) over
type, seq and payload. COBS removes every zero byte from the frame so that a
single zero ends it: after any garbage, the next zero puts the receiver back
in step.
"""

# ruff: noqa: UP031 -- %-formatting is what every MicroPython build supports

try:  # CPython: the C implementation of the same CRC, about 50 times faster.
    from binascii import crc_hqx as _crc_hqx
except ImportError:  # MicroPython's binascii has no crc_hqx.
    _crc_hqx = None  # type: ignore[assignment]

MAX_PAYLOAD = 250
"""Largest payload a frame may carry, in bytes."""

HEADER_SIZE = 3
CRC_SIZE = 2
MIN_RAW = HEADER_SIZE + CRC_SIZE
MAX_RAW = HEADER_SIZE + MAX_PAYLOAD + CRC_SIZE
MAX_ENCODED = MAX_RAW + MAX_RAW // 254 + 1
"""Longest COBS-encoded frame, delimiter excluded: a receiver drops anything longer."""

DELIMITER = b"\x00"


def _make_table() -> list:
    table = []
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
        table.append(crc & 0xFFFF)
    return table


_TABLE = _make_table()


def crc16_py(data: bytes, crc: int = 0xFFFF) -> int:
    """CRC-16/CCITT-FALSE of *data*, table-driven, in plain Python (what the device runs)."""
    table = _TABLE
    for byte in data:
        crc = ((crc << 8) & 0xFFFF) ^ table[(crc >> 8) ^ byte]
    return crc


def crc16(data: bytes, crc: int = 0xFFFF) -> int:
    """CRC-16/CCITT-FALSE of *data* (check value of ``b"123456789"`` is 0x29B1)."""
    if _crc_hqx is not None:
        return _crc_hqx(data, crc)
    return crc16_py(data, crc)


def cobs_encode(data: bytes) -> bytes:
    """Consistent Overhead Byte Stuffing: *data* rewritten without a single zero byte.

    Each block starts with a code byte: the block's length plus one. A code
    below 255 stands for the block followed by a zero; 255 for 254 bytes with
    no zero after them.
    """
    out = bytearray()
    start = 0
    end = len(data)
    while True:
        zero = data.find(b"\x00", start, start + 254)
        if zero >= 0:
            out.append(zero - start + 1)
            out.extend(data[start:zero])
            start = zero + 1
            continue
        block_end = min(end, start + 254)
        out.append(block_end - start + 1)
        out.extend(data[start:block_end])
        if block_end - start < 254:
            return bytes(out)
        start = block_end


def cobs_decode(data: bytes) -> bytes | None:
    """Undo :func:`cobs_encode`; ``None`` if *data* is not a valid encoding."""
    if b"\x00" in data:
        return None
    out = bytearray()
    index = 0
    end = len(data)
    while index < end:
        code = data[index]
        block_end = index + code
        if block_end > end:
            return None
        out.extend(data[index + 1 : block_end])
        index = block_end
        if code < 255 and index < end:
            out.append(0)
    return bytes(out)


class Frame:
    """One decoded frame: its message ``type``, the sender's ``seq`` and the ``payload``."""

    def __init__(self, type: int, seq: int, payload: bytes = b"") -> None:
        self.type = type
        self.seq = seq
        self.payload = bytes(payload)

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Frame)
            and self.type == other.type
            and self.seq == other.seq
            and self.payload == other.payload
        )

    def __repr__(self) -> str:
        return "Frame(type=0x%02x, seq=%d, payload=%r)" % (self.type, self.seq, self.payload)


class FrameError(ValueError):
    """A frame that cannot be built (type, seq or payload out of range)."""


def encode_frame(type: int, seq: int, payload: bytes = b"") -> bytes:
    """The bytes to write for one frame, delimiter included."""
    if not 0 <= type <= 0xFF:
        raise FrameError("frame type must fit in one byte")
    if not 0 <= seq <= 0xFFFF:
        raise FrameError("frame sequence number must fit in 16 bits")
    if len(payload) > MAX_PAYLOAD:
        raise FrameError("payload of %d bytes exceeds the %d-byte limit" % (len(payload), MAX_PAYLOAD))
    raw = bytearray(HEADER_SIZE + len(payload) + CRC_SIZE)
    raw[0] = type
    raw[1] = seq & 0xFF
    raw[2] = seq >> 8
    raw[HEADER_SIZE : HEADER_SIZE + len(payload)] = payload
    crc = crc16(bytes(raw[: HEADER_SIZE + len(payload)]))
    raw[-2] = crc >> 8
    raw[-1] = crc & 0xFF
    return cobs_encode(bytes(raw)) + DELIMITER


def decode_frame(encoded: bytes) -> Frame | None:
    """The frame in one delimiter-free chunk, or ``None`` if it is damaged."""
    if len(encoded) > MAX_ENCODED:
        return None
    raw = cobs_decode(encoded)
    if raw is None or len(raw) < MIN_RAW or len(raw) > MAX_RAW:
        return None
    body = raw[:-CRC_SIZE]
    if crc16(body) != (raw[-2] << 8) | raw[-1]:
        return None
    return Frame(raw[0], raw[1] | (raw[2] << 8), raw[HEADER_SIZE:-CRC_SIZE])


class Decoder:
    """Turns a byte stream into frames, whatever the stream holds.

    :meth:`feed` never raises: damaged, truncated or oversized frames are
    counted and dropped, and decoding starts again after the next zero byte.
    """

    def __init__(self) -> None:
        self._buffer = bytearray()
        self._discarding = False
        self.frames = 0
        """Good frames decoded."""
        self.bad_frames = 0
        """Chunks dropped because their COBS, length or CRC was wrong."""
        self.oversize = 0
        """Chunks dropped because they grew past :data:`MAX_ENCODED` before a delimiter."""

    def feed(self, data: bytes) -> list:
        """Add received bytes; return the frames they completed, in order."""
        frames = []  # type: list[bytes]
        start = 0
        end = len(data)
        while start < end:
            zero = data.find(b"\x00", start)
            if zero < 0:
                self._append(data[start:])
                break
            self._append(data[start:zero])
            self._finish(frames)
            start = zero + 1
        return frames

    def reset(self) -> None:
        """Forget any partial frame (after the port was reopened)."""
        self._buffer = bytearray()
        self._discarding = False

    @property
    def pending(self) -> int:
        """Bytes of an unfinished frame held back."""
        return len(self._buffer)

    def _append(self, chunk: bytes) -> None:
        if self._discarding:
            return
        if len(self._buffer) + len(chunk) > MAX_ENCODED:
            self._buffer = bytearray()
            self._discarding = True
            self.oversize += 1
            return
        self._buffer.extend(chunk)

    def _finish(self, frames: list) -> None:
        if self._discarding:
            self._discarding = False
            return
        if not self._buffer:
            return  # consecutive delimiters: senders use them to flush the line
        frame = decode_frame(bytes(self._buffer))
        self._buffer = bytearray()
        if frame is None:
            self.bad_frames += 1
            return
        self.frames += 1
        frames.append(frame)
