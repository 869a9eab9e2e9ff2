"""Digital Haute-Tension in the lobby: seats per device, token misuse, no hot
seat, the turn timer's default move, computer players to the end, and a
tournament table played digitally whose points reach the standings.

Each device is its own Flask test client (its own cookies).
"""

from __future__ import annotations

import time
from typing import Any, TypeAlias

import pytest
from flask import Flask

from games.frame import game_class
from store.tournaments import Tournaments
from tests.webpanel.helpers import Lobby, wait_for
from webpanel.db import get_db

# A device is the conftest's Lobby: its own test client, cookies and CSRF token.
Device: TypeAlias = Any


def pawn(slot: str, kind: str = "attack") -> dict[str, str]:
    """A placement in the lobby's notation."""
    return {"slot": slot, "pawn": kind}


@pytest.fixture
def device(app: Flask) -> Any:
    yield lambda: Lobby(app, "hautetension")
    app.extensions["lobby_ai"].close()


HUMANS3 = [{"kind": "human", "name": n} for n in ("Ana", "Ben", "Cleo")]


def seated(display: Device, device: Any, seats: list[dict[str, Any]] = HUMANS3,
           **body: Any) -> tuple[dict[str, Any], list[Device | None]]:
    game = display.create(seats, **body)
    tablets: list[Device | None] = []
    for seat in game["seats"]:
        if seat["kind"] != "human":
            tablets.append(None)
            continue
        tablet = device()
        response = tablet.post(f"/api/games/{game['id']}/join", {"code": seat["join_code"]})
        assert response.status_code == 200, response.get_json()
        tablets.append(tablet)
    return game, tablets


# -- no hot seat -------------------------------------------------------------------------------


def test_hot_seat_is_refused_for_a_game_with_secrets(device: Any) -> None:
    display = device()
    response = display.post("/api/games", {"game": "hautetension", "seats": HUMANS3, "hot_seat": True})
    assert response.status_code == 400
    assert "hot seat" in response.get_json()["error"]
    assert display.get("/api/games").get_json()["games"] == []  # nothing was created
    assert game_class("hautetension").hidden_information is True
    assert game_class("qttt").hidden_information is False  # the others still may be played hot seat


def test_the_display_sees_the_spectator_view_and_each_seat_only_its_own_kinds(device: Any) -> None:
    display = device()
    game, (ana, ben, cleo) = seated(display, device, options={"first": 0})
    gid = game["id"]
    assert ana is not None and ben is not None and cleo is not None
    assert ana.move(gid, pawn("a9", "defense")).status_code == 200
    assert ben.move(gid, pawn("b9", "attack")).status_code == 200
    host = display.state(gid)
    assert host["you"] == {"seat": None, "host": True}
    assert "you" not in host["view"] and host["legal_moves"] is None
    assert "defense" not in str(host) and "attack" not in str(host["view"]["pawns"])
    assert ana.state(gid)["view"]["you"]["pawns"] == {"a9": "defense"}
    assert ben.state(gid)["view"]["you"]["pawns"] == {"b9": "attack"}
    assert cleo.state(gid)["view"]["you"]["pawns"] == {}
    # A refresh (the same cookies) returns to the same seat.
    assert ana.state(gid)["you"]["seat"] == 0
    # The page is the Haute-Tension board, and it hides "play this seat here" on the display.
    page = display.get(f"/games/{gid}").get_data(as_text=True)
    assert 'id="ht-board"' in page and "hautetension.js" in page


# -- token misuse -------------------------------------------------------------------------------


def test_seat_token_misuse_is_refused_and_changes_nothing(device: Any) -> None:
    display = device()
    game, tablets = seated(display, device, options={"first": 0})
    other, _ = seated(display, device, options={"first": 0})
    gid = game["id"]
    ben = tablets[1]
    assert ben is not None
    version = display.state(gid)["version"]
    stranger = device()
    # Ben's own token: it is Ana's turn, so Ben cannot play for her.
    assert ben.move(gid, pawn("a9")).status_code == 409
    # A guessed token.
    response = stranger.move(gid, pawn("a9"), headers={"X-Seat-Token": "A" * 32})
    assert response.status_code == 403 and "token" in response.get_json()["error"]
    assert stranger.get(f"/api/games/{gid}", headers={"X-Seat-Token": "guess"}).status_code == 403
    # A token of another game: join that game to get one, then use it here.
    third = device()
    joined = third.post(f"/api/games/{other['id']}/join", {"code": None})
    assert joined.status_code == 400
    spare = display.create(HUMANS3)
    joined = third.post(f"/api/games/{spare['id']}/join", {"code": spare["seats"][0]["join_code"]})
    token = joined.get_json()["token"]
    response = third.move(gid, pawn("a9"), headers={"X-Seat-Token": token})
    assert response.status_code == 403
    response = third.get(f"/api/games/{gid}", headers={"X-Seat-Token": token})
    assert response.status_code == 403
    # Without a seat at all.
    assert stranger.move(gid, pawn("a9")).status_code == 403
    assert display.state(gid)["version"] == version and display.state(gid)["moves"] == 0
    # A device holds one seat per game.
    assert ben.post(f"/api/games/{gid}/join", {"code": "zzzzzz"}).status_code in (404, 409)


def test_guessing_tokens_is_slowed_down(device: Any) -> None:
    display = device()
    game = display.create(HUMANS3)
    guesser = device()
    statuses = [guesser.get(f"/api/games/{game['id']}", headers={"X-Seat-Token": f"guess{i}"}).status_code
                for i in range(12)]
    assert statuses[:10] == [403] * 10 and statuses[-1] == 429


def test_illegal_moves_get_the_engines_reason_for_the_mover_only(device: Any) -> None:
    display = device()
    game, (ana, ben, _cleo) = seated(display, device, options={"first": 0})
    gid = game["id"]
    assert ana is not None and ben is not None
    assert ana.move(gid, pawn("e5")).status_code == 422  # the battery holds no slot
    assert ana.move(gid, pawn("a9")).status_code == 200
    response = ben.move(gid, pawn("a9"))
    assert response.status_code == 422 and "a9" in response.get_json()["error"]
    bad = ben.post(f"/api/games/{gid}/moves", {"move": {"slot": "b9", "pawn": "bluff"}})
    assert bad.status_code == 422


# -- turn timer ------------------------------------------------------------------------------------


def test_the_turn_timer_plays_the_default_move_for_a_joined_seat(app: Flask, device: Any) -> None:
    app.config["LOBBY_WATCH_TICK"] = 0.05
    display = device()
    game, (ana, _ben, _cleo) = seated(
        display, device, options={"first": 0, "turn_timer": 0.3, "default_action": "random-defense"})
    gid = game["id"]
    assert ana is not None
    started = display.state(gid)
    assert started["view"]["turn_timer"] == {"seconds": 0.3, "default_action": "random-defense"}
    moved = wait_for(lambda: (s := ana.state(gid))["moves"] >= 1 and s, timeout=10)
    # Ana's time ran out: a defense pawn of hers was placed, then Ben's clock started.
    assert list(moved["view"]["you"]["pawns"].values()) == ["defense"]
    assert moved["view"]["you"]["stock"] == {"attack": 22, "defense": 2}
    assert moved["view"]["moves"][0]["player"] == 0
    wait_for(lambda: display.state(gid)["moves"] >= 2, timeout=10)


def test_the_timer_waits_for_a_seat_nobody_joined(app: Flask, device: Any) -> None:
    app.config["LOBBY_WATCH_TICK"] = 0.05
    display = device()
    game = display.create(HUMANS3, options={"first": 0, "turn_timer": 0.1})
    time.sleep(0.6)
    assert display.state(game["id"])["moves"] == 0


def test_a_move_in_time_is_kept_and_the_timer_restarts(app: Flask, device: Any) -> None:
    app.config["LOBBY_WATCH_TICK"] = 0.05
    display = device()
    game, (ana, _ben, _cleo) = seated(display, device, options={"first": 0, "turn_timer": 5})
    gid = game["id"]
    assert ana is not None
    assert ana.move(gid, pawn("c9", "attack")).status_code == 200
    state = ana.state(gid)
    assert state["view"]["you"]["pawns"] == {"c9": "attack"} and state["moves"] == 1


def test_a_computer_opponent_moves_after_the_timers_default(app: Flask, device: Any) -> None:
    app.config["LOBBY_WATCH_TICK"] = 0.05
    display = device()
    seats = [{"kind": "human", "name": "Ana"}, {"kind": "ai", "level": "heuristic"}]
    game, (ana, computer) = seated(display, device, seats, options={"first": 0, "turn_timer": 0.2})
    assert ana is not None and computer is None  # a computer seat has no tablet
    state = wait_for(lambda: (s := display.state(game["id"]))["moves"] >= 2 and s, timeout=10)
    # Ana's time ran out (her default move), then the computer played: in turn, and nobody else.
    assert [m["player"] for m in state["view"]["moves"][:2]] == [0, 1]
    assert state["ai_error"] is None and state["seats"][1]["kind"] == "ai"


# -- computer players -----------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
def test_computer_players_play_legal_games_to_the_end(device: Any, players: int) -> None:
    display = device()
    levels = ["random", "heuristic", "random", "heuristic"][:players]
    for seed in range(3):
        game = display.create([{"kind": "ai", "level": lv} for lv in levels], seed=seed)
        final = wait_for(
            lambda g=game: (s := display.state(g["id"]))["status"] == "over" and s, timeout=30)
        assert final["ai_error"] is None and final["outcome"] is not None
        # Every computer move was legal: the saved game replays with the engine.
        record = display.get(f"/api/games/{game['id']}?at={final['moves']}").get_json()
        assert record["view"]["outcome"] == final["view"]["outcome"]
        assert len(final["view"]["moves"]) == final["moves"]


# -- tournaments ------------------------------------------------------------------------------------


def make_tournament(app: Flask, names: list[str]) -> tuple[int, int, list[str]]:
    """A tournament with its first round made: its id, the first table's number and players."""
    with app.app_context():
        store = Tournaments(get_db())
        tid = store.create("Club night", seed=7).id
        for name in names:
            store.record(tid, lambda t, n=name: t.register(n), actor="test")
        store.record(tid, lambda t: t.next_round(), actor="test")
        t = store.load(tid)
        table = t.round(1).tables[0]
        return tid, table.number, [t.names[p] for p in table.seats]


def test_a_tournament_table_played_digitally_enters_its_points(app: Flask, device: Any) -> None:
    tid, table, names = make_tournament(app, ["Ana", "Ben", "Cleo", "Dan"])
    staff = device()
    assert staff.api.login().status_code == 200
    stranger = device()
    url = f"/api/tournaments/{tid}/rounds/1/tables/{table}/digital"
    assert stranger.post(url, {}).status_code == 401  # staff only
    assert staff.post(f"/api/tournaments/{tid}/rounds/9/tables/{table}/digital", {}).status_code == 404
    response = staff.post(url, {"turn_timer": 0})
    assert response.status_code == 201, response.get_json()
    game = response.get_json()
    assert sorted(s["name"] for s in game["seats"]) == sorted(names)
    assert all(s["kind"] == "human" for s in game["seats"])
    assert staff.post(url, {}).status_code == 409  # already being played
    gid = game["id"]
    tablets = {}
    for seat in game["seats"]:
        tablet = device()
        assert tablet.post(f"/api/games/{gid}/join", {"code": seat["join_code"]}).status_code == 200
        tablets[seat["seat"]] = tablet
    # Play: whoever is to act puts attack pawns in reading order until a lamp lights.
    state = staff.state(gid)
    while state["status"] != "over":
        seat = state["to_act"]
        mine = tablets[seat].state(gid)
        move = next(m for m in mine["legal_moves"] if m["pawn"] == "attack" or all(
            x["pawn"] == "defense" for x in mine["legal_moves"]))
        assert tablets[seat].post(f"/api/games/{gid}/moves", {"move": move}).status_code == 200
        state = staff.state(gid)
    link = staff.get(f"/api/games/{gid}/tournament").get_json()
    assert link["entered"] is True and link["refused"] is None
    with app.app_context():
        result = Tournaments(get_db()).load(tid).result(1, table)
    assert result is not None and result.source["kind"] == "digital" and result.source["game_id"] == gid
    points = state["view"]["points"]
    with app.app_context():
        t = Tournaments(get_db()).load(tid)
        seats = t.round(1).table(table).seats
    by_name = {s["name"]: points[s["seat"]] for s in state["seats"]}
    assert list(result.points) == [by_name[t.names[p]] for p in seats]
    # The table has its result now: no new digital game for it.
    assert staff.post(url, {}).status_code == 409


def test_a_table_result_entered_by_hand_meanwhile_is_not_overwritten(app: Flask, device: Any) -> None:
    tid, table, _names = make_tournament(app, ["Ana", "Ben", "Cleo", "Dan"])
    staff = device()
    assert staff.api.login().status_code == 200
    game = staff.post(f"/api/tournaments/{tid}/rounds/1/tables/{table}/digital", {}).get_json()
    gid = game["id"]
    tablets = {}
    for seat in game["seats"]:
        tablet = tablets[seat["seat"]] = device()
        assert tablet.post(f"/api/games/{gid}/join", {"code": seat["join_code"]}).status_code == 200
    with app.app_context():
        store = Tournaments(get_db())
        n = len(store.load(tid).round(1).table(table).seats)
        by_hand = {"kind": "hand"}
        store.record(tid, lambda t: t.import_result(1, table, [4] * n, source=by_hand), actor="staff")
    state = staff.state(gid)
    while state["status"] != "over":
        tablet = tablets[state["to_act"]]
        move = next(m for m in tablet.state(gid)["legal_moves"] if m["pawn"] == "attack")
        assert tablet.post(f"/api/games/{gid}/moves", {"move": move}).status_code == 200
        state = staff.state(gid)
    link = staff.get(f"/api/games/{gid}/tournament").get_json()
    assert link["entered"] is False and link["refused"]
    with app.app_context():
        result = Tournaments(get_db()).load(tid).result(1, table)
    assert result is not None and result.source == {"kind": "hand"}


def test_bad_tournament_and_layout_addresses(app: Flask, device: Any) -> None:
    staff = device()
    assert staff.api.login().status_code == 200
    assert staff.post("/api/tournaments/x/rounds/1/tables/1/digital", {}).status_code == 404
    assert staff.post("/api/tournaments/99/rounds/1/tables/1/digital", {}).status_code == 404
    assert staff.get("/api/games/1/tournament").status_code == 404
    assert staff.get("/api/layouts/nowhere").status_code == 404
    layout = staff.get("/api/layouts/pinwheel-80").get_json()
    assert layout["name"] == "pinwheel-80" and len(layout["slots"]) == 80
    tid, table, _ = make_tournament(app, ["Ana", "Ben", "Cleo", "Dan"])
    refused = staff.post(f"/api/tournaments/{tid}/rounds/1/tables/{table}/digital", {"turn_timer": -1})
    assert refused.status_code == 400 and "turn_timer" in refused.get_json()["error"]
    unknown = staff.post(f"/api/tournaments/{tid}/rounds/1/tables/{table}/digital", {"seats": []})
    assert unknown.status_code == 400


def test_the_table_page_button_starts_the_digital_game(app: Flask, device: Any) -> None:
    tid, table, names = make_tournament(app, ["Ana", "Ben", "Cleo", "Dan"])
    staff = device()
    assert staff.api.login().status_code == 200
    page = staff.get(f"/tournaments/{tid}/rounds/1/tables/{table}").get_data(as_text=True)
    assert 'id="play-digitally"' in page
    url = f"/tournaments/{tid}/rounds/1/tables/{table}/digital"
    bad = staff.api.client.post(url, data={"csrf_token": staff.api.token, "turn_timer": "nan"})
    assert bad.status_code == 303 and bad.headers["Location"].endswith(f"/tables/{table}")
    response = staff.api.client.post(url, data={"csrf_token": staff.api.token, "turn_timer": "45"})
    assert response.status_code == 303, response.get_data(as_text=True)
    gid = int(response.headers["Location"].rsplit("/", 1)[1])
    state = staff.state(gid)  # the staff device is the host: it shows the join codes
    assert state["you"]["host"] is True and all(s["join_code"] for s in state["seats"])
    assert [s["name"] for s in state["seats"]] == names
    assert state["view"]["turn_timer"]["seconds"] == 45
    assert stranger_refused(app, url)


def stranger_refused(app: Flask, url: str) -> bool:
    response = app.test_client().post(url, data={})
    refused = response.status_code in (302, 303, 400, 403)
    return refused and "/games/" not in response.headers.get("Location", "")
