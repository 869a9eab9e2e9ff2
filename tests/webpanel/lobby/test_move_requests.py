"""Moves by request id, and a busy server: a move sent again is played once, on one process or on two
on PostgreSQL; past the pool's bound a request is answered 503 with Retry-After; concurrent moves on
real SQLite never meet "database is locked"."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask

from store.event.settings import EventSettings
from tests.webpanel.helpers import Lobby, make_settings
from webpanel.app import close_app, create_app
from webpanel.db import ConnectionPool

GAMES = 6
MOVES = 6
CONNECTIONS = 4


def event_app(tmp_path: Path, db_location: str, name: str) -> Flask:
    event = EventSettings(event="paris-2026", database=db_location)
    folder = tmp_path / name
    folder.mkdir()
    return create_app({"PANEL": make_settings(folder), "EVENT": event, "TESTING": True})


@pytest.fixture
def two_processes(tmp_path: Path, db_location: str) -> Iterator[tuple[Flask, Flask]]:
    """Two server processes' apps on one event database (on SQLite: two apps on one file)."""
    first, second = event_app(tmp_path, db_location, "one"), event_app(tmp_path, db_location, "two")
    yield first, second
    close_app(first)
    close_app(second)


def moves_of(lobby: Lobby, game_id: int) -> int:
    moves: int = lobby.state(game_id)["moves"]
    return moves


def test_a_move_sent_again_is_played_once(app: Flask) -> None:
    display = Lobby(app, "qttt")
    game = display.create(hot_seat=True)
    body = {"move": [0, 1], "version": game["version"], "request_id": "move-1"}
    first = display.post(f"/api/games/{game['id']}/moves", body)
    assert first.status_code == 200 and first.get_json()["moves"] == 1
    again = display.post(f"/api/games/{game['id']}/moves", body)
    assert again.status_code == 200, again.get_json()
    assert again.get_json()["version"] == first.get_json()["version"] and again.get_json()["moves"] == 1
    assert moves_of(display, game["id"]) == 1
    # Another move sent against the old version is still refused: only the same request is answered so.
    other = display.post(f"/api/games/{game['id']}/moves", {**body, "request_id": "move-2"})
    assert other.status_code == 409 and other.get_json()["code"] == "game_moved_on"


@pytest.mark.parametrize("bad", ["", "x" * 65, 7, "line\nbreak", "\ud8bf\udd9a", "é", "a b"])
def test_a_bad_request_id_is_refused_and_changes_nothing(app: Flask, bad: object) -> None:
    display = Lobby(app, "qttt")
    game = display.create(hot_seat=True)
    answer = display.post(f"/api/games/{game['id']}/moves", {"move": [0, 1], "request_id": bad})
    assert answer.status_code == 400 and answer.get_json()["code"] == "bad_field"
    assert moves_of(display, game["id"]) == 0


def test_a_move_retried_on_another_process_is_played_once(two_processes: tuple[Flask, Flask]) -> None:
    first, second = two_processes
    display = Lobby(first, "qttt")
    game = display.create(hot_seat=True)
    host = {"X-Host-Token": game["host_token"]}
    body = {"move": [0, 1], "version": game["version"], "request_id": "retried"}
    assert display.post(f"/api/games/{game['id']}/moves", body, headers=host).status_code == 200
    elsewhere = Lobby(second, "qttt")
    again = elsewhere.post(f"/api/games/{game['id']}/moves", body, headers=host)
    assert again.status_code == 200, again.get_json()
    assert moves_of(elsewhere, game["id"]) == 1


def test_past_the_pools_bound_a_request_is_answered_503_with_retry_after(app: Flask) -> None:
    display = Lobby(app, "qttt")
    game = display.create(hot_seat=True)
    pool: ConnectionPool = app.extensions["db_pool"]
    pool.most, pool.wait_s = 1, 0.01
    held = pool._lend()  # every connection the pool may open is lent
    try:
        answer = display.get(f"/api/games/{game['id']}")
        assert answer.status_code == 503 and answer.headers["Retry-After"] == "1"
        assert answer.get_json()["code"] == "server_busy"
    finally:
        pool.give_back(held)
    assert display.get(f"/api/games/{game['id']}").status_code == 200


def test_concurrent_moves_on_sqlite_never_meet_a_locked_database(tmp_path: Path) -> None:
    app = create_app({"PANEL": make_settings(tmp_path), "TESTING": True})
    statuses: list[int] = []
    lock = threading.Lock()
    try:
        displays = [Lobby(app, "qttt") for _ in range(GAMES)]
        games = [display.create(hot_seat=True) for display in displays]
        # The pool's every connection without any busy wait: a writer that met another one would fail
        # at once, were the process's writers not in turn.
        pool: ConnectionPool = app.extensions["db_pool"]
        pool.most = pool.idle = CONNECTIONS
        lent = [pool._lend() for _ in range(CONNECTIONS)]
        for conn in lent:
            conn.execute("PRAGMA busy_timeout = 0")
            pool.give_back(conn)

        def play(display: Lobby, game: dict[str, object]) -> None:
            version = game["version"]
            for cell in range(MOVES):
                answer = display.post(f"/api/games/{game['id']}/moves",
                                      {"move": [cell, (cell + 3) % 9], "version": version})
                with lock:
                    statuses.append(answer.status_code)
                if answer.status_code == 200:
                    version = answer.get_json()["version"]

        threads = [threading.Thread(target=play, args=pair) for pair in zip(displays, games, strict=True)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        close_app(app)
    assert len(statuses) == GAMES * MOVES and all(status < 500 for status in statuses), statuses
