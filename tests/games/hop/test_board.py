"""Boards as data: the shipped square boards, other shapes, and bad board files."""

from __future__ import annotations

import json

import pytest

from games.hop.board import board_names, compile_board, load_board
from games.hop.exc import BoardError, UnknownBoardError
from games.hop.rules import CRADLE, TUNNEL, UP, start_state


def triangle(side: int = 4) -> dict:
    """A triangular layout: nodes (i, j) with i + j < side, lines in three directions."""
    nodes = {f"t{i}{j}": [i + j / 2, j] for j in range(side) for i in range(side - j)}
    lines = [[f"t{i}{j}" for i in range(side - j)] for j in range(side)]
    lines += [[f"t{i}{j}" for j in range(side - i)] for i in range(side)]
    lines += [[f"t{i}{s - i}" for i in range(s + 1)] for s in range(1, side)]
    return {
        "name": "triangle",
        "nodes": nodes,
        "lines": [line for line in lines if len(line) > 1],
        "electrodes": [
            {"colour": "red", "node": "t00"},
            {"colour": "blue", "node": f"t{side - 1}0"},
            {"colour": "green", "node": f"t0{side - 1}"},
        ],
    }


def test_shipped_boards():
    assert board_names() == ["square-5x5-2", "square-5x5-3", "square-6x6-4"]
    for name, seats, size in (("square-5x5-2", 2, 25), ("square-5x5-3", 3, 25), ("square-6x6-4", 4, 36)):
        board = load_board(name)
        assert board.seats == seats and len(board.nodes) == size
        assert len(board.sites) == size - seats
        corners = {board.nodes[n] for n in board.electrodes}
        assert corners <= {"a1", "a5", "e5", "e1", "a6", "f6", "f1"}


def test_square_adjacency_is_orthogonal():
    board = load_board("square-5x5-2")
    near = {board.nodes[n] for n in board.neighbours[board.index["c3"]]}
    assert near == {"c2", "c4", "b3", "d3"}
    assert {board.nodes[n] for n in board.neighbours[board.index["a1"]]} == {"a2", "b1"}
    rays = {tuple(board.nodes[n] for n in ray) for ray in board.rays[board.index["c3"]]}
    assert rays == {("c4", "c5"), ("c2", "c1"), ("d3", "e3"), ("b3", "a3")}


def test_a_triangle_layout_is_written_the_same_way():
    board = compile_board(triangle())
    assert board.seats == 3
    # An inner node of a triangular lattice has six neighbours, along three lines.
    assert len(board.neighbours[board.index["t11"]]) == 6
    state = start_state(board, players=3, level="bachelor", field=0, interaction=0, max_turns=30)
    state.phase = state.phase.FIRST
    index = board.index
    state.place[2 * index["t01"] + UP] = 0  # red, spin up, next to green's line t01-t02-t03
    state.place[2 * index["t02"] + UP] = 1
    moves = {(a[0], board.nodes[a[3]]) for a in state.movements(0) if a[1] == index["t01"]}
    assert (TUNNEL, "t03") in moves and (CRADLE, "t03") in moves  # straight into green's electrode


def test_board_to_dict_round_trips():
    board = load_board("square-6x6-4")
    again = compile_board({**board.to_dict()})
    assert again.nodes == board.nodes and again.electrodes == board.electrodes and again.teams == board.teams


def test_every_problem_is_listed():
    data = triangle()
    data["lines"].append(["t00", "t99"])
    data["electrodes"].append({"colour": "red", "node": "t11"})
    data["nodes"]["lonely"] = [9, 9]
    with pytest.raises(BoardError) as info:
        compile_board(data)
    problems = " | ".join(info.value.problems)
    assert "unknown nodes" in problems and "two electrodes are red" in problems


def test_disconnected_and_unplaced_nodes_are_reported():
    data = triangle()
    data["nodes"]["x"] = [9, 9]
    data["nodes"]["y"] = [9, 10]
    data["lines"].append(["x", "y"])
    with pytest.raises(BoardError, match="cannot be reached"):
        compile_board(data)
    data["lines"].pop()
    with pytest.raises(BoardError, match="on no line"):
        compile_board(data)


def test_two_lines_joining_the_same_nodes_are_refused():
    data = triangle()
    data["lines"].append(["t00", "t10"])
    with pytest.raises(BoardError, match="two lines"):
        compile_board(data)


@pytest.mark.parametrize(
    "bad",
    [
        [],
        {"nodes": {}},
        {"nodes": {"a": [0, 0]}, "lines": [], "electrodes": []},
        {
            "nodes": {"a": "here", "b": [1, 0]},
            "lines": [["a", "b"]],
            "electrodes": [{"colour": "r", "node": "a"}, {"colour": "b", "node": "b"}],
        },
    ],
)
def test_malformed_boards(bad):
    with pytest.raises(BoardError):
        compile_board(bad)


def test_board_files(tmp_path):
    path = tmp_path / "triangle.json"
    path.write_text(json.dumps(triangle()), encoding="utf-8")
    assert load_board(str(path)).name == "triangle"
    broken = tmp_path / "broken.json"
    broken.write_text("{nodes", encoding="utf-8")
    with pytest.raises(BoardError, match="not valid JSON"):
        load_board(str(broken))
    with pytest.raises(UnknownBoardError):
        load_board("hexagon-7")


def test_a_square_board_grows_by_a_site_card_beside_it():
    board = load_board("square-5x5-2")
    assert board.is_grid and board.free_positions_beside_sites()[:2] == [(-1, 1), (-1, 2)]
    grown = board.with_card(5, 2)
    assert grown is board.with_card(5, 2)  # the same card in the same place: one board, shared
    assert grown.nodes[:25] == board.nodes and grown.nodes[25] == "f3" and grown.positions[25] == (5.0, 2.0)
    assert grown.name == "square-5x5-2 + f3" and not grown.is_electrode(25)
    lines = {tuple(grown.nodes[n] for n in line) for line in grown.lines}
    assert ("a3", "b3", "c3", "d3", "e3", "f3") in lines  # row 3 goes on; column f is one card
    assert {grown.nodes[n] for n in grown.neighbours[25]} == {"e3"}
    # A second card can join two lines into one, and the names go on past the edges.
    below = grown.with_card(5, 1).with_card(5, 0)
    assert ("f1", "f2", "f3") in {tuple(below.nodes[n] for n in line) for line in below.lines}
    left = board.with_card(-1, 2).with_card(2, -1)
    assert left.nodes[25:] == ("z3", "c0")
    assert ("z3", "a3", "b3", "c3", "d3", "e3") in {tuple(left.nodes[n] for n in line) for line in left.lines}
    assert ("c0", "c1", "c2", "c3", "c4", "c5") in {tuple(left.nodes[n] for n in line) for line in left.lines}


def test_a_board_grows_only_on_a_free_grid_position():
    board = load_board("square-5x5-2")
    with pytest.raises(BoardError, match="already holds c3"):
        board.with_card(2, 2)
    odd = compile_board(triangle())
    assert not odd.is_grid and odd.free_positions_beside_sites() == []
    with pytest.raises(BoardError, match="only a board of square cards"):
        odd.with_card(9, 9)
