"""The event's table on the board's display, with the real board service on the simulated board."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from store.db import connect
from store.journal import Journal, JournalKind
from store.outbox import Outbox
from tests.hardware.helpers import LiveService
from tests.webpanel.helpers import Api, make_settings, pass_pregame_check, wait_for
from webpanel.app import close_app, create_app
from webpanel.config import PanelSettings

ASSIGNMENT = {
    "assignment": "5b1e0c7d9a2f4e3b8c6d1a0f2e4b6c8d",
    "tournament": 1,
    "tournament_name": "Paris open",
    "round": 2,
    "table": 3,
    "players": [
        {"name": "Cleo", "lamp": "N", "colour": "red"},
        {"name": "Dan", "lamp": "S", "colour": "blue"},
    ],
    "first": "Dan",
    "first_seat": 1,
    "handicap": [{"slot": "f9", "lamp": "N", "player": "Cleo"}],
    "handicap_pawns": {"N": 1},
    "layout": "pinwheel-80",
}
N_COLUMN = ["f8", "f7", "f6", "f5"]  # with the handicap pawn on f9: closes N, Cleo's lamp


@pytest.fixture
def board(tmp_path: Path) -> Iterator[tuple[Flask, Outbox]]:
    settings: PanelSettings = make_settings(tmp_path)
    live = LiveService(settings.database)
    app = create_app({"PANEL": settings, "TESTING": True})
    outbox = Outbox(connect(settings.database))
    yield app, outbox
    close_app(app)
    outbox.conn.close()
    live.stop()


def _phase(api: Api) -> str:
    return str(api.get("/api/table").get_json()["phase"])


def _assigned(outbox: Outbox) -> None:
    outbox.enroll("paris-2026", "board-3")
    outbox.set_assignment(ASSIGNMENT)


def test_a_board_outside_any_event_says_so(board: tuple[Flask, Outbox]) -> None:
    app, outbox = board
    api = Api(app.test_client())
    assert api.get("/api/table").get_json() == {
        "phase": "no-event",
        "event": None,
        "assignment": None,
        "game": None,
    }
    assert api.get("/").status_code == 200  # the home page stays the board's
    outbox.enroll("paris-2026", "board-3")
    state = api.get("/api/table").get_json()
    assert state["phase"] == "waiting" and state["event"]["board"] == "board-3"
    assert not state["event"]["connected"]


def test_the_assigned_table_is_shown_and_is_the_home_page(board: tuple[Flask, Outbox]) -> None:
    app, outbox = board
    _assigned(outbox)
    api = Api(app.test_client())
    assert _phase(api) == "assigned"
    home = api.get("/")
    assert home.status_code == 302 and home.headers["Location"].endswith("/table")
    page = api.get("/table?lang=en")
    html = page.get_data(as_text=True)
    assert page.status_code == 200 and "Start the game" in html and "Cleo" in html and "f9" in html


def test_one_touch_starts_the_tables_game_with_its_players_first_player_and_handicap(
    board: tuple[Flask, Outbox],
) -> None:
    app, outbox = board
    _assigned(outbox)
    api = Api(app.test_client())
    response = api.post("/api/table/start", {})
    assert response.status_code == 201, response.get_json()
    state = api.get("/api/table").get_json()
    assert state["phase"] == "playing"
    game = state["game"]
    assert [s["name"] for s in game["seats"]] == ["Cleo", "Dan"] and game["assignment"] == ASSIGNMENT[
        "assignment"
    ]
    start = Journal(outbox.conn).last_of_kind(JournalKind.GAME_START)
    assert start is not None and start.public["first"] == 1 and start.public["handicap"] == {"N": 1}
    assert api.get("/").status_code == 200  # a game running: the home page is the board again
    again = api.post("/api/table/start", {})
    assert again.status_code == 409 and "no table to start" in again.get_json()["error"]


def test_a_start_on_a_board_that_is_not_empty_is_refused(board: tuple[Flask, Outbox]) -> None:
    app, outbox = board
    _assigned(outbox)
    api = Api(app.test_client())
    assert api.post("/api/sim/slots/a1", {"pawn": "attack"}).status_code == 200
    wait_for(lambda: api.get("/api/board").get_json()["pawns"])
    refused = api.post("/api/table/start", {})
    assert refused.status_code == 409 and "the board is not empty (a1)" in refused.get_json()["error"]
    assert _phase(api) == "assigned"
    assert api.post("/api/table/start", {"now": True}).status_code == 400


def _play_to_the_end(api: Api) -> None:
    assert api.post("/api/table/start", {}).status_code == 201
    pass_pregame_check(api)
    for slot in ["f9", *N_COLUMN]:  # the handicap pawn first (it belongs to nobody), then the column
        assert api.post(f"/api/sim/slots/{slot}", {"pawn": "attack"}).status_code == 200
        wait_for(lambda s=slot: s in api.get("/api/board").get_json()["pawns"])  # type: ignore[misc]
    wait_for(lambda: _phase(api) == "confirm")


def test_each_seat_agrees_then_the_result_goes_to_the_event(board: tuple[Flask, Outbox]) -> None:
    app, outbox = board
    _assigned(outbox)
    api = Api(app.test_client())
    _play_to_the_end(api)
    game = api.get("/api/table").get_json()["game"]
    assert game["points"] == [0, 4] and game["confirmed"] == []
    assert api.get("/").headers["Location"].endswith("/table")  # the result waits at the table
    assert api.post("/api/table/confirm", {"seat": 1}).get_json() == {"game": 1, "confirmed": [1]}
    assert api.post("/api/table/confirm", {"seat": 0}).get_json()["confirmed"] == [0, 1]
    state = api.get("/api/table").get_json()
    assert state["phase"] == "confirmed" and state["game"]["delivered"] is False
    sent = outbox.last_of("result-confirmed", 1)
    assert sent is not None
    outbox.record_ack(sent)  # the event server acknowledged it
    assert api.get("/api/table").get_json()["game"]["delivered"] is True
    outbox.set_assignment({**ASSIGNMENT, "assignment": "99", "round": 3})  # the next round's table
    assert _phase(api) == "assigned"


@pytest.mark.parametrize(
    ("body", "status"),
    [
        ({}, 400),
        ({"seat": 7}, 400),
        ({"seat": "0"}, 400),
        ({"seat": 0, "all": True}, 400),
        ({"all": True}, 401),
    ],
)
def test_a_confirmation_that_cannot_be(
    board: tuple[Flask, Outbox], body: dict[str, Any], status: int
) -> None:
    app, outbox = board
    _assigned(outbox)
    api = Api(app.test_client())
    _play_to_the_end(api)
    assert api.post("/api/table/confirm", body).status_code == status
    assert api.get("/api/table").get_json()["game"]["confirmed"] == []


def test_staff_confirm_for_every_player(board: tuple[Flask, Outbox]) -> None:
    app, outbox = board
    _assigned(outbox)
    staff = Api(app.test_client())
    assert staff.login().status_code == 200
    _play_to_the_end(staff)
    assert staff.post("/api/table/confirm", {"all": True}).get_json()["confirmed"] == [0, 1]
    confirmed = Journal(outbox.conn).last_of_kind(JournalKind.RESULT_CONFIRMED)
    assert confirmed is not None and confirmed.public["by"] == "staff"
    assert "Staff: confirm for every player" in staff.get("/table?lang=en").get_data(as_text=True)
    assert "Équipe\u00a0: confirmer pour tous les joueurs" in staff.get("/table").get_data(as_text=True)


def test_nothing_to_confirm_before_the_game_ends(board: tuple[Flask, Outbox]) -> None:
    app, outbox = board
    _assigned(outbox)
    api = Api(app.test_client())
    assert api.post("/api/table/start", {}).status_code == 201
    refused = api.post("/api/table/confirm", {"seat": 0})
    assert refused.status_code == 409 and "no result to confirm" in refused.get_json()["error"]
