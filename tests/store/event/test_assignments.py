"""Tables to boards: proposed when a round is made, moved by staff, published retained, cleared when done."""

from __future__ import annotations

import json

import pytest

from store.dialect import Connection
from store.event.assignments import AssignmentError, Assignments, propose_boards
from store.event.boards import Boards
from store.event.intake import Intake
from store.event.publish import Publications
from store.tournaments import Tournaments
from tests.store.event.helpers import Reports, a_tournament, boards_online, send


def _published(conn: Connection, board: str) -> dict[str, object] | None:
    payload = Publications(conn).wanted(board, "assignment")
    return json.loads(payload) if payload else None


def test_tables_go_to_accepted_boards_in_label_order_online_first(
    intake: Intake, conn: Connection
) -> None:
    boards_online(intake, "board-c", "board-a", "board-b")
    boards_online(intake, "board-new", accept=False)
    send(intake, "board-a", [Reports("board-a").status(online=False)])
    plan = propose_boards([3, 1, 2], Boards(conn).all())
    assert plan == {1: "board-c", 2: "board-b", 3: "board-a"}  # Table 1, Table 3, then the offline Table 2
    assert propose_boards([1, 2, 3, 4, 5], Boards(conn).all())[5] is None  # more tables than boards


def test_a_round_is_sent_to_the_boards_with_who_sits_where(intake: Intake, conn: Connection) -> None:
    boards_online(intake, "board-1", "board-2")
    tid = a_tournament(conn, 12)
    assignments = Assignments(conn).assign_round(tid)
    assert [(a.table, a.board) for a in assignments] == [(1, "board-1"), (2, "board-2"), (3, None)]
    t = Tournaments(conn).load(tid)
    table = t.round(1).table(1)
    message = _published(conn, "board-1")
    assert message is not None
    assert message["assignment"] == assignments[0].id and (message["round"], message["table"]) == (1, 1)
    assert [p["name"] for p in message["players"]] == [t.names[p] for p in table.seats]  # type: ignore[index]
    assert message["first"] == t.names[table.seats[table.first]] and message["first_seat"] == table.first
    assert message["tournament_name"] == "Paris open" and message["layout"] == "pinwheel-80"
    assert Assignments(conn).assign_round(tid) == assignments  # done already: nothing changes


def test_handicap_pawns_are_sent_with_their_slots(intake: Intake, conn: Connection) -> None:
    boards_online(intake, "board-1", "board-2", "board-3")
    tid = a_tournament(conn, 8, handicap=True)
    store = Tournaments(conn)
    t = store.load(tid)
    for table in t.round(1).tables:  # round 1: the first seat wins each table by 4 points at least
        store.record(tid, lambda t, n=table.number: t.enter_result(1, n, _lamps_in_order(4)), actor="test")
    store.record(tid, lambda t: t.next_round(), actor="test")
    Assignments(conn).assign_round(tid)
    table = store.load(tid).round(2).table(1)
    assert table.handicap, "the round should carry a handicap"
    message = _published(conn, "board-1")
    assert message is not None and message["handicap_pawns"] == dict(table.handicap)
    slots = {h["slot"] for h in message["handicap"]}  # type: ignore[union-attr]
    assert len(slots) == sum(table.handicap.values()) and slots <= {
        "f9",
        "g9",
        "h9",
        "i4",
        "i3",
        "i2",
        "d1",
        "c1",
        "b1",
        "a6",
        "a7",
        "a8",
    }


def _lamps_in_order(seats: int) -> list:  # type: ignore[type-arg]
    from games.hautetension.outcome import Lighting

    return [Lighting((s,), by=0) for s in range(1, seats)]


def test_staff_move_a_table_and_two_tables_swap_boards(intake: Intake, conn: Connection) -> None:
    boards_online(intake, "board-1", "board-2", "board-3")
    tid = a_tournament(conn, 8)
    one, two = Assignments(conn).assign_round(tid)
    first = _published(conn, "board-1")
    moved = Assignments(conn).move(one.id, "board-2")
    assert [(a.table, a.board) for a in moved] == [(1, "board-2"), (2, "board-1")]
    assert _published(conn, "board-2")["assignment"] == one.id  # type: ignore[index]
    assert _published(conn, "board-1")["assignment"] == two.id  # type: ignore[index]
    assert first is not None and first["assignment"] == one.id
    alone = Assignments(conn).move(two.id, "board-3")
    assert [(a.table, a.board) for a in alone] == [(1, "board-2"), (2, "board-3")]
    assert _published(conn, "board-1") is None  # cleared: board-1 has no table now
    by_hand = Assignments(conn).move(two.id, None)
    assert by_hand[1].board is None and _published(conn, "board-3") is None


def test_a_table_being_played_cannot_move(intake: Intake, conn: Connection) -> None:
    boards_online(intake, "board-1", "board-2")
    tid = a_tournament(conn, 8)
    one, two = Assignments(conn).assign_round(tid)
    reports = Reports("board-1")
    send(intake, "board-1", reports.game(1, ["x", "y", "z", "w"], assignment=one.id)[:1])  # started only
    with pytest.raises(AssignmentError, match="being played on board board-1"):
        Assignments(conn).move(one.id, "board-2")
    with pytest.raises(AssignmentError, match="being played"):
        Assignments(conn).move(two.id, "board-1")  # it would swap with the table being played
    with pytest.raises(AssignmentError, match="not been accepted"):
        boards_online(intake, "board-9", accept=False)
        Assignments(conn).move(two.id, "board-9")


def test_a_round_cannot_be_sent_before_it_is_made(intake: Intake, conn: Connection) -> None:
    tid = Tournaments(conn).create("Empty", seed=1).id
    with pytest.raises(AssignmentError, match="no round yet"):
        Assignments(conn).assign_round(tid)


def test_the_next_round_frees_the_boards_of_the_last_one(intake: Intake, conn: Connection) -> None:
    boards_online(intake, "board-1")
    tid = a_tournament(conn, 4)
    (first,) = Assignments(conn).assign_round(tid)
    store = Tournaments(conn)
    store.record(tid, lambda t: t.enter_result(1, 1, _lamps_in_order(4)), actor="tablet")  # entered by hand
    store.record(tid, lambda t: t.next_round(), actor="test")
    (second,) = Assignments(conn).assign_round(tid)
    assert second.board == "board-1" and second.round == 2
    assert Assignments(conn).get(first.id).is_done  # type: ignore[union-attr]
    assert _published(conn, "board-1")["assignment"] == second.id  # type: ignore[index]
