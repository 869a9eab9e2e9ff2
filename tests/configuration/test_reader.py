"""The settings reader: bounds, units, choices, text, tables, unknown keys, and every problem at once."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import pytest

from configuration import ConfigError, ConfigFile, Section, SectionSettings, database_path, keys_of, read_all


class PartError(ConfigError):
    """A package's own configuration error, as hardware and firmware_bridge declare theirs."""


def read(data: Any, reading: Any) -> Any:
    with Section(data, name="[part]", source="file [part]", error=PartError) as section:
        return reading(section)


def problems(data: Any, reading: Any) -> list[str]:
    with pytest.raises(PartError) as info:
        read(data, reading)
    assert str(info.value).startswith("file [part]: ")
    return info.value.problems


def test_missing_keys_take_the_default_and_units_give_seconds() -> None:
    def reading(s: Section) -> tuple[Any, ...]:
        return (s.number("wait_ms", 0.25, minimum=0, unit="ms"), s.number("settle_us", 1e-5, unit="us"),
                s.integer("count", 3), s.choice("mode", ("a", "b"), "a"), s.flag("on", False),
                s.text("name", "x"), s.path("file", None), s.integers("pins", (1, 2)))

    assert read({}, reading) == (0.25, 1e-5, 3, "a", False, "x", None, (1, 2))
    given = {"wait_ms": 200, "settle_us": 10, "count": 5, "mode": "b", "on": True, "name": "", "file": "/f",
             "pins": [4, 5]}
    assert read(given, reading) == (0.2, 10e-6, 5, "b", True, "", Path("/f"), (4, 5))


@pytest.mark.parametrize(("value", "bounds", "says"), [
    (-1, {"minimum": 0}, "n must be at least 0, not -1"),
    (0, {"above": 0}, "n must be more than 0, not 0"),
    (9, {"maximum": 8}, "n must be at most 8, not 9"),
    (0, {"minimum": 1, "maximum": 65535}, "n must be 1-65535, not 0"),
    ("5", {}, "n must be a number, not '5'"),
    (True, {}, "n must be a number, not True"),
    (float("nan"), {"minimum": 0}, "n must be a number, not nan"),
    (float("inf"), {}, "n must be a number, not inf"),
])
def test_numbers_out_of_bounds_or_not_numbers(value: Any, bounds: dict[str, float], says: str) -> None:
    assert problems({"n": value}, lambda s: s.number("n", 1.0, **bounds)) == [says]


def test_integers_and_lists_of_them_say_what_they_are() -> None:
    assert problems({"n": 2.5}, lambda s: s.integer("n", 1)) == ["n must be an integer, not 2.5"]
    assert problems({"n": True}, lambda s: s.integer("n", 1)) == ["n must be an integer, not True"]
    assert problems({"g": "x"}, lambda s: s.integer("g", 1, what="a GPIO number")) == [
        "g must be a GPIO number, not 'x'"]
    assert problems({"gs": 5}, lambda s: s.integers("gs", (), plural="GPIO numbers")) == [
        "gs must be a list of GPIO numbers, not 5"]
    assert problems({"gs": [1, "y", False]}, lambda s: s.integers("gs", ())) == [
        "gs[1] must be an integer, not 'y'", "gs[2] must be an integer, not False"]
    assert problems({}, lambda s: s.integer("n", 0, required=True)) == ["n is missing"]


def test_choices_aliases_text_flags_and_paths() -> None:
    aliases = {"mock": "sim"}
    assert read({"m": "mock"}, lambda s: s.choice("m", ("sim", "gpio"), "gpio", aliases=aliases)) == "sim"
    assert problems({"m": "usb"}, lambda s: s.choice("m", ("sim", "gpio"), "sim")) == [
        "m must be one of 'sim', 'gpio', not 'usb'"]
    assert problems({"m": ["sim"]}, lambda s: s.choice("m", ("sim",), "sim", aliases={"x": "sim"})) == [
        "m must be one of 'sim', not ['sim']"]
    assert problems({}, lambda s: s.choice("level", ("high", "low"), "high", required=True)) == [
        'level is missing ("high" or "low")']
    assert problems({"t": 3}, lambda s: s.text("t", "")) == ["t must be a string, not 3"]
    assert problems({"t": ""}, lambda s: s.text("t", "d", what="a device", empty=False)) == [
        "t must be a device, not ''"]
    assert problems({"f": "yes"}, lambda s: s.flag("f", False)) == ["f must be true or false, not 'yes'"]
    assert problems({"p": 3}, lambda s: s.path("p", None)) == ["p must be a path, not 3"]
    assert read({"p": ""}, lambda s: s.path("p", Path("keep"))) == Path("keep")


def test_unknown_keys_are_found_in_every_table_with_their_full_name() -> None:
    def reading(s: Section) -> None:
        s.integer("known", 1)
        s.table("inner").integer("depth", 1)
        for t in (s.tables("named") or {}).values():
            t.integer("gpio", 0)
        for t in s.table_list("listed"):
            t.integer("channel", 0)

    data = {"known": 1, "typo": 2, "inner": {"depth": 2, "deep": 3}, "named": {"N": {"gpio": 1, "colour": 2}},
            "listed": [{"channel": 1}, {"level": "x"}]}
    assert sorted(problems(data, reading)) == [
        "unknown key 'inner.deep'", "unknown key 'listed[1].level'", "unknown key 'named.N.colour'",
        "unknown key 'typo'"]


def test_tables_that_are_not_tables() -> None:
    assert problems(3, lambda s: None) == ["[part] must be a table, not 3"]
    assert problems({"inner": 3}, lambda s: s.table("inner")) == ["inner must be a table, not 3"]
    assert problems({"named": [1]}, lambda s: s.tables("named")) == [
        "named must be a table of tables, not [1]"]
    assert problems({"named": {"N": 1}}, lambda s: s.tables("named")) == ["named.N must be a table, not 1"]
    assert problems({"listed": {}}, lambda s: s.table_list("listed")) == [
        "listed must be a list of tables, not {}"]
    assert read({}, lambda s: s.tables("named")) is None


def test_every_problem_of_a_section_at_once_including_its_own_checks() -> None:
    def reading(s: Section) -> None:
        low, high = s.integer("low", 1), s.integer("high", 2)
        s.check([] if low < high else ["low must be less than high"])

    found = problems({"low": 5, "high": 3, "huh": 1, "x": "y"}, reading)
    assert found == ["low must be less than high", "unknown key 'huh'", "unknown key 'x'"]
    assert read({"low": 1}, reading) is None  # nothing wrong: nothing raised


def test_read_all_lists_every_problem_of_every_section() -> None:
    config = ConfigFile({"a": {"n": "x"}, "b": {"typo": 1}, "c": {"n": 2}}, path=Path("/etc/ht.toml"))

    def section(name: str) -> Any:
        def reading(config: ConfigFile) -> int:
            with config.read(name, error=PartError) as s:
                return s.integer("n", 0)
        return reading

    assert read_all(config, {"c": section("c")}) == {"c": 2}
    with pytest.raises(ConfigError) as info:
        read_all(config, {"a": section("a"), "b": section("b"), "c": section("c")})
    error = info.value
    assert error.problems == ["/etc/ht.toml [a]: n must be an integer, not 'x'",
                              "/etc/ht.toml [b]: unknown key 'typo'"]
    assert [part.source for part in error.parts] == ["/etc/ht.toml [a]", "/etc/ht.toml [b]"]
    assert all(isinstance(part, PartError) for part in error.parts)


def test_keys_of_a_declaration_in_reading_order() -> None:
    def reading(s: Section) -> None:
        s.number("b", 1.0)
        s.integer("a", 1)
        s.number("b", 1.0)

    assert keys_of(reading) == ("b", "a")


def test_command_line_values_go_through_the_same_reader() -> None:
    config = ConfigFile({"panel": {"port": 80}}, path=Path("/c.toml"))
    changed = config.with_values("panel", {"port": 8123, "host": None})
    assert changed.data == {"panel": {"port": 8123}} and changed.path == config.path
    assert config.data == {"panel": {"port": 80}}  # the original is left as it was


def test_the_store_path_is_read_like_every_section(tmp_path: Path) -> None:
    assert database_path(ConfigFile()) == Path("var/hautetension.db")
    installed = ConfigFile(path=tmp_path / "c.toml")
    assert database_path(installed) == Path("/var/lib/hautetension/hautetension.db")
    assert database_path(ConfigFile({"store": {"path": str(tmp_path / "h.db")}})) == tmp_path / "h.db"
    with pytest.raises(ConfigError, match=r"\[store\]: unknown key 'paht'"):
        database_path(ConfigFile({"store": {"paht": "x"}}))
    with pytest.raises(ConfigError, match="path must be a path, not 3"):
        database_path(ConfigFile({"store": {"path": 3}}))


@dataclass(frozen=True)
class PartSettings(SectionSettings):
    section: ClassVar[str] = "part"
    error: ClassVar[type[ConfigError]] = PartError
    count: int = 3

    @classmethod
    def read(cls, s: Section) -> PartSettings:
        return cls(count=s.integer("count", cls.count, minimum=1))


def test_a_section_settings_class_reads_its_section_from_the_file_or_alone() -> None:
    file = ConfigFile({"part": {"count": 5}, "other": {"count": "x"}}, path=Path("/etc/config.toml"))
    assert PartSettings.from_config(file) == PartSettings(count=5)
    assert PartSettings.from_config(ConfigFile()) == PartSettings()
    assert PartSettings.from_dict({"count": 7}) == PartSettings(count=7)
    bad = ConfigFile({"part": {"count": 0, "colour": "red"}}, path=Path("/etc/c.toml"))
    with pytest.raises(PartError) as info:
        PartSettings.from_config(bad)
    assert str(info.value).startswith("/etc/c.toml [part]: ")
    assert info.value.problems == ["count must be at least 1, not 0", "unknown key 'colour'"]
    with pytest.raises(PartError) as info:
        PartSettings.from_dict({"count": 0})
    assert str(info.value).startswith("[part]: ")
    with pytest.raises(PartError) as info:
        PartSettings.from_dict([], source="the command line")
    assert str(info.value).startswith("the command line: ")
