"""Live pages held by nginx (Debian's libnginx-mod-nchan, from the template install.sh installs): the panel
publishes each change once and every subscriber receives it; a seat's own view is never published, and
the board's channel holds its public view, which never tells an attack pawn from a defense pawn."""

from __future__ import annotations

import http.client
import json
import shutil
import socket
import urllib.parse
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask

from tests.servers.nginx import NginxFront, nginx_with_nchan
from tests.servers.process import free_port, server_folder
from tests.webpanel.helpers import Api, FakeService, Lobby, make_settings, start_game
from webpanel.app import close_app, create_app
from webpanel.fanout import NchanPublisher
from webpanel.hub import ChangeHub, game_topic

SUBSCRIBERS = 200
CLIENT_TIMEOUT_S = 20.0
"""Only so that a failure cannot hang the suite."""


@pytest.fixture(scope="module")
def front() -> Iterator[NginxFront]:
    binary = nginx_with_nchan()
    # Nothing is proxied here: the panel behind it is a port nobody listens on.
    server = NginxFront(server_folder("nginx"), binary=binary, panel=f"127.0.0.1:{free_port()}")
    try:
        server.start()
        yield server
    finally:
        server.stop()
        shutil.rmtree(server.folder, ignore_errors=True)


class Subscriber:
    """One page following a channel through nginx (an EventSource, on a raw socket)."""

    def __init__(self, front: NginxFront, channel: str, number: int = 0) -> None:
        # Each from a loopback address of its own: nginx lets one address hold 8 live pages.
        address = f"127.0.{number // 200 + 1}.{number % 200 + 2}"
        self.sock = socket.create_connection((front.host, front.port), timeout=CLIENT_TIMEOUT_S,
                                             source_address=(address, 0))
        request = f"GET /live/{channel} HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n"
        self.sock.sendall(request.encode())
        self.text = ""

    def until(self, words: str) -> str:
        while words not in self.text:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise AssertionError(f"the stream ended before {words!r}: {self.text!r}")
            self.text += chunk.decode(errors="replace")
        return self.text

    def messages(self) -> list[dict[str, object]]:
        return [json.loads(line[5:]) for line in self.text.splitlines() if line.startswith("data:")
                and line[5:].strip().startswith("{")]

    def close(self) -> None:
        self.sock.close()


def test_one_publish_reaches_every_subscriber(front: NginxFront, tmp_path: Path) -> None:
    hub = ChangeHub(tmp_path / "x.db")
    publisher = NchanPublisher(front.publisher_url)
    hub.add_sink(publisher)
    subscribers = [Subscriber(front, "game-7", n) for n in range(SUBSCRIBERS)]
    try:
        for subscriber in subscribers:
            subscriber.until("200 OK")
        hub.publish(game_topic(7), version=3, status="running")
        assert publisher.flush(CLIENT_TIMEOUT_S)
        for subscriber in subscribers:
            text = subscriber.until('"version":3')
            assert "event: game" in text
            assert subscriber.messages() == [{"version": 3, "status": "running"}]  # published once
        assert publisher.failures == 0
        # A page that comes later starts from the newest message.
        late = Subscriber(front, "game-7")
        assert '"version":3' in late.until('"version":3')
        late.close()
    finally:
        for subscriber in subscribers:
            subscriber.close()
        hub.close()
        publisher.close()


@pytest.fixture
def app_behind(front: NginxFront, tmp_path: Path) -> Iterator[Flask]:
    settings = make_settings(tmp_path, live_publisher=front.publisher_url)
    app = create_app({"PANEL": settings, "TESTING": True})
    yield app
    close_app(app)


def test_a_seats_view_is_never_published(front: NginxFront, app_behind: Flask) -> None:
    host = Lobby(app_behind, "hautetension")
    game = host.create([{"kind": "human", "name": n} for n in ("Ana", "Ben")])
    seats = []
    for seat in game["seats"]:
        device = Lobby(app_behind, "hautetension")
        assert device.join(game["id"], seat["join_code"]).status_code == 200
        seats.append(device)
    spectator = Subscriber(front, f"game-{game['id']}")
    publisher: NchanPublisher = app_behind.extensions["live_publisher"]
    try:
        spectator.until("200 OK")
        version = 0
        for _ in range(4):
            state = seats[0].state(game["id"])
            actor = seats[state["to_act"]]
            mine = actor.state(game["id"])
            answer = actor.post(f"/api/games/{game['id']}/moves",
                                {"move": mine["legal_moves"][0], "version": mine["version"]})
            assert answer.status_code == 200, answer.get_json()
            version = answer.get_json()["version"]
        assert publisher.flush(CLIENT_TIMEOUT_S)
        spectator.until(f'"version":{version}')
        messages = spectator.messages()
        assert messages and all(set(m) == {"version", "status"} for m in messages), messages
        assert max(int(str(m["version"])) for m in messages) == version
    finally:
        spectator.close()
    # The page behind nginx follows the game's channel there.
    page = host.get(f"/games/{game['id']}")
    assert f'data-live="/live/game-{game["id"]}"'.encode() in page.data


def _board_channel_after(front: NginxFront, tmp_path: Path, kind: str) -> tuple[dict[str, object], str]:
    """A game behind nginx whose one pawn is of *kind*: the board channel's message once the board shows
    it, and what a player's GET /api/board answers then."""
    _forget_channel(front, "board")  # the previous game's board is not this one's
    settings = make_settings(tmp_path / kind, live_publisher=front.publisher_url)
    service = FakeService(settings.database).start()
    app = create_app({"PANEL": settings, "TESTING": True, "SECRET_KEY": "k" * 32})
    spectator = Subscriber(front, "board")
    try:
        spectator.until("200 OK")
        staff = Api(app.test_client())
        staff.login()
        start_game(staff)
        player = Api(app.test_client())
        assert player.post("/api/sim/slots/f5", {"pawn": kind}).status_code == 200
        board = player.get("/api/board")
        shown = board.get_json()
        assert shown["pawns"]["f5"] is not None
        publisher: NchanPublisher = app.extensions["live_publisher"]
        assert publisher.flush(CLIENT_TIMEOUT_S)
        spectator.until(f'"version":{shown["id"]},')
        last = [m for m in spectator.messages() if m["version"] == shown["id"]][-1]
        # The page behind nginx follows the board's channel.
        assert b'data-live="/live/board"' in player.get("/board").data
        return last, board.get_data(as_text=True)
    finally:
        spectator.close()
        service.stop()
        close_app(app)


def _forget_channel(front: NginxFront, channel: str) -> None:
    connection = http.client.HTTPConnection(front.host, front.publisher_port, timeout=CLIENT_TIMEOUT_S)
    try:
        connection.request("DELETE", f"/live/publish?{urllib.parse.urlencode({'id': channel})}")
        answer = connection.getresponse()
        answer.read()
        assert answer.status in (200, 404), answer.status  # deleted, or there was none
    finally:
        connection.close()


def test_the_boards_public_view_reaches_its_spectators_and_never_tells_the_pawns_kind(
    front: NginxFront, tmp_path: Path
) -> None:
    with_attack, attack_answer = _board_channel_after(front, tmp_path, "attack")
    with_defense, defense_answer = _board_channel_after(front, tmp_path, "defense")
    # The message holds what a player's board page shows: the same view, the service running.
    assert with_attack["public"] == json.loads(attack_answer)
    assert with_attack["status"] == "running"
    # Nothing in it tells an attack pawn from a defense pawn.
    assert json.dumps(with_attack, sort_keys=True) == json.dumps(with_defense, sort_keys=True)
    assert attack_answer == defense_answer
