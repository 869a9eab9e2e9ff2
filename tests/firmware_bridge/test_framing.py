"""Framing, CRC and message payloads shared by the host and the firmware."""

from __future__ import annotations

import ast
import pathlib

import pytest
import serial
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_bridge import framing, messages
from firmware_bridge.framing import Decoder, Frame, cobs_decode, cobs_encode, crc16, crc16_py, encode_frame

payloads = st.binary(max_size=framing.MAX_PAYLOAD)
types = st.integers(0, 255)
seqs = st.integers(0, 0xFFFF)


def test_crc_matches_the_published_check_value() -> None:
    assert crc16(b"123456789") == 0x29B1
    assert crc16_py(b"123456789") == 0x29B1
    assert crc16(b"") == 0xFFFF


@settings(max_examples=200)
@given(st.binary(max_size=600))
def test_pure_crc_equals_the_fast_one(data: bytes) -> None:
    assert crc16_py(data) == crc16(data)


@settings(max_examples=200)
@given(st.binary(max_size=800))
def test_cobs_round_trips_and_removes_every_zero(data: bytes) -> None:
    encoded = cobs_encode(data)
    assert 0 not in encoded
    assert cobs_decode(encoded) == data
    assert len(encoded) <= len(data) + len(data) // 254 + 1


@pytest.mark.parametrize("size", [0, 1, 253, 254, 255, 508, 509])
@pytest.mark.parametrize("fill", [0, 1])
def test_cobs_block_boundaries(size: int, fill: int) -> None:
    data = bytes([fill]) * size
    assert cobs_decode(cobs_encode(data)) == data


@settings(max_examples=200)
@given(types, seqs, payloads)
def test_frames_round_trip(kind: int, seq: int, payload: bytes) -> None:
    wire = encode_frame(kind, seq, payload)
    assert wire.endswith(b"\x00") and wire.count(0) == 1
    assert len(wire) <= framing.MAX_ENCODED + 1
    assert Decoder().feed(wire) == [Frame(kind, seq, payload)]


def _frames_with_good_crc(stream: bytes) -> list[tuple[int, int, bytes]]:
    """What a correct decoder may yield: chunks that undo to a frame with a matching CRC."""
    good = []
    for chunk in stream.split(b"\x00"):
        raw = cobs_decode(chunk) if chunk and len(chunk) <= framing.MAX_ENCODED else None
        if raw is None or not framing.MIN_RAW <= len(raw) <= framing.MAX_RAW:
            continue
        if crc16(raw[:-2]) == int.from_bytes(raw[-2:], "big"):
            good.append((raw[0], raw[1] | raw[2] << 8, raw[3:-2]))
    return good


@settings(max_examples=200)
@given(st.lists(st.binary(max_size=300), max_size=8))
def test_any_byte_stream_decodes_without_raising_and_only_to_checked_frames(pieces: list[bytes]) -> None:
    decoder = Decoder()
    frames = []
    for piece in pieces:
        frames.extend(decoder.feed(piece))
    stream = b"".join(pieces)
    # Only whole chunks (ended by a zero) count; the last unfinished one is still pending.
    finished = stream[: stream.rfind(b"\x00") + 1] if b"\x00" in stream else b""
    assert [(f.type, f.seq, f.payload) for f in frames] == _frames_with_good_crc(finished)


@settings(max_examples=150)
@given(
    st.lists(st.tuples(st.binary(max_size=80), types, seqs, st.binary(max_size=40)), min_size=1, max_size=6),
    st.integers(1, 64),
)
def test_frames_survive_garbage_between_them(items: list[tuple[bytes, int, int, bytes]], chunk: int) -> None:
    stream = bytearray()
    expected = []
    for garbage, kind, seq, payload in items:
        stream += garbage + b"\x00"  # garbage, then the delimiter a sender puts before a frame
        stream += encode_frame(kind, seq, payload)
        expected.append(Frame(kind, seq, payload))
    decoder = Decoder()
    got = []
    for start in range(0, len(stream), chunk):
        got.extend(decoder.feed(bytes(stream[start : start + chunk])))
    # Garbage may itself happen to be a valid frame; the real frames all arrive, in order.
    real = [f for f in got if f in expected]
    assert real == expected


def test_every_single_bit_flip_is_caught() -> None:
    frame = Frame(messages.SNAPSHOT, 0x1234, bytes(range(1, 26)))
    wire = encode_frame(frame.type, frame.seq, frame.payload)
    caught = 0
    for position in range(len(wire) - 1):
        for bit in range(8):
            damaged = bytearray(wire)
            damaged[position] ^= 1 << bit
            decoder = Decoder()
            got = decoder.feed(b"\x00" + bytes(damaged) + b"\x00")
            assert all(f == frame for f in got), (position, bit, got)
            caught += not got
    assert caught == 8 * (len(wire) - 1)


def test_truncated_frame_is_dropped_and_the_next_one_decoded() -> None:
    first = encode_frame(1, 1, b"abcdef")
    second = encode_frame(2, 2, b"xyz")
    decoder = Decoder()
    assert decoder.feed(first[:5] + b"\x00" + second) == [Frame(2, 2, b"xyz")]
    assert decoder.bad_frames == 1


def test_oversized_garbage_is_dropped_without_growing_the_buffer() -> None:
    decoder = Decoder()
    assert decoder.feed(b"\x01" * (framing.MAX_ENCODED * 4)) == []
    assert decoder.pending <= framing.MAX_ENCODED
    assert decoder.oversize == 1
    assert decoder.feed(b"\x00" + encode_frame(5, 6, b"ok")) == [Frame(5, 6, b"ok")]


def test_empty_chunks_between_delimiters_are_not_errors() -> None:
    decoder = Decoder()
    assert decoder.feed(b"\x00\x00\x00") == []
    assert decoder.bad_frames == 0


@pytest.mark.parametrize(
    ("kind", "seq", "payload", "message"),
    [
        (256, 0, b"", "one byte"),
        (1, 0x10000, b"", "16 bits"),
        (1, 0, b"x" * (framing.MAX_PAYLOAD + 1), "limit"),
    ],
)
def test_unbuildable_frames_are_refused(kind: int, seq: int, payload: bytes, message: str) -> None:
    with pytest.raises(framing.FrameError, match=message):
        encode_frame(kind, seq, payload)


def test_frames_cross_pyserial_loopback_with_noise() -> None:
    # pyserial's loop:// port: no pseudo-terminal needed to check framing through a real Serial object.
    port = serial.serial_for_url("loop://", timeout=0.1)
    try:
        port.write(b"\xff\x13garbage" + encode_frame(1, 7, b"one")[:-4] + b"\x00")
        port.write(encode_frame(2, 8, b"two") + b"\x01\x02" + encode_frame(3, 9, b""))
        decoder = Decoder()
        frames = decoder.feed(port.read(200))
    finally:
        port.close()
    # The cut frame and the frame with stray bytes glued to its start are lost, nothing else.
    assert frames == [Frame(2, 8, b"two")]
    assert decoder.bad_frames == 2


# --------------------------------------------------------------------------- payloads


@settings(max_examples=100)
@given(seqs, st.integers(0, 7), st.integers(0, messages.MAX_SLOTS), st.data())
def test_snapshot_payload_round_trips(seq: int, flags: int, slots: int, data: st.DataObject) -> None:
    size = messages.bitmap_size(slots)
    presence = data.draw(st.binary(min_size=size, max_size=size))
    conduction = data.draw(st.binary(min_size=size, max_size=size))
    payload = messages.pack_snapshot(seq, flags, slots, presence, conduction)
    assert len(payload) <= framing.MAX_PAYLOAD + 100
    assert messages.unpack_snapshot(payload) == (seq, flags, slots, presence, conduction)


def test_an_80_slot_snapshot_fits_one_frame() -> None:
    payload = messages.pack_snapshot(1, 0, 80, bytes(10), bytes(10))
    assert len(payload) == 25
    assert len(encode_frame(messages.SNAPSHOT, 0, payload)) <= 32


@pytest.mark.parametrize(
    ("unpack", "payload"),
    [
        (messages.unpack_snapshot, b"\x00\x00"),
        (messages.unpack_snapshot, messages.pack_snapshot(0, 0, 80, bytes(10), bytes(10))[:-1]),
        (messages.unpack_snapshot, b"\x00\x00\x00\xff\xff"),
        (messages.unpack_lamps, b""),
        (messages.unpack_button, b"\x02"),
        (messages.unpack_ack, b"\x02"),
        (messages.unpack_error, b"\x01"),
        (messages.unpack_health, b"\x00" * 10),
        (messages.unpack_hello_reply, b"\x01\x50"),
    ],
)
def test_bad_payloads_raise_payload_error(unpack: object, payload: bytes) -> None:
    with pytest.raises(messages.PayloadError):
        unpack(payload)  # type: ignore[operator]


def test_other_payloads_round_trip() -> None:
    assert messages.unpack_hello(messages.pack_hello(1, 500, 3000)) == (1, 500, 3000)
    assert messages.unpack_hello(b"\x07") == (7, 0, 0)  # a future host: its version is still read
    reply = messages.pack_hello_reply(1, 80, 4, messages.R_BOOT, 3, "fw 1.0")
    assert messages.unpack_hello_reply(reply) == (1, 80, 4, messages.R_BOOT, 3, "fw 1.0")
    assert messages.unpack_ack(messages.pack_ack(messages.LAMPS, 513)) == (messages.LAMPS, 513)
    assert messages.unpack_error(messages.pack_error(4, 1, 2, "v2")) == (4, 1, 2, "v2")
    assert messages.unpack_lamps(messages.pack_lamps(0b1010)) == 0b1010
    assert messages.unpack_button(messages.pack_button(True)) is True
    values = tuple(range(1, 9)) + (3, 5)
    assert tuple(messages.unpack_health(messages.pack_health(values)).values()) == values


# --------------------------------------------------------------------------- MicroPython subset

PACKAGE = pathlib.Path(__file__).resolve().parents[2] / "firmware_bridge"
DEVICE_FILES = [
    PACKAGE / "framing.py",
    PACKAGE / "messages.py",
    *sorted((PACKAGE / "firmware").glob("*.py")),
]
DEVICE_MODULES = {
    "time", "struct", "binascii", "gc", "select", "sys", "machine", "micropython",
    "framing", "messages", "scanner", "config", "app", "firmware_bridge", "firmware_bridge.firmware",
}


@pytest.mark.parametrize("path", DEVICE_FILES, ids=lambda p: p.name)
def test_device_files_keep_to_what_micropython_runs(path: pathlib.Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    problems = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [node.module or ""]
        else:
            names = []
        problems += [f"imports {name}" for name in names if name not in DEVICE_MODULES]
        if isinstance(node, ast.JoinedStr):
            problems.append(f"f-string at line {node.lineno}")
        if isinstance(node, ast.Match | ast.NamedExpr | ast.TryStar):
            problems.append(f"{type(node).__name__} at line {node.lineno}")
        if isinstance(node, ast.keyword) and node.arg == "strict":
            problems.append(f"strict= at line {node.lineno}")
        if isinstance(node, ast.Name) and node.id in ("dataclass", "Optional", "Union", "TYPE_CHECKING"):
            problems.append(f"{node.id} at line {node.lineno}")
    assert problems == []


def test_framing_without_the_c_crc(monkeypatch: pytest.MonkeyPatch) -> None:
    # On MicroPython binascii has no crc_hqx: the pure table is used, with the same frames.
    wire = encode_frame(messages.SNAPSHOT, 9, b"\x00\x01\x02")
    monkeypatch.setattr(framing, "_crc_hqx", None)
    assert encode_frame(messages.SNAPSHOT, 9, b"\x00\x01\x02") == wire
    assert Decoder().feed(wire) == [Frame(messages.SNAPSHOT, 9, b"\x00\x01\x02")]


def test_firmware_bridge_imports_only_the_standard_library_pyserial_and_the_config_leaf() -> None:
    import sys

    # The config leaf is importable by every package (DESIGN §2).
    allowed_roots = set(sys.stdlib_module_names) | {"serial", "firmware_bridge", "configuration"}
    allowed_roots |= DEVICE_MODULES
    problems = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            problems += [f"{path.name} imports {n}" for n in names if n.split(".")[0] not in allowed_roots]
    assert problems == []
