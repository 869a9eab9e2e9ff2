"""The boards' reports into the event store: exactly once, in each board's order, acknowledged."""

from __future__ import annotations

from protocol import LiveReport
from store.dialect import Connection
from store.event import sql
from store.event.boards import Boards
from store.event.intake import ACK_SCAN, Intake
from store.event.publish import Publications
from tests.store.event.helpers import Reports, send


def _rows(conn: Connection, board: str = "board-1") -> list[tuple[str, int, str]]:
    return [
        (r[0], r[1], r[2])
        for r in conn.execute(
            "SELECT history, seq, kind FROM event_rows WHERE board = ? ORDER BY seq", (board,)
        )
    ]


def test_a_board_heard_of_for_the_first_time_is_listed_waiting_for_staff(
    intake: Intake, conn: Connection
) -> None:
    reports = Reports("board-7")
    receipt = send(intake, "board-7", [reports.status()])
    assert receipt.new_boards == ["board-7"]
    board = Boards(conn).get("board-7")
    assert board.online and not board.is_accepted and board.last_seen == 5000.0 and board.name == "board-7"
    assert send(intake, "board-7", [reports.status()]).new_boards == []


def test_rows_are_stored_once_and_acknowledged_contiguously(intake: Intake, conn: Connection) -> None:
    reports = Reports()
    rows = [reports.row("placement", {"slot": s}) for s in ("a9", "b9", "c9")]
    first = send(intake, "board-1", rows[:2])
    assert (first.stored, first.acks["board-1"].seq) == (2, 2)
    again = send(intake, "board-1", rows)  # a reconnect sends everything above the last ack it heard
    assert (again.stored, again.duplicates, again.acks["board-1"].seq) == (1, 2, 3)
    assert _rows(conn) == [("h1", 1, "placement"), ("h1", 2, "placement"), ("h1", 3, "placement")]
    assert Publications(conn).wanted("board-1", "ack") == b'{"history":"h1","seq":3}'


def test_a_gap_is_not_acknowledged_past_and_the_board_is_asked_again(intake: Intake) -> None:
    reports = Reports()
    rows = [reports.row("lamps", {"lit": []}) for _ in range(4)]
    receipt = send(intake, "board-1", [rows[0], rows[2], rows[3]])
    assert receipt.acks["board-1"].seq == 1 and receipt.acks["board-1"].resend
    assert not send(intake, "board-1", [rows[3]]).acks["board-1"].resend  # asked already: it is coming
    filled = send(intake, "board-1", [rows[1]])
    assert filled.acks["board-1"].seq == 4 and not filled.acks["board-1"].resend


def test_a_long_catch_up_is_acknowledged_to_its_end(intake: Intake) -> None:
    reports = Reports()
    rows = [reports.row("lamps", {"lit": []}) for _ in range(1234)]
    assert send(intake, "board-1", rows).acks["board-1"].seq == 1234


def test_a_row_sent_again_with_another_body_is_kept_aside_not_stored_over(
    intake: Intake, conn: Connection
) -> None:
    reports = Reports()
    send(intake, "board-1", [reports.row("placement", {"slot": "a9"})])
    rewritten = Reports()
    receipt = send(intake, "board-1", [rewritten.row("placement", {"slot": "i1"})])
    assert (receipt.stored, receipt.conflicts, receipt.duplicates) == (0, 1, 0)
    assert conn.execute(sql.ROW_BODY, ("board-1", "h1", 1)).fetchone()[0] == '{"slot":"a9"}'
    assert [r[3] for r in conn.execute(sql.CONFLICTS)] == ['{"slot":"i1"}']


def test_a_new_history_of_a_board_has_its_own_sequence(intake: Intake, conn: Connection) -> None:
    old = Reports(history="old")
    send(intake, "board-1", [old.row("lamps", {}) for _ in range(5)])
    new = Reports(history="new", first=1)  # the board's database was replaced: it counts from 1 again
    receipt = send(intake, "board-1", [new.status(), new.row("lamps", {})])
    assert (
        receipt.stored == 1 and receipt.acks["board-1"].seq == 1 and receipt.acks["board-1"].history == "new"
    )
    board = Boards(conn).get("board-1")
    assert board.history == "new" and board.acked_seq == 1


def test_a_history_starting_later_is_acknowledged_from_its_first_row(intake: Intake) -> None:
    reports = Reports(first=40)  # the board played 39 rows before it joined the event
    receipt = send(intake, "board-1", [reports.status()])
    assert receipt.acks == {}
    assert send(intake, "board-1", [reports.row("lamps", {})]).acks["board-1"].seq == 40


def test_the_last_will_keeps_what_the_board_said_before_it_went(
    intake: Intake, conn: Connection
) -> None:
    reports = Reports()
    send(intake, "board-1", [reports.status(game={"id": 3, "status": "running"})])
    send(intake, "board-1", [reports.status(online=False)])
    board = Boards(conn).get("board-1")
    assert not board.online and board.game == {"id": 3, "status": "running"}


def test_the_live_view_is_kept(intake: Intake, conn: Connection) -> None:
    send(intake, "board-1", [LiveReport({"id": 8, "pawns": {"a9": {"owner": 0}}})])
    assert Boards(conn).get("board-1").live == {"id": 8, "pawns": {"a9": {"owner": 0}}}


def test_a_finished_game_of_a_table_waits_for_every_seat_to_agree(
    intake: Intake, conn: Connection
) -> None:
    reports = Reports()
    send(intake, "board-1", reports.game(1, ["Ana", "Ben", "Cy"], assignment="a1"))
    row = conn.execute(sql.RESULT, (1,)).fetchone()
    assert (row["status"], row["deadline"]) == ("waiting", 5060.0)
    assert send(intake, "board-1", [reports.agree(1, [0]), reports.agree(1, [0, 2])]).results == 0
    assert conn.execute(sql.RESULT, (1,)).fetchone()["confirmed"] == "[0,2]"
    assert send(intake, "board-1", [reports.agree(1, [1])]).results == 1
    assert conn.execute(sql.RESULT, (1,)).fetchone()["status"] == "confirmed"


def test_games_without_a_table_or_without_a_result_make_no_result(
    intake: Intake, conn: Connection
) -> None:
    reports = Reports()
    send(intake, "board-1", reports.game(1, ["Ana", "Ben"]))  # a free game on the board
    send(intake, "board-1", reports.game(2, ["Ana", "Ben"], assignment="a1", status="abandoned"))
    assert conn.execute(sql.RESULTS).fetchall() == []
    games = conn.execute(sql.GAMES).fetchall()
    assert [(g["board_game"], g["status"], g["assignment"]) for g in games] == [
        (1, "over", None),
        (2, "abandoned", "a1"),
    ]


def test_a_row_twice_in_one_batch_is_stored_once_and_a_rewritten_copy_kept_aside(
    intake: Intake, conn: Connection
) -> None:
    reports = Reports()
    first, second = reports.row("placement", {"slot": "a9"}), reports.row("placement", {"slot": "b9"})
    rewritten = Reports().row("placement", {"slot": "i1"})  # seq 1 again, another body
    receipt = send(intake, "board-1", [first, second, first, rewritten])
    assert (receipt.stored, receipt.duplicates, receipt.conflicts) == (2, 1, 1)
    assert receipt.acks["board-1"].seq == 2
    assert [r[3] for r in conn.execute(sql.CONFLICTS)] == ['{"slot":"i1"}']


def test_a_gap_far_below_the_rows_stored_past_it_is_asked_again(intake: Intake) -> None:
    """Rows stored beyond a gap further than one window of the acknowledgement's scan: still a gap."""
    reports = Reports()
    rows = [reports.row("lamps", {"lit": []}) for _ in range(ACK_SCAN + 10)]
    receipt = send(intake, "board-1", rows[:3] + rows[-5:])
    assert receipt.acks["board-1"].seq == 3 and receipt.acks["board-1"].resend
