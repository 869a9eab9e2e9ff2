"""The [hardware] section: parsing, the computed pinwheel-80 wiring, and the wiring check."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from configuration import ConfigFile
from games.hautetension.layout import Layout
from hardware.exc import HardwareConfigError
from hardware.settings import ChannelRef, HardwareSettings, Signal, check_wiring, load_settings

ROOT = Path(__file__).resolve().parents[2]


def parse(text: str) -> HardwareSettings:
    return HardwareSettings.from_dict(tomllib.loads(text).get("hardware", {}))


def test_default_wiring_is_complete_and_valid(pinwheel: Layout) -> None:
    s = HardwareSettings()
    assert check_wiring(s, pinwheel) == []
    wiring = s.slot_map(pinwheel)
    channels = [ref for w in wiring.values() for ref in (w.presence, w.conduction)]
    assert len(set(channels)) == 160
    assert {c.multiplexer for c in channels} == set(range(10))
    assert {c.channel for c in channels} == set(range(16))


def test_default_wiring_follows_reading_order(pinwheel: Layout) -> None:
    wiring = HardwareSettings().slot_map(pinwheel)
    assert wiring["a9"].presence == ChannelRef(0, 0)
    assert wiring["a9"].conduction == ChannelRef(0, 1)
    assert wiring["h9"].conduction == ChannelRef(0, 15)
    assert wiring["i9"].presence == ChannelRef(1, 0)
    assert wiring["i1"].conduction == ChannelRef(9, 15)


def test_example_config_file_is_valid(pinwheel: Layout) -> None:
    path = ROOT / "config.example.toml"
    config = ConfigFile(tomllib.loads(path.read_text()), path)
    settings = load_settings(config, pinwheel)
    assert settings == HardwareSettings()


def test_slot_override_replaces_one_signal(pinwheel: Layout) -> None:
    s = parse("""
        [hardware]
        signal_gpios = [4, 17, 18, 27, 22, 23, 24, 10, 9, 25, 8]
        [hardware.slots]
        a9 = { presence = [10, 0] }
    """)
    wiring = s.slot_map(pinwheel)
    assert wiring["a9"].presence == ChannelRef(10, 0)
    assert wiring["a9"].conduction == ChannelRef(0, 1)
    assert check_wiring(s, pinwheel) == []


def test_two_slots_on_one_channel(pinwheel: Layout) -> None:
    s = parse("[hardware.slots]\nb9 = { presence = [0, 0] }")
    assert "multiplexer 0 channel 0 is wired to both slot a9 presence and slot b9 presence" in check_wiring(
        s, pinwheel)


def test_channel_out_of_range(pinwheel: Layout) -> None:
    s = parse("[hardware.slots]\nb9 = { conduction = [2, 16] }")
    assert "slot b9 conduction: channel 16 is out of range 0-15 (4 select lines)" in check_wiring(s, pinwheel)


def test_multiplexer_that_does_not_exist(pinwheel: Layout) -> None:
    s = parse("[hardware.slots]\nb9 = { conduction = [10, 3] }")
    assert ("slot b9 conduction: multiplexer 10 does not exist (10 multiplexers, numbered 0-9)"
            in check_wiring(s, pinwheel))


def test_gpio_used_twice(pinwheel: Layout) -> None:
    s = parse("[hardware]\nbutton_gpio = 17")
    assert check_wiring(s, pinwheel) == ["GPIO 17 is used twice: multiplexer 1 signal and test button"]


def test_gpio_not_on_header(pinwheel: Layout) -> None:
    s = parse("[hardware.lamps]\nN = { gpio = 40 }\nE = { gpio = 16 }\nS = { gpio = 20 }\nW = { gpio = 21 }")
    assert check_wiring(s, pinwheel) == ["lamp N: GPIO 40 is not on the 40-pin header (GPIO 0-27)"]


def test_slot_without_signal(pinwheel: Layout) -> None:
    s = parse("""
        [hardware]
        wiring = "none"
        [hardware.slots]
        a9 = { presence = [0, 0] }
    """)
    problems = check_wiring(s, pinwheel)
    assert "slot a9 has no conduction channel" in problems
    assert "slot b9 has no presence channel" in problems
    assert len(problems) == 159


def test_fewer_multiplexers_than_the_default_map_needs(pinwheel: Layout) -> None:
    s = parse("[hardware]\nsignal_gpios = [4, 17, 18, 27, 22, 23, 24, 10, 9]")
    problems = check_wiring(s, pinwheel)
    assert len(problems) == 16
    assert problems[0] == "slot b1 presence: multiplexer 9 does not exist (9 multiplexers, numbered 0-8)"


def test_unknown_slot_and_lamps(pinwheel: Layout) -> None:
    s = parse("""
        [hardware.slots]
        z9 = { presence = [0, 0] }
        [hardware.lamps]
        N = { gpio = 12 }
        X = { gpio = 16 }
    """)
    problems = check_wiring(s, pinwheel)
    assert "slots.z9: there is no slot z9 on layout pinwheel-80" in problems
    assert "lamp E of layout pinwheel-80 has no GPIO (lamps.E.gpio)" in problems
    assert "lamps.X: layout pinwheel-80 has no lamp X (lamps: N, E, S, W)" in problems


def test_reference_on_a_used_channel(pinwheel: Layout) -> None:
    s = parse("[[hardware.references]]\nmultiplexer = 3\nchannel = 4\nlevel = \"low\"")
    assert check_wiring(s, pinwheel) == [
        "multiplexer 3 channel 4 is wired to both slot i7 presence and reference 3.4"]


def test_shared_signal_needs_enables(pinwheel: Layout) -> None:
    s = parse("[hardware]\nsignal_gpio = 4\nsignal_gpios = []")
    assert "signal_gpio (one shared signal line) needs enable_gpios, one per multiplexer" in check_wiring(
        s, pinwheel)
    both = parse("[hardware]\nsignal_gpio = 3\nsignal_gpios = [4]\nenable_gpios = [8]")
    assert ("give either signal_gpios (one per multiplexer) or signal_gpio with enable_gpios, not both"
            in check_wiring(both, pinwheel))


@pytest.mark.parametrize(("text", "message"), [
    ("[hardware]\nselect_gpios = 5", "select_gpios must be a list of GPIO numbers, not 5"),
    ("[hardware]\nsignal_gpios = [4, \"x\"]", "signal_gpios[1] must be a GPIO number (BCM), not 'x'"),
    ("[hardware]\nsignal_pull = \"sideways\"",
     "signal_pull must be one of 'up', 'down', 'none', not 'sideways'"),
    ("[hardware]\nsettle_us = -1", "settle_us must be at least 0, not -1"),
    ("[hardware]\nscan_period = 5", "unknown key 'scan_period'"),
    ("[hardware.debounce]\nscans = 0", "debounce.scans must be at least 1, not 0"),
    ("[hardware.debounce]\nmin_ms = nan", "debounce.min_ms must be a number, not nan"),
    ("[hardware.debounce]\nspeed = 2", "unknown key 'debounce.speed'"),
    ("[hardware]\ndebounce = 3", "debounce must be a table, not 3"),
    ("[hardware.slots]\na9 = { presence = [0] }",
     "slots.a9.presence must be [multiplexer, channel], not [0]"),
    ("[hardware.slots]\na9 = { power = [0, 1] }",
     "slots.a9: unknown signal 'power' (presence or conduction)"),
    ("[[hardware.references]]\nmultiplexer = 1\nchannel = 2",
     "references[0].level is missing (\"high\" or \"low\")"),
    ("[[hardware.references]]\nchannel = 2\nlevel = \"low\"", "references[0].multiplexer is missing"),
    ("[hardware.lamps]\nN = { gpio = 12, colour = \"red\" }", "unknown key 'lamps.N.colour'"),
    ("[hardware.lamps]\nN = { active = \"low\" }", "lamps.N.gpio is missing"),
    ("[hardware.lamps]\nN = 12", "lamps.N must be a table, not 12"),
])
def test_parse_errors_name_the_key(text: str, message: str) -> None:
    with pytest.raises(HardwareConfigError) as info:
        parse(text)
    assert message in info.value.problems


def test_every_parse_error_is_reported_at_once() -> None:
    with pytest.raises(HardwareConfigError) as info:
        parse("[hardware]\nsettle_us = \"fast\"\nwiring = \"random\"\nbutton_gpio = true")
    assert len(info.value.problems) == 3
    assert isinstance(info.value, ValueError)


def test_units_are_converted() -> None:
    s = parse("[hardware]\nsettle_us = 25\nscan_period_ms = 2\n[hardware.debounce]\nmin_ms = 8")
    assert s.settle_seconds == pytest.approx(25e-6)
    assert s.scan_period == pytest.approx(0.002)
    assert s.debounce.min_seconds == pytest.approx(0.008)


@settings(max_examples=60, deadline=None)
@given(st.permutations(range(160)))
def test_any_permutation_of_the_channels_is_accepted(pinwheel: Layout, order: list[int]) -> None:
    slots: dict[str, Any] = {}
    for i, slot in enumerate(pinwheel.slots):
        p, c = order[2 * i], order[2 * i + 1]
        slots[slot] = {"presence": list(divmod(p, 16)), "conduction": list(divmod(c, 16))}
    s = HardwareSettings.from_dict({"wiring": "none", "slots": slots})
    assert check_wiring(s, pinwheel) == []


@settings(max_examples=60, deadline=None)
@given(st.permutations(range(160)), st.integers(0, 159), st.integers(0, 158))
def test_any_doubled_channel_is_found(pinwheel: Layout, order: list[int], src: int, dst: int) -> None:
    order = list(order)
    dst = dst if dst < src else dst + 1
    order[dst] = order[src]
    slots = {slot: {"presence": list(divmod(order[2 * i], 16)),
                    "conduction": list(divmod(order[2 * i + 1], 16))}
             for i, slot in enumerate(pinwheel.slots)}
    problems = check_wiring(HardwareSettings.from_dict({"wiring": "none", "slots": slots}), pinwheel)
    m, c = divmod(order[src], 16)
    assert len(problems) == 1
    assert problems[0].startswith(f"multiplexer {m} channel {c} is wired to both slot ")


def test_signal_enum_channel_lookup(pinwheel: Layout) -> None:
    w = HardwareSettings().slot_map(pinwheel)["b9"]
    assert w.channel_of(Signal.PRESENCE) == ChannelRef(0, 2)
    assert w.channel_of(Signal.CONDUCTION) == ChannelRef(0, 3)
