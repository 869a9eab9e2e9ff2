"""Layout loading and validation: pinwheel-80 as DESIGN §3, and every problem explained."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from games.exc import LayoutError, UnknownLayoutError, UnknownSlotError
from games.hautetension.layout import (
    BATTERY,
    Layout,
    RowKind,
    available_layouts,
    load_layout,
    parse_layout,
    slot_name,
)


def cells(layout: Layout, row_id: str) -> list[tuple[int, int]]:
    row = next(r for r in layout.rows if r.id == row_id)
    return [layout.slot_positions[s] for s in row.slots]


def test_pinwheel_has_80_named_slots_around_the_battery(pinwheel: Layout) -> None:
    assert len(pinwheel.slots) == 80
    assert pinwheel.slots[0] == "a9" and pinwheel.slots[-1] == "i1"
    assert "e5" not in pinwheel.slots
    assert pinwheel.battery == (4, 4)
    assert slot_name(4, 4) == "e5"
    for slot, (r, c) in pinwheel.slot_positions.items():
        assert slot == "abcdefghi"[c] + str(9 - r)
    assert set(pinwheel.lamps) == {"N", "E", "S", "W"}


def test_pinwheel_straight_rows_match_the_design(pinwheel: Layout) -> None:
    expected: dict[str, list[list[tuple[int, int]]]] = {
        "W": [[(r, c) for c in range(5)] for r in range(4)],
        "N": [[(r, c) for r in range(5)] for c in range(5, 9)],
        "E": [[(r, c) for c in range(4, 9)] for r in range(5, 9)],
        "S": [[(r, c) for r in range(4, 9)] for c in range(4)],
    }
    for lamp, rows in expected.items():
        got = sorted(
            sorted(pinwheel.slot_positions[s] for s in row.slots) for row in pinwheel.straight_rows_of(lamp)
        )
        assert got == sorted(rows)
        assert all(row.ends == (BATTERY, lamp) for row in pinwheel.straight_rows_of(lamp))


def test_pinwheel_diagonals_match_the_design(pinwheel: Layout) -> None:
    design = {
        ("W", "N"): [[(0, 2), (1, 3), (2, 4), (3, 5), (4, 6)], [(0, 3), (1, 4), (2, 5), (3, 6), (4, 7)]],
        ("N", "E"): [[(2, 8), (3, 7), (4, 6), (5, 5), (6, 4)], [(3, 8), (4, 7), (5, 6), (6, 5), (7, 4)]],
        ("E", "S"): [[(4, 2), (5, 3), (6, 4), (7, 5), (8, 6)], [(4, 1), (5, 2), (6, 3), (7, 4), (8, 5)]],
        ("S", "W"): [[(1, 4), (2, 3), (3, 2), (4, 1), (5, 0)], [(2, 4), (3, 3), (4, 2), (5, 1), (6, 0)]],
    }
    diagonals = [r for r in pinwheel.rows if r.kind is RowKind.DIAGONAL]
    assert len(diagonals) == 8
    for pair, rows in design.items():
        got = sorted(
            sorted(pinwheel.slot_positions[s] for s in r.slots)
            for r in diagonals
            if set(r.lamps) == set(pair)
        )
        assert got == sorted(sorted(row) for row in rows)


def test_eight_slots_lie_on_two_diagonals(pinwheel: Layout) -> None:
    double = [
        s
        for s in pinwheel.slots
        if sum(pinwheel.rows[i].kind is RowKind.DIAGONAL for i in pinwheel.rows_of_slot[s]) == 2
    ]
    assert sorted(double) == sorted(["e8", "e7", "b5", "c5", "g5", "h5", "e3", "e2"])


def test_every_slot_is_on_exactly_one_straight_row(pinwheel: Layout) -> None:
    for slot in pinwheel.slots:
        assert sum(pinwheel.rows[i].kind is RowKind.STRAIGHT for i in pinwheel.rows_of_slot[slot]) == 1


def test_quarter_turn_maps_the_layout_onto_itself(pinwheel: Layout) -> None:
    name_at = {pos: s for s, pos in pinwheel.slot_positions.items()}
    turn_slot = {s: name_at[(c, 8 - r)] for s, (r, c) in pinwheel.slot_positions.items()}
    turn_lamp = {"W": "N", "N": "E", "E": "S", "S": "W"}
    rows = {(r.kind, frozenset(r.lamps), frozenset(r.slots)) for r in pinwheel.rows}
    turned = {
        (r.kind, frozenset(turn_lamp[x] for x in r.lamps), frozenset(turn_slot[s] for s in r.slots))
        for r in pinwheel.rows
    }
    assert turned == rows


def test_round_trip_through_the_file_format(pinwheel: Layout) -> None:
    assert parse_layout(pinwheel.to_dict(), source="copy") == pinwheel


def test_check_slot(pinwheel: Layout) -> None:
    assert pinwheel.check_slot("a9") == "a9"
    with pytest.raises(UnknownSlotError, match="no slot 'e5'"):
        pinwheel.check_slot("e5")


def test_shipped_layouts_list_and_unknown_name() -> None:
    assert "pinwheel-80" in available_layouts()
    with pytest.raises(UnknownLayoutError, match="no layout named 'hexagon'"):
        load_layout("hexagon")


# -- validation: every problem, each explained --------------------------------


@pytest.fixture
def data(pinwheel: Layout) -> dict[str, Any]:
    return copy.deepcopy(pinwheel.to_dict())


def problems_of(data: Any) -> list[str]:
    with pytest.raises(LayoutError) as info:
        parse_layout(data, source="test")
    return info.value.problems


def row(data: dict[str, Any], row_id: str) -> dict[str, Any]:
    found: dict[str, Any] = next(r for r in data["rows"] if r["id"] == row_id)
    return found


def test_row_not_of_five_slots(data: dict[str, Any]) -> None:
    row(data, "W1")["slots"].pop()
    assert "row W1 has 4 slots; every row has exactly 5" in problems_of(data)


def test_unknown_slot_in_a_row(data: dict[str, Any]) -> None:
    row(data, "N2")["slots"][0] = "z9"
    assert "row N2 names unknown slot 'z9'" in problems_of(data)


def test_duplicate_slot_in_a_row(data: dict[str, Any]) -> None:
    row(data, "E1")["slots"][1] = "e4"
    assert "row E1 lists slot e4 more than once" in problems_of(data)


def test_diagonal_joining_a_lamp_to_itself(data: dict[str, Any]) -> None:
    row(data, "WN1")["lamps"] = ["W", "W"]
    assert "row WN1 is diagonal but joins lamp W to itself" in problems_of(data)


def test_straight_row_without_a_lamp(data: dict[str, Any]) -> None:
    row(data, "S1")["lamps"] = []
    assert "row S1 is straight, so it links the battery to exactly one lamp (it names 0)" in problems_of(data)


def test_diagonal_with_one_lamp_and_unknown_lamp(data: dict[str, Any]) -> None:
    row(data, "NE1")["lamps"] = ["N"]
    row(data, "NE2")["lamps"] = ["N", "X"]
    found = problems_of(data)
    assert "row NE1 is diagonal, so it links exactly two lamps (it names 1)" in found
    assert "row NE2 names unknown lamp 'X'" in found


def test_unknown_row_kind_and_duplicate_row_id(data: dict[str, Any]) -> None:
    row(data, "W1")["kind"] = "curved"
    row(data, "W3")["id"] = "W2"
    found = problems_of(data)
    assert 'row W1: "kind" must be "straight" or "diagonal", not \'curved\'' in found
    assert "row 'W2' is defined twice" in found


def test_slot_in_no_row(data: dict[str, Any]) -> None:
    data["slots"]["z0"] = [12, 12]
    assert "slot(s) z0 belong to no row" in problems_of(data)


def test_lamp_wired_to_nothing(data: dict[str, Any]) -> None:
    data["lamps"]["X"] = [12, 12]
    assert "lamp X is wired to no row, so it could never light" in problems_of(data)


def test_two_things_in_one_cell(data: dict[str, Any]) -> None:
    data["slots"]["b9"] = [0, 0]
    assert "slot b9 is drawn at [0, 0], where slot a9 already is" in problems_of(data)


def test_bad_positions_and_grid(data: dict[str, Any]) -> None:
    data["slots"]["a9"] = [0]
    data["grid"] = {"rows": "nine", "columns": 9}
    found = problems_of(data)
    assert "slot 'a9' position must be [row, column] integers, not [0]" in found
    assert "\"grid\" rows and columns must be whole numbers, not 'nine' and 9" in found


def test_battery_cannot_name_a_lamp_and_two_lamps_needed(data: dict[str, Any]) -> None:
    data["lamps"] = {"+": [-1, 4]}
    found = problems_of(data)
    assert "a board needs at least two lamps" in found
    assert "'+' is the battery and cannot name a lamp" in found


def test_every_problem_is_reported_at_once(data: dict[str, Any]) -> None:
    row(data, "W1")["slots"].pop()
    row(data, "N1")["slots"][0] = "zz"
    row(data, "SW1")["lamps"] = ["S", "S"]
    assert len(problems_of(data)) >= 3


@pytest.mark.parametrize("value", [[], "layout", 3, None])
def test_not_an_object(value: Any) -> None:
    assert problems_of(value) == ["the layout must be a JSON object"]


def test_file_problems(tmp_path: Path, data: dict[str, Any]) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text("{not json", encoding="utf-8")
    with pytest.raises(LayoutError, match="not valid JSON"):
        load_layout(broken)
    binary = tmp_path / "binary.json"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(LayoutError, match="cannot read the file"):
        load_layout(binary)


def test_layout_files_are_reread_after_an_edit(tmp_path: Path, data: dict[str, Any]) -> None:
    path = tmp_path / "mine.json"
    data["name"] = "mine"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert load_layout(path).name == "mine"
    row(data, "W1")["slots"].pop()
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(LayoutError, match="row W1 has 4 slots"):
        load_layout(path)


def test_no_straight_row(data: dict[str, Any]) -> None:
    for item in data["rows"]:
        if item["kind"] == "straight":
            item["kind"] = "diagonal"
            item["lamps"] = ["N", "S"] if item["lamps"] != ["N"] else ["N", "E"]
    assert "no straight row links a lamp to the battery, so no lamp could ever light" in problems_of(data)


def test_a_malformed_row_is_reported_once(data: dict[str, Any]) -> None:
    # Its slots and lamp are not reported again as belonging to no row.
    row(data, "W1")["slots"].append("a8")
    assert problems_of(data) == ["row W1 has 6 slots; every row has exactly 5"]


def test_slot_on_the_battery_and_optional_battery(data: dict[str, Any]) -> None:
    data["slots"]["e5"] = [4, 4]
    row(data, "W1")["slots"].append("e5")
    assert "slot e5 is drawn at [4, 4], where the battery already is" in problems_of(data)
    del data["battery"]  # optional: only used to draw the board
    assert "slot e5 is drawn at [4, 4], where the battery already is" not in problems_of(data)
