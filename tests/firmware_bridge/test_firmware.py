"""The firmware on a real MicroPython, and what only the host can check about it.

The firmware's own tests (``tests/firmware_bridge/firmware/``) are written
for both interpreters: pytest runs them under CPython, and the tests below
run them again under MicroPython's WebAssembly port (the npm package pinned
in :mod:`firmware_bridge.toolchain`, run by Node.js) — once with the device
files as source, once as mpy-cross compiled them for the device's flash.
Each firmware test is one pytest test per run, so a failure names it.
"""

from __future__ import annotations

import ast
import binascii
import functools
import json
import random
from pathlib import Path
from typing import Any

import pytest

from firmware_bridge import framing, messages
from firmware_bridge.firmware import config
from firmware_bridge.toolchain import BOOT_FILE, DEVICE_FILES, NPM_VERSION, MicroPython, compile_for_device
from games.hautetension.layout import Layout
from hardware.settings import HardwareSettings

FIRMWARE_TESTS = Path(__file__).resolve().parent / "firmware"
MARK = "@@ "  # result lines of firmware/run_tests.py


def firmware_tests() -> list[tuple[str, str]]:
    """(module, test function) of every firmware test, read from the files (as pytest would collect them)."""
    found = []
    for path in sorted(FIRMWARE_TESTS.glob("test_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found += [
            (path.stem, node.name)
            for node in tree.body
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_")
        ]
    return found


TESTS = firmware_tests()


@functools.cache
def compiled_device_files() -> dict[str, bytes]:
    files = {c.mpy_name: c.mpy for c in compile_for_device() if c.name != BOOT_FILE}
    files[BOOT_FILE] = DEVICE_FILES[BOOT_FILE].read_bytes()  # MicroPython boots from main.py only
    return files


def flash(*, compiled: bool) -> dict[str, bytes]:
    """The device's flash (source or compiled; main.py always as source) plus the firmware tests."""
    if compiled:
        files = dict(compiled_device_files())
    else:
        files = {name: path.read_bytes() for name, path in DEVICE_FILES.items()}
    for path in FIRMWARE_TESTS.glob("*.py"):
        if path.name != "conftest.py":  # pytest's, CPython only
            files[path.name] = path.read_bytes()
    return files


@pytest.fixture(scope="module", params=["source", "compiled"])
def device_results(request: pytest.FixtureRequest, micropython: MicroPython) -> dict[Any, dict[str, Any]]:
    """Each firmware test's result under MicroPython by (module, test); (module, None): an import error."""
    modules = sorted({module for module, _ in TESTS})
    output = micropython.run(
        flash(compiled=request.param == "compiled"), f"import run_tests\nrun_tests.main({modules!r})\n"
    )
    results: dict[Any, dict[str, Any]] = {}
    for line in output.splitlines():
        if line.startswith(MARK):
            result = json.loads(line[len(MARK) :])
            results[result.get("module", "done"), result.get("test")] = result
    assert ("done", None) in results, f"the firmware tests stopped early under MicroPython:\n{output}"
    return results


@pytest.mark.parametrize(("module", "test"), TESTS, ids=[f"{m}.{t}" for m, t in TESTS])
def test_passes_under_micropython(device_results: dict[Any, dict[str, Any]], module: str, test: str) -> None:
    broken = device_results.get((module, None))
    assert broken is None, f"{module} does not import under MicroPython:\n{broken and broken['error']}"
    result = device_results.get((module, test))
    assert result is not None, f"{module}.{test} did not run under MicroPython"
    assert result["ok"], f"{module}.{test} failed under MicroPython:\n{result['error']}"


def test_every_firmware_test_ran_on_micropython(device_results: dict[Any, dict[str, Any]]) -> None:
    assert device_results["done", None]["done"] == len(TESTS) > 0


DEVICE_PROBE = """
import json, sys
import app, framing
print(json.dumps({
    "implementation": sys.implementation.name,
    "version": list(sys.implementation.version[:3]),
    "app": app.__file__,
    "framing": framing.__file__,
    "pure_crc": framing._crc_hqx is None,
    "check_value": framing.crc16(b"123456789"),
}))
"""


@pytest.mark.parametrize("compiled", [False, True], ids=["source", "compiled"])
def test_the_firmware_runs_as_on_the_device(micropython: MicroPython, compiled: bool) -> None:
    probe = json.loads(micropython.run(flash(compiled=compiled), DEVICE_PROBE).splitlines()[-1])
    assert probe["implementation"] == "micropython"
    assert ".".join(map(str, probe["version"])) == NPM_VERSION
    # Imported flat from the flash, as on the device, not from the host's package.
    suffix = ".mpy" if compiled else ".py"
    assert probe["app"] == "app" + suffix and probe["framing"] == "framing" + suffix
    # No binascii.crc_hqx on MicroPython: the device computes the CRC with its own table.
    assert probe["pure_crc"] is True and probe["check_value"] == 0x29B1


# --------------------------------------------------------------------------- byte for byte with the host

MIRROR = """
import json, binascii, framing, messages
cases = json.loads(open("cases.json").read())
hx = lambda data: binascii.hexlify(data).decode()
raw = binascii.unhexlify

def pack(name, args):
    if name == "pack_snapshot":  # JSON has no bytes: the bitmaps come as lists
        args = args[:3] + [bytes(args[3]), bytes(args[4])]
    elif name == "pack_health":
        args = [tuple(args[0])]
    return getattr(messages, name)(*args)

decoder = framing.Decoder()
out = {
    "crc": [framing.crc16(raw(data)) for data in cases["data"]],
    "cobs": [hx(framing.cobs_encode(raw(data))) for data in cases["data"]],
    "frames": [hx(framing.encode_frame(t, s, raw(p))) for t, s, p in cases["frames"]],
    "decoded": [[f.type, f.seq, hx(f.payload)] for f in decoder.feed(raw(cases["stream"]))],
    "messages": [hx(pack(name, args)) for name, args in cases["messages"]],
    "hellos": [list(messages.unpack_hello(raw(p))) for p in cases["hellos"]],
}
out["bad_frames"] = decoder.bad_frames
print(json.dumps(out))
"""

HOST_MESSAGES: list[tuple[str, list[Any]]] = [
    ("pack_hello", [messages.PROTOCOL_VERSION, 500, 3000]),
    ("pack_hello_reply", [1, 80, 4, messages.R_BOOT, 3, "hautetension-scanner 1.0"]),
    ("pack_snapshot", [0xFFFF, messages.F_CHANGED | messages.F_BUTTON, 80, [0xAA] * 10, [0x55] * 10]),
    ("pack_snapshot", [7, 0, 1, [1], [0]]),
    ("pack_lamps", [0b1010]),
    ("pack_button", [True]),
    ("pack_ack", [messages.LAMPS, 513]),
    ("pack_error", [messages.E_BAD_PAYLOAD, messages.LAMPS, 9, "expected 1 bytes, got 2"]),
    ("pack_error", [messages.E_BAD_FRAME, 0, 0, "x" * 100]),  # cut to MAX_TEXT on both ends
    ("pack_health", [[2**32 - 1, 12345, 1800, 2500, 10, 2, 99, 180000, 3, 0b1111]]),
]


def host_pack(name: str, args: list[Any]) -> bytes:
    if name == "pack_snapshot":
        args = [*args[:3], bytes(args[3]), bytes(args[4])]
    elif name == "pack_health":
        args = [tuple(args[0])]
    return bytes(getattr(messages, name)(*args))


@pytest.mark.parametrize("compiled", [False, True], ids=["source", "compiled"])
def test_framing_and_messages_are_the_hosts_byte_for_byte(micropython: MicroPython, compiled: bool) -> None:
    # The host (binascii.crc_hqx, in C) and the device (framing.py's own table, under MicroPython)
    # must agree on every byte: CRCs, COBS, whole frames, payloads; and the device must decode the
    # host's stream, damaged frames and garbage included, exactly as the host does.
    rng = random.Random(16)
    data = [b"", b"\x00", b"123456789", b"\x00" * 254, b"\x01" * 254, b"\x02" * 255, bytes(range(256)) * 2]
    data += [rng.randbytes(rng.randrange(600)) for _ in range(60)]
    frames = [(0, 0, b""), (0xFF, 0xFFFF, b"\x00" * framing.MAX_PAYLOAD), (0x82, 0x1234, bytes(range(250)))]
    for _ in range(200):
        frames.append((rng.randrange(256), rng.randrange(0x10000), rng.randbytes(rng.randrange(251))))
    stream = bytearray()
    for kind, seq, payload in frames[:60]:
        wire = bytearray(framing.encode_frame(kind, seq, payload))
        if rng.random() < 0.3:
            wire[rng.randrange(len(wire) - 1)] ^= 1 << rng.randrange(8)  # damaged: both ends drop it
        stream += rng.randbytes(rng.randrange(8)) + b"\x00" + wire
    cases = {
        "data": [d.hex() for d in data],
        "frames": [[k, s, p.hex()] for k, s, p in frames],
        "stream": bytes(stream).hex(),
        "messages": HOST_MESSAGES,
        "hellos": [messages.pack_hello(1, 500, 3000).hex(), "07"],
    }
    files = {**flash(compiled=compiled), "cases.json": json.dumps(cases).encode()}
    device = json.loads(micropython.run(files, MIRROR).splitlines()[-1])

    assert device["crc"] == [binascii.crc_hqx(d, 0xFFFF) for d in data]
    assert device["cobs"] == [framing.cobs_encode(d).hex() for d in data]
    assert device["frames"] == [framing.encode_frame(k, s, p).hex() for k, s, p in frames]
    assert device["messages"] == [host_pack(name, args).hex() for name, args in HOST_MESSAGES]
    host = framing.Decoder()
    assert device["decoded"] == [[f.type, f.seq, f.payload.hex()] for f in host.feed(bytes(stream))]
    assert device["bad_frames"] == host.bad_frames > 0
    assert device["hellos"] == [[1, 500, 3000], [7, 0, 0]]


# --------------------------------------------------------------------------- what only the host can check


def test_slot_map_is_the_same_as_the_gpio_scanner(pinwheel: Layout) -> None:
    wiring = HardwareSettings().slot_map(pinwheel)
    for index, slot in enumerate(pinwheel.slots):
        presence, conduction = wiring[slot].presence, wiring[slot].conduction
        assert presence is not None and conduction is not None
        assert 16 * presence.multiplexer + presence.channel == 2 * index
        assert 16 * conduction.multiplexer + conduction.channel == 2 * index + 1
    assert HardwareSettings().debounce.scans == config.BOARD["debounce_scans"]
    assert HardwareSettings().debounce.min_seconds * 1000 == config.BOARD["debounce_ms"]
