"""A board's result is computed by the event server, never believed: what does not hold is a clash for staff.

The board reports its game's public record (docs/event-network.md, ``game-end``); the server replays it
against the table it assigned and derives the points itself. Every test here ends with the tournament
untouched and the board's result on staff's list with its reason, or entered exactly as the server
computed it. And whatever order a game's rows arrive in, the stored result is the same.
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from protocol import ReportedRow
from store.dialect import Connection
from store.event.assignments import Assignment, Assignments
from store.event.intake import Intake
from store.event.results import BoardResult, Results, ResultStateError
from store.tournaments import Tournaments
from tests.store.event.helpers import Reports, a_tournament, boards_online, play, played, send, table_of

_boards = itertools.count(1)


def _a_table(intake: Intake, conn: Connection) -> tuple[int, Assignment, dict[str, Any], str]:
    """A tournament of six players (two tables of three) whose table 1 is given to a board of its own:
    the tournament, the table's assignment, what a board playing it reports, the board."""
    board = f"board-{next(_boards)}"
    boards_online(intake, board)
    tid = a_tournament(conn, 6)
    assignment = Assignments(conn).assign_round(tid)[0]
    assert assignment.table == 1
    if assignment.board != board:
        assignment = Assignments(conn).move(assignment.id, board)[0]
    return tid, assignment, table_of(conn, tid, assignment.round, assignment.table), board


def _settle_one(conn: Connection) -> BoardResult:
    (result,) = Results(conn).settle()
    return result


def _clash(conn: Connection, tid: int, reason: str) -> BoardResult:
    """The one result settled is a clash for this reason; the tournament has no result; staff see it and
    cannot enter it as the board's."""
    result = _settle_one(conn)
    assert result.status == "clash", result
    assert reason in (result.problem or ""), result.problem
    assert Tournaments(conn).load(tid).result(1, 1) is None
    assert result.game in [r.game for r in Results(conn).needing_staff()]
    assert Results(conn).settle() == []  # it waits for staff
    with pytest.raises(ResultStateError, match="cannot be used"):
        Results(conn).use_board_result(result.game, actor="staff@desk")
    return result


def _all_agree(reports: Reports, players: int) -> ReportedRow:
    return reports.agree(1, list(range(players)))


def test_an_honest_game_is_entered_with_the_points_the_server_computed(
    intake: Intake, conn: Connection
) -> None:
    tid, assignment, table, board = _a_table(intake, conn)
    reports = Reports(board)
    send(intake, board, reports.game(1, **table, assignment=assignment.id, placements=True))
    send(intake, board, [_all_agree(reports, 3)])
    result = _settle_one(conn)
    expected = played(**table).points()
    assert result.status == "entered" and result.points == result.claimed == expected and result.holds
    entered = Tournaments(conn).load(tid).result(1, 1)
    assert entered is not None and entered.points == expected and entered.source["seats"] == "checked"
    assert len([e for e in Tournaments(conn).audit(tid) if e.kind == "result"]) == 1


def test_points_that_disagree_with_the_placements_are_a_clash(intake: Intake, conn: Connection) -> None:
    tid, assignment, table, board = _a_table(intake, conn)
    honest = played(**table).points()
    claimed = (
        [honest[1], honest[0], honest[2]] if honest[0] != honest[1] else [honest[2], honest[0], honest[1]]
    )
    reports = Reports(board)
    send(intake, board, reports.game(1, **table, assignment=assignment.id, points=claimed))
    send(intake, board, [_all_agree(reports, 3)])
    clash = _clash(conn, tid, f"the board claims points {claimed}, but its placements give {list(honest)}")
    assert clash.claimed == tuple(claimed) and not clash.holds


def test_plausible_points_with_no_game_played_are_never_entered(intake: Intake, conn: Connection) -> None:
    tid, assignment, table, board = _a_table(intake, conn)
    reports = Reports(board)
    empty = {"placements": [], "moves": 0, "lightings": []}
    send(intake, board, reports.game(1, **table, assignment=assignment.id, points=[3, 2, 0], end=empty))
    send(intake, board, [_all_agree(reports, 3)])
    _clash(conn, tid, "the rules do not end the game after these 0 placements")


def test_a_game_ended_before_the_rules_end_it_is_a_clash(intake: Intake, conn: Connection) -> None:
    tid, assignment, table, board = _a_table(intake, conn)
    game = played(**table)
    kept = [
        {"slot": p.slot, "player": p.player, "lit": sorted(p.lit), "eliminated": list(p.eliminated)}
        for p in game.history[:-1]
    ]
    reports = Reports(board)
    send(intake, board, reports.game(1, **table, assignment=assignment.id, end={"placements": kept}))
    send(intake, board, [_all_agree(reports, 3)])
    _clash(conn, tid, f"the rules do not end the game after these {len(kept)} placements")


def test_a_placement_out_of_turn_is_a_clash(intake: Intake, conn: Connection) -> None:
    tid, assignment, table, board = _a_table(intake, conn)
    game = played(**table)
    placements = [
        {"slot": p.slot, "player": p.player, "lit": sorted(p.lit), "eliminated": list(p.eliminated)}
        for p in game.history
    ]
    placements[1]["player"] = placements[0]["player"]  # the first player again
    reports = Reports(board)
    send(intake, board, reports.game(1, **table, assignment=assignment.id, end={"placements": placements}))
    send(intake, board, [_all_agree(reports, 3)])
    _clash(conn, tid, "placement 2: move 2 is P")


def test_a_lamp_no_row_of_pawns_could_light_is_a_clash(intake: Intake, conn: Connection) -> None:
    """Lamps are taken as reported (the kinds are secret), but only where a full row could light them."""
    tid, assignment, table, board = _a_table(intake, conn)
    game = played(**table)
    placements = [
        {"slot": p.slot, "player": p.player, "lit": sorted(p.lit), "eliminated": list(p.eliminated)}
        for p in game.history
    ]
    mover = placements[0]["player"]
    victim = (mover + 1) % 3
    placements[0].update(lit=[["N", "E", "S"][victim]], eliminated=[victim])  # the very first pawn
    reports = Reports(board)
    send(intake, board, reports.game(1, **table, assignment=assignment.id, end={"placements": placements}))
    send(intake, board, [_all_agree(reports, 3)])
    _clash(conn, tid, f"placement 1 on {placements[0]['slot']} lit")


def test_another_first_player_or_handicap_than_the_tables_is_a_clash(
    intake: Intake, conn: Connection
) -> None:
    tid, assignment, table, board = _a_table(intake, conn)
    other_first = (table["first"] + 1) % 3
    reports = Reports(board)
    send(intake, board, reports.game(1, **{**table, "first": other_first}, assignment=assignment.id))
    send(intake, board, [_all_agree(reports, 3)])
    _clash(
        conn, tid, f"played first on the board, but the table has {table['players'][table['first']]} start"
    )

    tid, assignment, table, board = _a_table(intake, conn)
    reports = Reports(board)
    send(intake, board, reports.game(1, **{**table, "handicap": {"N": 1}}, assignment=assignment.id))
    send(intake, board, [_all_agree(reports, 3)])
    _clash(conn, tid, "the board's handicap is {'N': 1}, the table's {}")


def test_a_game_started_before_its_table_was_given_is_a_clash(intake: Intake, conn: Connection) -> None:
    """A game played before the round was made, its end then naming the table: its start names none."""
    tid, assignment, table, board = _a_table(intake, conn)
    reports = Reports(board)
    start, end = reports.game(1, **table, assignment=assignment.id)
    early = ReportedRow(
        start.seq,
        start.history,
        start.first,
        start.kind,
        start.game,
        start.at,
        {k: v for k, v in start.body.items() if k != "assignment"},
    )
    send(intake, board, [early, end, _all_agree(reports, 3)])
    _clash(
        conn,
        tid,
        "the game was started before round 1 table 1 was given to the board: its start names no table",
    )


def test_a_table_the_event_server_never_made_is_a_clash(intake: Intake, conn: Connection) -> None:
    tid, _assignment, table, board = _a_table(intake, conn)
    reports = Reports(board)
    send(intake, board, reports.game(1, **table, assignment="f00d") + [_all_agree(reports, 3)])
    result = _settle_one(conn)
    assert result.status == "clash" and "table assignment f00d, which this event server never made" in (
        result.problem or ""
    )
    assert Tournaments(conn).load(tid).result(1, 1) is None


@pytest.mark.parametrize("order", ["honest end first", "other end first"])
def test_a_game_ended_twice_is_a_clash_whichever_end_came_first(
    intake: Intake, conn: Connection, order: str
) -> None:
    tid, assignment, table, board = _a_table(intake, conn)
    reports = Reports(board)
    start, end = reports.game(1, **table, assignment=assignment.id)
    other = reports.row("game-end", {**end.body, "points": [4, 4, 4]}, game=1)
    ends = [end, other] if order == "honest end first" else [other, end]
    for row in [start, *ends, _all_agree(reports, 3)]:
        send(intake, board, [row])
    _clash(conn, tid, f"the board ended its game 1 twice (rows {end.seq} and {other.seq})")


@pytest.mark.parametrize(
    ("what", "end", "reason"),
    [
        (
            "a board on older software",
            {"placements": None, "points": [4, 2, 0], "lightings": [{"seats": [2], "by": 0}]},
            "the board's software is older than the event server's: its game end lists no placements",
        ),
        ('points holding "x"', {"points": ["x", 2, 0]}, "points is a whole number from 0 to 12"),
        ("points of another table's size", {"points": [4, 2]}, "the points are a list of 3 whole numbers"),
        ("a slot name of a kilobyte", {"placements": [{"slot": "a" * 1024, "player": 0}]}, "slot is a text"),
        ("a seat the table does not have", {"first": 7}, "first is a whole number from 0 to 2"),
        ("a layout path", {"layout": "/etc/passwd"}, "the game names layout '/etc/passwd'"),
    ],
)
def test_a_game_end_that_cannot_be_read_is_a_clash_with_its_reason_never_a_crash(
    intake: Intake, conn: Connection, what: str, end: dict[str, Any], reason: str
) -> None:
    tid, assignment, table, board = _a_table(intake, conn)
    reports = Reports(board)
    rows = reports.game(1, **table, assignment=assignment.id)
    body = {**rows[1].body, **end}
    if end.get("placements", []) is None:
        del body["placements"]  # the old shape: "moves" a count, no placements
        body["moves"] = 9
    bad = ReportedRow(rows[1].seq, rows[1].history, rows[1].first, "game-end", 1, rows[1].at, body)
    send(intake, board, [rows[0], bad, _all_agree(reports, 3)])
    (listed,) = Results(conn).all()  # readable before it is settled too
    assert listed.status == "confirmed" and not listed.holds and reason in (listed.unsound or "")
    _clash(conn, tid, reason)


# -- order ------------------------------------------------------------------------------------------


def test_agreements_before_the_game_end_are_counted_when_it_arrives(intake: Intake, conn: Connection) -> None:
    tid, assignment, table, board = _a_table(intake, conn)
    reports = Reports(board)
    start, end = reports.game(1, **table, assignment=assignment.id)
    send(intake, board, [start, reports.agree(1, [0]), reports.agree(1, [1, 2])])  # the end is late
    assert Results(conn).settle() == []
    assert send(intake, board, [end]).results == 1
    result = _settle_one(conn)
    assert result.status == "entered" and result.confirmed == (0, 1, 2)
    assert result.confirmed_by == "the players at the board"
    assert Tournaments(conn).load(tid).result(1, 1) is not None


def test_a_game_end_before_its_start_waits_for_it(intake: Intake, conn: Connection) -> None:
    tid, assignment, table, board = _a_table(intake, conn)
    reports = Reports(board)
    start, end = reports.game(1, **table, assignment=assignment.id)
    send(intake, board, [end, _all_agree(reports, 3)])
    (waiting,) = Results(conn).all()
    assert waiting.status == "waiting" and waiting.confirmed == (0, 1, 2) and not waiting.started
    assert Results(conn).settle() == []
    send(intake, board, [start])
    result = _settle_one(conn)
    assert result.status == "entered" and result.started
    game = conn.execute("SELECT status FROM event_games WHERE board = ?", (board,)).fetchone()
    assert game["status"] == "over"  # the late start did not make the game run again


def _stored(conn: Connection, tid: int) -> tuple[Any, ...]:
    """What the event server holds of a one-table tournament's board result, without its ids."""
    (result,) = [r for r in Results(conn).all() if Assignments(conn).get(r.assignment).tournament_id == tid]  # type: ignore[union-attr]
    entry = Tournaments(conn).load(tid).result(1, 1)
    entries = [e for e in Tournaments(conn).audit(tid) if e.kind == "result"]
    return (
        result.status,
        result.confirmed,
        result.confirmed_by,
        result.points,
        result.problem,
        None if entry is None else (entry.points, entry.lightings),
        len(entries),
    )


@settings(
    max_examples=15,
    deadline=None,
    derandomize=True,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
    ],
)
@given(data=st.data())
def test_a_games_rows_in_any_order_split_and_repeated_give_the_same_result(
    intake: Intake, conn: Connection, data: st.DataObject
) -> None:
    """QoS 1 reorders across reconnects: a game's start, placements, end and "I agree" rows, shuffled,
    cut into batches (the results settled after each, as the ingest does) and some sent twice."""
    seed = data.draw(st.integers(0, 3), label="game")
    by_staff = data.draw(st.booleans(), label="staff agree for one seat")

    def rows_of(reports: Reports, assignment: Assignment, table: dict[str, Any]) -> list[ReportedRow]:
        game = reports.game(1, **table, assignment=assignment.id, seed=seed, placements=True)
        return [*game, reports.agree(1, [0]), reports.agree(1, [2, 1], by="staff" if by_staff else "player")]

    tid, assignment, table, board = _a_table(intake, conn)
    reports = Reports(board)
    in_order = rows_of(reports, assignment, table)
    send(intake, board, in_order)
    Results(conn).settle()
    expected = _stored(conn, tid)
    assert expected[0] == "entered" and expected[-1] == 1

    tid, assignment, table, board = _a_table(intake, conn)
    rows = rows_of(Reports(board), assignment, table)
    shuffled = data.draw(st.permutations(rows), label="order")
    again = data.draw(st.lists(st.sampled_from(rows), max_size=4), label="sent twice")
    for row in again:
        shuffled.insert(data.draw(st.integers(0, len(shuffled)), label="where"), row)
    cuts = sorted(data.draw(st.sets(st.integers(1, len(shuffled) - 1), max_size=5), label="batches"))
    for start, end in itertools.pairwise([0, *cuts, len(shuffled)]):
        send(intake, board, shuffled[start:end])
        Results(conn).settle()
    assert _stored(conn, tid) == expected


def test_a_table_with_handicap_pawns_played_as_assigned_is_entered(intake: Intake, conn: Connection) -> None:
    """Round 2 of a handicap tournament: the leaders' lamps carry handicap pawns, the board places them
    before play (they fill rows: the server's replay has them on their slots too)."""
    store = Tournaments(conn)
    tid = store.create("Handicap open", seed=5, handicap=True, handicap_step=2).id
    for n in range(1, 9):
        store.record(tid, lambda t, n=n: t.register(f"P{n}"), actor="test")
    play(conn, tid, seed=11, rounds=1)
    store.record(tid, lambda t: t.next_round(), actor="test")
    current = store.load(tid).current_round
    assert current is not None and current.number == 2
    handicapped = [table for table in current.tables if table.handicap]
    assert handicapped, "round 2 gives the leaders handicap pawns"
    boards_online(intake, "board-h1", "board-h2")
    assignments = Assignments(conn).assign_round(tid)
    for assignment in assignments:
        assert assignment.board is not None
        table = table_of(conn, tid, 2, assignment.table)
        reports = Reports(assignment.board)
        send(
            intake,
            assignment.board,
            reports.game(1, **table, assignment=assignment.id) + [_all_agree(reports, 4)],
        )
    settled = Results(conn).settle()
    assert [r.status for r in settled] == ["entered"] * len(assignments)
    t = store.load(tid)
    for table in handicapped:
        recorded = t.result(2, table.number)
        board_game = played(**table_of(conn, tid, 2, table.number))
        assert recorded is not None and recorded.points == board_game.points() and board_game.handicap
