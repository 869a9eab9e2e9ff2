"""Hypnosia's board page and its data endpoint, and real dice entered on the
display or a tablet, through Flask's test client (each device its own client)."""

from __future__ import annotations

from typing import Any, TypeAlias

import pytest
from flask import Flask

from games.hypnosia.board import load_board
from games.hypnosia.game import Hypnosia

HUMANS = [{"kind": "human", "name": "Ada"}, {"kind": "human", "name": "Bob"}]


# The conftest's ``device`` and ``display`` fixtures are Lobby devices of this game:
# each its own test client, cookies and CSRF token.
GAME = "hypnosia"
Device: TypeAlias = Any


def page_data(device: Device, game_id: int) -> dict[str, Any]:
    """The board page's data endpoint."""
    data: dict[str, Any] = device.fetch(f"/api/games/{game_id}/hypnosia")
    return data


@pytest.fixture(autouse=True)
def _stop_computers(app: Flask) -> Any:
    yield
    app.extensions["lobby_ai"].close()


def engine_landing(game: Hypnosia, move: dict[str, Any]) -> str:
    """Where a pawn move lands, walked on the board's own tables (not by playing it)."""
    board = game.board
    position = game.position
    step = game.parse_step(move)
    value = position.value(step)
    table = board.cross if step.cross else board.step
    return board.squares[table[position.pos[step.pawn]][value]]


# -- the page ------------------------------------------------------------------------------


def test_game_page_is_the_hypnosia_board(client: Any, display: Device) -> None:
    game = display.create(hot_seat=True)
    html = client.get(f"/games/{game['id']}").get_data(as_text=True)
    assert 'data-game="hypnosia"' in html and 'id="hyp-board"' in html and 'id="hyp-enter"' in html
    assert "/games/static/hypnosia.js" in html and "/games/static/hypnosia.css" in html
    assert "generic-view" not in html, "Hypnosia has its own board, not the generic page"
    assert "<script>" not in html and " style=" not in html, "no inline script nor style (CSP)"
    for name, marker in (("hypnosia.js", b'GamePage.register("hypnosia"'), ("hypnosia.css", b".hyp-board")):
        with client.get(f"/games/static/{name}") as response:
            assert response.status_code == 200 and marker in response.data


# -- the data endpoint --------------------------------------------------------------------


def test_page_data_has_the_geometry_the_log_and_where_moves_land(display: Device) -> None:
    game = display.create(hot_seat=True, seed=7)
    data = page_data(display, game["id"])
    assert data["board"] == load_board("default").to_dict()
    assert data["version"] == game["version"]
    # The program rolled the opening dice at creation: the log holds them, the same as a replay.
    state = display.state(game["id"])
    assert data["moves"] and all("roll" in m for m in data["moves"])
    assert len(data["moves"]) == state["moves"]

    for _ in range(6):  # a few turns, checking the landings each time
        state = display.state(game["id"])
        data = page_data(display, game["id"])
        replayed = Hypnosia.from_json({"players": ["Ada", "Bob"], "options": state["view"]["options"],
                                       "seed": 7, "moves": data["moves"]})
        assert [entry["move"] for entry in data["landings"]] == state["legal_moves"]
        for entry in data["landings"]:
            assert entry["to"] == engine_landing(replayed, entry["move"]), entry
        move = state["legal_moves"][0]
        assert display.move(game["id"], move).status_code == 200
    after = page_data(display, game["id"])
    assert move in after["moves"][-2:] and after["version"] > data["version"]  # then maybe the next roll


def test_landings_name_the_captured_pawns(display: Device) -> None:
    # Sooner or later some legal move captures; the test plays on until one does.
    game = display.create(hot_seat=True, seed=3, options={"colours": ["red", "white"]})
    for _ in range(120):
        state = display.state(game["id"])
        if state["status"] == "over":
            break
        data = page_data(display, game["id"])
        capturing = [entry for entry in data["landings"] if entry["captures"]]
        if capturing:
            entry = capturing[0]
            assert all(state["view"]["pawns"][p] == entry["to"] for p in entry["captures"])
            assert display.move(game["id"], entry["move"]).status_code == 200
            pawns = display.state(game["id"])["view"]["pawns"]
            assert all(pawns[p] == "captured" for p in entry["captures"])
            return
        assert all(entry["captures"] == [] for entry in data["landings"])
        assert display.move(game["id"], state["legal_moves"][-1]).status_code == 200
    pytest.fail("no capture was offered in this game")


def test_page_data_refusals(app: Flask, display: Device) -> None:
    qttt = display.api.post("/api/games", {"game": "qttt", "seats": HUMANS}).get_json()
    refused = display.api.get(f"/api/games/{qttt['id']}/hypnosia")
    assert refused.status_code == 404 and "not Hypnosia" in refused.get_json()["error"]
    assert display.api.get("/api/games/999/hypnosia").status_code == 404
    assert display.api.get("/api/games/x1/hypnosia").status_code == 404
    game = display.create()
    forged = display.api.get(f"/api/games/{game['id']}/hypnosia", headers={"X-Seat-Token": "not-a-token"})
    assert forged.status_code == 403


def test_page_data_is_in_the_openapi_document(client: Any) -> None:
    document = client.get("/api/openapi.json").get_json()
    operation = document["paths"]["/api/games/{game_id}/hypnosia"]["get"]
    assert {"200", "403", "404"} <= set(operation["responses"])
    assert "landings" in operation["responses"]["200"]["content"]["application/json"]["schema"]["properties"]


# -- dice: the program's or real ones -------------------------------------------------------


def test_program_dice_are_rolled_on_the_server_and_cannot_be_entered(display: Device) -> None:
    game = display.create(hot_seat=True, seed=11)
    state = display.state(game["id"])
    assert state["to_act"] in (0, 1) and state["view"]["dice"] is not None
    refused = display.move(game["id"], {"roll": [6, 6]})
    assert refused.status_code == 422
    # The same seed gives the same dice: a second game replays the first one's rolls.
    again = display.create(hot_seat=True, seed=11)
    assert page_data(display, again["id"])["moves"] == page_data(display, game["id"])["moves"]


def test_entered_dice_wait_for_the_display_in_hot_seat(device: Any, display: Device) -> None:
    game = display.create(hot_seat=True, options={"dice": "entered"})
    state = display.state(game["id"])
    assert state["to_act"] == -1 and state["can_move"] and state["view"]["rolling"] == 0
    assert len(state["legal_moves"]) == 36 and state["moves"] == 0, "nothing rolled by the program"
    assert page_data(display, game["id"])["landings"] is None

    passer_by = device()
    seen = passer_by.state(game["id"])
    assert not seen["can_move"] and seen["legal_moves"] is None
    assert passer_by.move(game["id"], {"roll": [6, 6]}).status_code == 403

    assert display.move(game["id"], {"roll": [7, 1]}).status_code == 422  # a die shows 1 to 6
    assert display.move(game["id"], {"roll": [6, 5]}).status_code == 200
    assert display.move(game["id"], {"roll": [1, 2]}).status_code == 200  # Bob's opening roll: Ada starts
    state = display.state(game["id"])
    assert state["view"]["opening"] == [[{"seat": 0, "roll": [6, 5]}, {"seat": 1, "roll": [1, 2]}]]
    assert state["view"]["rolling"] == 0 and state["to_act"] == -1, "Ada's first turn waits for her dice"
    assert display.move(game["id"], {"roll": [4, 3]}).status_code == 200
    state = display.state(game["id"])
    assert state["to_act"] == 0 and state["view"]["dice"] == {"values": [4, 3], "used": [False, False]}
    data = page_data(display, game["id"])
    assert data["landings"] and {entry["move"]["die"] for entry in data["landings"]} >= {0, 1}
    assert data["rolled_by"] == [0, 1, 0], "whose dice each roll was, for the move log"
    assert display.move(game["id"], data["landings"][0]["move"]).status_code == 200
    assert page_data(display, game["id"])["rolled_by"] == [0, 1, 0, None]


def test_a_tablet_enters_only_its_own_dice(app: Flask, device: Any, display: Device) -> None:
    game = display.create(options={"dice": "entered"})
    ada, bob = device(), device()
    for tablet, seat in ((ada, 0), (bob, 1)):
        joined = tablet.api.post(f"/api/games/{game['id']}/join", {"code": game["seats"][seat]["join_code"]})
        assert joined.status_code == 200
    assert ada.state(game["id"])["can_move"] and not bob.state(game["id"])["can_move"]
    refused = bob.move(game["id"], {"roll": [6, 6]})
    assert refused.status_code == 409 and "roll of another seat" in refused.get_json()["error"]
    assert ada.move(game["id"], {"roll": [2, 2]}).status_code == 200
    assert bob.state(game["id"])["can_move"] and not ada.state(game["id"])["can_move"]
    # The display that created the game may enter anyone's dice (a player without a tablet).
    assert display.state(game["id"])["can_move"]
    assert display.move(game["id"], {"roll": [3, 3]}).status_code == 200
    assert display.state(game["id"])["view"]["opening"][0][1]["roll"] == [3, 3]


def test_a_computer_waits_for_its_entered_dice_then_moves(app: Flask, display: Device) -> None:
    seats = [{"kind": "ai", "level": "greedy", "name": "Hal"}, {"kind": "human", "name": "Bob"}]
    game = display.create(seats, hot_seat=True, options={"dice": "entered"})
    runner = app.extensions["lobby_ai"]
    for roll in ([6, 6], [1, 1], [5, 4]):  # opening (Hal starts), then Hal's first dice
        assert display.move(game["id"], {"roll": roll}).status_code == 200
    assert runner.wait_idle(game["id"], timeout=10)
    state = display.state(game["id"])
    assert state["to_act"] == -1 and state["view"]["rolling"] == 1, "Hal moved, Bob's dice are awaited"
    moved = page_data(display, game["id"])["moves"][3:]
    assert len(moved) == 2 and all("pawn" in m and m["pawn"].startswith("red") for m in moved)
    assert state["can_move"] and not state["ai_error"]
