"""``[uplink]`` and the broker keys, read with the one settings reader; the example documents every key."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from configuration import ConfigFile, keys_of
from hautetension.commands.central import CentralSettings
from protocol import BrokerAddress
from uplink.exc import UplinkConfigError
from uplink.settings import BrokerSettings, UplinkSettings

ROOT = Path(__file__).resolve().parents[2]


def _uplink(**values: object) -> UplinkSettings:
    return UplinkSettings.from_config(ConfigFile({"uplink": values}))


def test_defaults_and_values() -> None:
    assert _uplink() == UplinkSettings()
    settings = _uplink(
        event="paris-2026",
        board_id="board-3",
        broker="mqtts://events.example.org",
        poll_ms=50,
        live_max_per_s=2,
        keepalive_s=30,
    )
    assert settings.broker.address == BrokerAddress("events.example.org", 8883, True)
    assert (settings.poll_interval, settings.live_interval, settings.broker.keepalive) == (0.05, 0.5, 30)
    assert settings.username == "board-3" and settings.missing() == []
    assert UplinkSettings().missing() == ["[uplink] event is not set", "[uplink] board_id is not set"]


def test_every_problem_at_once() -> None:
    with pytest.raises(UplinkConfigError) as caught:
        _uplink(
            event="Paris 2026",
            board_id="b/1",
            broker="http://x",
            keepalive_s=1,
            password="a",
            password_file="/x",
            ca_file="/ca.pem",
            colour="red",
        )
    problems = caught.value.problems
    assert len(problems) == 7, problems
    assert any("unknown key 'colour'" in p for p in problems)
    assert any("password or password_file, not both" in p for p in problems)
    assert any("ca_file is for a TLS broker" in p for p in problems)


def test_the_password_file(tmp_path: Path) -> None:
    secret = tmp_path / "password"
    secret.write_text("s3cret\n")
    assert BrokerSettings(password_file=secret).secret() == "s3cret"
    assert BrokerSettings(password="inline").secret() == "inline" and BrokerSettings().secret() is None
    with pytest.raises(UplinkConfigError, match="cannot read it"):
        BrokerSettings(password_file=tmp_path / "missing").secret()
    (tmp_path / "empty").write_text("\n")
    with pytest.raises(UplinkConfigError, match="is empty"):
        BrokerSettings(password_file=tmp_path / "empty").secret()


def test_the_central_section_reads_the_event_the_broker_and_the_address(tmp_path: Path) -> None:
    settings = CentralSettings.from_config(
        ConfigFile({"central": {"event": "paris-2026", "port": 9000, "confirm_timeout_s": 120}})
    )
    assert (settings.event.event, settings.port, settings.event.confirm_timeout) == ("paris-2026", 9000, 120)
    assert str(settings.event.database) == "var/central.db"
    with pytest.raises(UplinkConfigError, match="event must be"):
        CentralSettings.from_config(ConfigFile({"central": {"event": "Paris"}}))


def test_the_example_configuration_documents_every_key_with_its_default() -> None:
    text = (ROOT / "config.example.toml").read_text(encoding="utf-8")
    data = tomllib.loads(text)
    assert UplinkSettings.from_config(ConfigFile(data)) == UplinkSettings()
    uplink_part = text[text.index("[uplink]") : text.index("[central]")]
    for key in keys_of(UplinkSettings.read):
        assert key in uplink_part, key
    central_part = text[text.index("[central]") :]
    for key in keys_of(CentralSettings.read):
        assert key in central_part, key
    assert CentralSettings.from_config(ConfigFile(data)).event.event == "demo"
