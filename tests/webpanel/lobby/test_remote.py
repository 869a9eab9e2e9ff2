"""Remote seats on any panel: the host hands the seats nobody took to a computer, or makes a new link
for a seat; everybody else is refused, and a refusal changes nothing."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from flask import Flask

from tests.webpanel.helpers import Lobby, wait_for

SEATS = [{"kind": "human", "name": n} for n in ("Ana", "Ben")]


@pytest.fixture
def host(app: Flask) -> Iterator[Lobby]:
    yield Lobby(app, "qttt")
    app.extensions["lobby_ai"].close()


def test_the_host_gives_the_empty_seat_to_a_computer_which_then_plays(app: Flask, host: Lobby) -> None:
    game = host.create(SEATS)
    ana = Lobby(app, "qttt")
    assert ana.join(game["id"], game["seats"][0]["join_code"]).status_code == 200
    given = host.post(f"/api/games/{game['id']}/computers", {"level": "random"})
    assert given.status_code == 200, given.get_json()
    assert [s["kind"] for s in given.get_json()["seats"]] == ["human", "ai"]
    assert ana.move(game["id"], [0, 1]).status_code == 200
    wait_for(lambda: ana.state(game["id"])["moves"] >= 2, timeout=10)  # the computer answered
    # Nothing left to fill; the old join code of the computer's seat no longer opens anything.
    assert host.post(f"/api/games/{game['id']}/computers", {"level": "random"}).status_code == 409
    assert Lobby(app, "qttt").join(game["id"], game["seats"][1]["join_code"]).status_code == 404


@pytest.mark.parametrize(
    ("body", "status", "words"),
    [
        ({"level": "grandmaster"}, 409, "level must be one of"),
        ({}, 400, "missing"),
        ({"level": "random", "seats": "all"}, 400, "list of seat numbers"),
        ({"level": "random", "seats": [True]}, 400, "list of seat numbers"),
        ({"level": "random", "seats": [7]}, 409, "not a human seat"),
    ],
)
def test_bad_requests_change_nothing(host: Lobby, body: dict[str, object], status: int, words: str) -> None:
    game = host.create(SEATS)
    answer = host.post(f"/api/games/{game['id']}/computers", body)
    assert answer.status_code == status and words in answer.get_json()["error"]
    assert [s["kind"] for s in host.state(game["id"])["seats"]] == ["human", "human"]


def test_only_the_host_or_staff_and_only_while_the_game_runs(app: Flask, host: Lobby) -> None:
    game = host.create(SEATS)
    ana = Lobby(app, "qttt")
    ana.join(game["id"], game["seats"][0]["join_code"])
    for device in (ana, Lobby(app, "qttt")):
        assert device.post(f"/api/games/{game['id']}/computers", {"level": "random"}).status_code == 403
        assert device.post(f"/api/games/{game['id']}/seats/1/link", {}).status_code == 403
    assert host.post(f"/api/games/{game['id']}/abandon").status_code == 200
    assert host.post(f"/api/games/{game['id']}/computers", {"level": "random"}).status_code == 409
    assert host.post(f"/api/games/{game['id']}/seats/1/link", {}).status_code == 409
    assert host.post("/api/games/999/computers", {"level": "random"}).status_code == 404


def test_a_new_link_replaces_the_old_one(app: Flask, host: Lobby) -> None:
    game = host.create(SEATS)
    renewed = host.post(f"/api/games/{game['id']}/seats/0/link", {}).get_json()
    assert renewed["join_code"] != game["seats"][0]["join_code"]
    assert renewed["join_url"].endswith(f"/j/{renewed['join_code'].lower()}")
    assert Lobby(app, "qttt").join(game["id"], game["seats"][0]["join_code"]).status_code == 404
    assert Lobby(app, "qttt").join(game["id"], renewed["join_code"]).status_code == 200
    hot = host.create(SEATS, hot_seat=True)
    assert host.post(f"/api/games/{hot['id']}/seats/0/link", {}).status_code == 404  # no human seat
