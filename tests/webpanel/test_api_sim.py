"""POST /api/sim/slots/{slot} and /api/sim/button: placements, lifts and every rejection."""

from __future__ import annotations

from typing import Any

import pytest

from tests.webpanel.helpers import Api, FakeService, make_settings, start_game


def board(api: Any) -> Any:
    return api.get("/api/board").get_json()


def test_place_and_lift_as_the_current_player(staff: Any, service: Any) -> None:
    start_game(staff)
    response = staff.post("/api/sim/slots/a9", {"pawn": "defense"})
    assert response.status_code == 200 and response.get_json() == {"ok": True, "slot": "a9"}
    assert staff.post("/api/sim/slots/b9", {"pawn": "attack"}).status_code == 200
    assert board(staff)["pawns"] == {"a9": {"owner": 0}, "b9": {"owner": 1}}
    assert staff.post("/api/sim/slots/b9", {"pawn": None}).status_code == 200
    assert "b9" not in board(staff)["pawns"]


def test_place_without_a_game_is_a_bare_pawn(api: Any, service: Any) -> None:
    assert api.post("/api/sim/slots/e1", {"pawn": "attack"}).status_code == 200
    assert board(api)["pawns"] == {"e1": {"owner": None}}


def test_refused_by_the_service_is_409_with_its_reason(api: Any, service: Any) -> None:
    assert api.post("/api/sim/slots/e1", {"pawn": "attack"}).status_code == 200
    before = board(api)
    response = api.post("/api/sim/slots/e1", {"pawn": "defense"})
    assert response.status_code == 409 and "already holds a pawn" in response.get_json()["error"]
    response = api.post("/api/sim/slots/e2", {"pawn": None})
    assert response.status_code == 409 and "no pawn on e2" in response.get_json()["error"]
    assert board(api) == before


@pytest.mark.parametrize(
    ("body", "status", "says"),
    [
        ({}, 400, "missing field(s): pawn"),
        ({"pawn": "king"}, 400, "pawn must be one of attack, defense"),
        ({"pawn": 1}, 400, "pawn must be one of"),
        ({"pawn": True}, 400, "pawn must be one of"),
        ({"pawn": "attack", "owner": 1}, 400, "unknown field(s): owner"),
        ([1, 2], 400, "must be a JSON object"),
        ("attack", 400, "must be a JSON object"),
    ],
)
def test_bad_bodies_are_400_and_change_nothing(
    api: Any, service: Any, body: Any, status: int, says: str
) -> None:
    before = board(api)
    response = api.post("/api/sim/slots/a9", body)
    assert response.status_code == status
    assert says in response.get_json()["error"]
    assert board(api) == before
    assert service.handled == []


def test_not_json_is_415_and_broken_json_is_400(api: Any, service: Any) -> None:
    response = api.post(
        "/api/sim/slots/a9", data="pawn=attack", content_type="application/x-www-form-urlencoded"
    )
    assert response.status_code == 415 and "JSON" in response.get_json()["error"]
    response = api.post("/api/sim/slots/a9", data="{not json", content_type="application/json")
    assert response.status_code == 400 and "not valid JSON" in response.get_json()["error"]
    assert service.handled == []


@pytest.mark.parametrize("slot", ["e5", "z9", "a10", "A9", "a9;drop", "%00"])
def test_unknown_slot_is_404(api: Any, service: Any, slot: str) -> None:
    response = api.post(f"/api/sim/slots/{slot}", {"pawn": "attack"})
    assert response.status_code == 404 and "error" in response.get_json()
    assert service.handled == []


def test_without_csrf_token_is_403(client: Any, service: Any) -> None:
    response = client.post("/api/sim/slots/a9", json={"pawn": "attack"})
    assert response.status_code == 403 and "CSRF" in response.get_json()["error"]
    response = client.post("/api/sim/slots/a9", json={"pawn": "attack"}, headers={"X-CSRF-Token": "forged"})
    assert response.status_code == 403
    assert service.handled == []
    assert client.get("/api/board").get_json()["pawns"] == {}


def test_get_is_405(api: Any, service: Any) -> None:
    assert api.get("/api/sim/slots/a9").status_code == 405


def test_not_the_sim_backend_is_404(tmp_path: Any) -> None:
    from webpanel.app import close_app, create_app

    settings = make_settings(tmp_path)
    fake = FakeService(settings.database, backend="gpio").start()
    app = create_app({"PANEL": settings, "TESTING": True})
    try:
        api = Api(app.test_client())
        response = api.post("/api/sim/slots/a9", {"pawn": "attack"})
        assert response.status_code == 404 and "simulated board" in response.get_json()["error"]
        assert api.post("/api/sim/button", {"held": True}).status_code == 404
        assert fake.handled == []
    finally:
        fake.stop()
        close_app(app)


def test_no_service_at_all_is_404(api: Any) -> None:
    assert api.post("/api/sim/slots/a9", {"pawn": "attack"}).status_code == 404


def test_service_not_taking_commands_is_503_and_the_command_is_withdrawn(tmp_path: Any) -> None:
    from store.commands import Commands, CommandStatus
    from store.db import connect
    from webpanel.app import close_app, create_app

    settings = make_settings(tmp_path, command_timeout=0.2)
    fake = FakeService(settings.database).start()
    fake.stop()  # the state says "sim", but nobody carries out commands any more
    app = create_app({"PANEL": settings, "TESTING": True})
    try:
        api = Api(app.test_client())
        response = api.post("/api/sim/slots/a9", {"pawn": "attack"})
        assert response.status_code == 503
        assert response.get_json()["error"] == "board service not responding"
        assert response.headers["Retry-After"] == "5"
        conn = connect(settings.database)
        try:
            assert Commands(conn).pending() == []
            last = Commands(conn).get(1)
            assert last is not None and last.status is CommandStatus.FAILED
        finally:
            conn.close()
    finally:
        close_app(app)


def test_button_lights_every_lamp_while_held(api: Any, service: Any) -> None:
    assert api.post("/api/sim/button", {"held": True}).get_json() == {"ok": True, "held": True}
    assert board(api)["lamps"] == {"lit": ["E", "N", "S", "W"], "test": True, "safe": False}
    assert api.post("/api/sim/button", {"held": False}).status_code == 200
    assert board(api)["lamps"] == {"lit": [], "test": False, "safe": False}


@pytest.mark.parametrize("body", [{}, {"held": "yes"}, {"held": 1}, {"held": True, "x": 1}])
def test_button_bad_bodies_are_400(api: Any, service: Any, body: Any) -> None:
    response = api.post("/api/sim/button", body)
    assert response.status_code == 400 and response.get_json()["error"]
    assert service.handled == []


def _hand(api: Any) -> Any:
    response = api.get("/api/sim/hand")
    assert response.status_code == 200
    return response.get_json()


def test_the_hand_is_the_stock_of_the_player_to_move(staff: Any, service: Any) -> None:
    assert _hand(staff) == {"player": None, "name": None, "stock": None}  # no game yet
    start_game(staff)
    assert _hand(staff) == {"player": 0, "name": "Ada", "stock": {"attack": 22, "defense": 3}}
    for slot in ("a9", "b9", "c9"):  # Ada, Bob, Ada: a defense pawn each time
        assert staff.post(f"/api/sim/slots/{slot}", {"pawn": "defense"}).status_code == 200
    assert _hand(staff) == {"player": 1, "name": "Bob", "stock": {"attack": 22, "defense": 2}}
    assert staff.post("/api/sim/slots/d9", {"pawn": "attack"}).status_code == 200
    assert _hand(staff) == {"player": 0, "name": "Ada", "stock": {"attack": 22, "defense": 1}}
    assert staff.post("/api/staff/game/abandon").status_code == 200
    assert _hand(staff)["stock"] is None


def test_no_hand_on_a_real_board(tmp_path: Any) -> None:
    from webpanel.app import close_app, create_app

    settings = make_settings(tmp_path)
    fake = FakeService(settings.database, backend="gpio").start()
    app = create_app({"PANEL": settings, "TESTING": True})
    try:
        response = app.test_client().get("/api/sim/hand")
        assert response.status_code == 404 and "simulated board" in response.get_json()["error"]
    finally:
        close_app(app)
        fake.stop()
