"""Two uplinks with one board id (a copied SD card): the event server tells staff, and both boards' rows
still go in.

The broker pins a client's id to its user, so the two uplinks take the session from each other in
turn. Before, each reconnected at once and was cut off a second later, before it could send a row
(0 of the 29 rows of a board got through); now each waits a random, growing pause after a connection
cut short, so each holds the link long enough in turn. Each says which uplink process it is in its
status: the server sees two alternate and shows "connected from two places" on the event's page.
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from store.event.settings import EventSettings
from tests.servers.mosquitto import MosquittoBroker
from tests.uplink.helpers import Board, Central, UplinkProcess, wait_for
from tests.webpanel.helpers import Api, make_settings
from webpanel.app import close_app, create_app

ROWS = 29


def _copy(image: Board, folder: Path) -> Board:
    """The same SD card in another board: its database copied byte for byte."""
    folder.mkdir(parents=True)
    copy = sqlite3.connect(folder / "board.db")
    image.conn.backup(copy)
    copy.close()
    return Board(folder, image.board)


def _stored(central: Central, history: str) -> int:
    row = central.conn.execute(
        "SELECT COUNT(*) FROM event_rows WHERE board = 'board-1' AND history = ?", (history,)
    ).fetchone()
    return int(row[0])


def test_a_copied_sd_card_is_shown_to_staff_and_both_boards_rows_go_in(
    tmp_path: Path, secured: MosquittoBroker, central: Central
) -> None:
    image = Board(tmp_path / "image")
    image.write(2)  # games played at home, before the event
    boards = [_copy(image, tmp_path / "table-1"), _copy(image, tmp_path / "table-2")]
    # The shipped pace (a 2 s wait for the server's ack after each connect, as the boards run it).
    uplinks = [UplinkProcess(board, secured, quick=False) for board in boards]
    try:
        for uplink in uplinks:
            uplink.start()
        started = time.monotonic()
        for _ in range(ROWS):
            for board in boards:
                board.write(1)
            time.sleep(0.3)
        histories = []
        for board in boards:
            state = board.outbox.state()
            assert state is not None
            histories.append(state.history)
        wait_for(
            lambda: all(_stored(central, h) == ROWS for h in histories),
            180,
            "every row of both boards stored",
        )
        took = time.monotonic() - started
        assert all(uplink.alive() for uplink in uplinks)
    finally:
        for uplink in uplinks:
            if uplink.alive():
                uplink.stop()
    print(f"two uplinks, one board id: {ROWS} + {ROWS} rows stored in {took:.1f} s")
    for board, history in zip(boards, histories, strict=True):
        stored = central.conn.execute(
            "SELECT seq, body FROM event_rows WHERE board = 'board-1' AND history = ? ORDER BY seq",
            (history,),
        ).fetchall()
        assert [(int(r[0]), str(r[1])) for r in stored] == board.rows()

    # Staff see it on the event's page, in both languages, and in the boards' API.
    event = EventSettings(event="paris-2026", database=central.path, confirm_timeout=60)
    app = create_app({"PANEL": make_settings(tmp_path), "EVENT": event, "TESTING": True})
    try:
        staff = Api(app.test_client())
        assert staff.login().status_code == 200
        (listed,) = staff.get("/api/event/boards").get_json()
        assert listed["id"] == "board-1" and listed["two_places"] is True
        english = staff.get("/event", headers={"Accept-Language": "en"}).get_data(as_text=True)
        assert "Board board-1 is connected from two places" in english
        french = staff.get("/event", headers={"Accept-Language": "fr"}).get_data(as_text=True)
        assert "Le plateau board-1 est connecté depuis deux endroits" in french
    finally:
        close_app(app)


def test_one_board_restarting_its_uplink_is_not_two_places(
    tmp_path: Path, secured: MosquittoBroker, central: Central
) -> None:
    board = Board(tmp_path / "board")
    for _ in range(3):  # three processes one after another: three ids, never one heard again
        uplink = UplinkProcess(board, secured).start()
        board.write(1)
        wait_for(lambda: central.acked("board-1") == board.written, what="the row stored")
        assert uplink.stop() == 0
    event = EventSettings(event="paris-2026", database=central.path, confirm_timeout=60)
    app = create_app({"PANEL": make_settings(tmp_path), "EVENT": event, "TESTING": True})
    try:
        (listed,) = Api(app.test_client()).get("/api/event/boards").get_json()
        assert listed["two_places"] is False
    finally:
        close_app(app)
