"""[panel] settings, the secret key file, the staff PIN storage and the login limiter."""

from __future__ import annotations

import stat
import tomllib
from pathlib import Path
from typing import Any

import pytest

from configuration import ConfigError, ConfigFile
from tests.webpanel.helpers import make_settings
from webpanel.auth import PinError, check_new_pin, set_panel_key
from webpanel.config import PanelSettings
from webpanel.security import SecretKeyError, load_or_create_secret_key


def test_defaults_serve_loopback_with_room_for_the_streams() -> None:
    settings = PanelSettings.from_config(ConfigFile())
    assert settings.host == "127.0.0.1" and settings.port == 8080
    assert settings.worker_threads == settings.max_streams + 16
    assert settings.database == Path("var/hautetension.db")
    assert settings.secret_key_path == Path("var/panel-secret.key")


def test_section_values_and_store_path(tmp_path: Path) -> None:
    config = ConfigFile(
        {
            "store": {"path": str(tmp_path / "h.db")},
            "panel": {"port": 9000, "max_streams": 8, "threads": 20, "poll_interval": 0.05},
        },
        path=tmp_path / "c.toml",
    )
    settings = PanelSettings.from_config(config)
    assert settings.port == 9000 and settings.worker_threads == 20 and settings.poll_interval == 0.05
    assert settings.database == tmp_path / "h.db"
    assert settings.staff_pin_path == tmp_path / "staff-pin.hash"


@pytest.mark.parametrize(
    ("section", "says"),
    [
        ({"prot": 1}, "[panel]: unknown key 'prot'"),
        ({"port": "80"}, "port must be an integer"),
        ({"port": 0}, "port must be 1-65535"),
        ({"max_streams": 0}, "max_streams must be at least 1"),
        ({"threads": 10, "max_streams": 10}, "threads (10) must exceed max_streams (10)"),
        ({"poll_interval": 0}, "poll_interval must be more than 0, not 0"),
        ({"secure_cookies": "yes"}, "true or false"),
        ({"login_attempts": True}, "an integer"),
        ({"secret_key_file": 3}, "a path"),
    ],
)
def test_bad_sections_are_refused_with_the_reason(section: dict[str, Any], says: str) -> None:
    with pytest.raises(ConfigError) as info:
        PanelSettings.from_section(section)
    assert says in str(info.value)


def test_secret_key_is_created_0600_and_reused(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "key"
    key = load_or_create_secret_key(path)
    assert len(key) == 64
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert load_or_create_secret_key(path) == key
    path.chmod(0o644)
    assert load_or_create_secret_key(path) == key
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    path.write_text("short")
    with pytest.raises(SecretKeyError):
        load_or_create_secret_key(path)


def test_app_generates_its_secret_key_next_to_the_database(tmp_path: Path) -> None:
    from webpanel.app import close_app, create_app

    settings = make_settings(tmp_path)
    app = create_app({"PANEL": settings})
    try:
        key_file = tmp_path / "panel-secret.key"
        assert app.config["SECRET_KEY"] == key_file.read_text().strip().encode()
        assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    finally:
        close_app(app)


@pytest.mark.parametrize("pin", ["12345", "12 3456", " 123456", "x" * 65, ""])
def test_weak_or_odd_pins_are_refused(pin: str) -> None:
    with pytest.raises(PinError):
        check_new_pin(pin)


def test_set_panel_key_keeps_every_other_line() -> None:
    text = '# comment\n[board]\nbackend = "sim"\n\n[panel]  # web\nport = 8080\n\n[store]\npath = "x"\n'
    edited = set_panel_key(text, "staff_pin_hash", "scrypt:1$a$b")
    data = tomllib.loads(edited)
    assert data["panel"] == {"port": 8080, "staff_pin_hash": "scrypt:1$a$b"}
    assert data["board"] == {"backend": "sim"} and data["store"] == {"path": "x"}
    assert "# comment" in edited
    again = set_panel_key(edited, "staff_pin_hash", "scrypt:2$c$d")
    assert tomllib.loads(again)["panel"]["staff_pin_hash"] == "scrypt:2$c$d"
    assert again.count("staff_pin_hash") == 1
    assert tomllib.loads(set_panel_key("", "k", "v")) == {"panel": {"k": "v"}}
    assert tomllib.loads(set_panel_key("[board]\nx = 1", "k", "v")) == {
        "board": {"x": 1},
        "panel": {"k": "v"},
    }
