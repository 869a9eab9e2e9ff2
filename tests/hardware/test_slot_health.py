"""Slot health across games: a worn contact is found after the stated number of games, kept across
restarts, and nothing is written while a game runs."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from games.hautetension.pawn import PawnKind
from hardware.events import Fault, FaultKind
from hardware.settings import Signal
from hardware.slot_health import (
    BOUNCES_PER_MOVE,
    GAMES_NO_CONDUCTION,
    GAMES_WATCHED,
    MIN_MOVES,
    SLOW_SETTLE_MS,
    SlotHealth,
)
from store.commands import CommandKind
from store.slot_health import (
    BOUNCES,
    LAMP,
    NO_CONDUCTION,
    OVERRUNS,
    REFERENCE,
    SLOW_SETTLE,
    STUCK,
    Finding,
    SlotHealthStore,
)
from tests.hardware.helpers import Rig

NORTH_ROW = ["f9", "f8", "f7", "f6", "f5"]
"""A straight row to the N lamp: lit, it puts out N's owner and ends a game of two."""
WORN = "c4"


def play_game(rig: Rig, *, extra: tuple[str, ...] = (WORN,)) -> None:
    """A short game: a pawn on each of *extra*, then the N row; every pawn lifted afterwards."""
    assert rig.new_game().result is not None
    slots = [*extra, *NORTH_ROW]
    for slot in slots:
        rig.place(slot)
    assert rig.state["game"]["status"] == "over"
    for slot in slots:
        rig.lift(slot)


def worn_rig(folder: Path) -> Rig:
    """The board service on a simulated board whose slot c4 has a worn conduction contact."""
    made = Rig(folder)
    made.backend.virtual_board.age(WORN, Signal.CONDUCTION)
    return made


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[Rig]:
    made = worn_rig(tmp_path)
    yield made
    made.close()


def findings(rig: Rig) -> list[Finding]:
    return SlotHealthStore(rig.conn).findings()


def test_a_worn_conduction_contact_is_found_after_the_stated_number_of_games(tmp_path: Path) -> None:
    first = worn_rig(tmp_path)
    try:
        for _ in range(GAMES_NO_CONDUCTION - 1):
            play_game(first)
        assert findings(first) == []
    finally:
        first.close()
    # The service restarts: the counts are the database's.
    again = worn_rig(tmp_path)
    try:
        play_game(again)
        assert findings(again) == [Finding(WORN, NO_CONDUCTION, GAMES_NO_CONDUCTION)]
        assert SlotHealthStore(again.conn).counters()["board"]["games"] == GAMES_NO_CONDUCTION
    finally:
        again.close()


def test_nothing_is_written_while_a_game_runs(rig: Rig) -> None:
    play_game(rig)
    before = SlotHealthStore(rig.conn).counters()
    rig.new_game()
    for slot in (WORN, "a1", "b1"):
        rig.place(slot)
    assert SlotHealthStore(rig.conn).counters() == before
    assert rig.service.slot_health.game.presence >= {WORN, "a1", "b1"}


def test_a_game_too_short_to_count_is_kept_for_the_next(rig: Rig) -> None:
    health = rig.service.slot_health
    rig.new_game()
    for slot in NORTH_ROW[: MIN_MOVES - 1]:
        rig.place(slot)
    rig.command(CommandKind.ABANDON_GAME)
    assert SlotHealthStore(rig.conn).counters() == {}
    assert health.game.presence >= set(NORTH_ROW[: MIN_MOVES - 1])


def test_bouncing_contacts_are_found(rig: Rig) -> None:
    board = rig.backend.virtual_board
    for _ in range(6):  # staff try the slot by hand before the game: its bounces count with the game's
        board.place("a1", PawnKind.ATTACK, bounce=0.04)
        rig.run(0.2)
        board.lift("a1", bounce=0.04)
        rig.run(0.2)
    play_game(rig)
    found = {f.kind: f for f in findings(rig) if f.part == "a1"}
    assert found[BOUNCES].n > 10 * BOUNCES_PER_MOVE
    assert {f.part for f in findings(rig)} == {"a1"}  # the worn contact needs its games yet


def test_slow_contacts_are_found(rig: Rig) -> None:
    board = rig.backend.virtual_board
    for _ in range(6):
        board.place("a1", PawnKind.ATTACK, bounce=0.3)
        rig.run(0.6)
        board.lift("a1", bounce=0.3)
        rig.run(0.6)
    play_game(rig)
    kinds = {f.kind: f.n for f in findings(rig) if f.part == "a1"}
    assert kinds[SLOW_SETTLE] > SLOW_SETTLE_MS


def test_faults_seen_in_a_game_are_findings_for_the_next_twelve_games() -> None:
    health = SlotHealth(["a1", "b1"])
    health.saw([
        Fault(FaultKind.CONDUCTION_WITHOUT_PRESENCE, "", 1.0, slot="a1"),
        Fault(FaultKind.REFERENCE_MISMATCH, "", 1.0, multiplexer=3, channel=15),
        Fault(FaultKind.LAMP_FEEDBACK, "lamp N is on but draws no current", 1.0),
    ])
    assert health.report() == []  # nothing before the game ends
    assert health.game_ended(MIN_MOVES)
    assert health.report() == [Finding("a1", STUCK, 1), Finding("ref 3.15", REFERENCE, 1),
                               Finding("lamps", LAMP, 1)]
    for _ in range(GAMES_WATCHED - 1):
        health.game_ended(MIN_MOVES)
    assert {f.n for f in health.report()} == {GAMES_WATCHED}
    health.game_ended(MIN_MOVES)
    assert health.report() == []


def test_a_game_whose_loop_overran_is_a_finding() -> None:
    health = SlotHealth(["a1"])
    for turn in range(1000):
        health.turned(0.011 if turn % 10 == 0 else 0.005, 0.005)
    health.game_ended(MIN_MOVES)
    assert health.report() == [Finding("scan", OVERRUNS, 100)]
    assert (health.turns, health.overruns) == (1000, 100)
    for _ in range(1000):
        health.turned(0.005, 0.005)
    health.game_ended(MIN_MOVES)
    assert health.report() == []


def test_a_short_game_counts_for_nothing() -> None:
    health = SlotHealth(["a1"])
    assert not health.game_ended(MIN_MOVES - 1)
    assert health.counters == {}
