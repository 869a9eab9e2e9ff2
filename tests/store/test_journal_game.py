"""The one reader of a game's journal entries: this version's entries, an older version's, and entries
it cannot read (skipped, with the reason; never an exception)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from games.hautetension.layout import load_layout
from games.hautetension.outcome import Lighting, Termination
from games.hautetension.pawn import PawnKind
from games.hautetension.record import CheckResult, LampCheck, Status
from hardware.service.referee import Referee
from store.db import connect
from store.journal import Journal, JournalKind
from store.journal_game import (
    Ended,
    Opened,
    Placed,
    Resolved,
    Resumed,
    Skipped,
    Unreadable,
    read_game,
    read_game_end,
    read_verdict,
)

N_ROW = ["f9", "f8", "f7", "f6", "f5"]
"""A straight row from the battery to lamp N (seat 1's lamp at a duel)."""


@pytest.fixture
def journal(tmp_path: Path) -> Journal:
    return Journal(connect(tmp_path / "board.db"))


def _played(journal: Journal) -> None:
    """A duel as the referee journals it: set up, check skipped, a pawn lifted and put back; Bob (seat 1)
    lights N, which puts Ada (seat 0) out."""
    referee = Referee(load_layout(), min_turn=0.0)
    entries = referee.new_game(1, {"players": [{"name": "Ada"}, {"name": "Bob"}], "first": 0,
                                   "pregame_check": "skip", "assignment": "t7"})
    entries += referee.pawn_placed("a1", PawnKind.DEFENSE, 1.0)
    entries += referee.pawn_lifted("a1")
    entries += referee.pawn_placed("a1", PawnKind.DEFENSE, 2.0)
    for at, slot in enumerate(N_ROW, start=3):
        entries += referee.pawn_placed(slot, PawnKind.ATTACK, at)
    entries += referee.confirm_result([1], by="staff")
    journal.append_many(entries, game_id=1)


def test_a_game_journaled_by_this_version_reads_whole(journal: Journal) -> None:
    _played(journal)
    game = read_game(journal.game_entries(1))
    assert game.skipped == ()
    assert game.start is not None and game.start.layout == "pinwheel-80" and game.start.assignment == "t7"
    assert [(s.name, s.lamp) for s in game.start.players] == [("Ada", "N"), ("Bob", "S")]
    assert game.start.setup is not None and game.start.setup["pregame_check"] == "skip"
    assert [(m.move, m.player, m.slot, m.kind) for m in game.moves] == [
        (1, 0, "a1", "defense"), (2, 1, "f9", "attack"), (3, 0, "f8", "attack"), (4, 1, "f7", "attack"),
        (5, 0, "f6", "attack"), (6, 1, "f5", "attack"),
    ]
    assert game.moves[-1].lit == ("N",) and game.moves[-1].eliminated == (0,)
    assert [type(e) for e in game.events if not isinstance(e, Placed)][1:] == [Opened, Resolved, Resumed]
    [verdict] = game.verdicts
    assert verdict.result is CheckResult.SKIPPED and verdict.by == "staff"
    assert game.end is not None and game.end.status is Status.OVER and game.end.players == ("Ada", "Bob")
    assert game.end.points == (0, 4) and game.end.winners == (1,)
    assert game.end.termination is Termination.LAST_PLAYER_STANDING
    assert game.lightings() == (Lighting((0,), 1),)
    assert game.confirmed == {1}


def test_a_game_journaled_the_old_way_reads(journal: Journal) -> None:
    """A game-start without its layout, a game-end naming its players as objects and without status."""
    journal.append("game-start", {"game": 2, "players": [{"name": "Cy", "lamp": "S", "colour": "red"},
                                                         {"name": "Di", "lamp": "N", "colour": "blue"}],
                                  "first": 1, "drawn": False, "handicap": {}}, game_id=2)
    journal.append("placement", {"game": 2, "slot": "a9", "player": 1, "move": 1, "lit": [],
                                 "eliminated": [], "to_move": 0}, game_id=2)
    journal.append("game-end", {"game": 2, "players": [{"name": "Cy"}, {"name": "Di"}], "moves": 1,
                                "points": [4, 0]}, game_id=2)
    game = read_game(journal.game_entries(2))
    assert game.skipped == ()
    assert game.start is not None and game.start.layout is None and game.start.setup is None
    assert game.start.first == 1 and game.start.handicap == ()
    assert game.moves[0].kind is None  # no private payload: the kind is not known
    assert game.end is not None and game.end.status is Status.OVER and game.end.players == ("Cy", "Di")
    assert game.end.termination is None and game.end.winners == ()
    journal.append("game-start", {"game": 5, "players": ["Ed", "Flo"]}, game_id=5)  # bare names
    start = read_game(journal.game_entries(5)).start
    assert start is not None and [(s.name, s.lamp) for s in start.players] == [("Ed", "?"), ("Flo", "?")]


MALFORMED: list[tuple[str, Any, str]] = [
    ("placement", {"game": 3, "slot": "a9", "move": 1}, "player is a whole number, not None"),
    ("placement", {"game": 3, "slot": "a9", "player": "0", "move": 2}, "player is a whole number"),
    ("placement", {"game": 3, "slot": "", "player": 0, "move": 3}, "slot is a text"),
    ("placement", {"game": 3, "slot": "a9", "player": 0, "move": 4, "eliminated": "all"},
     "eliminated is a list"),
    ("anomaly", {"kind": "lifted", "at": 1.0}, "slot is a text"),
    ("game-resumed", {"game": 3, "to_move": [0]}, "to_move is a whole number"),
    ("pregame-check", {"game": 3, "result": "maybe"}, "result is passed, failed or skipped"),
    ("pregame-check", {"game": 3, "result": ["passed"]}, "result is passed, failed or skipped"),
    ("result-confirmed", {"game": 3, "seats": [True]}, "seats is a whole number"),
    ("game-end", {"game": 3, "status": "lost"}, "status is over or abandoned"),
    ("game-start", {"game": 3, "players": "Ada and Bob"}, "players is a list"),
    ("game-start", {"game": 3, "players": [["Ada"]]}, "a player is an object"),
]


def test_what_cannot_be_read_is_skipped_with_its_reason(journal: Journal) -> None:
    for kind, public, _reason in MALFORMED:
        journal.append(kind, public, game_id=3)
    journal.conn.execute(
        "INSERT INTO journal (at, kind, game_id, public) VALUES (0, 'placement', 3, '[1]')"
    )
    journal.append(
        "game-end", {"game": 3, "status": "over", "players": "garbage", "points": ["4"]}, game_id=3
    )
    game = read_game(journal.game_entries(3))
    assert [s.reason[:len(reason)] for s, (_, _, reason) in zip(game.skipped, MALFORMED, strict=False)] == [
        reason for _, _, reason in MALFORMED
    ]
    last = game.skipped[-1]
    assert last.kind is JournalKind.PLACEMENT and "public payload is an object" in last.reason
    assert len(game.skipped) == len(MALFORMED) + 1
    assert game.start is None and game.events == () and game.confirmed == frozenset()
    # A game-end whose players or points cannot be read still ends the game: they are unknown.
    assert game.end is not None and game.end.players is None and game.end.points is None


def test_a_game_end_reads_on_its_own(journal: Journal) -> None:
    journal.append("game-end", {"game": 9, "status": "abandoned", "players": ["A", "B"], "moves": 0})
    journal.append("game-end", {"game": "nine", "players": ["A", "B"]})
    abandoned, unreadable = journal.newest(kinds=[JournalKind.GAME_END])[::-1]
    end = read_game_end(abandoned)
    # No game id on the entry: the payload's.
    assert isinstance(end, Ended) and end.game == 9 and end.status is Status.ABANDONED
    skipped = read_game_end(unreadable)
    assert isinstance(skipped, Skipped) and skipped.reason == "game is a whole number, not 'nine'"


def test_a_verdict_reads_on_its_own_or_says_why_not() -> None:
    verdict = read_verdict({"result": "failed", "lamps": {"N": "current", "S": "glowing"}, "failed": ["S"],
                            "attempt": 2})
    assert verdict.result is CheckResult.FAILED and verdict.lamps == (("N", LampCheck.CURRENT),)
    assert verdict.failed == ("S",) and verdict.attempt == 2
    with pytest.raises(Unreadable, match="result is passed, failed or skipped, not None"):
        read_verdict({"lamps": {}})
