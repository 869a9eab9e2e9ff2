"""The scan, selftest and config check commands."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hautetension.cli import main

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def no_system_config(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("HAUTETENSION_CONFIG", raising=False)
    monkeypatch.setattr("configuration.file.DEFAULT_PATH", tmp_path / "absent.toml")


def test_config_check_accepts_the_example(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["config", "check", str(ROOT / "config.example.toml")]) == 0
    out = capsys.readouterr().out
    assert "is fine for layout pinwheel-80: 10 multiplexers × 16 channels" in out


def test_config_check_lists_every_problem(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.toml"
    path.write_text("""
[hardware]
button_gpio = 17
[hardware.slots]
b9 = { presence = [0, 0] }
c9 = { conduction = [3, 16] }
""")
    assert main(["config", "check", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path} [hardware]: 3 problem(s):" in err
    assert "GPIO 17 is used twice: multiplexer 1 signal and test button" in err
    assert "multiplexer 0 channel 0 is wired to both slot a9 presence and slot b9 presence" in err
    assert "slot c9 conduction: channel 16 is out of range 0-15 (4 select lines)" in err


def test_config_check_parse_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.toml"
    path.write_text("[hardware]\nsettle = 3\n")
    assert main(["config", "check", str(path)]) == 2
    assert "unknown key 'settle'" in capsys.readouterr().err
    path.write_text("[hardware\n")
    assert main(["config", "check", str(path)]) == 2
    assert "not valid TOML" in capsys.readouterr().err
    assert main(["config", "check", str(tmp_path / "missing.toml")]) == 2


def test_config_check_verbose_lists_pins_and_slots(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["config", "check", "-v"]) == 0
    out = capsys.readouterr().out
    assert "GPIO 26  test button" in out
    assert "a9  presence multiplexer 0 channel 0, conduction multiplexer 0 channel 1" in out


def test_scan_demo_on_the_virtual_board(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["scan", "--backend", "sim", "--demo", "--seconds", "2.4"]) == 0
    out = capsys.readouterr().out
    assert "32 GPIO operations per scan" in out
    for slot in ("a9", "b9", "c9", "d9", "e9"):
        assert f"{slot} placed (attack)" in out
    assert "lamps lit: W" in out
    assert "button pressed (lamp test)" in out
    assert "a9 lifted (attack)" in out
    assert out.rstrip().endswith("lamps off")


def test_scan_json_reports_faults(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["scan", "--backend", "sim", "--json", "--scans", "12", "--inject", "conduction:b2"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert lines[0]["event"] == "start" and lines[0]["gpio_ops_per_scan"] == 32
    faults = [line for line in lines if line["event"] == "Fault"]
    assert [(f["kind"], f["slot"]) for f in faults] == [("conduction-without-presence", "b2")]
    assert lines[-1]["event"] == "stop" and lines[-1]["scans"] == 12


def test_selftest_passes_on_the_virtual_board(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["selftest", "--backend", "sim"]) == 0
    assert "self-test PASSED" in capsys.readouterr().out


def test_selftest_fails_with_a_readable_report(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["selftest", "--backend", "sim", "--inject", "noisy:c4:0.5"]) == 1
    out = capsys.readouterr().out
    assert "self-test FAILED" in out
    assert "FAIL stability" in out and "c4" in out


def test_selftest_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["selftest", "--backend", "sim", "--json", "--inject", "conduction:a1"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] is False
    assert {c["name"] for c in report["checks"] if not c["ok"]} >= {"contacts"}


def test_bad_injection(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["selftest", "--backend", "sim", "--inject", "stuck:1:2"]) == 2
    assert "cannot inject 'stuck:1:2'" in capsys.readouterr().err


def test_gpio_backend_without_a_pi_says_what_to_do(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("gpiozero")
    try:
        import lgpio  # noqa: F401
        pytest.skip("lgpio is installed: this machine may really have GPIO pins")
    except ImportError:
        pass
    assert main(["scan", "--backend", "gpio", "--scans", "1"]) == 2
    assert "use the simulated board (--backend sim)" in capsys.readouterr().err


def test_scan_stops_cleanly_on_sigterm(tmp_path: Path) -> None:
    import os
    import signal
    import subprocess
    import sys
    import time

    env = {**os.environ, "HAUTETENSION_CONFIG": str(ROOT / "config.example.toml")}
    proc = subprocess.Popen([sys.executable, "-m", "hautetension", "scan", "--backend", "sim", "--demo"],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()  # the start line: the loop is running
        assert "scanning the sim board" in first
        time.sleep(0.3)
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert out.rstrip().endswith("lamps off")


def test_backend_comes_from_the_board_section(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "config.toml"
    path.write_text('[board]\nbackend = "sim"\n')
    assert main(["selftest", "--config", str(path)]) == 0
    assert "on the sim board" in capsys.readouterr().out
    path.write_text('[board]\nbackend = "usb"\n')
    assert main(["selftest", "--config", str(path)]) == 2
    assert "no board backend 'usb'" in capsys.readouterr().err


def test_scan_raw_prints_channel_changes(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["scan", "--backend", "sim", "--raw", "--demo", "--seconds", "0.35",
                 "--inject", "stuck:2:5:low"]) == 0
    out = capsys.readouterr().out
    # the demo places a9 at 0.2 s: both its contacts close, seen before the debounced event
    assert "raw a9 presence (multiplexer 0 channel 0): low" in out
    assert "raw a9 conduction (multiplexer 0 channel 1): low" in out
    assert out.index("raw a9 presence") < out.index("a9 placed (attack)")
    # a7 is slot 18: its conduction contact is multiplexer 2 channel 5, stuck from the start
    assert "raw a7 conduction" not in out
    assert "FAULT conduction-without-presence: slot a7" in out


def test_config_check_also_runs_the_other_sections_parsers(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    from hautetension.commands.config_cmd import other_sections

    assert set(other_sections()) == {"board", "serial", "panel", "uplink", "central"}
    path = tmp_path / "config.toml"
    path.write_text("[board]\nbackend = \"usb\"\n")
    assert main(["config", "check", str(path)]) == 2
    assert "[board]" in capsys.readouterr().err


def test_config_check_lists_every_problem_of_every_section_at_once(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "config.toml"
    path.write_text("""
[hardware]
button_gpio = 17
[board]
backend = "usb"
min_turn_s = -1
[serial]
baudrate = 0
[store]
paht = "x"
[panel]
port = 0
[lobby]
public_url = "table.local"
[pannel]
port = 8080
""")
    assert main(["config", "check", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}: 1 problem(s):\n  - unknown section [pannel]" in err
    assert f"{path} [board]: 2 problem(s):" in err and "min_turn_s must be at least 0, not -1" in err
    assert f"{path} [serial]: 1 problem(s):\n  - baudrate must be at least 1, not 0" in err
    assert f"{path} [store]: 1 problem(s):\n  - unknown key 'paht'" in err
    assert f"{path} [panel]: 1 problem(s):\n  - port must be 1-65535, not 0" in err
    assert f"{path} [lobby]: 1 problem(s):" in err and "public_url must be an http://" in err
    assert f"{path} [hardware]: 1 problem(s):\n  - GPIO 17 is used twice" in err


def test_the_example_configuration_documents_every_key_of_every_section() -> None:
    from configuration import StoreSettings, keys_of
    from firmware_bridge.host import LinkSettings
    from hardware.service import BoardSettings
    from hardware.settings import HardwareSettings
    from webpanel.config import LobbySettings, PanelSettings

    text = (ROOT / "config.example.toml").read_text(encoding="utf-8")
    declarations = {"hardware": HardwareSettings.read, "serial": LinkSettings.read,
                    "board": BoardSettings.read, "panel": PanelSettings.read, "lobby": LobbySettings.read,
                    "store": StoreSettings.read}
    undocumented = {}
    for name, read in declarations.items():
        part = text[text.index(f"[{name}]"):]  # the section and those after it
        undocumented[name] = [key for key in keys_of(read) if f"\n{key} =" not in part
                              and f"# {key} =" not in part and f"[{name}.{key}]" not in part]
    assert undocumented == {name: [] for name in declarations}
