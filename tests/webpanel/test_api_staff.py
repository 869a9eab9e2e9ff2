"""Staff service mode: login, guard, rate limit, health, tests, games and the journal."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.webpanel.helpers import PIN, Api, make_settings, start_game, wait_for

STAFF_GETS = ["/api/staff/health", "/api/staff/slots", "/api/staff/journal", "/api/staff/journal/export"]
STAFF_POSTS = [
    ("/api/staff/lamp-test", {"on": True}),
    ("/api/staff/self-test", None),
    ("/api/staff/game", {"players": [{"name": "A", "colour": "red"}, {"name": "B", "colour": "blue"}]}),
    ("/api/staff/game/abandon", None),
]


@pytest.mark.parametrize("url", STAFF_GETS)
def test_staff_gets_need_a_login(api: Any, service: Any, url: str) -> None:
    response = api.get(url)
    assert response.status_code == 401 and "staff" in response.get_json()["error"]


@pytest.mark.parametrize(("url", "body"), STAFF_POSTS)
def test_staff_posts_need_a_login(api: Any, service: Any, url: str, body: Any) -> None:
    response = api.post(url, body)
    assert response.status_code == 401
    assert service.handled == []


def test_staff_pages_redirect_to_login(client: Any) -> None:
    for url in ("/staff", "/staff/tests", "/staff/game", "/staff/journal"):
        response = client.get(url)
        assert response.status_code == 302 and "/staff/login" in response.headers["Location"]


def test_login_logout(api: Any) -> None:
    assert api.login("000000").status_code == 401
    response = api.login()
    assert response.status_code == 200 and response.get_json()["staff"] is True
    assert api.get("/api/session").get_json()["staff"] is True
    assert api.get("/staff").status_code == 200
    assert api.post("/api/staff/logout").status_code == 200
    assert api.get("/api/session").get_json()["staff"] is False
    assert api.get("/api/staff/health").status_code == 401


def test_login_rotates_the_session(client: Any) -> None:
    api = Api(client)
    before = api.token
    api.login()
    assert api.token != before
    response = client.post("/api/staff/logout", headers={"X-CSRF-Token": before})
    assert response.status_code == 403


@pytest.mark.parametrize(
    ("body", "status"),
    [({}, 400), ({"pin": 123456}, 400), ({"pin": ""}, 400), ({"pin": "246810", "x": 1}, 400), ([], 400)],
)
def test_login_bad_bodies(api: Any, body: Any, status: int) -> None:
    response = api.post("/api/staff/login", body)
    assert response.status_code == status and response.get_json()["error"]
    assert api.get("/api/session").get_json()["staff"] is False


def test_login_needs_csrf(client: Any) -> None:
    response = client.post("/api/staff/login", json={"pin": PIN})
    assert response.status_code == 403
    assert client.get("/api/session").get_json()["staff"] is False


def test_login_is_rate_limited(api: Any) -> None:
    for _ in range(5):
        assert api.login("999999").status_code == 401
    response = api.login("999999")
    assert response.status_code == 429
    assert int(response.headers["Retry-After"]) >= 1
    # Even the right PIN waits: a guesser cannot tell the lock from a wrong PIN.
    assert api.login().status_code == 429


def test_login_limit_is_per_client(app: Any) -> None:
    first = Api(app.test_client())
    for _ in range(5):
        first.login("999999")
    assert first.login().status_code == 429
    other = Api(app.test_client())
    other.client.environ_base["REMOTE_ADDR"] = "192.0.2.7"
    assert other.login().status_code == 200


def test_login_without_a_pin_set_is_403(tmp_path: Any) -> None:
    from webpanel.app import close_app, create_app

    app = create_app({"PANEL": make_settings(tmp_path, staff_pin_hash=""), "TESTING": True})
    try:
        response = Api(app.test_client()).login()
        assert response.status_code == 403 and "set-pin" in response.get_json()["error"]
    finally:
        close_app(app)


def test_pin_hash_file_is_read_at_each_login(tmp_path: Any) -> None:
    from webpanel.app import close_app, create_app
    from webpanel.auth import hash_pin, write_pin_hash_file

    settings = make_settings(tmp_path, staff_pin_hash="")
    app = create_app({"PANEL": settings, "TESTING": True})
    try:
        api = Api(app.test_client())
        assert api.login().status_code == 403
        write_pin_hash_file(settings.staff_pin_path, hash_pin("135790"))
        assert api.login("135790").status_code == 200
    finally:
        close_app(app)


def test_health(staff: Any, service: Any) -> None:
    body = wait_for(lambda: (b := staff.get("/api/staff/health").get_json())["health"] and b)
    assert body["service"]["running"] is True
    assert body["health"]["scans_per_second"] == 199.5
    assert body["game_running"] is False
    assert body["board"]["backend"] == "sim"


def test_slot_test_shows_conduction_when_no_game(staff: Any, service: Any) -> None:
    staff.post("/api/sim/slots/a9", {"pawn": "attack"})
    staff.post("/api/sim/slots/b9", {"pawn": "defense"})
    body = staff.get("/api/staff/slots").get_json()
    assert body["slots"] == {
        "a9": {"presence": True, "conduction": True},
        "b9": {"presence": True, "conduction": False},
    }


def test_slot_test_is_refused_during_a_game(staff: Any, service: Any) -> None:
    start_game(staff)
    staff.post("/api/sim/slots/a9", {"pawn": "attack"})
    response = staff.get("/api/staff/slots")
    assert response.status_code == 409 and "game is running" in response.get_json()["error"]
    assert "attack" not in response.get_data(as_text=True)


def test_lamp_test(staff: Any, service: Any) -> None:
    assert staff.post("/api/staff/lamp-test", {"on": True}).get_json() == {"ok": True, "on": True}
    assert staff.get("/api/board").get_json()["lamps"]["test"] is True
    assert staff.post("/api/staff/lamp-test", {"on": False}).status_code == 200
    assert staff.get("/api/board").get_json()["lamps"]["test"] is False


@pytest.mark.parametrize("body", [{}, {"on": "yes"}, {"on": None}, {"on": True, "lamp": "N"}])
def test_lamp_test_bad_bodies(staff: Any, service: Any, body: Any) -> None:
    assert staff.post("/api/staff/lamp-test", body).status_code == 400
    assert service.handled == []


def test_lamp_test_and_self_test_refused_during_a_game(staff: Any, service: Any) -> None:
    start_game(staff)
    handled = len(service.handled)
    response = staff.post("/api/staff/lamp-test", {"on": True})
    assert response.status_code == 409 and "game is running" in response.get_json()["error"]
    response = staff.post("/api/staff/self-test")
    assert response.status_code == 409
    assert len(service.handled) == handled


def test_self_test(staff: Any, service: Any) -> None:
    body = staff.post("/api/staff/self-test").get_json()
    assert body["ok"] is True and body["result"]["ok"] is True
    assert staff.post("/api/staff/self-test", {"x": 1}).status_code == 400


def test_new_game_and_abandon(staff: Any, service: Any) -> None:
    response = start_game(staff, ("Ada", "Bob", "Cy"), first=2)
    assert response.get_json()["result"] == {"game": 1}
    game = staff.get("/api/board").get_json()["game"]
    assert game["status"] == "running" and game["view"]["to_move"] == 2
    assert [s["lamp"] for s in game["view"]["seats"]] == ["N", "E", "S"]
    response = staff.post(
        "/api/staff/game", {"players": [{"name": "X", "colour": "red"}, {"name": "Y", "colour": "blue"}]}
    )
    assert response.status_code == 409 and "abandon it first" in response.get_json()["error"]
    assert staff.post("/api/staff/game/abandon").status_code == 200
    assert staff.get("/api/board").get_json()["game"]["status"] == "abandoned"
    response = staff.post("/api/staff/game/abandon")
    assert response.status_code == 409 and response.get_json()["error"] == "no game is running"


def test_new_game_with_the_draw(staff: Any, service: Any) -> None:
    body = {
        "players": [{"name": "A", "colour": "red"}, {"name": "B", "colour": "#00ff88"}],
        "first": "draw",
        "seed": 7,
    }
    assert staff.post("/api/staff/game", body).status_code == 201
    assert service.handled[-1].payload["first"] == "draw" and service.handled[-1].payload["seed"] == 7


def test_new_game_with_a_handicap(staff: Any, service: Any) -> None:
    body = {"players": _players(2), "first": 1, "handicap": {"N": 2, "S": 0}}
    assert staff.post("/api/staff/game", body).status_code == 201
    assert service.handled[-1].payload == {"players": _players(2), "first": 1, "handicap": {"N": 2}}


def _players(n: int) -> list[dict[str, str]]:
    return [
        {"name": f"P{i}", "colour": c}
        for i, c in zip(range(n), ("red", "blue", "black", "white"), strict=False)
    ]


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ({}, "missing field(s): players"),
        ({"players": _players(1)}, "2 to 4 players"),
        ({"players": _players(4) + [{"name": "E", "colour": "green"}]}, "2 to 4 players"),
        ({"players": "ab"}, "2 to 4 players"),
        ({"players": [1, 2]}, "players[0] must be an object"),
        ({"players": [{"name": "", "colour": "red"}, {"name": "B", "colour": "blue"}]}, "players[0].name"),
        (
            {"players": [{"name": "A" * 25, "colour": "red"}, {"name": "B", "colour": "blue"}]},
            "players[0].name",
        ),
        ({"players": [{"name": "A\n", "colour": "red"}, {"name": "B\x00", "colour": "blue"}]}, "control"),
        (
            {"players": [{"name": "A", "colour": "pink"}, {"name": "B", "colour": "blue"}]},
            "players[0].colour",
        ),
        (
            {"players": [{"name": "A", "colour": "#12345"}, {"name": "B", "colour": "blue"}]},
            "players[0].colour",
        ),
        ({"players": [{"name": "A", "colour": "red"}, {"name": "a", "colour": "blue"}]}, "different names"),
        (
            {"players": [{"name": "A", "colour": "red"}, {"name": "B", "colour": "red"}]},
            "different colours",
        ),
        (
            {"players": [{"name": "A", "colour": "red", "lamp": "N"}, {"name": "B", "colour": "blue"}]},
            "unknown field(s): lamp",
        ),
        ({"players": _players(2), "first": 2}, "first"),
        ({"players": _players(2), "first": -1}, "first"),
        ({"players": _players(2), "first": "random"}, "first"),
        ({"players": _players(2), "first": True}, "first"),
        ({"players": _players(2), "seed": "x"}, "seed"),
        ({"players": _players(2), "handicap": {"Q": 1}}, "unknown lamp"),
        ({"players": _players(2), "handicap": {"N": 4}}, "handicap.N"),
        ({"players": _players(2), "handicap": [1]}, "handicap must be an object"),
        ({"players": _players(2), "colour": "red"}, "unknown field(s): colour"),
        # Only make run's demo game says the demo skipped the check: staff's skip is staff's.
        (
            {"players": _players(2), "pregame_check": "skip", "skipped_by": "demo"},
            "unknown field(s): skipped_by",
        ),
    ],
)
def test_new_game_bad_bodies_are_400(staff: Any, service: Any, body: Any, says: str) -> None:
    response = staff.post("/api/staff/game", body)
    assert response.status_code == 400, response.get_json()
    assert says in response.get_json()["error"]
    assert service.handled == []
    assert staff.get("/api/board").get_json()["game"] is None


def test_new_game_refused_by_the_service_is_422(staff: Any, service: Any, mocker: Any) -> None:
    mocker.patch.object(service, "_carry_out", side_effect=ValueError("lamp N is not on this board"))
    response = staff.post("/api/staff/game", {"players": _players(2)})
    assert response.status_code == 422 and response.get_json()["error"] == "lamp N is not on this board"


def test_journal_read_and_export(staff: Any, service: Any) -> None:
    staff.post("/api/sim/slots/a9", {"pawn": "attack"})
    body = staff.get("/api/staff/journal").get_json()
    kinds = [e["kind"] for e in body["entries"]]
    assert kinds[0] == "service-start" and "slot" in kinds
    assert body["private_shown"] is True
    slot_entry = next(e for e in body["entries"] if e["kind"] == "slot")
    assert slot_entry["private"] == {"kind": "attack"}
    after = body["entries"][0]["id"]
    later = staff.get(f"/api/staff/journal?after={after}&limit=1").get_json()["entries"]
    assert len(later) == 1 and later[0]["id"] > after
    assert staff.get("/api/staff/journal?kind=slot").get_json()["entries"][0]["kind"] == "slot"
    unknown = staff.get("/api/staff/journal?kind=slots")
    assert unknown.status_code == 400 and "kind must be one of" in unknown.get_json()["error"]
    export = staff.get("/api/staff/journal/export")
    assert export.status_code == 200 and "attachment" in export.headers["Content-Disposition"]
    lines = [json.loads(line) for line in export.get_data(as_text=True).splitlines()]
    assert [e["id"] for e in lines] == sorted(e["id"] for e in lines) and len(lines) == body["last_id"]


def test_journal_hides_private_payloads_during_a_game(staff: Any, service: Any) -> None:
    start_game(staff)
    staff.post("/api/sim/slots/a9", {"pawn": "defense"})
    body = staff.get("/api/staff/journal").get_json()
    assert body["private_shown"] is False
    assert all("private" not in e for e in body["entries"])
    assert "defense" not in staff.get("/api/staff/journal/export").get_data(as_text=True)


@pytest.mark.parametrize(
    "query", ["after=-1", "after=x", "limit=201", "limit=1e3", "after=99999999999999999999"]
)
def test_journal_bad_queries_are_400(staff: Any, query: str) -> None:
    response = staff.get(f"/api/staff/journal?{query}")
    assert response.status_code == 400 and "must be a whole number" in response.get_json()["error"]


def test_journal_newest_first_by_kinds_and_game_with_the_players_names(staff: Any, service: Any) -> None:
    start_game(staff)  # game 1: Ada and Bob
    staff.post("/api/sim/slots/a9", {"pawn": "attack"})
    staff.post("/api/sim/slots/b9", {"pawn": "attack"})
    body = staff.get("/api/staff/journal?order=newest&kind=placement,game-start").get_json()
    assert [e["kind"] for e in body["entries"]] == ["placement", "placement", "game-start"]
    assert [e["public"]["slot"] for e in body["entries"][:2]] == ["b9", "a9"]
    assert body["players"] == {"1": ["Ada", "Bob"]} and body["last_game"] == 1
    first = body["entries"][0]["id"]
    older = staff.get(f"/api/staff/journal?order=newest&kind=placement&before={first}").get_json()
    assert [e["public"]["slot"] for e in older["entries"]] == ["a9"]
    assert staff.get("/api/staff/journal?order=newest&game=2").get_json()["entries"] == []
    in_game = staff.get("/api/staff/journal?order=newest&game=1").get_json()["entries"]
    assert in_game and all(e["game_id"] == 1 for e in in_game)
    assert staff.get("/api/staff/journal?order=sideways").status_code == 400
    assert staff.get("/api/staff/journal?kind=slot,slots").status_code == 400


def test_slot_history_counts_each_slots_faults_over_the_last_hour(
    staff: Any, service: Any, settings: Any
) -> None:
    import time

    from store.db import connect
    from store.journal import Journal, JournalKind

    journal = Journal(connect(settings.database))
    journal.append(JournalKind.FAULT, {"kind": "conduction-without-presence", "slot": "d4"})
    journal.append(JournalKind.FAULT, {"kind": "conduction-without-presence", "slot": "d4"})
    journal.append(JournalKind.FAULT, {"kind": "dead-multiplexer", "slot": None, "multiplexer": 2})
    old = journal.append(JournalKind.FAULT, {"kind": "flicker", "slot": "h8"})
    journal.conn.execute("UPDATE journal SET at = ? WHERE id = ?", (time.time() - 7200, old))
    history = staff.get("/api/staff/slot-history").get_json()
    assert history["seconds"] == 3600
    assert history["slots"]["d4"] == {"faults": {"conduction-without-presence": 2}, "flicker": 0}
    assert "h8" not in history["slots"]  # two hours ago
    assert history["board"] == {"dead-multiplexer": 1}
    # The stand-in service reports c3 flickered twice (its health report): the count comes along.
    assert wait_for(lambda: staff.get("/api/staff/slot-history").get_json()["slots"].get("c3"))
    assert staff.get("/api/staff/slot-history").get_json()["slots"]["c3"] == {"faults": {}, "flicker": 2}


def test_slot_history_is_for_staff_only(api: Any, service: Any) -> None:
    assert api.get("/api/staff/slot-history").status_code == 401
