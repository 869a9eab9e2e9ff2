"""The referee alone (no I/O), under random sequences of hands on the board."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from games.hautetension.circuit import evaluate
from games.hautetension.layout import load_layout
from games.hautetension.pawn import PawnKind
from hardware.service.referee import AnomalyKind, Referee

LAYOUT = load_layout()
# A corner of the board and a row to N, so rows close and lamps light often enough.
SLOTS = ["f9", "f8", "f7", "f6", "f5", "a9", "b9", "c9", "d9", "e9", "a1", "i1"]

hands = st.lists(
    st.tuples(st.sampled_from(SLOTS), st.sampled_from(list(PawnKind)), st.floats(0.0, 2.0)),
    min_size=1,
    max_size=60,
)


def _check_invariants(referee: Referee, entries: list[Any]) -> None:
    # Lamps are the circuit of the pawns physically there, whatever the game thinks.
    assert referee.lamps().lit == evaluate(LAYOUT, referee.attack_slots()).lit
    public = json.dumps([referee.public_state("sim")] + [e[1] for e in entries])
    assert "attack" not in public and "defense" not in public
    game = referee.running
    if game is None:
        return
    pawns = game.game.pawns
    for slot in LAYOUT.slots:
        present = referee.board.get(slot)
        if slot in pawns:
            # A slot of the game is fine exactly when the same kind of pawn stands there.
            assert (present is pawns[slot][1]) == (slot not in referee.anomalies), slot
        else:
            # Any other pawn is an open anomaly, never silently part of the game.
            assert (present is not None) == (slot in referee.anomalies), slot
    # Paused exactly while something is open; nobody has the turn then.
    assert referee.is_paused() == bool(referee.anomalies)
    assert (referee.to_move() is None) == (bool(referee.anomalies) or game.game.is_over())


@settings(max_examples=100, deadline=None)
@given(hands=hands, players=st.integers(2, 4))
def test_random_hands_keep_the_board_and_the_game_consistent(hands: list[Any], players: int) -> None:
    referee = Referee(LAYOUT, min_turn=0.5, clock=lambda: 1.0)
    referee.new_game(1, {"players": ["Ana", "Ben", "Cy", "Dee"][:players], "pregame_check": "skip"})
    now = 0.0
    for slot, kind, wait in hands:
        now += wait
        entries = referee.pawn_lifted(slot) if slot in referee.board else referee.pawn_placed(slot, kind, now)
        _check_invariants(referee, entries)


@settings(max_examples=100, deadline=None)
@given(hands=hands)
def test_the_game_only_grows_by_pawns_attributed_in_turn(hands: list[Any]) -> None:
    referee = Referee(LAYOUT, min_turn=0.0)
    referee.new_game(1, {"players": ["Ana", "Ben"], "pregame_check": "skip"})
    now = 0.0
    for slot, kind, wait in hands:
        now += wait
        game = referee.running
        before = len(game.game.history) if game else None
        expected_player = referee.to_move()
        entries = referee.pawn_lifted(slot) if slot in referee.board else referee.pawn_placed(slot, kind, now)
        placements = [e for e in entries if e[0] == "placement"]
        if game is not None and len(game.game.history) != before:
            [placement] = placements
            assert placement[1]["player"] == expected_player and placement[1]["slot"] == slot
            assert placement[2] == {"kind": kind.value}  # the kind is kept, privately
        else:
            assert placements == []


def test_a_pawn_changed_for_another_kind_is_an_anomaly_without_saying_which() -> None:
    referee = Referee(LAYOUT, min_turn=0.0)
    referee.new_game(1, {"players": ["Ana", "Ben"], "pregame_check": "skip"})
    referee.pawn_placed("a9", PawnKind.DEFENSE, 1.0)
    lifted = referee.pawn_lifted("a9")
    placed = referee.pawn_placed("a9", PawnKind.ATTACK, 1.0)
    assert referee.anomalies["a9"].kind is AnomalyKind.CHANGED
    assert "attack" not in json.dumps([e[1] for e in lifted + placed])
    referee.pawn_lifted("a9")
    referee.pawn_placed("a9", PawnKind.DEFENSE, 2.0)
    assert referee.anomalies == {} and referee.to_move() == 1
