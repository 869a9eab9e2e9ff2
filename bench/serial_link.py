"""Benchmark of the serial link: frame decoding rate and snapshot-to-event latency.

Run: ``.venv/bin/python bench/serial_link.py`` (about 6 s; ``--quick`` for 2 s).

1. Decoding: a stream of 80-slot snapshot frames through
   :class:`firmware_bridge.framing.Decoder`, side by side in the same run with
   two baselines: the same decoder with the pure-Python CRC (what the
   microcontroller runs), and ``bytes.split`` on the delimiter (no COBS, no
   CRC: the floor of any delimited framing).
2. Latency over a real pseudo-terminal: from the moment the firmware (running
   in the simulator) writes a changed snapshot to the moment the board event
   comes out of :meth:`SerialBackend.poll_wait` on the host; baseline: the
   same bytes written raw on the same kind of pty and read by pyserial.

Machine-independent counts are printed too: bytes on the wire per snapshot,
GPIO operations per device scan, frames per placement.
"""

from __future__ import annotations

import argparse
import json
import os
import select
import statistics
import sys
import time
import tty
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import serial  # noqa: E402

from configuration import ConfigFile  # noqa: E402
from firmware_bridge import framing, messages  # noqa: E402
from firmware_bridge.simulator import SimulatedDevice  # noqa: E402
from games.hautetension.layout import load_layout  # noqa: E402
from hardware.backends.serial import open_serial_backend  # noqa: E402
from hardware.events import PawnLifted, PawnPlaced  # noqa: E402


def snapshot_stream(count: int) -> bytes:
    frames = []
    for seq in range(count):
        presence = (seq * 0x9E3779B97F4A7C15 & ((1 << 80) - 1)).to_bytes(10, "little")
        payload = messages.pack_snapshot(seq & 0xFFFF, 0, 80, presence, presence)
        frames.append(framing.encode_frame(messages.SNAPSHOT, seq & 0xFFFF, payload))
    return b"".join(frames)


def time_decode(stream: bytes, count: int, *, pure_crc: bool) -> float:
    saved = framing._crc_hqx
    if pure_crc:
        framing._crc_hqx = None
    try:
        decoder = framing.Decoder()
        start = time.perf_counter()
        got = 0
        for offset in range(0, len(stream), 4096):
            got += len(decoder.feed(stream[offset : offset + 4096]))
        elapsed = time.perf_counter() - start
    finally:
        framing._crc_hqx = saved
    assert got == count, (got, count)
    return count / elapsed


def time_split(stream: bytes, count: int) -> float:
    start = time.perf_counter()
    pending = b""
    got = 0
    for offset in range(0, len(stream), 4096):
        parts = (pending + stream[offset : offset + 4096]).split(b"\x00")
        pending = parts.pop()
        got += sum(1 for p in parts if p)
    elapsed = time.perf_counter() - start
    assert got == count
    return count / elapsed


def bench_decode(count: int) -> dict[str, Any]:
    stream = snapshot_stream(count)
    fast = max(time_decode(stream, count, pure_crc=False) for _ in range(3))
    pure = max(time_decode(stream, count, pure_crc=True) for _ in range(3))
    split = max(time_split(stream, count) for _ in range(3))
    return {
        "frames": count,
        "bytes_per_frame": len(stream) / count,
        "decoder_frames_per_s": fast,
        "pure_crc_frames_per_s": pure,
        "split_only_frames_per_s": split,
        "ratio_decoder_vs_pure_crc": fast / pure,
        "ratio_decoder_vs_split_only": fast / split,
    }


def bench_latency(samples: int) -> dict[str, Any]:
    layout = load_layout()
    sent: list[float] = []

    def on_write(data: bytes, at: float) -> None:
        frame = framing.decode_frame(bytes(data).rstrip(b"\x00"))
        if frame is not None and frame.type == messages.SNAPSHOT:
            flags = messages.unpack_snapshot(frame.payload)[1]
            if flags & messages.F_CHANGED:
                sent.append(at)

    latencies = []
    with SimulatedDevice(step_delay=0.0002) as device:
        backend = open_serial_backend(ConfigFile(), layout=layout, port=device.port)
        backend.poll()
        device.on_write = on_write
        writes_before = device.firmware.scanner.pin_writes if device.firmware else 0
        scans_before = device.firmware.scans if device.firmware else 0
        for i in range(samples):
            sent.clear()
            if i % 2 == 0:
                device.board.place(40, conducts=True)
            else:
                device.board.lift(40)
            deadline = time.monotonic() + 1.0
            while time.monotonic() < deadline:
                events = backend.poll_wait(0.05)
                if any(isinstance(e, PawnPlaced | PawnLifted) for e in events):
                    delivered = time.monotonic()
                    if sent:
                        latencies.append(delivered - sent[0])
                    break
        firmware = device.firmware
        assert firmware is not None
        scans = firmware.scans - scans_before
        writes = firmware.scanner.pin_writes - writes_before
        reads_per_scan = 2 * firmware.slot_count
        backend.close()
    return {
        "samples": len(latencies),
        "median_ms": statistics.median(latencies) * 1000,
        "p95_ms": sorted(latencies)[int(0.95 * (len(latencies) - 1))] * 1000,
        "device_select_writes_per_scan": writes / max(1, scans),
        "device_signal_reads_per_scan": reads_per_scan,
    }


def bench_raw_pty(samples: int, size: int) -> dict[str, Any]:
    master, slave = os.openpty()
    tty.setraw(slave)
    port = serial.Serial(os.ttyname(slave), timeout=0)
    latencies = []
    payload = bytes(range(1, size + 1))
    try:
        for _ in range(samples):
            start = time.monotonic()
            os.write(master, payload)
            got = 0
            while got < size:
                select.select([port.fileno()], [], [], 1.0)
                got += len(port.read(size - got))
            latencies.append(time.monotonic() - start)
    finally:
        port.close()
        os.close(master)
        os.close(slave)
    return {"samples": samples, "median_ms": statistics.median(latencies) * 1000}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer frames and samples (about 2 s)")
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    args = parser.parse_args()
    frames, samples = (5000, 30) if args.quick else (20000, 200)

    decode = bench_decode(frames)
    frame_bytes = len(
        framing.encode_frame(messages.SNAPSHOT, 0, messages.pack_snapshot(0, 0, 80, bytes(10), bytes(10)))
    )
    raw = bench_raw_pty(samples, frame_bytes)
    latency = bench_latency(samples)
    result = {
        "decode": decode,
        "latency": latency,
        "raw_pty": raw,
        "ratio_latency_vs_raw_pty": latency["median_ms"] / raw["median_ms"],
        "counts": {
            "wire_bytes_per_snapshot": frame_bytes,
            "wire_ms_per_snapshot_at_115200_baud": frame_bytes * 10 / 115200 * 1000,
            "frames_per_placement": 1,
            "device_gpio_ops_per_scan": latency["device_select_writes_per_scan"]
            + latency["device_signal_reads_per_scan"],
        },
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    d = decode
    print(f"decode  {d['frames']} snapshot frames of {d['bytes_per_frame']:.0f} bytes")
    print(f"  decoder (C CRC)          {d['decoder_frames_per_s']:>12,.0f} frames/s")
    print(f"  decoder, pure-Python CRC {d['pure_crc_frames_per_s']:>12,.0f} frames/s"
          f"   ratio {d['ratio_decoder_vs_pure_crc']:.2f}x")
    print(f"  split on delimiter only  {d['split_only_frames_per_s']:>12,.0f} frames/s"
          f"   ratio {d['ratio_decoder_vs_split_only']:.3f}x")
    print(f"latency: firmware writes a snapshot -> board event on the host ({latency['samples']} samples)")
    print(f"  median {latency['median_ms']:.3f} ms, p95 {latency['p95_ms']:.3f} ms")
    print(f"  raw {frame_bytes}-byte write -> pyserial read on a pty: median {raw['median_ms']:.3f} ms"
          f"   ratio {result['ratio_latency_vs_raw_pty']:.1f}x")
    c = result["counts"]
    print(f"counts  {c['wire_bytes_per_snapshot']} bytes per snapshot on the wire "
          f"({c['wire_ms_per_snapshot_at_115200_baud']:.2f} ms at 115200 baud), "
          f"{c['frames_per_placement']} frame per placement, "
          f"{c['device_gpio_ops_per_scan']:.0f} GPIO operations per device scan")
    return 0


if __name__ == "__main__":
    sys.exit(main())
