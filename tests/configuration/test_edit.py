"""Editing the configuration file: one table replaced, every other byte as it was."""

from __future__ import annotations

import os
import stat
import time
import tomllib
from pathlib import Path

import pytest

from configuration import ConfigError
from configuration.edit import back_up, replace_table, write_atomically

BODY = ["# learned", 'a9 = { presence = [0, 1], conduction = [0, 0] }']
BLOCK = "[hardware.slots]\n# learned\na9 = { presence = [0, 1], conduction = [0, 0] }\n"
HEAD = ('# my board\n[board]\nbackend = "gpio"   # the real one\n\n'
        '[hardware]\nsettle_us = 20  # long ribbon\n\n')
TAIL = '# the lamps, as soldered\n[hardware.lamps]\nN = { gpio = 12 }\n\n[panel]\nheartbeat_seconds = 15\n'


def test_an_existing_table_is_replaced_where_it_stands() -> None:
    slots = "[hardware.slots]\n# by hand, 2025\nb9 = { presence = [0, 3] }\nc9 = { conduction = [0, 9] }\n"
    old = HEAD + slots + "\n" + TAIL
    new = replace_table(old, "hardware.slots", BODY)
    assert new == HEAD + BLOCK + "\n" + TAIL
    assert tomllib.loads(new)["hardware"]["slots"] == {"a9": {"presence": [0, 1], "conduction": [0, 0]}}


def test_a_missing_table_is_added_at_the_end() -> None:
    assert replace_table(HEAD + TAIL, "hardware.slots", BODY) == HEAD + TAIL + "\n" + BLOCK
    assert replace_table("", "hardware.slots", BODY) == BLOCK
    assert replace_table("[board]\nx = 1", "hardware.slots", BODY) == "[board]\nx = 1\n\n" + BLOCK


def test_sub_tables_are_replaced_by_one_table() -> None:
    old = (HEAD + "[hardware.slots.b9]\npresence = [0, 3]\n\n[hardware.slots.c9]\nconduction = [0, 9]\n\n"
           + TAIL)
    assert replace_table(old, "hardware.slots", BODY) == HEAD + BLOCK + "\n\n" + TAIL


def test_spaces_and_quotes_in_a_header_name_the_same_table() -> None:
    old = HEAD + '[ hardware . "slots" ]  # mine\nb9 = { presence = [0, 3] }\n' + TAIL
    assert replace_table(old, "hardware.slots", BODY) == HEAD + BLOCK + TAIL


def test_windows_line_endings_are_kept() -> None:
    old = (HEAD + TAIL).replace("\n", "\r\n")
    new = replace_table(old, "hardware.slots", BODY)
    assert new == old + "\r\n" + BLOCK.replace("\n", "\r\n")


def test_the_table_written_inline_or_dotted_is_refused() -> None:
    for written in ("slots = { a9 = { presence = [0, 1] } }\n", "slots.a9.presence = [0, 1]\n"):
        with pytest.raises(ConfigError, match="written inline or with dotted keys"):
            replace_table(HEAD + written + TAIL, "hardware.slots", BODY)


def test_an_array_of_tables_is_refused() -> None:
    with pytest.raises(ConfigError, match="is an array of tables"):
        replace_table(HEAD + "[[hardware.slots]]\nx = 1\n", "hardware.slots", BODY)


def test_an_edit_that_would_change_something_else_is_refused() -> None:
    # A multi-line string whose line looks like a table header: replacing by lines would cut it.
    old = HEAD + 'note = """\n[hardware.slots]\n[zzz]\n"""\n' + TAIL
    with pytest.raises(ConfigError, match="without changing something else"):
        replace_table(old, "hardware.slots", BODY)
    with pytest.raises(ConfigError, match="edit it by hand"):
        replace_table(HEAD + 'note = """\n[hardware.slots]\n"""\n' + TAIL, "hardware.slots", BODY)
    with pytest.raises(ConfigError, match="not valid TOML"):
        replace_table("[board\n", "hardware.slots", BODY)


def test_write_atomically_keeps_the_mode_and_replaces_in_one_rename(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("old\n")
    os.chmod(path, 0o640)
    write_atomically(path, "new\r\n")
    assert path.read_bytes() == b"new\r\n" and stat.S_IMODE(path.stat().st_mode) == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["config.toml"]  # no temporary file left
    fresh = tmp_path / "sub" / "new.toml"
    write_atomically(fresh, "x\n")
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o600


def test_back_up_never_overwrites_an_older_backup(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("first\n")

    class Frozen:
        @staticmethod
        def localtime() -> time.struct_time:
            return time.strptime("2026-12-01 12:00:00", "%Y-%m-%d %H:%M:%S")

    first = back_up(path, clock=Frozen)
    path.write_text("second\n")
    second = back_up(path, clock=Frozen)
    assert first.name == "config.toml.bak-20261201-120000" and second.name.endswith("-120000-2")
    assert first.read_text() == "first\n" and second.read_text() == "second\n"
