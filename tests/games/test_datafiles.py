"""The shipped-data-file loader every game's layouts and boards go through."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from games.datafiles import DataFiles
from games.exc import BoardError, UnknownBoardError


def _parse(data: Any, source: str) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise BoardError("a board is a JSON object", source=source)
    return {**data, "source": source}


FILES = DataFiles(
    "games.hop", "boards", parse=_parse, error=BoardError, unknown=UnknownBoardError, what="board"
)


def test_shipped_files_are_listed_and_parsed_once() -> None:
    assert FILES.names() == ["square-5x5-2", "square-5x5-3", "square-6x6-4"]
    first = FILES.load("square-5x5-2")
    assert first["source"] == "square-5x5-2" and first["name"] == "square-5x5-2"
    assert FILES.load("square-5x5-2") is first


def test_a_builders_file_is_read_again_after_an_edit(tmp_path: Path) -> None:
    path = tmp_path / "mine.json"
    path.write_text(json.dumps({"name": "one"}), encoding="utf-8")
    assert FILES.load(path)["name"] == "one"
    path.write_text(json.dumps({"name": "two"}), encoding="utf-8")
    assert FILES.load(str(path)) == {"name": "two", "source": str(path)}


def test_every_way_a_file_fails_says_where(tmp_path: Path) -> None:
    with pytest.raises(
        UnknownBoardError, match=r"no board named 'hexagon' and no such file \(shipped boards: "
    ):
        FILES.load("hexagon")
    broken = tmp_path / "broken.json"
    broken.write_text("{nodes", encoding="utf-8")
    with pytest.raises(BoardError, match="not valid JSON") as caught:
        FILES.load(broken)
    assert caught.value.source == str(broken)
    binary = tmp_path / "binary.json"
    binary.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(BoardError, match="cannot read the file"):
        FILES.load(binary)
    listed = tmp_path / "list.json"
    listed.write_text("[]", encoding="utf-8")
    with pytest.raises(BoardError, match="a board is a JSON object"):
        FILES.load(listed)
