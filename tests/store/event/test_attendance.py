"""The players in the hall: their own links, check-in, "I agree" from a phone, flagged results."""

from __future__ import annotations

import pytest

from store.dialect import Connection
from store.event.assignments import Assignments
from store.event.attendance import (
    CODE_LENGTH,
    Attendance,
    AttendanceError,
    PlayerLinks,
    ResultFlags,
    clean_code,
)
from store.event.intake import Intake
from store.event.results import Results, ResultStateError
from store.tournaments import Tournaments
from tests.store.event.helpers import Reports, a_tournament, boards_online, send, table_of


def test_each_player_has_one_live_link_and_a_new_one_ends_the_old(event_db: Connection) -> None:
    links = PlayerLinks(event_db)
    issued = links.ensure(1, [1, 2, 3], actor="staff")
    assert sorted(issued) == [1, 2, 3]
    assert len({link.token for link in issued.values()}) == 3
    assert all(len(link.token) >= 32 for link in issued.values())
    assert all(len(link.code) == CODE_LENGTH for link in issued.values())
    assert links.ensure(1, [1, 2, 3], actor="staff") == issued  # printed twice: the same badges
    assert links.by_token(issued[2].token) == issued[2]
    assert links.by_code(1, issued[2].code.lower()[:3] + "-" + issued[2].code[3:]) == issued[2]
    assert links.by_code(2, issued[2].code) is None  # another tournament's code
    fresh = links.issue(1, 2, actor="staff")
    assert fresh.token != issued[2].token and links.of_tournament(1)[2] == fresh
    old = links.by_token(issued[2].token)
    assert old is not None and not old.is_live
    assert links.by_code(1, issued[2].code) in (None, fresh)  # the old badge's code is no longer theirs
    assert links.by_token("") is None and links.by_token("x" * 500) is None and links.by_token("nope") is None


def test_clean_code() -> None:
    assert clean_code(" ab3-k7q ") == "AB3K7Q"
    assert clean_code("é" * 40) == ""


def test_check_in_is_in_use_once_someone_checked_in(event_db: Connection) -> None:
    hall = Attendance(event_db)
    assert hall.absent(1, [1, 2, 3]) == ([], [])  # nobody checked in: everybody is seated, as before
    hall.mark(1, 1, here=True, by="player")
    hall.mark(1, 3, here=False, by="staff")
    assert hall.absent(1, [1, 2, 3]) == ([2], [3])
    hall.mark(1, 3, here=True, by="door")
    assert hall.absent(1, [1, 2, 3]) == ([2], [])
    assert hall.of_tournament(1)[3].by == "door" and hall.of_tournament(2) == {}


def test_a_flag_reaches_staff_until_they_saw_it(event_db: Connection) -> None:
    flags = ResultFlags(event_db)
    with pytest.raises(AttendanceError):
        flags.add(1, 1, 2, 5, "   ")
    flag = flags.add(1, 1, 2, 5, "  my lamp   never lit " + "x" * 400)
    assert flag.word.startswith("my lamp never lit") and len(flag.word) == 200
    assert [f.id for f in flags.unseen()] == [flag.id]
    assert flags.seen(flag.id, actor="staff") and not flags.seen(flag.id, actor="staff")
    assert flags.unseen() == [] and flags.of_player(1, 5)[0].seen_at is not None


def test_every_seat_agreeing_from_phones_confirms_the_result_once(event_db: Connection) -> None:
    intake = Intake(event_db, confirm_timeout=60)
    boards_online(intake, "board-1")
    tid = a_tournament(event_db, 4)
    (assignment,) = Assignments(event_db).assign_round(tid)
    table = table_of(event_db, tid, 1, 1)
    send(intake, "board-1", Reports("board-1").game(1, **table, assignment=assignment.id))
    results = Results(event_db)
    waiting = results.of_assignment(assignment.id)
    assert waiting is not None and waiting.status == "waiting"
    with pytest.raises(ResultStateError):
        results.agree(waiting.game, 4, by="player")
    for seat in (0, 1, 1, 2):  # a double tap counts once
        assert results.agree(waiting.game, seat, by="a player's link").status == "waiting"
    assert results.get(waiting.game).confirmed == (0, 1, 2)
    assert results.agree(waiting.game, 3, by="a player's link").status == "confirmed"
    results.settle()
    results.settle()
    t = Tournaments(event_db).load(tid)
    assert t.result(1, 1) is not None and len([e for e in t.events if e["kind"] == "result"]) == 1
    with pytest.raises(ResultStateError):
        results.agree(waiting.game, 0, by="a player's link")  # entered: nothing to agree to any more
