"""Framing, CRC and message payloads shared by the host and the firmware, as the host sees them.

Hypothesis properties, a pyserial loopback and the device files' subset;
the fixed cases run under both interpreters from firmware/test_shared_framing.py.
"""

from __future__ import annotations

import ast
import pathlib

import pytest
import serial
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_bridge import framing, messages
from firmware_bridge.framing import Decoder, Frame, cobs_decode, cobs_encode, crc16, crc16_py, encode_frame
from firmware_bridge.toolchain import DEVICE_FILES

payloads = st.binary(max_size=framing.MAX_PAYLOAD)
types = st.integers(0, 255)
seqs = st.integers(0, 0xFFFF)


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


# --------------------------------------------------------------------------- MicroPython subset

PACKAGE = pathlib.Path(__file__).resolve().parents[2] / "firmware_bridge"
DEVICE_MODULES = {
    "time", "struct", "binascii", "gc", "select", "sys", "machine", "micropython",
    "framing", "messages", "scanner", "config", "app", "firmware_bridge", "firmware_bridge.firmware",
}


@pytest.mark.parametrize("path", DEVICE_FILES.values(), ids=DEVICE_FILES.keys())
def test_device_files_keep_to_what_micropython_runs(path: pathlib.Path) -> None:
    # Beyond what mpy-cross and the MicroPython runs check: paths the tests do not take must not
    # need a module or a feature the device lacks either.
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
