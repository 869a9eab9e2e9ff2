"""A board game's record from a journal an older version wrote, or one with entries nobody can read:
the record leaves out what cannot be read, and never fails."""

from __future__ import annotations

from pathlib import Path

import pytest

from games.hautetension.record import Status
from store.db import connect
from store.journal import Journal
from webpanel.replay.records import NoRecordError, board_game

START = {"game": 4, "players": [{"name": "Cy", "lamp": "N", "colour": "red"},
                                {"name": "Di", "lamp": "S", "colour": "blue"}],
         "first": 0, "drawn": False, "handicap": {}}
"""A game-start of a version that did not name the layout."""


@pytest.fixture
def journal(tmp_path: Path) -> Journal:
    return Journal(connect(tmp_path / "board.db"))


def test_a_record_leaves_out_the_entries_it_cannot_read(journal: Journal) -> None:
    journal.append("service-start", {"pid": 1, "backend": "gpio"})
    journal.append("game-start", START, {"setup": {"players": []}}, game_id=4)
    journal.append("placement", {"game": 4, "slot": "a9", "player": 0, "move": 1, "lit": [],
                                 "eliminated": [], "to_move": 1}, {"kind": "attack"}, game_id=4)
    journal.append("placement", {"game": 4, "slot": "b9", "player": "one", "move": 2}, {"kind": "attack"},
                   game_id=4)
    journal.append("anomaly", {"kind": "lifted", "message": "no slot named"}, game_id=4)
    journal.append("pregame-check", {"game": 4, "result": 7}, game_id=4)
    journal.append("game-end", {"game": 4, "status": "abandoned", "players": ["Cy", "Di"]}, game_id=4)
    kept = board_game(journal, 4)
    record = kept.record
    assert record.layout == "pinwheel-80" and record.board == "gpio"
    assert [(line.slot, line.player) for line in record.moves] == [("a9", 0)]
    assert len(record.lines) == 1 and record.check is None
    assert record.result.status is Status.ABANDONED
    assert kept.kinds == ("attack",) and kept.is_over


def test_a_game_whose_start_cannot_be_read_has_no_record(journal: Journal) -> None:
    journal.append("game-start", {**START, "players": "Cy, Di"}, game_id=4)
    reason = r"its start cannot be read \(players is a list, not 'Cy, Di'\)"
    with pytest.raises(NoRecordError, match=f"there is no board game 4: {reason}"):
        board_game(journal, 4)
