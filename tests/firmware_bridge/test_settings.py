"""The ``[serial]`` settings, the example configuration, and the backend factory's serial board."""

from __future__ import annotations

import time
import tomllib
from pathlib import Path
from typing import Any

import pytest

from configuration import ConfigFile
from firmware_bridge.exc import LinkConfigError
from firmware_bridge.host import LinkSettings
from firmware_bridge.simulator import SimulatedDevice
from hardware.backends.serial import serial_settings
from hardware.exc import HardwareConfigError

ROOT = Path(__file__).resolve().parents[2]


def test_defaults_without_a_section() -> None:
    settings = serial_settings(ConfigFile())
    assert settings == LinkSettings()
    assert settings.port == "/dev/ttyACM0" and settings.heartbeat == 0.5


def test_keys_are_read_in_their_units_and_port_overrides() -> None:
    config = ConfigFile({"serial": {"port": "/dev/ttyUSB3", "heartbeat_ms": 200, "timeout_ms": 900,
                                    "reconnect_max_ms": 1500, "health_interval_s": 0}})
    settings = serial_settings(config, port="/dev/ttyACM9")
    assert settings.port == "/dev/ttyACM9"
    assert (settings.heartbeat, settings.timeout, settings.reconnect_max) == (0.2, 0.9, 1.5)
    assert settings.health_interval == 0
    assert serial_settings(config).port == "/dev/ttyUSB3"


def test_long_press_comes_from_hardware_unless_set_here() -> None:
    assert serial_settings(ConfigFile({"hardware": {"long_press_s": 1.5}})).long_press == 1.5
    both = ConfigFile({"hardware": {"long_press_s": 1.5}, "serial": {"long_press_s": 2}})
    assert serial_settings(both).long_press == 2


def test_every_bad_key_is_reported_at_once() -> None:
    config = ConfigFile(
        {"serial": {"baudrate": "fast", "timeout_ms": -1, "colour": "red", "port": "",
                    "error_threshold": 2.5}},
        path=Path("/etc/hautetension/config.toml"),
    )
    with pytest.raises(HardwareConfigError) as caught:
        serial_settings(config)
    text = str(caught.value)
    assert text.startswith("/etc/hautetension/config.toml [serial]: ")
    for fragment in ("unknown key 'colour'", "baudrate must be an integer, not 'fast'",
                     "timeout_ms must be more than 0", "port must be a device path",
                     "error_threshold must be an integer, not 2.5"):
        assert fragment in text
    assert len(caught.value.problems) == 5


@pytest.mark.parametrize(
    ("section", "fragment"),
    [
        ({"heartbeat_ms": 1000, "timeout_ms": 800}, "longer than heartbeat_ms"),
        ({"reconnect_min_ms": 500, "reconnect_max_ms": 100}, "reconnect_max_ms"),
        ({"heartbeat_ms": 70000, "timeout_ms": 80000}, "at most 65535"),
        ({"host_timeout_ms": 400}, "host_timeout_ms must be longer"),
    ],
)
def test_inconsistent_timings_are_refused(section: dict[str, Any], fragment: str) -> None:
    with pytest.raises(LinkConfigError, match=fragment):
        LinkSettings.from_dict(section)


def test_the_example_configuration_documents_every_key_with_its_default() -> None:
    data = tomllib.loads((ROOT / "config.example.toml").read_text(encoding="utf-8"))
    section = data["serial"]
    settings = LinkSettings.from_dict(section)
    assert settings == LinkSettings()
    text = (ROOT / "config.example.toml").read_text(encoding="utf-8")
    serial_part = text[text.index("[serial]"):]
    for key in LinkSettings.KEYS:
        assert key in serial_part, key


def test_the_hardware_backend_factory_opens_the_serial_backend(pinwheel: Any) -> None:
    from hardware.backends import open_backend

    with SimulatedDevice() as device:
        device.board.place(4, conducts=True)
        backend = open_backend("serial", ConfigFile({"serial": {"heartbeat_ms": 100, "timeout_ms": 500}}),
                               layout=pinwheel, port=device.port)
        try:
            assert backend.name == "serial"
            events = backend.poll()
            deadline = time.monotonic() + 2
            while not events and time.monotonic() < deadline:
                events = backend.poll()
                time.sleep(0.005)
            assert [(e.slot, e.kind.value) for e in events] == [("e9", "attack")]
        finally:
            backend.close()
