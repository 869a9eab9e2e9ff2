"""``hautetension qttt solve``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pytest_mock import MockerFixture

from games.qttt.book import VALUE_NAMES, load_book, parse_book
from games.qttt.rules import PAIR_CODE, PAIRS, canonical
from hautetension.cli import main


def solve(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, object] | None, str]:
    status = main(["qttt", "solve", *args])
    out, err = capsys.readouterr()
    return status, (json.loads(out) if out.strip() else None), err


def test_the_empty_position_comes_from_the_book(capsys: pytest.CaptureFixture[str]) -> None:
    status, answer, _ = solve(capsys)
    assert status == 0 and answer is not None
    assert answer["value"] == {0: "X", 1: "O", 2: "draw"}[load_book()[b""][0]]
    assert answer["from_book"] is True and answer["nodes"] == 0 and answer["to_act"] == "X"
    assert isinstance(answer["best"], list) and len(answer["best"]) == 2


def test_a_deep_position_is_searched(capsys: pytest.CaptureFixture[str]) -> None:
    moves = [[0, 1], [1, 3], [3, 2], [2, 4], [4, 6], [6, 5], [5, 7]]
    status, answer, _ = solve(capsys, "--moves", json.dumps(moves))
    assert status == 0 and answer is not None
    assert answer["to_act"] == "O" and answer["from_book"] is False
    assert isinstance(answer["nodes"], int) and answer["nodes"] > 0
    assert answer["value"] in ("X", "O", "draw")


def test_a_pending_collapse_answers_with_a_collapse(capsys: pytest.CaptureFixture[str]) -> None:
    # X closes the 9-square cycle; O puts mark 9 on 0 and wins with the
    # earlier line (see test_game), so that is O's best choice.
    moves = [[0, 1], [1, 3], [3, 2], [2, 4], [4, 6], [6, 5], [5, 7], [7, 8], [8, 0]]
    status, answer, _ = solve(capsys, "--moves", json.dumps(moves))
    assert status == 0
    assert answer == {"value": "O", "best": {"collapse": 0}, "nodes": 0, "seconds": answer["seconds"],  # type: ignore[index]
                      "from_book": False, "to_act": "O"}


def test_a_finished_game_has_no_best_move(capsys: pytest.CaptureFixture[str]) -> None:
    moves = [[0, 1], [1, 3], [3, 2], [2, 4], [4, 6], [6, 5], [5, 7], [7, 8], [8, 0], {"collapse": 0}]
    status, answer, _ = solve(capsys, "--moves", json.dumps(moves))
    assert status == 0 and answer is not None
    assert answer["value"] == "O" and answer["best"] is None and answer["to_act"] is None


def test_openings_are_proved_by_search_and_agree_with_the_book(capsys: pytest.CaptureFixture[str]) -> None:
    status, answer, err = solve(capsys, "--openings")  # a real search of every first move: seconds
    assert status == 0 and answer is not None and answer["from_book"] is False
    book = load_book()
    openings = answer["openings"]
    assert isinstance(openings, list) and [o["move"] for o in openings] == [list(p) for p in PAIRS]
    for opening in openings:
        a, b = opening["move"]
        assert opening["value"] == VALUE_NAMES[book[canonical(bytes((PAIR_CODE[a][b],)))][0]]
    # X wins with opposite corners only: every other first pair draws.
    assert answer["value"] == "X" and answer["best"] == [[0, 8], [2, 6]]
    classes = answer["classes"]
    assert isinstance(classes, list) and len(classes) == 8
    assert sorted(m for c in classes for m in c["moves"]) == [list(p) for p in PAIRS]
    assert all(c["nodes"] > 0 for c in classes) and answer["nodes"] == sum(c["nodes"] for c in classes)
    assert len(err.strip().splitlines()) == 8 and "[0, 8] and 1 symmetric: X" in err


def test_openings_take_no_moves(capsys: pytest.CaptureFixture[str]) -> None:
    status, answer, err = solve(capsys, "--openings", "--moves", "[]")  # even an empty list
    assert status == 2 and answer is None
    assert "--openings proves the first moves: it takes no --moves" in err


@pytest.mark.parametrize(
    ("moves", "reason"),
    [
        ("[[0, 0]]", "move 1 of the list ([0, 0]) is illegal: the two marks of a pair go in two different"),
        ('[[0, 1], [0, 1], [2, 3]]', "move 3 of the list ([2, 3]) is illegal: mark 2 closed a cycle"),
        ("[[0, 1]", "not JSON"),
        ('{"collapse": 1}', "must be a JSON list"),
        ('[[0, 1], {"collapse": 1}]', "no cycle"),
    ],
)
def test_an_illegal_move_list_exits_with_status_2_and_the_reason(
    capsys: pytest.CaptureFixture[str], moves: str, reason: str
) -> None:
    status, answer, err = solve(capsys, "--moves", moves)
    assert status == 2 and answer is None
    assert reason in err


def test_book_writes_a_book_that_loads(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, mocker: MockerFixture
) -> None:
    # Generating a real book solves the empty position (minutes); the book's
    # content is checked against live search in test_solver. Here: the file.
    fake = {"format": 1, "depth": 0, "nodes": 5, "entries": {"": ["X", [0, 8]]}}
    generate = mocker.patch("hautetension.commands.qttt.generate", return_value=dict(fake))
    output = tmp_path / "book.json"
    assert main(["qttt", "book", "--depth", "0", "--output", str(output)]) == 0
    generate.assert_called_once()
    assert generate.call_args.args == (0,)
    assert parse_book(json.loads(output.read_text())) == {b"": (0, (0, 8))}
    assert not list(tmp_path.glob("*.partial"))
    assert "1 positions" in capsys.readouterr().out


def test_book_refuses_a_negative_depth(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["qttt", "book", "--depth", "-1", "--output", str(tmp_path / "b.json")]) == 2
    assert "--depth must be 0 or more" in capsys.readouterr().err
    assert not (tmp_path / "b.json").exists()
