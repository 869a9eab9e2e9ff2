"""Board results into the tournament: after every seat agreed, exactly once, never over a hand entry."""

from __future__ import annotations

import sqlite3

import pytest

from games.hautetension.tournament_points import Lighting, game_points
from store.event.assignments import Assignment, Assignments
from store.event.intake import Intake
from store.event.publish import Publications
from store.event.results import Results, ResultStateError
from store.tournaments import Tournaments
from tests.store.event.helpers import Reports, a_tournament, boards_online, send


def _table(conn: sqlite3.Connection, tid: int, assignment: Assignment) -> list[str]:
    t = Tournaments(conn).load(tid)
    return [t.names[p] for p in t.round(assignment.round).table(assignment.table).seats]


@pytest.fixture
def played(intake: Intake, conn: sqlite3.Connection) -> tuple[int, Assignment, list[str], Reports]:
    """Round 1 of 8 players on two boards; board-1's game of table 1 played to its end."""
    boards_online(intake, "board-1", "board-2")
    tid = a_tournament(conn, 8)
    assignment = Assignments(conn).assign_round(tid)[0]
    names = _table(conn, tid, assignment)
    reports = Reports("board-1")
    send(intake, "board-1", reports.game(1, names, assignment=assignment.id))
    return tid, assignment, names, reports


def test_a_confirmed_result_is_entered_once_with_its_lamp_order(
    intake: Intake, conn: sqlite3.Connection, played: tuple[int, Assignment, list[str], Reports]
) -> None:
    tid, assignment, names, reports = played
    results = Results(conn)
    assert results.settle() == [] and Tournaments(conn).load(tid).result(1, 1) is None  # not confirmed yet
    send(intake, "board-1", [reports.agree(1, [0, 1, 2, 3])])
    (settled,) = results.settle()
    assert settled.status == "entered" and settled.entry_id is not None
    result = Tournaments(conn).load(tid).result(1, 1)
    assert result is not None and result.points == (4, 0, 2, 3)
    assert result.lightings == (Lighting((1,), 0), Lighting((2,), 0), Lighting((3,), 0))
    assert result.source["kind"] == "board" and result.source["board"] == "board-1"
    assert results.settle() == []
    entries = [e for e in Tournaments(conn).audit(tid) if e.kind == "result"]
    assert len(entries) == 1 and entries[0].actor == "board Table 1"
    assert Assignments(conn).get(assignment.id).is_done  # type: ignore[union-attr]
    assert Publications(conn).wanted("board-1", "assignment") == b""  # the board's table is cleared


def test_entered_once_even_when_marking_it_entered_was_lost(
    intake: Intake, conn: sqlite3.Connection, played: tuple[int, Assignment, list[str], Reports]
) -> None:
    """A crash between the tournament's entry and the result's mark: settling again records nothing new."""
    tid, _assignment, _names, reports = played
    send(intake, "board-1", [reports.agree(1, [0, 1, 2, 3])])
    Results(conn).settle()
    conn.execute("UPDATE event_results SET status = 'confirmed', entry_id = NULL")
    (again,) = Results(conn).settle()
    assert again.status == "entered"
    assert len([e for e in Tournaments(conn).audit(tid) if e.kind == "result"]) == 1


def test_seats_are_matched_by_name_when_the_board_sat_them_otherwise(
    intake: Intake, conn: sqlite3.Connection
) -> None:
    boards_online(intake, "board-1")
    tid = a_tournament(conn, 4)
    (assignment,) = Assignments(conn).assign_round(tid)
    names = _table(conn, tid, assignment)
    board_order = [names[2], names[0], names[3], names[1]]
    lightings = [Lighting((1,), 0), Lighting((2,), 3), Lighting((3,), 0)]
    reports = Reports("board-1")
    send(
        intake,
        "board-1",
        reports.game(
            1,
            board_order,
            assignment=assignment.id,
            points=game_points(4, lightings),
            lightings=[x.to_dict() for x in lightings],
        ),
    )
    send(intake, "board-1", [reports.agree(1, [0, 1, 2, 3])])
    Results(conn).settle()
    t = Tournaments(conn).load(tid)
    by_name = dict(zip(board_order, game_points(4, lightings), strict=True))
    assert list(t.result(1, 1).points) == [by_name[n] for n in names]  # type: ignore[union-attr]


def test_a_clash_with_a_hand_entry_is_flagged_never_overwritten(
    intake: Intake, conn: sqlite3.Connection, played: tuple[int, Assignment, list[str], Reports]
) -> None:
    tid, _assignment, _names, reports = played
    store = Tournaments(conn)
    hand = [Lighting((0,), 1), Lighting((1,), 2), Lighting((2,), 3)]
    store.record(tid, lambda t: t.enter_result(1, 1, hand), actor="tablet")
    send(intake, "board-1", [reports.agree(1, [0, 1, 2, 3])])
    (clash,) = Results(conn).settle()
    assert clash.status == "clash" and "already has a result (tablet entry" in (clash.problem or "")
    assert store.load(tid).result(1, 1).points == game_points(4, hand)  # type: ignore[union-attr]
    assert [r.game for r in Results(conn).needing_staff()] == [clash.game]
    assert Results(conn).settle() == []  # a clash waits for staff
    corrected = Results(conn).use_board_result(clash.game, actor="staff@tablet")
    assert corrected.status == "entered"
    final = store.load(tid).result(1, 1)
    assert final is not None and final.points == (4, 0, 2, 3)
    correction = store.audit(tid)[-1]
    assert correction.kind == "correction" and correction.actor == "staff@tablet"


def test_keeping_the_hand_entry_dismisses_the_board_result(
    intake: Intake, conn: sqlite3.Connection, played: tuple[int, Assignment, list[str], Reports]
) -> None:
    tid, _assignment, _names, reports = played
    Tournaments(conn).record(tid, lambda t: t.enter_result(1, 1, [Lighting((0,), 1)] * 1), actor="tablet")
    send(intake, "board-1", [reports.agree(1, [0, 1, 2, 3])])
    (clash,) = Results(conn).settle()
    dismissed = Results(conn).dismiss(clash.game, actor="staff@tablet")
    assert dismissed.status == "dismissed" and "dismissed by staff@tablet" in (dismissed.problem or "")
    assert Results(conn).needing_staff() == []
    with pytest.raises(ResultStateError):
        Results(conn).use_board_result(clash.game, actor="staff@tablet")


def test_a_result_not_confirmed_in_time_is_flagged_and_staff_may_confirm_it(
    intake: Intake, conn: sqlite3.Connection, played: tuple[int, Assignment, list[str], Reports]
) -> None:
    tid, _assignment, _names, reports = played
    send(intake, "board-1", [reports.agree(1, [0, 2])])
    early = Results(conn, clock=lambda: 5059.0)
    assert early.needing_staff() == []
    late = Results(conn, clock=lambda: 5061.0)
    (overdue,) = late.needing_staff()
    assert overdue.is_overdue(5061.0) and overdue.status == "waiting" and overdue.confirmed == (0, 2)
    confirmed = late.confirm(overdue.game, actor="staff@desk")
    assert confirmed.status == "confirmed" and confirmed.confirmed_by == "staff (staff@desk)"
    assert late.settle()[0].status == "entered" and Tournaments(conn).load(tid).result(1, 1) is not None
    with pytest.raises(ResultStateError, match="not waiting"):
        late.confirm(overdue.game, actor="staff@desk")


def test_a_result_for_a_table_moved_to_another_board_is_refused(
    intake: Intake, conn: sqlite3.Connection
) -> None:
    boards_online(intake, "board-1", "board-2")
    tid = a_tournament(conn, 4)
    (assignment,) = Assignments(conn).assign_round(tid)
    names = _table(conn, tid, assignment)
    Assignments(conn).move(assignment.id, "board-2")  # before board-1 started it
    reports = Reports("board-1")
    send(
        intake, "board-1", reports.game(1, names, assignment=assignment.id) + [reports.agree(1, [0, 1, 2, 3])]
    )
    (refused,) = Results(conn).settle()
    assert refused.status == "refused" and "moved from board board-1 to board-2" in (refused.problem or "")
    assert Tournaments(conn).load(tid).result(1, 1) is None


def test_a_result_whose_players_are_not_the_tables_is_refused(
    intake: Intake, conn: sqlite3.Connection
) -> None:
    boards_online(intake, "board-1")
    tid = a_tournament(conn, 4)
    (assignment,) = Assignments(conn).assign_round(tid)
    reports = Reports("board-1")
    send(
        intake,
        "board-1",
        reports.game(1, ["Ana", "Ben"], assignment=assignment.id) + [reports.agree(1, [0, 1])],
    )
    (refused,) = Results(conn).settle()
    assert refused.status == "refused" and "2 players but the table seats 4" in (refused.problem or "")


def test_a_round_ending_on_every_board_at_once_goes_in_together(
    intake: Intake, conn: sqlite3.Connection
) -> None:
    boards_online(intake, "board-1", "board-2", "board-3")
    tid = a_tournament(conn, 12)
    for number, assignment in enumerate(Assignments(conn).assign_round(tid), start=1):
        board = f"board-{number}"
        reports = Reports(board)
        names = _table(conn, tid, assignment)
        send(
            intake, board, reports.game(1, names, assignment=assignment.id) + [reports.agree(1, [0, 1, 2, 3])]
        )
    settled = Results(conn).settle()
    assert [r.status for r in settled] == ["entered"] * 3
    t = Tournaments(conn).load(tid)
    assert t.is_round_complete(1)
    assert {e.actor for e in Tournaments(conn).audit(tid) if e.kind == "result"} == {
        "board Table 1",
        "board Table 2",
        "board Table 3",
    }
