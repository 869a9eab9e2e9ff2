"""The lobby's pages, join links, QR codes and the game event stream."""

from __future__ import annotations

import http.client
import io
import json
import re
from typing import Any

import pytest
import segno
from flask import Flask

from configuration import ConfigError, load_config
from webpanel.config import LobbySettings

HUMANS = [{"kind": "human", "name": "Ada"}, {"kind": "human", "name": "Bob"}]


def create(api: Any, **body: Any) -> dict[str, Any]:
    response = api.post("/api/games", {"game": "qttt", "seats": HUMANS, **body})
    assert response.status_code == 201, response.get_json()
    data: dict[str, Any] = response.get_json()
    return data


def test_lobby_page(client: Any) -> None:
    response = client.get("/games")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    assert '<option value="qttt"' in html and 'id="create"' in html
    assert "<script>" not in html and "lobby.js" in html, "scripts are files only (CSP)"
    assert "default-src 'self'" in response.headers["Content-Security-Policy"]


def test_game_page_loads_the_board_of_its_game(client: Any, api: Any) -> None:
    game = create(api)
    html = client.get(f"/games/{game['id']}").get_data(as_text=True)
    assert f'data-id="{game["id"]}"' in html and 'data-game="qttt"' in html
    assert "/games/static/game.js" in html and "/games/static/qttt.js" in html and 'id="qttt"' in html
    assert "<script>" not in html
    assert client.get("/games/99").status_code == 404
    with client.get("/games/static/qttt.js") as script:
        assert script.status_code == 200 and b"GamePage.register(\"qttt\"" in script.data


def test_join_page(client: Any, api: Any) -> None:
    game = create(api)
    code = game["seats"][1]["join_code"]
    html = client.get(f"/j/{code}").get_data(as_text=True)
    assert "Bob" in html and f'data-code="{code}"' in html and "join.js" in html
    assert client.get(f"/j/{code.upper()}").status_code == 200
    assert client.get("/j/nope42").status_code == 404
    assert client.get("/j/" + "a" * 40).status_code == 404
    # The page itself takes no seat: its script does, with the CSRF token.
    assert not api.get(f"/api/games/{game['id']}").get_json()["seats"][1]["joined"]


def test_qr_code_encodes_the_public_join_link(app: Flask, client: Any, api: Any) -> None:
    app.config["LOBBY_PUBLIC_URL"] = "http://table.local:8080"
    game = create(api)
    code = game["seats"][0]["join_code"]
    response = client.get(f"/j/{code}/qr.svg")
    assert response.status_code == 200 and response.mimetype == "image/svg+xml"
    expected = io.BytesIO()
    segno.make(f"http://table.local:8080/j/{code}", error="m").save(
        expected, kind="svg", scale=6, border=2, title="Join link", dark="#111", light="#fff")
    assert response.data == expected.getvalue()
    assert client.get("/j/nope42/qr.svg").status_code == 404


def test_qr_code_avoids_the_loopback_address(app: Flask, client: Any, api: Any) -> None:
    from webpanel.lobby import pages

    game = create(api)
    code = game["seats"][0]["join_code"]
    app.config["LISTEN_HOST"] = "0.0.0.0"  # a panel every machine on the network reaches
    with app.test_request_context("/", base_url="http://127.0.0.1:8080"):
        root = pages.public_root()
    assert re.fullmatch(r"http://[0-9.]+:8080/", root)
    lan = pages._lan_address()
    assert root == (f"http://{lan}:8080/" if lan else "http://127.0.0.1:8080/")
    # Listening on loopback only (make run, make event): the network's address would reach nothing.
    app.config["LISTEN_HOST"] = "127.0.0.1"
    with app.test_request_context("/", base_url="http://127.0.0.1:8080"):
        assert pages.public_root() == "http://127.0.0.1:8080/"
    with app.test_request_context("/", base_url="http://pi.local:8080"):
        assert pages.public_root() == "http://pi.local:8080/"
    assert client.get(f"/j/{code}/qr.svg").status_code == 200


def read_event(response: Any) -> dict[str, str] | None:
    fields: dict[str, str] = {}
    while True:
        line = response.readline()
        if not line:
            return None
        text = line.decode().rstrip("\n")
        if not text:
            if "event" in fields:
                return fields
            fields = {}
            continue
        if text.startswith(":"):
            continue
        name, _, value = text.partition(": ")
        fields[name] = value


def open_stream(port: int, game_id: int, last: str | None = None) -> tuple[Any, Any]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    headers = {"Accept": "text/event-stream"}
    if last is not None:
        headers["Last-Event-ID"] = last
    conn.request("GET", f"/api/games/{game_id}/events", headers=headers)
    return conn, conn.getresponse()


def test_event_stream_follows_the_game(served: Any, api: Any) -> None:
    game = create(api, hot_seat=True)
    gid = game["id"]
    conn, response = open_stream(served.port, gid)
    try:
        assert response.status == 200 and response.getheader("Content-Type").startswith("text/event-stream")
        first = read_event(response)
        assert first is not None and first["event"] == "game" and first["id"] == "1"
        assert json.loads(first["data"]) == {"version": 1, "status": "running"}
        assert api.post(f"/api/games/{gid}/moves", {"move": [0, 1]}).status_code == 200
        second = read_event(response)
        assert second is not None and json.loads(second["data"])["version"] == 2 and second["id"] == "2"
    finally:
        conn.close()
    # A browser that reconnects with the version it has is not sent it again.
    conn, response = open_stream(served.port, gid, last="2")
    try:
        assert api.post(f"/api/games/{gid}/moves", {"move": [0, 1]}).status_code == 200
        event = read_event(response)
        assert event is not None and event["id"] == "3"
    finally:
        conn.close()


def test_event_stream_of_a_finished_game_ends(served: Any, api: Any) -> None:
    game = create(api, hot_seat=True)
    gid = game["id"]
    for move in ([0, 1], [0, 1], {"collapse": 0}, [3, 4], [3, 4], {"collapse": 3}, [6, 7], [6, 7],
                 {"collapse": 6}):
        assert api.post(f"/api/games/{gid}/moves", {"move": move}).status_code == 200
    conn, response = open_stream(served.port, gid)
    try:
        event = read_event(response)
        assert event is not None and json.loads(event["data"]) == {"version": 10, "status": "over"}
        closing = read_event(response)
        assert closing is not None and closing["event"] == "reconnect"
        assert read_event(response) is None, "the stream ends at once: nothing more will happen"
    finally:
        conn.close()


def test_event_stream_refusals(served: Any, client: Any, api: Any, app: Flask) -> None:
    game = create(api)
    assert client.get(f"/api/games/{game['id']}/events", headers={"Last-Event-ID": "x"}).status_code == 400
    follower = app.extensions["board_follower"]
    taken = 0
    while follower.try_open_stream():
        taken += 1
    try:
        response = client.get(f"/api/games/{game['id']}/events")
        assert response.status_code == 503 and response.headers["Retry-After"]
        assert "too many" in response.get_json()["error"]
    finally:
        for _ in range(taken):
            follower.close_stream()


def test_public_url_setting(tmp_path: Any) -> None:
    def setting(text: str) -> str | None:
        path = tmp_path / "config.toml"
        path.write_text(text)
        return LobbySettings.from_config(load_config(path)).public_url

    assert setting("") is None
    assert setting('[lobby]\npublic_url = ""\n') is None
    assert setting('[lobby]\npublic_url = "http://10.0.0.2:8080"\n') == "http://10.0.0.2:8080"
    with pytest.raises(ConfigError, match="public_url must be"):
        setting('[lobby]\npublic_url = "table.local"\n')
    with pytest.raises(ConfigError, match="\\[lobby\\]: unknown key 'url'"):
        setting('[lobby]\nurl = "http://x"\n')
