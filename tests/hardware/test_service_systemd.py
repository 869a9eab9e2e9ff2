"""The systemd units (checked by systemd-analyze verify) and the install script (run twice)."""

from __future__ import annotations

import configparser
import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from tests.servers.nginx import render_site

REPO = Path(__file__).resolve().parents[2]
UNITS = sorted((REPO / "systemd").glob("*.service"))
SYSTEM_UNITS = next(
    (p for p in (Path("/usr/lib/systemd/system"), Path("/lib/systemd/system")) if p.is_dir()), None
)
ANALYZE = shutil.which("systemd-analyze")
PANEL_BEHIND_FRONT = "127.0.0.1:8081"


def _unit(name: str) -> configparser.ConfigParser:
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read(REPO / "systemd" / name)
    return parser


def _verify(root: Path, unit_files: list[Path]) -> subprocess.CompletedProcess[str]:
    """systemd-analyze verify in a scratch root that holds the system's own units and stub binaries."""
    assert ANALYZE is not None and SYSTEM_UNITS is not None
    (root / "usr/lib/systemd/system").mkdir(parents=True, exist_ok=True)
    for entry in SYSTEM_UNITS.iterdir():
        if entry.is_file():  # the units, not their .wants folders: nothing here is enabled
            shutil.copyfile(entry, root / "usr/lib/systemd/system" / entry.name)
    target = root / "etc/systemd/system"
    target.mkdir(parents=True, exist_ok=True)
    for unit in unit_files:
        shutil.copyfile(unit, target / unit.name)
        for line in unit.read_text().splitlines():
            if line.startswith("ExecStart="):
                binary = root / line.split("=", 1)[1].split()[0].lstrip("/")
                binary.parent.mkdir(parents=True, exist_ok=True)
                binary.write_text("#!/bin/sh\n")
                binary.chmod(0o755)
    return subprocess.run(
        [ANALYZE, "verify", "--man=no", f"--root={root}", *(str(target / u.name) for u in unit_files)],
        capture_output=True,
        text=True,
        timeout=120,
    )


needs_analyze = pytest.mark.skipif(
    ANALYZE is None or SYSTEM_UNITS is None,
    reason="systemd-analyze (package systemd) or the system's unit folder is not installed here",
)


@needs_analyze
def test_units_pass_systemd_analyze_verify(tmp_path: Path) -> None:
    assert {u.name for u in UNITS} >= {"hautetension-board.service", "hautetension-panel.service"}
    result = _verify(tmp_path, UNITS)
    messages = (result.stdout + result.stderr).strip()
    assert result.returncode == 0 and messages == "", messages


@needs_analyze
def test_verify_would_catch_a_broken_unit(tmp_path: Path) -> None:
    """The check above can fail: the same verification reports a bad value and an unknown key."""
    broken = tmp_path / "broken" / "hautetension-board.service"
    broken.parent.mkdir()
    text = (REPO / "systemd/hautetension-board.service").read_text()
    broken.write_text(text.replace("WatchdogSec=10", "WatchdogSec=ten\nWatchDog=10"))
    result = _verify(tmp_path / "root", [broken])
    messages = result.stdout + result.stderr
    assert "ten" in messages and "WatchDog" in messages


def test_board_unit_is_notify_with_watchdog_restart_and_hardware_access() -> None:
    service = _unit("hautetension-board.service")["Service"]
    assert service["Type"] == "notify" and int(service["WatchdogSec"]) > 0
    assert service["Restart"] == "on-failure" and service["User"] == "hautetension"
    assert set(service["SupplementaryGroups"].split()) == {"gpio", "dialout"}
    assert "board" in service["ExecStart"].split() and service["RestartPreventExitStatus"] == "78"
    text = (REPO / "systemd/hautetension-board.service").read_text()
    assert "DeviceAllow=char-gpiochip rw" in text and "DeviceAllow=char-ttyACM rw" in text
    assert "PrivateDevices=yes" not in text  # it would hide /dev/gpiochip* and the serial ports
    panel = _unit("hautetension-panel.service")["Service"]
    assert "panel" in panel["ExecStart"].split() and panel["User"] != "hautetension"
    assert panel["Group"] == service["Group"]  # one group shares the database


SHIMS = {
    # Each shim logs its arguments; users and groups live in two files of the fake system.
    "getent": 'echo "getent $*" >> "$STATE/log"; grep -qx "$2" "$STATE/groups"',
    "id": 'echo "id $*" >> "$STATE/log"; [ "$1" = -u ] && grep -qx "$2" "$STATE/users"',
    "groupadd": 'echo "groupadd $*" >> "$STATE/log"; for a; do n=$a; done; echo "$n" >> "$STATE/groups"',
    "useradd": 'echo "useradd $*" >> "$STATE/log"; for a; do n=$a; done; echo "$n" >> "$STATE/users"',
    "usermod": 'echo "usermod $*" >> "$STATE/log"',
    "chown": 'echo "chown $*" >> "$STATE/log"',
    "systemctl": 'echo "systemctl $*" >> "$STATE/log"',
    "apt-get": 'echo "apt-get $*" >> "$STATE/log"',
    "nginx": 'echo "nginx $*" >> "$STATE/log"; [ ! -e "$STATE/nginx-refuses" ]',
    "mosquitto_passwd": 'echo "mosquitto_passwd $*" >> "$STATE/log"; echo "$3:hash-of-$4" >> "$2"',
    "fake-python": (
        'echo "python $*" >> "$STATE/log"; mkdir -p "$3/bin"; '
        'printf \'#!/bin/sh\\necho "pip $*" >> "$STATE/log"\\n\' > "$3/bin/python"; chmod +x "$3/bin/python"'
    ),
}


def _install(
    root: Path, state: Path, *args: str, script: str = "install.sh"
) -> subprocess.CompletedProcess[str]:
    shims = state / "bin"
    shims.mkdir(exist_ok=True)
    for name, body in SHIMS.items():
        path = shims / name
        path.write_text(f"#!/bin/sh\n{body}\n")
        path.chmod(path.stat().st_mode | stat.S_IXUSR)
    env = {
        "PATH": f"{shims}:{os.environ['PATH']}",
        "HT_ROOT": str(root),
        "STATE": str(state),
        "PYTHON": str(shims / "fake-python"),
    }
    return subprocess.run(
        ["sh", str(REPO / "systemd" / script), *args], env=env, capture_output=True, text=True, timeout=60
    )


def _fake_system(tmp_path: Path, *, groups: str = "") -> tuple[Path, Path]:
    """An empty root to install into, and the stand-ins' state: no users, these groups."""
    root, state = tmp_path / "root", tmp_path / "state"
    root.mkdir()
    state.mkdir()
    (state / "groups").write_text(groups)
    (state / "users").write_text("")
    return root, state


def test_install_script_is_idempotent(tmp_path: Path) -> None:
    root, state = _fake_system(tmp_path, groups="dialout\n")
    first = _install(root, state, "--backend", "gpio")
    assert first.returncode == 0, first.stderr
    log = (state / "log").read_text()
    assert "useradd --system --gid hautetension" in log and "usermod -a -G gpio,dialout hautetension" in log
    assert (state / "users").read_text().split() == ["hautetension", "hautetension-panel"]
    assert (state / "groups").read_text().split() == ["dialout", "hautetension", "gpio"]
    assert "systemctl enable hautetension-board.service hautetension-panel.service" in log
    assert f"pip -m pip install -q --upgrade {REPO}[pi]" in log
    config = root / "etc/hautetension/config.toml"
    assert (
        'backend = "gpio"' in config.read_text() and (root / "etc/hautetension/config.example.toml").exists()
    )
    database = root / "var/lib/hautetension/hautetension.db"
    assert stat.S_IMODE(database.stat().st_mode) == 0o660
    for unit in ("hautetension-board.service", "hautetension-panel.service"):
        assert (root / "etc/systemd/system" / unit).read_text() == (REPO / "systemd" / unit).read_text()
    front = root / "etc/nginx/conf.d/hautetension.conf"
    assert front.read_text() == render_site(listen="8080", panel=PANEL_BEHIND_FRONT)
    assert "apt-get install -y -q python3-venv python3-dev nginx" in log
    assert "nginx -t -q" in log and "systemctl enable nginx.service" in log
    assert "systemctl reload-or-restart nginx.service" in log

    config.write_text(config.read_text() + "\n# edited by staff\n")
    database.write_bytes(b"SQLite format 3\x00 pretend data")
    (state / "log").write_text("")
    second = _install(root, state, "--backend", "gpio")
    assert second.returncode == 0, second.stderr
    log = (state / "log").read_text()
    assert "useradd" not in log and "groupadd" not in log and "python -m venv" not in log
    assert config.read_text().endswith("# edited by staff\n")
    assert database.read_bytes().startswith(b"SQLite format 3")
    assert "kept the existing /etc/hautetension/config.toml" in second.stdout
    assert (state / "users").read_text().split() == ["hautetension", "hautetension-panel"]
    assert front.read_text() == render_site(listen="8080", panel=PANEL_BEHIND_FRONT)


def test_install_script_stops_when_nginx_refuses_the_front_server(tmp_path: Path) -> None:
    root, state = _fake_system(tmp_path)
    (state / "nginx-refuses").write_text("")
    result = _install(root, state, "--backend", "sim")
    assert result.returncode == 1 and "nginx refuses its configuration" in result.stderr
    assert "systemctl enable nginx.service" not in (state / "log").read_text()


def test_the_panel_listens_where_the_front_server_sends_and_trusts_only_it() -> None:
    """The unit's --host/--port are the template's upstream as install.sh fills it, on loopback."""
    command = _unit("hautetension-panel.service")["Service"]["ExecStart"].split()
    option = {name: value for name, value in zip(command, command[1:], strict=False)}
    assert f"{option['--host']}:{option['--port']}" == PANEL_BEHIND_FRONT
    assert option["--host"] == option["--trusted-proxy"] == "127.0.0.1"
    install = (REPO / "systemd/install.sh").read_text()
    assert f'PANEL_ADDRESS="{PANEL_BEHIND_FRONT}"' in install


def test_install_script_refuses_bad_options(tmp_path: Path) -> None:
    result = _install(tmp_path, tmp_path, "--backend", "usb")
    assert result.returncode == 2 and "gpio, serial or sim" in result.stderr
