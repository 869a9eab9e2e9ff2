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
    for bad in ("central", "central-1", "Board 3"):
        assert _run("install-central.sh", root, state, "--add-board", bad).returncode == 2
    assert _run("install-central.sh", root, state).returncode == 2  # no --event


PG_SHIMS = {
    # runuser -u postgres -- CMD ...: runs CMD; the cluster's roles and databases live in two files.
    "runuser": 'echo "runuser $*" >> "$STATE/log"; shift 3; exec "$@"',
    "psql": (
        'echo "psql $*" >> "$STATE/log"; case "$2" in *pg_roles*) f=roles;; *) f=databases;; esac; '
        'n=$(printf "%s" "$2" | sed "s/.*= .\\(.*\\)./\\1/"); '
        'grep -qx "$n" "$STATE/pg-$f" 2>/dev/null && echo 1; exit 0'
    ),
    "createuser": 'echo "createuser $*" >> "$STATE/log"; echo "$1" >> "$STATE/pg-roles"',
    "createdb": (
        'echo "createdb $*" >> "$STATE/log"; for a; do n=$a; done; echo "$n" >> "$STATE/pg-databases"'
    ),
}


def _with_postgres_shims(state: Path) -> None:
    shims = state / "bin"
    shims.mkdir(exist_ok=True)
    for name, body in PG_SHIMS.items():
        path = shims / name
        path.write_text(f"#!/bin/sh\n{body}\n")
        path.chmod(path.stat().st_mode | stat.S_IXUSR)


def test_an_internet_facing_server_on_postgresql_and_a_second_run_changes_nothing(tmp_path: Path) -> None:
    root, state = _fake_system(tmp_path)
    _with_postgres_shims(state)
    options = ["--event", "paris-2026", "--postgresql", "--instances", "3", "--domain", "events.example.org"]
    refused = _run("install-central.sh", root, state, *options)
    assert refused.returncode == 1 and "certbot certonly --standalone -d events.example.org" in refused.stderr
    live = root / "etc/letsencrypt/live/events.example.org"
    live.mkdir(parents=True)
    (live / "fullchain.pem").write_text("CERTIFICATE\n")
    (live / "privkey.pem").write_text("KEY\n")

    first = _run("install-central.sh", root, state, *options)
    assert first.returncode == 0, first.stderr
    log = (state / "log").read_text()
    assert "apt-get install -y -q python3-venv mosquitto postgresql nginx" in log
    assert "createuser hautetension-central" in log
    assert "createdb --owner hautetension-central hautetension" in log
    config = root / "etc/hautetension/central.toml"
    central = CentralSettings.from_config(ConfigFile(tomllib.loads(config.read_text()), config))
    assert central.event.database == "postgresql://hautetension-central@/hautetension?host=/var/run/postgresql"
    assert central.host == "127.0.0.1"  # behind nginx only
    units = " ".join(f"hautetension-central@{n}.service" for n in (1, 2, 3))
    assert f"systemctl enable {units}" in log and "systemctl enable hautetension-backup.timer" in log
    assert not (root / "etc/systemd/system/hautetension-central.service").exists()
    for unit in ("hautetension-central@.service", "hautetension-backup.service", "hautetension-backup.timer"):
        assert (root / "etc/systemd/system" / unit).read_text() == (REPO / "systemd" / unit).read_text()
    site = (root / "etc/nginx/conf.d/hautetension-central.conf").read_text()
    assert "server_name events.example.org;" in site and "@DOMAIN@" not in site and "@UPSTREAMS@" not in site
    assert "server 127.0.0.1:8091; server 127.0.0.1:8092; server 127.0.0.1:8093;" in site
    assert "ssl_certificate /etc/letsencrypt/live/events.example.org/fullchain.pem;" in site
    mosquitto = (root / "etc/mosquitto/conf.d/hautetension.conf").read_text().splitlines()
    assert "listener 1883 127.0.0.1" in mosquitto and "listener 8883" in mosquitto
    assert "certfile /etc/mosquitto/certs/fullchain.pem" in mosquitto
    assert (root / "etc/mosquitto/certs/privkey.pem").read_text() == "KEY\n"  # the deploy hook ran
    assert (root / "etc/letsencrypt/renewal-hooks/deploy/hautetension").exists()
    assert "nginx -t -q" in log and "systemctl reload-or-restart nginx.service" in log
    assert "systemctl restart mosquitto.service" in log
    # Each process its own broker user (the broker pins a client's id to its user) and password file.
    passwords = (root / "etc/mosquitto/hautetension.passwd").read_text()
    for n in (1, 2, 3):
        secret = (root / f"etc/hautetension/central-password-{n}").read_text().strip()
        assert len(secret) >= 20 and f"central-{n}:hash-of-{secret}\n" in passwords
        process = CentralSettings.from_config(
            ConfigFile(tomllib.loads(config.read_text()), config).with_values("central", {"instance": str(n)})
        )
        assert process.broker.username == f"central-{n}"
        assert str(process.broker.password_file) == f"/etc/hautetension/central-password-{n}"
        assert f"\nuser central-{n}\n" in (root / "etc/mosquitto/hautetension.acl").read_text()
    assert "central-4" not in passwords

    config.write_text(config.read_text() + "\n# edited by staff\n")
    (state / "log").write_text("")
    again = _run("install-central.sh", root, state, *options)
    assert again.returncode == 0, again.stderr
    log = (state / "log").read_text()
    assert "createuser" not in log and "createdb" not in log and "useradd" not in log
    assert "PostgreSQL role hautetension-central exists" in again.stdout
    assert (root / "etc/mosquitto/hautetension.passwd").read_text() == passwords  # no password changed
    assert config.read_text().endswith("# edited by staff\n")
    assert (state / "pg-roles").read_text().split() == ["hautetension-central"]


def test_a_single_server_becomes_several_on_postgresql(tmp_path: Path) -> None:
    root, state = _fake_system(tmp_path)
    _with_postgres_shims(state)
    assert _run("install-central.sh", root, state, "--event", "paris-2026").returncode == 0
    assert (root / "etc/systemd/system/hautetension-central.service").exists()
    moved = _run("install-central.sh", root, state, "--event", "paris-2026", "--postgresql")
    assert moved.returncode == 0, moved.stderr
    assert "systemctl disable --now hautetension-central.service" in (state / "log").read_text()
    assert not (root / "etc/systemd/system/hautetension-central.service").exists()
    # The configuration was kept as written: the script says what to add instead of editing it.
    assert 'set [central] database = "postgresql://' in moved.stdout
    for bad in (["--instances", "0"], ["--instances", "12"], ["--domain", "bad name"]):
        result = _run("install-central.sh", root, state, "--event", "paris-2026", "--postgresql", *bad)
        assert result.returncode == 2, bad
