"""The event's install scripts, run twice into an empty root with stand-ins for the system's commands:
``install.sh --uplink`` on a board, ``install-central.sh`` on the event server."""

from __future__ import annotations

import stat
import subprocess
import tomllib
from pathlib import Path

from configuration import ConfigFile
from hautetension.commands.central import CentralSettings
from tests.hardware.test_service_systemd import _fake_system, _install
from uplink.settings import UplinkSettings

REPO = Path(__file__).resolve().parents[2]


def _run(script: str, root: Path, state: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return _install(root, state, *args, script=script)


UPLINK = [
    "--uplink",
    "--event",
    "paris-2026",
    "--board-id",
    "board-3",
    "--broker",
    "mqtts://events.example.org",
]


def test_a_board_joins_an_event_and_a_second_run_changes_nothing(tmp_path: Path) -> None:
    root, state = _fake_system(tmp_path, groups="dialout\n")
    secret = tmp_path / "given-password"
    secret.write_text("s3cret-from-the-server\n")
    ca = tmp_path / "ca.pem"
    ca.write_text("-----BEGIN CERTIFICATE-----\n")
    first = _run(
        "install.sh",
        root,
        state,
        "--backend",
        "sim",
        *UPLINK,
        "--uplink-password-file",
        str(secret),
        "--ca-file",
        str(ca),
    )
    assert first.returncode == 0, first.stderr
    log = (state / "log").read_text()
    assert "hautetension-uplink" in (state / "users").read_text().split()
    password = root / "etc/hautetension/uplink-password"
    assert (
        password.read_text() == "s3cret-from-the-server\n" and stat.S_IMODE(password.stat().st_mode) == 0o400
    )
    assert "chown hautetension-uplink:hautetension" in log
    config = root / "etc/hautetension/config.toml"
    settings = UplinkSettings.from_config(ConfigFile(tomllib.loads(config.read_text()), config))
    assert (settings.event, settings.board_id, settings.broker.address.url) == (
        "paris-2026",
        "board-3",
        "mqtts://events.example.org:8883",
    )
    assert str(settings.broker.password_file) == "/etc/hautetension/uplink-password"
    assert str(settings.broker.ca_file) == "/etc/hautetension/event-ca.pem"
    unit = root / "etc/systemd/system/hautetension-uplink.service"
    assert unit.read_text() == (REPO / "systemd/hautetension-uplink.service").read_text()
    assert "systemctl enable hautetension-uplink.service" in log
    assert "systemctl restart hautetension-uplink.service" in log

    text = config.read_text()
    (state / "log").write_text("")
    again = _run("install.sh", root, state, "--backend", "sim", *UPLINK)  # no password file: the one kept
    assert again.returncode == 0, again.stderr
    assert config.read_text() == text and password.read_text() == "s3cret-from-the-server\n"
    assert "kept the existing /etc/hautetension/uplink-password" in again.stdout
    assert "useradd" not in (state / "log").read_text()


def test_install_uplink_refuses_what_cannot_work(tmp_path: Path) -> None:
    root, state = _fake_system(tmp_path)
    for args, message in (
        (["--uplink", "--board-id", "b1", "--broker", "mqtt://x"], "needs --event"),
        (["--uplink", "--event", "e", "--board-id", "Board 1", "--broker", "mqtt://x"], "needs --board-id"),
        (["--uplink", "--event", "e", "--board-id", "b1", "--broker", "http://x"], "needs --broker"),
        (["--uplink", "--event", "e", "--board-id", "b1", "--broker", "mqtt://x"], "--uplink-password-file"),
    ):
        result = _run("install.sh", root, state, *args)
        assert result.returncode == 2 and message in result.stderr, result.stderr
    assert not (state / "log").exists()  # refused before touching anything


def test_the_event_server_and_its_broker_and_a_second_run_changes_nothing(tmp_path: Path) -> None:
    root, state = _fake_system(tmp_path)
    first = _run("install-central.sh", root, state, "--event", "paris-2026")
    assert first.returncode == 0, first.stderr
    log = (state / "log").read_text()
    assert "apt-get install -y -q python3-venv mosquitto" in log
    assert (state / "users").read_text().split() == ["hautetension-central"]
    config = root / "etc/hautetension/central.toml"
    central = CentralSettings.from_config(ConfigFile(tomllib.loads(config.read_text()), config))
    assert central.event.event == "paris-2026" and central.broker.username == "central"
    secret = (root / "etc/hautetension/central-password").read_text().strip()
    assert len(secret) >= 20
    passwords = root / "etc/mosquitto/hautetension.passwd"
    assert passwords.read_text() == f"central:hash-of-{secret}\n"
    assert (root / "etc/mosquitto/hautetension.acl").read_text() == (
        REPO / "systemd/mosquitto-hautetension.acl"
    ).read_text()
    assert (root / "etc/mosquitto/conf.d/hautetension.conf").exists()
    assert (
        "systemctl restart mosquitto.service" in log
        and "systemctl enable hautetension-central.service" in log
    )

    (state / "log").write_text("")
    again = _run("install-central.sh", root, state, "--event", "paris-2026")
    assert again.returncode == 0, again.stderr
    assert passwords.read_text() == f"central:hash-of-{secret}\n"  # nobody added twice, no password changed
    assert "kept the existing /etc/hautetension/central.toml" in again.stdout
    assert "useradd" not in (state / "log").read_text()

    added = _run("install-central.sh", root, state, "--add-board", "board-3")
    assert added.returncode == 0, added.stderr
    board_password = added.stdout.strip().splitlines()[-1]
    assert f"board-3:hash-of-{board_password}" in passwords.read_text()
    assert "systemctl reload-or-restart mosquitto.service" in (state / "log").read_text()
    twice = _run("install-central.sh", root, state, "--add-board", "board-3")
    assert twice.returncode == 1 and "has a password already" in twice.stderr
    for bad in ("central", "Board 3"):
        assert _run("install-central.sh", root, state, "--add-board", bad).returncode == 2
    assert _run("install-central.sh", root, state).returncode == 2  # no --event
