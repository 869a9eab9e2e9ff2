"""Board results into the tournament: after every seat agreed, exactly once, never over a hand entry."""

from __future__ import annotations

from typing import Any

import pytest

from games.hautetension.outcome import Lighting
from store.dialect import Connection
from store.event.assignments import Assignment, Assignments
from store.event.intake import Intake
from store.event.publish import Publications
from store.event.results import Results, ResultStateError
from store.tournaments import Tournaments
from tests.store.event.helpers import Reports, a_tournament, boards_online, played, send, table_of
from tournaments.points import game_points, lightings_of


def _table(conn: Connection, tid: int, assignment: Assignment) -> dict[str, Any]:
    return table_of(conn, tid, assignment.round, assignment.table)


@pytest.fixture
def played_game(intake: Intake, conn: Connection) -> tuple[int, Assignment, list[str], Reports]:
    """Round 1 of 8 players on two boards; board-1's game of table 1 played to its end."""
    boards_online(intake, "board-1", "board-2")
    tid = a_tournament(conn, 8)
    assignment = Assignments(conn).assign_round(tid)[0]
    table = _table(conn, tid, assignment)
    reports = Reports("board-1")
    send(intake, "board-1", reports.game(1, **table, assignment=assignment.id))
    return tid, assignment, table["players"], reports


def _expected(conn: Connection, tid: int, assignment: Assignment, *, seed: int = 0) -> Any:
    """The game the helpers play for a table (the same seeded placements), to compare with."""
    return played(**_table(conn, tid, assignment), seed=seed)


def test_a_confirmed_result_is_entered_once_with_its_lamp_order(
    intake: Intake, conn: Connection, played_game: tuple[int, Assignment, list[str], Reports]
) -> None:
    tid, assignment, names, reports = played_game
    results = Results(conn)
    assert results.settle() == [] and Tournaments(conn).load(tid).result(1, 1) is None  # not confirmed yet
    send(intake, "board-1", [reports.agree(1, [0, 1, 2, 3])])
    (settled,) = results.settle()
    assert settled.status == "entered" and settled.entry_id is not None
    game = _expected(conn, tid, assignment)
    result = Tournaments(conn).load(tid).result(1, 1)
    assert result is not None and result.points == game.points()
    assert result.lightings == lightings_of(game.history)
    assert result.lightings and settled.points == result.points and settled.holds
    assert result.source["kind"] == "board" and result.source["board"] == "board-1"
    assert results.settle() == []
    entries = [e for e in Tournaments(conn).audit(tid) if e.kind == "result"]
    assert len(entries) == 1 and entries[0].actor == "board Table 1"
    assert Assignments(conn).get(assignment.id).is_done  # type: ignore[union-attr]
    assert Publications(conn).wanted("board-1", "assignment") == b""  # the board's table is cleared


def test_entered_once_even_when_marking_it_entered_was_lost(
    intake: Intake, conn: Connection, played_game: tuple[int, Assignment, list[str], Reports]
) -> None:
    """A crash between the tournament's entry and the result's mark: settling again records nothing new."""
    tid, _assignment, _names, reports = played_game
    send(intake, "board-1", [reports.agree(1, [0, 1, 2, 3])])
    Results(conn).settle()
    conn.execute("UPDATE event_results SET status = 'confirmed', entry_id = NULL")
    (again,) = Results(conn).settle()
    assert again.status == "entered"
    assert len([e for e in Tournaments(conn).audit(tid) if e.kind == "result"]) == 1


def test_a_board_that_seated_the_tables_players_otherwise_is_a_clash(
    intake: Intake, conn: Connection
) -> None:
    """Seats are the turn order and the lamps: a board that sat the table otherwise did not play it."""
    boards_online(intake, "board-1")
    tid = a_tournament(conn, 4)
    (assignment,) = Assignments(conn).assign_round(tid)
    table = _table(conn, tid, assignment)
    names = table["players"]
    board_order = [names[2], names[0], names[3], names[1]]
    reports = Reports("board-1")
    send(intake, "board-1", reports.game(1, board_order, first=table["first"], assignment=assignment.id))
    send(intake, "board-1", [reports.agree(1, [0, 1, 2, 3])])
    (clash,) = Results(conn).settle()
    assert clash.status == "clash" and f"the board seated {board_order}" in (clash.problem or "")
    assert Tournaments(conn).load(tid).result(1, 1) is None


def test_a_clash_with_a_hand_entry_is_flagged_never_overwritten(
    intake: Intake, conn: Connection, played_game: tuple[int, Assignment, list[str], Reports]
) -> None:
    tid, _assignment, _names, reports = played_game
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
    assert final is not None and final.points == _expected(conn, tid, _assignment).points()
    correction = store.audit(tid)[-1]
    assert correction.kind == "correction" and correction.actor == "staff@tablet"


def test_keeping_the_hand_entry_dismisses_the_board_result(
    intake: Intake, conn: Connection, played_game: tuple[int, Assignment, list[str], Reports]
) -> None:
    tid, _assignment, _names, reports = played_game
    Tournaments(conn).record(tid, lambda t: t.enter_result(1, 1, [Lighting((0,), 1)] * 1), actor="tablet")
    send(intake, "board-1", [reports.agree(1, [0, 1, 2, 3])])
    (clash,) = Results(conn).settle()
    dismissed = Results(conn).dismiss(clash.game, actor="staff@tablet")
    assert dismissed.status == "dismissed" and "dismissed by staff@tablet" in (dismissed.problem or "")
    assert Results(conn).needing_staff() == []
    with pytest.raises(ResultStateError):
        Results(conn).use_board_result(clash.game, actor="staff@tablet")


def test_a_result_not_confirmed_in_time_is_flagged_and_staff_may_confirm_it(
    intake: Intake, conn: Connection, played_game: tuple[int, Assignment, list[str], Reports]
) -> None:
    tid, _assignment, _names, reports = played_game
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


def test_a_result_for_a_table_moved_to_another_board_is_a_clash(intake: Intake, conn: Connection) -> None:
    boards_online(intake, "board-1", "board-2")
    tid = a_tournament(conn, 4)
    (assignment,) = Assignments(conn).assign_round(tid)
    table = _table(conn, tid, assignment)
    Assignments(conn).move(assignment.id, "board-2")  # before board-1 started it
    reports = Reports("board-1")
    rows = reports.game(1, **table, assignment=assignment.id) + [reports.agree(1, [0, 1, 2, 3])]
    send(intake, "board-1", rows)
    (clash,) = Results(conn).settle()
    assert clash.status == "clash" and "table 1 was not given to board board-1 (it is board-2)" in (
        clash.problem or ""
    )
    assert Tournaments(conn).load(tid).result(1, 1) is None
    with pytest.raises(ResultStateError, match="cannot be used"):
        Results(conn).use_board_result(clash.game, actor="staff@desk")


def test_a_result_whose_players_are_not_the_tables_is_a_clash(intake: Intake, conn: Connection) -> None:
    boards_online(intake, "board-1")
    tid = a_tournament(conn, 4)
    (assignment,) = Assignments(conn).assign_round(tid)
    reports = Reports("board-1")
    send(
        intake,
        "board-1",
        reports.game(1, ["Ana", "Ben"], assignment=assignment.id) + [reports.agree(1, [0, 1])],
    )
    (clash,) = Results(conn).settle()
    assert clash.status == "clash" and "the board seated ['Ana', 'Ben'], but the table seats" in (
        clash.problem or ""
    )
    assert Tournaments(conn).load(tid).result(1, 1) is None


def test_a_round_ending_on_every_board_at_once_goes_in_together(intake: Intake, conn: Connection) -> None:
    boards_online(intake, "board-1", "board-2", "board-3")
    tid = a_tournament(conn, 12)
    for number, assignment in enumerate(Assignments(conn).assign_round(tid), start=1):
        board = f"board-{number}"
        reports = Reports(board)
        table = _table(conn, tid, assignment)
        send(
            intake,
            board,
            reports.game(1, **table, assignment=assignment.id) + [reports.agree(1, [0, 1, 2, 3])],
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
