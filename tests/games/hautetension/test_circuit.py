"""Circuit evaluation: closed rows, chains through diagonals, the test button, incremental = full."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.exc import UnknownSlotError
from games.hautetension.circuit import Circuit, evaluate, lamp_paths, lit_lamps
from games.hautetension.layout import BATTERY, Layout, load_layout

PINWHEEL = load_layout("pinwheel-80")
SLOTS = list(PINWHEEL.slots)


def row_slots(layout: Layout, row_id: str) -> list[str]:
    return list(next(r for r in layout.rows if r.id == row_id).slots)


def test_empty_board_lights_nothing(pinwheel: Layout) -> None:
    state = evaluate(pinwheel, [])
    assert state.lit == frozenset() and state.closed_rows == frozenset()


def test_a_full_straight_row_lights_its_lamp(pinwheel: Layout) -> None:
    state = evaluate(pinwheel, ["f9", "f8", "f7", "f6", "f5"])
    assert state.closed_rows == {"N1"}
    assert state.lit == {"N"}


def test_four_attack_pawns_are_not_enough(pinwheel: Layout) -> None:
    assert evaluate(pinwheel, ["f9", "f8", "f7", "f6"]).lit == frozenset()


def test_a_closed_diagonal_alone_lights_nothing(pinwheel: Layout) -> None:
    state = evaluate(pinwheel, row_slots(pinwheel, "WN1"))
    assert state.closed_rows == {"WN1"} and state.lit == frozenset()


def test_alliance_diagonal_lights_both_lamps(pinwheel: Layout) -> None:
    # Rules example 2: N and E joined by a diagonal light together.
    attack = row_slots(pinwheel, "NE1") + row_slots(pinwheel, "E2")
    assert evaluate(pinwheel, attack).lit == {"N", "E"}


def test_chain_of_diagonals_lights_three_lamps(pinwheel: Layout) -> None:
    attack = row_slots(pinwheel, "WN2") + row_slots(pinwheel, "NE2") + row_slots(pinwheel, "W1")
    state = evaluate(pinwheel, attack)
    assert state.closed_rows == {"WN2", "NE2", "W1"}
    assert state.lit == {"W", "N", "E"}


def test_chain_goes_all_the_way_round(pinwheel: Layout) -> None:
    attack = {s for r in ("WN1", "NE2", "ES2", "S1") for s in row_slots(pinwheel, r)}
    assert evaluate(pinwheel, attack).lit == {"N", "E", "S", "W"}


def test_a_defense_pawn_keeps_its_rows_open(pinwheel: Layout) -> None:
    row = row_slots(pinwheel, "W1")
    # The fifth slot holds a defense pawn: it is simply not among the attack slots.
    assert evaluate(pinwheel, row[:4]).lit == frozenset()


def test_test_button_lights_every_lamp(pinwheel: Layout) -> None:
    assert evaluate(pinwheel, [], button=True).lit == {"N", "E", "S", "W"}
    assert lit_lamps(pinwheel, [], button=True) == {"N", "E", "S", "W"}
    assert Circuit(pinwheel).state(button=True).lit == {"N", "E", "S", "W"}
    assert Circuit(pinwheel).state().lit == frozenset()


def test_unknown_slot_is_refused(pinwheel: Layout) -> None:
    with pytest.raises(UnknownSlotError):
        evaluate(pinwheel, ["e5"])
    with pytest.raises(UnknownSlotError):
        Circuit(pinwheel).add_attack("j1")


def test_circuit_reports_newly_lit_and_put_out(pinwheel: Layout) -> None:
    circuit = Circuit(pinwheel, row_slots(pinwheel, "NE1")[:-1] + row_slots(pinwheel, "N1"))
    assert circuit.lit == {"N"}
    assert circuit.add_attack(row_slots(pinwheel, "NE1")[-1]) == {"E"}
    assert circuit.add_attack(row_slots(pinwheel, "NE1")[-1]) == frozenset()  # already there
    assert circuit.remove_attack("f9") == {"N", "E"}
    assert circuit.remove_attack("f9") == frozenset()
    assert circuit.lit == frozenset()


def test_copy_is_independent(pinwheel: Layout) -> None:
    circuit = Circuit(pinwheel, row_slots(pinwheel, "W1")[:4])
    clone = circuit.copy()
    clone.add_attack("e9")
    assert clone.lit == {"W"} and circuit.lit == frozenset()


# -- properties ----------------------------------------------------------------

attack_sets = st.sets(st.sampled_from(SLOTS), max_size=80)
quarter_turn_lamp = {"W": "N", "N": "E", "E": "S", "S": "W"}
name_at = {pos: s for s, pos in PINWHEEL.slot_positions.items()}
quarter_turn_slot = {s: name_at[(c, 8 - r)] for s, (r, c) in PINWHEEL.slot_positions.items()}


@settings(max_examples=150, deadline=None)
@given(attack_sets)
def test_quarter_turn_symmetry(attack: set[str]) -> None:
    turned = {quarter_turn_slot[s] for s in attack}
    assert evaluate(PINWHEEL, turned).lit == {quarter_turn_lamp[x] for x in evaluate(PINWHEEL, attack).lit}


@settings(max_examples=150, deadline=None)
@given(attack_sets, st.sampled_from(SLOTS))
def test_adding_an_attack_pawn_never_turns_a_lamp_off(attack: set[str], extra: str) -> None:
    assert evaluate(PINWHEEL, attack).lit <= evaluate(PINWHEEL, attack | {extra}).lit


@settings(max_examples=150, deadline=None)
@given(attack_sets, st.sampled_from(SLOTS))
def test_a_defense_pawn_keeps_every_row_through_it_open(attack: set[str], defense: str) -> None:
    state = evaluate(PINWHEEL, attack - {defense})
    for index in PINWHEEL.rows_of_slot[defense]:
        assert PINWHEEL.rows[index].id not in state.closed_rows


@settings(max_examples=150, deadline=None)
@given(st.permutations(SLOTS), st.integers(min_value=0, max_value=80), st.data())
def test_incremental_equals_full_evaluation(order: list[str], count: int, data: st.DataObject) -> None:
    circuit = Circuit(PINWHEEL)
    placed: set[str] = set()
    for slot in order[:count]:
        before = circuit.lit
        newly = circuit.add_attack(slot)
        placed.add(slot)
        full = evaluate(PINWHEEL, placed)
        assert circuit.lit == full.lit
        assert circuit.closed_rows == full.closed_rows
        assert newly == full.lit - before
    # Lifting pawns (a pawn taken back) must agree too.
    for slot in data.draw(st.permutations(sorted(placed))):
        circuit.remove_attack(slot)
        placed.discard(slot)
        assert circuit.state() == evaluate(PINWHEEL, placed)


@settings(max_examples=80, deadline=None)
@given(attack=st.sets(st.sampled_from(SLOTS), max_size=40))
def test_each_lit_lamp_is_explained_by_a_chain_of_closed_rows_from_the_battery(attack: set[str]) -> None:
    state = evaluate(PINWHEEL, attack)
    paths = lamp_paths(PINWHEEL, state.closed_rows)
    assert set(paths) == state.lit
    by_id = PINWHEEL.rows_by_id
    for lamp, rows in paths.items():
        node = BATTERY
        for row_id in rows:  # each row closed, each one starting where the last ended
            assert row_id in state.closed_rows
            a, b = by_id[row_id].ends
            assert node in (a, b)
            node = b if node == a else a
        assert node == lamp


def test_a_lamp_lit_through_a_diagonal_names_both_rows(pinwheel: Layout) -> None:
    diagonal = next(r for r in pinwheel.rows if r.kind.value == "diagonal" and "N" in r.lamps)
    other = next(lamp for lamp in diagonal.lamps if lamp != "N")
    state = evaluate(pinwheel, ["f9", "f8", "f7", "f6", "f5", *diagonal.slots])
    assert lamp_paths(pinwheel, state.closed_rows) == {"N": ("N1",), other: ("N1", diagonal.id)}
