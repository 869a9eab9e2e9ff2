"""A board's results against the running event server, through the real Mosquitto: computed, never believed.

Each test is a row of the attack-and-fault matrix (docs/event-network.md): a board with its own password
(board-1's account, the event's ACL) publishes on its own ``outbox`` topic exactly what it chooses, and
the event server's ingest (a thread, as ``hautetension central`` runs it) takes it. A result the server
cannot believe never enters the tournament and waits on staff's list with its reason; the players'
agreement counts whatever order it arrives in; an honest game is entered exactly once.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import paho.mqtt.client as mqtt
import pytest

from protocol import Leaf, ReportedRow, dumps, topic
from store.event.assignments import Assignment, Assignments
from store.event.intake import Intake
from store.event.results import BoardResult, Results
from store.tournaments import Tournaments
from tests.servers.mosquitto import MosquittoBroker
from tests.store.event.helpers import Reports, a_tournament, boards_online, played, table_of
from tests.uplink.helpers import EVENT, USERS, Central, wait_for

BOARD = "board-1"


class BoardClient:
    """board-1 as anyone holding its password: publishes what it likes on its own topics."""

    def __init__(self, broker: MosquittoBroker) -> None:
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"hautetension-{EVENT}-{BOARD}")
        self.client.username_pw_set(BOARD, USERS[BOARD])
        self.client.connect(broker.host, broker.port)
        self.client.loop_start()

    def status(self, reports: Reports) -> None:
        payload = dumps(reports.status().status)
        self.client.publish(topic(EVENT, BOARD, Leaf.STATUS), payload, qos=1, retain=True).wait_for_publish(
            10
        )

    def send(self, rows: Sequence[ReportedRow]) -> None:
        for row in rows:
            message = {
                "seq": row.seq,
                "first": row.first,
                "history": row.history,
                "kind": row.kind,
                "game": row.game,
                "at": row.at,
                "body": dict(row.body),
            }
            self.client.publish(topic(EVENT, BOARD, Leaf.OUTBOX), dumps(message), qos=1).wait_for_publish(10)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


@pytest.fixture
def board(secured: MosquittoBroker) -> Iterator[BoardClient]:
    client = BoardClient(secured)
    yield client
    client.close()


def _table(central: Central) -> tuple[int, Assignment, dict[str, Any]]:
    """Six players (two tables of three), round 1 made and sent: table 1 to board-1 (accepted)."""
    conn = central.conn
    tid = a_tournament(conn, 6)
    boards_online(Intake(conn, confirm_timeout=60), BOARD)
    assignment = Assignments(conn).assign_round(tid)[0]
    assert (assignment.table, assignment.board) == (1, BOARD)
    return tid, assignment, table_of(conn, tid, 1, 1)


def _settled_to(central: Central, status: str) -> BoardResult:
    return wait_for(
        lambda: next((r for r in Results(central.conn).all() if r.status == status), None),
        20,
        f"the board's result {status}",
    )


def _stored_every_row(central: Central, count: int) -> None:
    wait_for(lambda: len(central.rows(BOARD)) == count, 20, f"the {count} rows stored")


def test_agreements_that_arrive_before_their_game_end_are_counted(
    central: Central, board: BoardClient
) -> None:
    """Reordered across a reconnect: every "I agree" first, then the game's end, then its start."""
    tid, assignment, table = _table(central)
    reports = Reports(BOARD)
    start, end = reports.game(1, **table, assignment=assignment.id)
    agree = [reports.agree(1, [0]), reports.agree(1, [1, 2])]
    board.status(reports)
    board.send([*agree, end])
    _stored_every_row(central, 3)
    waiting = wait_for(
        lambda: next((r for r in Results(central.conn).all() if r.confirmed == (0, 1, 2)), None),
        20,
        "the agreements kept",
    )
    assert waiting.status == "waiting" and not waiting.started  # its start is not in yet
    board.send([start])
    entered = _settled_to(central, "entered")
    assert entered.confirmed == (0, 1, 2) and entered.confirmed_by == "the players at the board"
    recorded = Tournaments(central.conn).load(tid).result(1, 1)
    assert recorded is not None and recorded.points == played(**table).points()


def test_plausible_points_for_its_own_table_with_no_game_played_are_never_entered(
    central: Central, board: BoardClient
) -> None:
    tid, assignment, table = _table(central)
    reports = Reports(BOARD)
    nothing = {"placements": [], "moves": 0, "lightings": [], "outcome": None}
    rows = reports.game(1, **table, assignment=assignment.id, points=[3, 2, 0], end=nothing)
    board.status(reports)
    board.send([*rows, reports.agree(1, [0, 1, 2])])
    clash = _settled_to(central, "clash")
    assert "the rules do not end the game after these 0 placements" in (clash.problem or "")
    assert clash.claimed == (3, 2, 0) and not clash.holds
    assert [r.game for r in Results(central.conn).needing_staff()] == [clash.game]
    assert Tournaments(central.conn).load(tid).result(1, 1) is None


def test_a_points_list_the_placements_do_not_give_is_a_clash(central: Central, board: BoardClient) -> None:
    tid, assignment, table = _table(central)
    honest = list(played(**table).points())
    claimed = honest[1:] + honest[:1]
    assert claimed != honest
    reports = Reports(BOARD)
    board.status(reports)
    board.send(
        [*reports.game(1, **table, assignment=assignment.id, points=claimed), reports.agree(1, [0, 1, 2])]
    )
    clash = _settled_to(central, "clash")
    assert f"the board claims points {claimed}, but its placements give {honest}" in (clash.problem or "")
    assert Tournaments(central.conn).load(tid).result(1, 1) is None


def test_a_game_end_of_a_board_on_older_software_is_refused_with_its_reason(
    central: Central, board: BoardClient
) -> None:
    """The game end as boards wrote it before: a move count and free points, no placements."""
    tid, assignment, table = _table(central)
    reports = Reports(BOARD)
    start, _ = reports.game(1, **table, assignment=assignment.id)
    old = {
        "game": 1,
        "assignment": assignment.id,
        "status": "over",
        "players": table["players"],
        "moves": 12,
        "points": ["x", 2, 0],
        "lightings": [{"seats": [1], "by": 0}, {"seats": [2], "by": 0}],
    }
    end = reports.row("game-end", old, game=1)
    board.status(reports)
    board.send([start, end, reports.agree(1, [0, 1, 2])])
    clash = _settled_to(central, "clash")
    assert "the board's software is older than the event server's" in (clash.problem or "")
    assert Tournaments(central.conn).load(tid).result(1, 1) is None
    assert central.ingest is not None and central.ingest.store_errors == 0


def test_an_honest_game_sent_twice_and_out_of_order_is_entered_exactly_once(
    central: Central, board: BoardClient
) -> None:
    tid, assignment, table = _table(central)
    reports = Reports(BOARD)
    rows = [*reports.game(1, **table, assignment=assignment.id, placements=True), reports.agree(1, [0, 1, 2])]
    board.status(reports)
    board.send(rows[::-1] + rows)
    _settled_to(central, "entered")
    _stored_every_row(central, len(rows))
    recorded = Tournaments(central.conn).load(tid).result(1, 1)
    assert recorded is not None and recorded.points == played(**table).points()
    assert len([e for e in Tournaments(central.conn).audit(tid) if e.kind == "result"]) == 1
    assert [r.status for r in Results(central.conn).all()] == ["entered"]
