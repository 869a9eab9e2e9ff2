"""``hautetension scan --backend serial``: the scan command on a microcontroller's board."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from firmware_bridge.simulator import SimulatedDevice
from hautetension.cli import main

ROOT = Path(__file__).resolve().parents[2]


def test_scan_command_with_the_serial_backend(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("HAUTETENSION_CONFIG", raising=False)
    config = tmp_path / "config.toml"
    config.write_text('[serial]\nheartbeat_ms = 100\ntimeout_ms = 500\n', encoding="utf-8")
    with SimulatedDevice() as device:
        device.board.place(0, conducts=True)
        device.board.place(1, conducts=False)
        time.sleep(0.05)
        status = main(["scan", "--backend", "serial", "--port", device.port, "--config", str(config),
                       "--seconds", "0.5", "--json"])
        lamps_after = device.board.lamps()
    assert status == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.startswith("{")]
    assert lines[0]["backend"] == "serial"
    placed = {(d["slot"], d["kind"]) for d in lines if d["event"] == "PawnPlaced"}
    assert placed == {("a9", "attack"), ("b9", "defense")}
    assert lamps_after == [False] * 4  # the scan put the lamps out on its way out


def test_scan_command_reports_a_bad_serial_section(tmp_path: Path) -> None:
    # A separate process: the command prints to the real standard error.
    config = tmp_path / "config.toml"
    config.write_text('[serial]\nbaudrate = 0\n', encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "hautetension.cli", "scan", "--backend", "serial", "--port", "/dev/null",
         "--config", str(config), "--seconds", "0"],
        capture_output=True, text=True, timeout=60, cwd=ROOT,
    )
    assert result.returncode != 0
    assert "baudrate must be at least 1, not 0" in result.stderr
    assert "Traceback" not in result.stderr
