"""The ``hautetension circuit`` and ``hautetension layout`` commands."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from games.hautetension import Layout
from hautetension.cli import main


def write(tmp_path: Path, content: Any, name: str = "board.json") -> str:
    path = tmp_path / name
    path.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
    return str(path)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_circuit_prints_lit_lamps_and_closed_rows(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    board = {"attack": ["i7", "h6", "g5", "f4", "e3", "f9", "f8", "f7", "f6", "f5", "a9"], "defense": ["c3"]}
    status, out, err = run(capsys, "circuit", write(tmp_path, board))
    assert status == 0 and err == ""
    result = json.loads(out)
    assert result["lit"] == ["E", "N"]
    assert result["closed_rows"] == ["N1", "NE1"]
    assert out.count("\n") == 1


def test_a_defense_pawn_breaks_the_row(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    board = {"attack": ["f9", "f8", "f7", "f6"], "defense": ["f5"]}
    status, out, _ = run(capsys, "circuit", write(tmp_path, board))
    assert status == 0 and json.loads(out)["lit"] == [] and json.loads(out)["closed_rows"] == []


def test_button_lights_everything(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "circuit", write(tmp_path, {"attack": [], "defense": []}), "--button")
    assert status == 0 and json.loads(out)["lit"] == ["E", "N", "S", "W"]


def test_circuit_with_a_layout_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], pinwheel: Layout
) -> None:
    data = pinwheel.to_dict()
    data["name"] = "my-board"
    layout = write(tmp_path, data, "layout.json")
    status, out, _ = run(
        capsys, "circuit", write(tmp_path, {"attack": ["a9", "b9", "c9", "d9", "e9"]}), "--layout", layout
    )
    assert status == 0 and json.loads(out)["lit"] == ["W"] and json.loads(out)["layout"] == "my-board"


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        ({"attack": ["e5"]}, "'attack' lists 'e5', which is not a slot of board pinwheel-80"),
        (
            {"attack": ["a9"], "defense": ["a9"]},
            "slot(s) a9 cannot hold an attack and a defense pawn at once",
        ),
        ({"attack": ["a9", "a9"]}, "'attack' lists slot(s) a9 more than once"),
        ({"attack": "a9"}, "'attack' must be a list of slot names"),
        ({"attack": [], "pawns": []}, "unexpected key(s) 'pawns'"),
        (["a9"], "a board file is a JSON object"),
        ("{not json\n", "not valid JSON"),
    ],
)
def test_bad_board_files_exit_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: Any, reason: str
) -> None:
    status, out, err = run(capsys, "circuit", write(tmp_path, content))
    assert status == 2 and out == ""
    assert reason in err and err.count("\n") == 1


def test_missing_board_file_and_bad_layout(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys, "circuit", str(tmp_path / "nope.json"))
    assert status == 2 and "cannot read the board file" in err and err.count("\n") == 1
    status, _, err = run(capsys, "circuit", write(tmp_path, {}), "--layout", "hexagon")
    assert status == 2 and "no layout named 'hexagon'" in err and err.count("\n") == 1


def test_layout_show_draws_slots_lamps_and_rows(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "layout", "show")
    assert status == 0
    lines = out.splitlines()
    top = next(line for line in lines if "a9" in line)
    assert top.split() == ["a9", "b9", "c9", "d9", "e9", "f9", "g9", "h9", "i9"]
    middle = next(line for line in lines if "a5" in line)
    assert middle.split() == ["(W)", "a5", "b5", "c5", "d5", "+", "f5", "g5", "h5", "i5", "(E)"]
    assert "(N)" in out and "(S)" in out
    assert any(
        line.split()[:4] == ["WN1", "diagonal", "W", "-"] and "c9 d8 e7 f6 g5" in line for line in lines
    )
    assert any(line.split()[:5] == ["E1", "straight", "battery", "-", "E"] for line in lines)


def test_layout_show_highlights_a_row(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "layout", "show", "pinwheel-80", "--row", "W1")
    assert status == 0
    assert "[a9]" in out and "[e9]" in out and "[W]" in out and "[f9]" not in out
    status, _, err = run(capsys, "layout", "show", "--row", "Z9")
    assert status == 2 and "no row Z9" in err


def test_layout_list_and_check(tmp_path: Path, capsys: pytest.CaptureFixture[str], pinwheel: Layout) -> None:
    assert run(capsys, "layout", "list")[1].split() == ["pinwheel-80"]
    status, out, _ = run(capsys, "layout", "check", write(tmp_path, pinwheel.to_dict(), "good.json"))
    assert status == 0 and "ok" in out and "80 slots" in out
    data = pinwheel.to_dict()
    data["rows"][0]["slots"] = data["rows"][0]["slots"][:4]
    data["rows"][16]["lamps"] = ["W", "W"]
    status, _, err = run(capsys, "layout", "check", write(tmp_path, data, "bad.json"))
    assert status == 2
    assert "3 problem(s)" in err
    assert "slot(s) e9 belong to no row" in err  # the slot cut from W1
    assert "row W1 has 4 slots; every row has exactly 5" in err
    assert "row WN1 is diagonal but joins lamp W to itself" in err


def test_the_installed_command(tmp_path: Path) -> None:
    board = write(tmp_path, {"attack": ["a9", "b9", "c9", "d9", "e9"], "defense": []})
    done = subprocess.run(
        [sys.executable, "-m", "hautetension", "circuit", board], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["lit"] == ["W"]
    done = subprocess.run(
        [sys.executable, "-m", "hautetension", "circuit", write(tmp_path, "][", "bad.json")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and done.stdout == "" and len(done.stderr.splitlines()) == 1


def test_layout_show_draws_any_layout_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tiny = {
        "name": "tiny",
        "battery": [3, 2],
        "lamps": {"N": [-1, 2], "S": [4, 2]},
        "slots": {f"{c}{r}": [2 - r, "abcde".index(c)] for c in "abcde" for r in (1, 2)},
        "rows": [
            {"id": "N1", "kind": "straight", "lamps": ["N"], "slots": [f"{c}2" for c in "abcde"]},
            {"id": "S1", "kind": "straight", "lamps": ["S"], "slots": [f"{c}1" for c in "abcde"]},
        ],
    }
    status, out, _ = run(capsys, "layout", "show", write(tmp_path, tiny, "tiny.json"))
    assert status == 0
    lines = out.splitlines()
    assert lines[0].startswith("tiny: 10 slots, lamps N, S, 2 straight rows")
    assert ["a2", "b2", "c2", "d2", "e2"] in [line.split() for line in lines]
    assert ["+"] in [line.split() for line in lines]
