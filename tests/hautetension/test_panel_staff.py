"""``hautetension panel`` and ``hautetension staff set-pin``."""

from __future__ import annotations

import functools
import io
import os
import stat
import tomllib
from pathlib import Path
from typing import Any

import pytest
from werkzeug.security import check_password_hash

from configuration import ConfigFile, load_config
from hautetension.cli import main
from tests.webpanel.helpers import Api
from webpanel.config import PanelSettings


def test_cli_set_pin_into_the_config_file(tmp_path: Path, monkeypatch: Any, capsys: Any) -> None:
    config = tmp_path / "config.toml"
    config.write_text('[store]\npath = "' + str(tmp_path / "h.db") + '"\n\n[panel]\nport = 8081\n')
    config.chmod(0o640)
    monkeypatch.setattr("sys.stdin", io.StringIO("482915\n"))
    assert main(["staff", "set-pin", "--config", str(config), "--pin-stdin"]) == 0
    data = tomllib.loads(config.read_text())
    assert data["panel"]["port"] == 8081
    assert check_password_hash(data["panel"]["staff_pin_hash"], "482915")
    assert data["panel"]["staff_pin_hash"].startswith("scrypt:")
    assert stat.S_IMODE(config.stat().st_mode) == 0o640
    assert "staff_pin_hash" in capsys.readouterr().err


def test_cli_set_pin_without_a_config_file(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.delenv("HAUTETENSION_CONFIG", raising=False)
    monkeypatch.setattr("configuration.file.DEFAULT_PATH", tmp_path / "none.toml")
    monkeypatch.setattr("sys.stdin", io.StringIO("482915\n"))
    assert main(["staff", "set-pin", "--db", str(tmp_path / "h.db"), "--pin-stdin"]) == 0
    pin_file = tmp_path / "staff-pin.hash"
    assert check_password_hash(pin_file.read_text().strip(), "482915")
    assert stat.S_IMODE(pin_file.stat().st_mode) == 0o600


def test_cli_set_pin_refuses_a_short_pin(tmp_path: Path, monkeypatch: Any, capsys: Any) -> None:
    config = tmp_path / "config.toml"
    config.write_text("")
    monkeypatch.setattr("sys.stdin", io.StringIO("123\n"))
    assert main(["staff", "set-pin", "--config", str(config), "--pin-stdin"]) == 2
    assert "6 to 64 characters" in capsys.readouterr().err
    assert config.read_text() == ""


def test_cli_panel_refuses_a_bad_config(tmp_path: Path, capsys: Any) -> None:
    config = tmp_path / "config.toml"
    config.write_text("[panel]\nport = 'x'\n")
    assert main(["panel", "--config", str(config)]) == 78
    assert "port must be an integer" in capsys.readouterr().err


def test_cli_panel_reports_a_busy_port(tmp_path: Path, capsys: Any) -> None:
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        config = tmp_path / "config.toml"
        config.write_text(f'[store]\npath = "{tmp_path / "h.db"}"\n')
        assert main(["panel", "--config", str(config), "--port", str(port)]) == 1
    assert "cannot listen" in capsys.readouterr().err


def test_cli_set_pin_into_the_example_config(tmp_path: Path, monkeypatch: Any) -> None:
    example = Path(__file__).resolve().parents[2] / "config.example.toml"
    config = tmp_path / "config.toml"
    config.write_text(example.read_text(encoding="utf-8"), encoding="utf-8")
    before = tomllib.loads(config.read_text(encoding="utf-8"))
    monkeypatch.setattr("sys.stdin", io.StringIO("908172\n"))
    assert main(["staff", "set-pin", "--config", str(config), "--pin-stdin"]) == 0
    after = tomllib.loads(config.read_text(encoding="utf-8"))
    assert check_password_hash(after["panel"].pop("staff_pin_hash"), "908172")
    assert after == before
    PanelSettings.from_config(ConfigFile(after, path=config))  # still a valid [panel] section


def test_cli_panel_cannot_create_its_secret_key(tmp_path: Path, capsys: Any) -> None:
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("a file where the key's folder should be")
    config = tmp_path / "config.toml"
    config.write_text(
        f'[store]\npath = "{tmp_path / "h.db"}"\n[panel]\nsecret_key_file = "{blocked / "key"}"\n'
    )
    assert main(["panel", "--config", str(config)]) == 78
    assert "not-a-folder" in capsys.readouterr().err


@pytest.mark.skipif(os.geteuid() != 0, reason="changing a file's group to another needs root")
def test_cli_set_pin_keeps_the_config_files_owner_and_group(tmp_path: Path, monkeypatch: Any) -> None:
    config = tmp_path / "config.toml"
    config.write_text("[panel]\nport = 8080\n")
    os.chown(config, 0, 1)  # root:daemon-like group, as install.sh sets root:hautetension
    config.chmod(0o640)
    monkeypatch.setattr("sys.stdin", io.StringIO("482915\n"))
    assert main(["staff", "set-pin", "--config", str(config), "--pin-stdin"]) == 0
    st = config.stat()
    assert (st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)) == (0, 1, 0o640)


def test_a_pin_set_while_the_panel_runs_works_at_the_next_login(
    tmp_path: Path, monkeypatch: Any
) -> None:
    from hautetension.commands.panel import configured_pin_hash
    from webpanel.app import close_app, create_app

    path = tmp_path / "config.toml"
    path.write_text(f'[store]\npath = "{tmp_path / "h.db"}"\n')
    config = load_config(path)  # what the panel started with: no PIN yet
    app = create_app({"PANEL": PanelSettings.from_config(config), "TESTING": True},
                     staff_pin_hash=functools.partial(configured_pin_hash, config))
    try:
        api = Api(app.test_client())
        assert api.login("482915").status_code == 403  # no PIN is set
        monkeypatch.setattr("sys.stdin", io.StringIO("482915\n"))
        assert main(["staff", "set-pin", "--config", str(path), "--pin-stdin"]) == 0
        assert api.login("482915").status_code == 200  # read again at this login: no restart
        path.write_text("[panel\n")  # a file damaged since: the PIN the panel started with stands
        assert configured_pin_hash(config) == ""
    finally:
        close_app(app)


def test_cli_set_pin_ends_the_staff_sessions_in_the_database(tmp_path: Path, monkeypatch: Any,
                                                             capsys: Any) -> None:
    from store.db import connect
    from store.staff_sessions import StaffSessions

    database = tmp_path / "h.db"
    conn = connect(database)
    sessions = StaffSessions(conn)
    before = sessions.open(hours=8, generation=sessions.generation())
    config = tmp_path / "config.toml"
    config.write_text(f'[store]\npath = "{database}"\n')
    monkeypatch.setattr("sys.stdin", io.StringIO("482915\n"))
    assert main(["staff", "set-pin", "--config", str(config), "--pin-stdin"]) == 0
    assert not sessions.is_live(before)
    assert "every staff session opened before has ended" in capsys.readouterr().err
    conn.close()


def test_cli_set_pin_makes_no_database_where_there_is_none(tmp_path: Path, monkeypatch: Any) -> None:
    config = tmp_path / "config.toml"
    config.write_text(f'[store]\npath = "{tmp_path / "later" / "h.db"}"\n')
    monkeypatch.setattr("sys.stdin", io.StringIO("482915\n"))
    assert main(["staff", "set-pin", "--config", str(config), "--pin-stdin"]) == 0
    assert not (tmp_path / "later").exists()


def test_cli_set_pin_says_when_the_sessions_could_not_be_ended(tmp_path: Path, monkeypatch: Any,
                                                              capsys: Any) -> None:
    database = tmp_path / "h.db"
    database.write_bytes(b"not a database, but a file in its place" * 100)
    config = tmp_path / "config.toml"
    config.write_text(f'[store]\npath = "{database}"\n')
    monkeypatch.setattr("sys.stdin", io.StringIO("482915\n"))
    assert main(["staff", "set-pin", "--config", str(config), "--pin-stdin"]) == 1
    err = capsys.readouterr().err
    assert "the PIN is set" in err and "could not be ended" in err
    assert "staff_pin_hash" in config.read_text()
