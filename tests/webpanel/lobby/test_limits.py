"""What the lobby may hold: open games capped per device and in total, the host abandoning a game,
idle games expiring (issue: anyone could create games without limit, 2,000 in 153 s)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from configuration import ConfigError, load_config
from store.db import connect
from tests.webpanel.helpers import Api, Lobby, make_settings
from webpanel.app import close_app, create_app
from webpanel.config import LobbySettings

GAME = "qttt"
HUMANS = [{"kind": "human", "name": "Ada"}, {"kind": "human", "name": "Bob"}]
COMPUTERS = [{"kind": "ai", "level": "random"}, {"kind": "ai", "level": "random"}]


@pytest.fixture
def small_lobby(tmp_path: Path) -> Iterator[Flask]:
    app = create_app({"PANEL": make_settings(tmp_path), "TESTING": True,
                      "LOBBY": LobbySettings(max_open_games=3, max_open_games_per_device=2,
                                             expire_idle_hours=1.0)})
    yield app
    app.extensions["lobby_ai"].close()
    close_app(app)


def from_address(address: str) -> dict[str, Any]:
    return {"environ_base": {"REMOTE_ADDR": address}}


def create(device: Lobby, address: str, seats: list[dict[str, Any]] | None = None) -> Any:
    return device.post("/api/games", {"game": GAME, "seats": seats or HUMANS}, **from_address(address))


def age(app: Flask, game_id: int, hours: float) -> None:
    """Make the game look untouched for *hours* (as if its last move was that long ago)."""
    conn = connect(app.config["PANEL"].database)
    conn.execute("UPDATE digital_games SET updated_at = updated_at - ? WHERE id = ?", (hours * 3600, game_id))
    conn.close()


def test_a_device_may_hold_its_share_of_open_games(small_lobby: Flask) -> None:
    display = Lobby(small_lobby, GAME)
    first = create(display, "10.0.0.5")
    assert first.status_code == 201 and create(display, "10.0.0.5").status_code == 201
    refused = create(display, "10.0.0.5")
    assert refused.status_code == 429, refused.get_json()
    assert "this device has 2 open games already" in refused.get_json()["error"]
    assert create(display, "10.0.0.6").status_code == 201, "another device has its own share"
    full = create(display, "10.0.0.7")
    assert full.status_code == 503 and full.headers["Retry-After"] == "60"
    assert "the lobby is full (3 open games)" in full.get_json()["error"]
    assert len(display.fetch("/api/games")["games"]) == 3, "refusals create nothing"
    abandoned = display.post(f"/api/games/{first.get_json()['id']}/abandon", **from_address("10.0.0.5"))
    assert abandoned.status_code == 200
    assert create(display, "10.0.0.5").status_code == 201, "an abandoned game no longer counts"


def test_finished_and_expired_games_do_not_count(small_lobby: Flask) -> None:
    display = Lobby(small_lobby, GAME)
    finished = create(display, "10.0.0.5", COMPUTERS).get_json()
    assert small_lobby.extensions["lobby_ai"].wait_idle(finished["id"], 30)
    assert display.state(finished["id"])["status"] == "over"
    idle = create(display, "10.0.0.5").get_json()
    assert create(display, "10.0.0.5").status_code == 201
    assert create(display, "10.0.0.5").status_code == 429
    age(small_lobby, idle["id"], 2)
    assert create(display, "10.0.0.5").status_code == 201, "the idle game expired to make room"
    assert display.state(idle["id"])["status"] == "expired"


def test_staff_are_capped_by_the_total_only(small_lobby: Flask) -> None:
    staff = Lobby(small_lobby, GAME)
    assert staff.api.login().status_code == 200
    assert [create(staff, "10.0.0.5").status_code for _ in range(4)] == [201, 201, 201, 503]


def test_a_game_nobody_touched_expires_when_looked_at(small_lobby: Flask) -> None:
    display, tablet = Lobby(small_lobby, GAME), Lobby(small_lobby, GAME)
    game = display.create()
    assert tablet.join(game["id"], game["seats"][0]["join_code"]).status_code == 200
    age(small_lobby, game["id"], 0.5)
    assert display.state(game["id"])["status"] == "running", "half the idle time: still on"
    age(small_lobby, game["id"], 0.6)
    seen = display.state(game["id"])
    assert seen["status"] == "expired" and seen["version"] == 3 and not seen["can_move"]
    moved = tablet.move(game["id"], [0, 1])
    assert moved.status_code == 409 and "expired" in moved.get_json()["error"]
    late = Lobby(small_lobby, GAME).join(game["id"], game["seats"][1]["join_code"])
    assert late.status_code == 409 and "expired" in late.get_json()["error"]
    assert [g["status"] for g in display.fetch("/api/games")["games"]] == ["expired"]


def test_the_list_expires_idle_games(small_lobby: Flask) -> None:
    display = Lobby(small_lobby, GAME)
    game = display.create()
    age(small_lobby, game["id"], 2)
    assert display.fetch("/api/games")["games"][0]["status"] == "expired"


def test_only_the_host_abandons_and_only_an_open_game(small_lobby: Flask) -> None:
    display, tablet, stranger = (Lobby(small_lobby, GAME) for _ in range(3))
    game = display.create()
    gid = game["id"]
    assert tablet.join(gid, game["seats"][0]["join_code"]).status_code == 200
    refused = tablet.post(f"/api/games/{gid}/abandon")
    assert refused.status_code == 403 and "only the display that created" in refused.get_json()["error"]
    assert stranger.post(f"/api/games/{gid}/abandon").status_code == 403
    forged = stranger.post(f"/api/games/{gid}/abandon", headers={"X-Host-Token": "guess"})
    assert forged.status_code == 403 and "host token does not belong" in forged.get_json()["error"]
    no_csrf = display.api.client.post(f"/api/games/{gid}/abandon")
    assert no_csrf.status_code == 403 and "CSRF" in no_csrf.get_json()["error"]
    assert display.post("/api/games/999/abandon").status_code == 404
    assert display.state(gid)["status"] == "running", "refusals change nothing"
    done = display.post(f"/api/games/{gid}/abandon")
    assert done.status_code == 200
    state = done.get_json()
    assert state["status"] == "abandoned" and state["version"] == 3 and not state["can_move"]
    assert all("join_code" not in s for s in state["seats"]), "nobody joins an abandoned game"
    again = display.post(f"/api/games/{gid}/abandon")
    assert again.status_code == 409 and "abandoned" in again.get_json()["error"]
    moved = tablet.move(gid, [0, 1])
    assert moved.status_code == 409 and moved.get_json()["error"] == "the game was abandoned by its host"
    assert tablet.state(gid)["status"] == "abandoned" and tablet.state(gid)["legal_moves"] is None


def test_an_abandoned_game_ends_its_streams(small_lobby: Flask) -> None:
    display = Lobby(small_lobby, GAME)
    runner = small_lobby.extensions["lobby_ai"]
    runner.close()  # its computers would finish the game before it is abandoned
    game = display.create(COMPUTERS)
    assert display.post(f"/api/games/{game['id']}/abandon").status_code == 200
    assert display.state(game["id"])["moves"] == 0
    response = display.get(f"/api/games/{game['id']}/events", buffered=False)
    try:
        text = "".join(chunk.decode() for chunk in response.response)  # ends by itself
    finally:
        response.close()
    events = [json.loads(line[6:]) for line in text.splitlines() if line.startswith("data: {\"version")]
    assert events == [{"version": 2, "status": "abandoned"}]


def test_the_host_token_header_abandons_too(small_lobby: Flask) -> None:
    display, api_client = Lobby(small_lobby, GAME), Api(small_lobby.test_client())
    game = display.create()
    answer = api_client.post(f"/api/games/{game['id']}/abandon", headers={"X-Host-Token": game["host_token"]})
    assert answer.status_code == 200 and answer.get_json()["you"] == {"seat": None, "host": True}


def lobby_settings(tmp_path: Path, text: str) -> LobbySettings:
    path = tmp_path / "config.toml"
    path.write_text(text)
    return LobbySettings.from_config(load_config(path))


def test_the_lobby_settings(tmp_path: Path) -> None:
    assert lobby_settings(tmp_path, "") == LobbySettings()
    read = lobby_settings(tmp_path, "[lobby]\nmax_open_games = 40\nmax_open_games_per_device = 4\n"
                                    "expire_idle_hours = 0.5\ncomputer_workers = 3\ncached_games = 0\n"
                                    "cached_moves = 1000\n")
    assert (read.max_open_games, read.max_open_games_per_device, read.expire_idle_seconds) == (40, 4, 1800.0)
    assert (read.computer_workers, read.cached_games, read.cached_moves) == (3, 0, 1000)
    with pytest.raises(ConfigError) as bad:
        lobby_settings(tmp_path, '[lobby]\nmax_open_games = 0\nmax_open_games_per_device = "ten"\n'
                                 "expire_idle_hours = 0\ncomputer_workers = 0\ncached_games = -1\n")
    for words in ("max_open_games must be at least 1", "max_open_games_per_device must be an integer",
                  "expire_idle_hours must be more than 0", "computer_workers must be 1-64",
                  "cached_games must be at least 0"):
        assert words in str(bad.value)
    with pytest.raises(ConfigError, match=r"max_open_games_per_device \(20\) cannot exceed max_open_games"):
        lobby_settings(tmp_path, "[lobby]\nmax_open_games = 10\nmax_open_games_per_device = 20\n")


def test_the_panel_command_hands_the_lobby_its_settings(tmp_path: Path, monkeypatch: Any) -> None:
    """``hautetension panel`` passes the [lobby] section to the app: its pool and its cache follow it."""
    import socket

    import webpanel.app
    from hautetension.cli import main

    made: list[Flask] = []
    real = webpanel.app.create_app

    def recording(test_config: Any = None, **kwargs: Any) -> Flask:
        made.append(real(test_config, **kwargs))
        return made[-1]

    monkeypatch.setattr(webpanel.app, "create_app", recording)
    config = tmp_path / "config.toml"
    config.write_text(f'[store]\npath = "{tmp_path / "p.db"}"\n'
                      '[lobby]\ncomputer_workers = 3\ncached_games = 5\npublic_url = "http://table.local:8080"\n')
    with socket.socket() as busy:  # the command builds the app, then gives up on the taken port
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        assert main(["panel", "--config", str(config), "--port", str(busy.getsockname()[1])]) == 1
    (app,) = made
    assert app.extensions["lobby_ai"].workers == 3 and app.extensions["lobby_games"].max_games == 5
    with app.test_request_context("/"):
        from webpanel.lobby.pages import public_root

        assert public_root() == "http://table.local:8080/"
