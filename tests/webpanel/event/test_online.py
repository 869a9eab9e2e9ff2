"""A round played online on the event server: remote seats by private links, computers for the seats
nobody took, coming back after a drop, a new link for a lost device, the turn timer."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from store.event.settings import EventSettings
from store.tournaments import Tournaments
from tests.store.event.helpers import a_tournament
from tests.webpanel.helpers import PIN, Api, make_settings, wait_for
from webpanel.app import close_app, create_app

PUBLIC = "https://events.example.org"


def event_server(tmp_path: Path, database: str, **config: Any) -> Flask:
    """The event server with a public address for its links (behind HTTPS, as on the internet), on
    *database* (an SQLite file or a PostgreSQL DSN)."""
    return create_app(
        {
            "PANEL": make_settings(tmp_path),
            "TESTING": True,
            "LOBBY_PUBLIC_URL": PUBLIC,
            "LOBBY_WATCH_TICK": 0.05,
            "EVENT": EventSettings(event="online-2026", database=database),
            **config,
        }
    )


@pytest.fixture
def server(tmp_path: Path, db_location: str) -> Iterator[Flask]:
    """The event server on each engine: SQLite, then PostgreSQL."""
    app = event_server(tmp_path, db_location)
    yield app
    close_app(app)


@pytest.fixture
def organiser(server: Flask) -> Api:
    api = Api(server.test_client())
    assert api.login().status_code == 200
    return api


def tournament(server: Flask, players: int = 8) -> int:
    conn = server.extensions["db_pool"].get()
    return a_tournament(conn, players)


def online(organiser: Api, tid: int, **body: Any) -> list[dict[str, Any]]:
    made = organiser.post(f"/api/event/tournaments/{tid}/rounds/1/online", body)
    assert made.status_code == 201, made.get_json()
    tables: list[dict[str, Any]] = made.get_json()["tables"]
    return tables


def remote_player(server: Flask, join_url: str, game_id: int) -> Api:
    """A player at home: their own device opens the link they were sent, and its page takes the seat."""
    player = Api(server.test_client())
    assert join_url.startswith(PUBLIC + "/j/")
    opened = player.client.get(join_url.removeprefix(PUBLIC))
    assert opened.status_code == 200, opened.status_code
    code = join_url.rsplit("/", 1)[1]
    joined = player.post(f"/api/games/{game_id}/join", {"code": code})
    assert joined.status_code == 200, joined.get_json()
    return player


def state(device: Api, game: int) -> dict[str, Any]:
    answer = device.client.get(f"/api/games/{game}")
    assert answer.status_code == 200, answer.get_json()
    data: dict[str, Any] = answer.get_json()
    return data


def test_a_round_online_gives_each_player_a_private_link_on_the_public_address(
    server: Flask, organiser: Api
) -> None:
    tid = tournament(server)
    tables = online(organiser, tid, turn_timer=0)
    t = Tournaments(server.extensions["db_pool"].get()).load(tid)
    assert [e["table"] for e in tables] == [1, 2]
    for entry, table in zip(tables, t.round(1).tables, strict=True):
        seats = entry["game"]["seats"]
        assert [s["name"] for s in seats] == [t.names[p] for p in table.seats]
        assert len({s["join_url"] for s in seats}) == len(seats)  # one link per player
    # Again: every table has its game already, nothing new is made.
    again = organiser.post(f"/api/event/tournaments/{tid}/rounds/1/online", {})
    assert again.status_code == 201 and again.get_json()["made"] == []
    # The links are staff's to send: nobody else sees them, on the API nor on the game's page.
    visitor = Api(server.test_client())
    assert visitor.client.get(f"/api/event/tournaments/{tid}/rounds/1/online").status_code == 401
    seen = state(visitor, tables[0]["game"]["id"])
    assert all("join_url" not in s for s in seen["seats"])
    page = organiser.client.get(f"/event/tournaments/{tid}/rounds/1/online").get_data(as_text=True)
    assert all(s["join_url"] in page for s in tables[0]["game"]["seats"])


@pytest.mark.parametrize("db_location", ["sqlite"], indirect=True)  # addresses: one engine is enough
def test_without_a_public_address_the_links_name_the_host_the_staff_asked(
    tmp_path: Path, db_location: str
) -> None:
    """Served on loopback only (as make event does), a link naming the machine's network address would
    reach nothing: the links use the address the staff page was requested on."""
    import http.cookiejar
    import json
    import urllib.request

    from tests.webpanel.helpers import Served

    app = event_server(tmp_path, db_location, LOBBY_PUBLIC_URL=None)
    served = Served(app)
    try:
        tid = tournament(app)
        browser = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))

        def send(path: str, body: dict[str, Any] | None = None, token: str = "") -> Any:
            request = urllib.request.Request(
                served.url + path,
                data=None if body is None else json.dumps(body).encode(),
                headers={"Content-Type": "application/json", "X-CSRF-Token": token},
            )
            with browser.open(request, timeout=30) as answer:
                return json.load(answer)

        token = send("/api/session")["csrf_token"]
        token = send("/api/staff/login", {"pin": PIN}, token)["csrf_token"]
        tables = send(f"/api/event/tournaments/{tid}/rounds/1/online", {}, token)["tables"]
        links = [s["join_url"] for t in tables for s in t["game"]["seats"]]
        assert links and all(link.startswith(f"{served.url}/j/") for link in links), links
        with urllib.request.urlopen(links[0], timeout=30) as opened:  # and a player's device reaches it
            assert opened.status == 200
    finally:
        served.close()
        close_app(app)


def test_remote_players_take_their_seats_and_come_back_after_a_drop(
    server: Flask, organiser: Api, tmp_path: Path, db_location: str
) -> None:
    tid = tournament(server)
    table = online(organiser, tid, turn_timer=0)[0]["game"]
    seats, game_id = table["seats"], table["id"]
    players = [remote_player(server, s["join_url"], game_id) for s in seats]
    assert [state(p, game_id)["you"]["seat"] for p in players] == [0, 1, 2, 3]
    first = state(players[0], game_id)["to_act"]
    slot = state(players[first], game_id)["legal_moves"][0]
    assert players[first].post(f"/api/games/{game_id}/moves", {"move": slot}).status_code == 200
    # The connection drops, and the player comes back through another server process on the same
    # database (a restart, or the next process behind the front server): the device's seat cookie
    # brings them back to their seat, with their pawns.
    cookie = players[first].client.get_cookie(f"hts_seat_{game_id}")
    assert cookie is not None
    restarted = event_server(tmp_path, db_location)
    try:
        back = Api(restarted.test_client())
        back.client.set_cookie(cookie.key, cookie.value)
        again = state(back, game_id)
        assert again["you"]["seat"] == first and again["moves"] == 1
        assert len(again["view"]["you"]["pawns"]) == 1
    finally:
        close_app(restarted)


def test_computers_play_the_seats_nobody_took_and_the_result_says_so(server: Flask, organiser: Api) -> None:
    tid = tournament(server)
    tables = online(organiser, tid, turn_timer=0)
    game_id, seats = tables[0]["game"]["id"], tables[0]["game"]["seats"]
    players = [remote_player(server, s["join_url"], game_id) for s in seats[:2]]  # two of four came
    url = f"/api/event/tournaments/{tid}/rounds/1/computers"
    assert Api(server.test_client()).post(url, {"level": "random"}).status_code == 401
    assert organiser.post(url, {"level": "grandmaster"}).status_code == 409  # the game has no such computer
    filled = organiser.post(url, {"level": "random", "table": 1})
    assert filled.status_code == 200 and filled.get_json()["seats"] == 2
    seen = state(players[0], game_id)["seats"]
    assert [(s["kind"], s["level"]) for s in seen] == [("human", None)] * 2 + [("ai", "random")] * 2
    assert state(players[0], tables[1]["game"]["id"])["seats"][0]["kind"] == "human"  # the other table waits
    # The two who came leave the game to the computer as well: it plays to the end, and the points go to
    # the tournament with the seats the computer played.
    everyone = organiser.post(f"/api/games/{game_id}/computers", {"level": "random", "seats": [0, 1]})
    assert everyone.status_code == 200, everyone.get_json()
    assert state(players[0], game_id)["you"]["seat"] is None  # the seat's token no longer works
    wait_for(lambda: state(organiser, game_id)["status"] == "over", timeout=60)
    conn = server.extensions["db_pool"].get()
    result = wait_for(lambda: Tournaments(conn).load(tid).result(1, 1), timeout=10)
    assert result.source["kind"] == "digital" and result.source["computers"] == [0, 1, 2, 3]


def test_a_player_who_lost_the_device_gets_a_new_link(server: Flask, organiser: Api) -> None:
    tid = tournament(server)
    game = online(organiser, tid, turn_timer=0)[0]["game"]
    lost = remote_player(server, game["seats"][2]["join_url"], game["id"])
    assert state(lost, game["id"])["you"]["seat"] == 2
    renewed = organiser.post(f"/api/games/{game['id']}/seats/2/link", {})
    assert renewed.status_code == 200
    assert state(lost, game["id"])["you"]["seat"] is None  # the old device no longer plays it
    found = remote_player(server, renewed.get_json()["join_url"], game["id"])
    assert state(found, game["id"])["you"]["seat"] == 2
    stale = Api(server.test_client())
    assert stale.client.get(game["seats"][2]["join_url"].removeprefix(PUBLIC)).status_code == 404
    # Only the organiser: neither a player nor a passer-by, and never for a computer's seat.
    assert found.post(f"/api/games/{game['id']}/seats/2/link", {}).status_code == 403
    organiser.post(f"/api/games/{game['id']}/computers", {"level": "random", "seats": [3]})
    assert organiser.post(f"/api/games/{game['id']}/seats/3/link", {}).status_code == 404
    assert organiser.post(f"/api/games/{game['id']}/seats/9/link", {}).status_code == 404


def test_the_turn_timer_keeps_a_game_moving_when_a_player_vanishes(server: Flask, organiser: Api) -> None:
    tid = tournament(server)
    game = online(organiser, tid, turn_timer=0.2)[0]["game"]
    players = [remote_player(server, s["join_url"], game["id"]) for s in game["seats"]]
    # Everybody took their seat, then nobody plays (their phones went dark): the timer plays for them.
    moved = wait_for(lambda: (s := state(players[0], game["id"]))["moves"] >= 3 and s, timeout=20)
    assert moved["status"] == "running"


def test_the_round_page_lists_the_links_and_its_forms_work(server: Flask, organiser: Api) -> None:
    tid = tournament(server)
    page = f"/event/tournaments/{tid}/rounds/1/online"
    html = organiser.client.get(page, headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert 'id="make-online"' in html
    made = organiser.client.post(
        page,
        data={"csrf_token": organiser.token, "turn_timer": "60"},
        follow_redirects=True,
        headers={"Accept-Language": "en"},
    )
    text = made.get_data(as_text=True)
    assert "2 table(s) to play online" in text and text.count(PUBLIC + "/j/") == 8
    bad = organiser.client.post(
        page,
        data={"csrf_token": organiser.token, "turn_timer": "soon"},
        follow_redirects=True,
        headers={"Accept-Language": "en"},
    )
    assert "The turn timer is a number of seconds." in bad.get_data(as_text=True)
    filled = organiser.client.post(
        f"/event/tournaments/{tid}/rounds/1/computers",
        data={"csrf_token": organiser.token, "level": "random", "table": "2"},
        follow_redirects=True,
        headers={"Accept-Language": "en"},
    )
    assert "The computer plays 4 seat(s)." in filled.get_data(as_text=True)
    assert organiser.client.get(f"/event/tournaments/{tid}/rounds/9/online").status_code == 404
    assert organiser.client.get("/event/tournaments/99/rounds/1/online").status_code == 404
