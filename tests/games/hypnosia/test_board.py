"""The board geometry: the default board (DESIGN §5) and the loader's checks."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from games.hypnosia.board import CENTRE, available_boards, load_board, parse_board
from games.hypnosia.exc import BoardError, UnknownBoardError


@pytest.fixture
def default_data() -> dict[str, Any]:
    return load_board("default").to_dict()


def test_default_board_has_the_designed_circles_and_bridges() -> None:
    board = load_board()
    assert [len(c) for c in board.circles] == [36, 24, 12]
    rings = [sum(1 for b in board.bridges if b in circle) for circle in board.circles]
    assert rings == [6, 4, 3]
    assert sorted(b for b, to in board.bridges.items() if to == CENTRE) == ["i1", "i5", "i9"]
    assert len(board.colours) == 6
    assert "default" in available_boards()


def test_each_colours_start_squares_sit_one_to_four_steps_before_its_entry() -> None:
    board = load_board()
    for colour in board.colours:
        entry = board.index[colour.entry]
        for k, square in enumerate(colour.start, 1):
            assert board.lane[board.index[square]] == k
            assert board.step[board.index[square]][k] == entry
            if k > 1:  # too short to leave the lane
                assert board.step[board.index[square]][k - 1] == -1


def test_moves_go_counter_clockwise_round_each_circle() -> None:
    board = load_board()
    o35, o0 = board.index["o35"], board.index["o0"]
    assert board.step[o35][1] == o0
    assert board.step[board.index["i11"]][12] == board.index["i11"]


def test_bridges_lead_inward_one_circle_at_a_time() -> None:
    board = load_board()
    for start, end in board.bridges.items():
        assert board.ring[board.index[end]] == board.ring[board.index[start]] + 1


def test_a_board_survives_its_file_format(default_data: dict[str, Any]) -> None:
    again = parse_board(default_data)
    assert again.circles == load_board().circles and again.bridges == load_board().bridges


def test_a_board_file_is_loaded_from_a_path(tmp_path: Path, default_data: dict[str, Any]) -> None:
    path = tmp_path / "mine.json"
    default_data["name"] = "mine"
    path.write_text(json.dumps(default_data))
    assert load_board(path).name == "mine"


def problems_of(data: Any) -> list[str]:
    with pytest.raises(BoardError) as info:
        parse_board(data, source="test")
    return info.value.problems


def test_an_open_circle_is_refused(default_data: dict[str, Any]) -> None:
    default_data["circles"][1]["next"]["m23"] = "o5"
    assert any("middle is not closed" in p and "'o5'" in p for p in problems_of(default_data))


def test_a_circle_made_of_two_loops_is_refused(default_data: dict[str, Any]) -> None:
    nexts = default_data["circles"][2]["next"]
    nexts["i5"], nexts["i11"] = "i0", "i6"
    assert any("inner" in p and "not" in p for p in problems_of(default_data))


def test_a_bridge_must_lead_inward(default_data: dict[str, Any]) -> None:
    bad = copy.deepcopy(default_data)
    bad["bridges"]["m3"] = "o7"
    assert any("bridge 'm3' must lead inward to the next circle inward" in p for p in problems_of(bad))
    skip = copy.deepcopy(default_data)
    skip["bridges"]["o3"] = "i0"
    assert any("bridge 'o3'" in p for p in problems_of(skip))
    centre = copy.deepcopy(default_data)
    centre["bridges"]["o3"] = CENTRE
    assert any("bridge 'o3'" in p for p in problems_of(centre))


def test_the_centre_must_be_reachable(default_data: dict[str, Any]) -> None:
    for square in ("i1", "i5", "i9"):
        del default_data["bridges"][square]
    assert any("has no bridge to the centre" in p for p in problems_of(default_data))


def test_every_colour_needs_an_entry_and_four_start_squares(default_data: dict[str, Any]) -> None:
    default_data["colours"][0]["entry"] = "m4"
    default_data["colours"][1]["start"] = default_data["colours"][1]["start"][:3]
    default_data["colours"][2]["start"][0] = "o7"
    del default_data["colours"][3]["entry"]
    found = problems_of(default_data)
    assert any("red: the entry 'm4' must be a square of the outer circle" in p for p in found)
    assert any("yellow: needs 4 distinct start squares" in p for p in found)
    assert any("green: start square 'o7' is already used" in p for p in found)
    assert any("blue: the entry None" in p for p in found)


def test_every_problem_is_reported_at_once(default_data: dict[str, Any]) -> None:
    default_data["circles"][0]["next"]["o35"] = "o3"
    default_data["bridges"]["zz"] = "m1"
    default_data["colours"][4]["name"] = "red"
    assert len(problems_of(default_data)) >= 3


@pytest.mark.parametrize("data", [[], {"circles": []}, {"circles": [{"next": {"a": "a"}}]}, "board"])
def test_malformed_boards_are_refused(data: Any) -> None:
    assert problems_of(data)


def test_unknown_and_unreadable_boards(tmp_path: Path) -> None:
    with pytest.raises(UnknownBoardError, match="shipped boards: default"):
        load_board("nowhere")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(BoardError, match="not valid JSON"):
        load_board(bad)
