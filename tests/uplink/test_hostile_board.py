"""A board, faulty or hostile, with its own password: nothing it sends stops, poisons or swells the server.

The real Mosquitto with the event's ACL, the ingest supervised as ``hautetension
central`` runs it, on SQLite and on PostgreSQL; what is sent is published with the
board's own password, as a stolen SD card would. After each attack the ingest is
alive, nothing invalid is stored, the refusal is counted for the board, and an
honest board's rows still go in.
"""

from __future__ import annotations

import json
from pathlib import Path

from flask import Flask

from protocol.limits import MAX_LIVE
from store.event.assignments import Assignments
from store.event.boards import Boards
from store.event.quarantine import Quarantine
from store.event.results import Results
from store.journal import JournalKind
from store.tournaments import Tournaments
from tests.servers.mosquitto import MosquittoBroker
from tests.store.event.helpers import a_tournament
from tests.uplink.helpers import (
    Board,
    Central,
    UplinkThread,
    broker_settings,
    uplink_settings,
    wait_for,
)
from tests.uplink.hostile import (
    Hostile,
    a_row,
    a_status,
    alive_and_honest,
    broker_cuts,
    database_size,
    received,
    stored_rows_are_valid,
)
from tests.webpanel.helpers import Api

MB = 1024 * 1024
BIG = 200_000
"""A message the shipped broker passes (its packet limit is 256 KiB) and the reader refuses."""


# -- one test per attack ------------------------------------------------------------------------------


def test_json_nested_5000_deep_on_outbox_live_and_status(
    server: Central, hostile: Hostile, secured: MosquittoBroker, tmp_path: Path
) -> None:
    """Before: RecursionError escaped the reader, the ingest thread died while the pages said connected."""
    deep = '{"a":' * 5000 + "1" + "}" * 5000
    hostile.send("status", a_status())
    hostile.send("outbox", deep)
    hostile.send("live", "[" * 5000 + "]" * 5000)
    hostile.send("status", "[" * 5000)  # 5,000 deep within a status's size (unclosed: never parsed)
    received(server, hostile)
    alive_and_honest(server, tmp_path, secured)
    assert Quarantine(server.conn).counts()["board-2"] == 3
    reasons = {q.reason for q in Quarantine(server.conn).recent()}
    assert reasons == {f"{what} nests arrays and objects more than 16 deep"
                       for what in ("an outbox row", "a live view", "a status")}
    assert set(Boards(server.conn).get("board-2").live or {}) == {"hello"}  # the last view it may serve
    assert server.ingest is not None and server.ingest.report()["last_error"] is None


def test_a_sequence_number_or_game_id_of_2_to_the_63(
    server: Central, hostile: Hostile, secured: MosquittoBroker, tmp_path: Path
) -> None:
    """Before: OverflowError binding the value for SQLite: the ingest thread died."""
    hostile.send("status", a_status())
    hostile.send("outbox", a_row(2**63))
    hostile.send("outbox", a_row(1, game=2**63))
    hostile.send("outbox", a_row(2, body={"game": 2**63 - 1}))  # within 64 bits: a body may hold it
    received(server, hostile)
    alive_and_honest(server, tmp_path, secured)
    assert Quarantine(server.conn).counts() == {"board-2": 2}
    stored = [(int(r[0]), str(r[1])) for r in server.conn.execute(
        "SELECT seq, kind FROM event_rows WHERE board = 'board-2' ORDER BY seq")]
    # Row 1 (its game out of range) is stood in for, so the board's history goes on; row 2 goes in.
    assert stored == [(1, "refused"), (2, "placement")]
    assert server.acked("board-2") == 2
    stored_rows_are_valid(server.conn)


def test_rows_of_1_mb_20_times_1_mb_16_mb_and_a_1_mb_live_view(
    server: Central, hostile: Hostile, secured: MosquittoBroker, tmp_path: Path, db_location: str
) -> None:
    """Before: all stored (the database grew from 300 KB to 41 MB), and the wall served 1 MB to each
    viewer. Now two walls: the broker cuts a sender whose message is beyond its packet limit (1 MB, 16 MB
    never reach the server), and what passes the broker but not the reader's bounds is refused there."""
    hostile.send("status", a_status())
    hostile.send("outbox", a_row(1, body={"slot": "a9"}))
    received(server, hostile)
    Boards(server.conn).accept("board-2", "Table 2", actor="test")
    before = database_size(server.conn, db_location)
    big = {"pad": ["x" * 2000] * (BIG // 2000)}  # within the broker's limit, beyond the reader's
    for seq in range(2, 22):
        hostile.send("outbox", a_row(seq, body=big))
    hostile.send("live", json.dumps(big))
    received(server, hostile)
    hostile.close()  # the broker pins a board's one session: the senders below take it in turn
    huge = {"pad": ["x" * 2000] * (MB // 2000)}
    assert broker_cuts(secured, "board-2", "outbox", a_row(22, body=huge))
    sixteen = {"pad": ["x" * 2000] * (16 * MB // 2000)}
    assert broker_cuts(secured, "board-2", "outbox", a_row(23, body=sixteen))
    assert broker_cuts(secured, "board-2", "live", json.dumps(huge))
    alive_and_honest(server, tmp_path, secured)
    grown = database_size(server.conn, db_location) - before
    assert grown < 2 * MB, f"the database grew by {grown} bytes"
    # Refused before they are parsed, so their place is never read: kept aside, counted, never stored
    # (an honest board reads its own rows with the same reader, and sends a stand-in instead).
    stored = [int(r[0]) for r in server.conn.execute("SELECT seq FROM event_rows WHERE board = 'board-2'")]
    assert stored == [1] and server.acked("board-2") == 1
    assert Quarantine(server.conn).counts() == {"board-2": 21}
    assert {q.size > BIG and len(q.head) == 256 for q in Quarantine(server.conn).recent()} == {True}
    assert set(Boards(server.conn).get("board-2").live or {}) == {"hello"}


def test_the_wall_never_serves_more_than_the_bound_per_board(
    server: Central, hostile: Hostile, pages: Flask
) -> None:
    """A live view just within the bound is served; a bigger one already stored (by a server before the
    bound) is not served again."""
    hostile.send("status", a_status())
    received(server, hostile)
    Boards(server.conn).accept("board-2", "Table 2", actor="test")
    hostile.send("live", json.dumps({"pad": "x" * 2000, "more": ["y" * 1000] * ((MAX_LIVE - 3000) // 1010)}))
    received(server, hostile)
    visitor = Api(pages.test_client())
    wall = visitor.get("/api/event/wall")
    assert wall.status_code == 200 and wall.get_json()["boards"][0]["live"] is not None
    assert len(wall.data) < MAX_LIVE + 16 * 1024
    server.conn.execute("UPDATE event_boards SET live = ? WHERE board = 'board-2'",
                        (json.dumps({"pad": ["x" * 1000] * 1000}),))
    wall = visitor.get("/api/event/wall")
    assert wall.status_code == 200 and wall.get_json()["boards"][0]["live"] is None
    assert len(wall.data) < 16 * 1024


def test_a_points_list_holding_x_stops_neither_the_ingest_nor_a_page(
    server: Central, hostile: Hostile, secured: MosquittoBroker, tmp_path: Path, pages: Flask
) -> None:
    """Before: ValueError in the results' settling killed the ingest, again on every restart, and /event,
    /api/event/results and the public wall answered 500 until someone edited the database."""
    conn = server.conn
    hostile.send("status", a_status())
    received(server, hostile)
    Boards(conn).accept("board-2", "Table 1", actor="test")
    tid = a_tournament(conn, players=4)
    (assignment,) = Assignments(conn).assign_round(tid)
    assert assignment.board == "board-2"
    t = Tournaments(conn).load(tid)
    names = [t.names[p] for p in t.round(1).table(1).seats]
    hostile.send("outbox", a_row(1, "game-start", {"game": 1, "players": names, "assignment": assignment.id}))
    hostile.send("outbox", a_row(2, "game-end", {"game": 1, "players": names, "status": "over",
                                                 "assignment": assignment.id, "points": ["x", 1, 2, 3]}))
    hostile.send("outbox", a_row(3, "result-confirmed", {"game": 1, "seats": [0, 1, 2, 3], "by": "player"}))
    received(server, hostile)
    alive_and_honest(server, tmp_path, secured)
    assert server.acked("board-2") == 3
    # Never entered; kept for staff (refused, or on the clash list) with the reason.
    assert Tournaments(conn).load(tid).result(1, 1) is None
    for result in Results(conn).all():
        assert result.status != "entered"
    staff, visitor = Api(pages.test_client()), Api(pages.test_client())
    assert staff.login().status_code == 200
    for client, path in ((staff, "/event"), (staff, "/api/event/results"), (visitor, "/api/event/wall"),
                         (visitor, "/event/wall"), (visitor, "/api/event/boards")):
        response = client.get(path)
        assert response.status_code == 200, (path, response.status_code)
    # Started again on the same database (a restart of the event server): nothing stops it.
    server.stop()
    server.start()
    hostile.send("outbox", a_row(4, body={"slot": "b9"}))
    wait_for(lambda: server.acked("board-2") == 4, timeout=30, what="a row after the restart")
    assert server.supervisor is not None and server.supervisor.alive and server.supervisor.restarts == 0


def test_the_ingest_reports_the_truth(server: Central, hostile: Hostile) -> None:
    """Alive, its last batch, what it refused, and a loop that ends is started again and says why."""
    assert server.ingest is not None and server.supervisor is not None
    hostile.send("live", b"\xff not json")
    received(server, hostile)
    report = server.ingest.report()
    assert report["refused"] == 1 and report["last_batch_at"] is not None
    # A loop that fails however it fails is started again, and the failure is reported.
    ingest = server.ingest
    original = ingest.step
    failures = iter([RuntimeError("a fault nobody foresaw")])

    def failing_step() -> None:
        failure = next(failures, None)
        if failure is not None:
            raise failure
        original()

    ingest.step = failing_step  # type: ignore[method-assign]
    wait_for(lambda: server.supervisor is not None and server.supervisor.restarts == 1, what="a restart")
    assert server.supervisor.last_error == "RuntimeError: a fault nobody foresaw"
    wait_for(lambda: server.supervisor is not None and server.supervisor.alive, what="alive again")
    hostile.send("live", b'{"ok": true}')
    received(server, hostile)
    assert Boards(server.conn).get("board-2").live == {"ok": True}


def test_an_honest_board_never_waits_behind_a_row_the_server_would_refuse(
    server: Central, secured: MosquittoBroker, tmp_path: Path
) -> None:
    """The uplink reads its own rows with the server's reader: a row too big to be taken goes as its
    stand-in, the server acknowledges past it and names it in the ack, the board says so, and the
    rows after it go in."""
    board = Board(tmp_path / "board", "board-1")
    uplink = UplinkThread(board, uplink_settings(broker_settings(secured, "board-1"), "board-1"))
    try:
        board.write(1)
        board.journal.append(JournalKind.PLACEMENT, {"n": 99, "pad": ["x" * 2000] * 40}, {}, game_id=1)
        board.write(2)
        wait_for(lambda: server.acked("board-1") == 4, timeout=30, what="every row, the big one stood in for")
        kinds = [str(r[0]) for r in server.conn.execute(
            "SELECT kind FROM event_rows WHERE board = 'board-1' ORDER BY seq")]
        assert kinds == ["placement", "refused", "placement", "placement"]
        wait_for(lambda: "refused row(s) 2" in str((board.outbox.state() or None) and
                                                   board.outbox.state().note), what="the board's note")
    finally:
        uplink.close()
