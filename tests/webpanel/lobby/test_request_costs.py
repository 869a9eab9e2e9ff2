"""What a seat's look and a move cost the panel, counted: database statements, reads, replays, views built.

A game's page fetches the game once per version (the move's answer brings the mover its view), so a
move of a four-seat game costs the move and three looks. Counted here, never timed:

* a look at a version the panel holds runs one statement (the one-row head that says the version is
  still the stored one): no read of the game, no tournament table, no replay;
* each caller's view of a version is built once, then served as stored, to that caller only;
* a move keeps the game it played as the new version: the other seats' looks read nothing back and
  push no move through the engine, and the mover's answer is the view its own look then gets;
* a move sent against the version it names is not looked up by its request id (a move played already
  made a newer version), one sent against another version is.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from games.hautetension.digital import DigitalHauteTension
from store.games import GameStore
from tests.webpanel.helpers import Api, make_settings
from webpanel.app import close_app, create_app
from webpanel.config import LobbySettings
from webpanel.lobby.cache import GameCache, LoadedGame


class Statements:
    """The SQL statements the panel's connections run while :attr:`on`."""

    def __init__(self, app: Flask) -> None:
        self.seen: list[str] = []
        self.on = False
        pool = app.extensions["db_pool"]
        opener = pool.opener

        def traced(database: str) -> Any:
            conn = opener(database)
            conn.set_trace_callback(lambda sql: self.seen.append(" ".join(sql.split())) if self.on else None)
            return conn

        pool.opener = traced

    def during(self, action: Any) -> list[str]:
        self.seen.clear()
        self.on = True
        try:
            action()
        finally:
            self.on = False
        return list(self.seen)


class Table:
    """A four-seat digital Haute-Tension game, each seat on a device of its own."""

    def __init__(self, app: Flask) -> None:
        host = Api(app.test_client())
        created = host.post("/api/games", {"game": "hautetension", "seats": [{"kind": "human"}] * 4})
        assert created.status_code == 201, created.get_json()
        self.id = created.get_json()["id"]
        self.seats = []
        self.tokens = []
        for seat in created.get_json()["seats"]:
            device = Api(app.test_client())
            joined = device.post(f"/api/games/{self.id}/join", {"code": seat["join_code"]})
            assert joined.status_code == 200, joined.get_json()
            self.seats.append(device)
            self.tokens.append(joined.get_json()["token"])
        self.url = f"/api/games/{self.id}"

    def look(self, seat: int) -> Any:
        answer = self.seats[seat].get(self.url)
        assert answer.status_code == 200, answer.get_json()
        return answer

    def mover(self) -> tuple[int, dict[str, Any]]:
        for seat in range(4):
            state = self.look(seat).get_json()
            if state["can_move"]:
                return seat, state
        raise AssertionError("nobody may move")

    def move(self, seat: int, state: dict[str, Any], rng: random.Random, **extra: Any) -> Any:
        body = {"move": rng.choice(state["legal_moves"]), "version": state["version"], **extra}
        answer = self.seats[seat].post(f"{self.url}/moves", body)
        assert answer.status_code == 200, answer.get_json()
        return answer


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Flask]:
    application = create_app({"PANEL": make_settings(tmp_path), "TESTING": True})
    yield application
    close_app(application)


def kept(app: Flask, game_id: int) -> LoadedGame:
    """The version of the game the panel holds now (loaded as a request would)."""
    cache: GameCache = app.extensions["lobby_games"]
    with app.app_context():
        return cache.load(GameStore(app.extensions["db_pool"].get()), game_id)


def test_a_look_at_a_kept_version_runs_one_statement_and_builds_the_view_once(app: Flask) -> None:
    statements = Statements(app)
    table = Table(app)
    first = table.look(1)
    loaded = kept(app, table.id)
    built = loaded.computed
    looks = statements.during(lambda: [table.look(1) for _ in range(5)])
    assert len(looks) == 5, looks
    assert all(sql.startswith("SELECT version, updated_at, status FROM digital_games") for sql in looks)
    assert loaded.computed == built, "the seat's view was served as stored"
    assert table.look(1).get_data() == first.get_data()


def test_each_caller_gets_its_own_view_built_once(app: Flask) -> None:
    table = Table(app)
    loaded = kept(app, table.id)
    built = loaded.computed
    answers = {seat: [table.look(seat) for _ in range(3)] for seat in (2, 0, 3, 1)}
    for seat, seen in answers.items():
        assert {a.get_data() for a in seen} == {seen[0].get_data()}
        assert seen[0].get_json()["you"]["seat"] == seat, "another seat's view was served"
    assert len({seen[0].get_data() for seen in answers.values()}) == 4
    # One view per seat, and the "to_act" the look needs: five things computed for twelve looks.
    assert loaded.computed - built == 5


def test_after_a_move_the_other_seats_look_without_reading_or_replaying(app: Flask) -> None:
    statements = Statements(app)
    table = Table(app)
    rng = random.Random(3)
    seat, state = table.mover()
    store_reads = 0
    pushes = 0
    original_get, original_push = GameStore.get, DigitalHauteTension.push

    def counting_get(self: GameStore, game_id: int) -> Any:
        nonlocal store_reads
        store_reads += 1
        return original_get(self, game_id)

    def counting_push(self: DigitalHauteTension, move: Any) -> None:
        nonlocal pushes
        pushes += 1
        original_push(self, move)

    GameStore.get = counting_get  # type: ignore[method-assign]
    DigitalHauteTension.push = counting_push  # type: ignore[method-assign]
    try:
        moved = statements.during(lambda: table.move(seat, state, rng, request_id="move-1"))
        pushed_by_move, pushes = pushes, 0
        others = [s for s in range(4) if s != seat]
        looks = statements.during(lambda: [table.look(s) for s in others])
    finally:
        GameStore.get = original_get  # type: ignore[method-assign]
        DigitalHauteTension.push = original_push  # type: ignore[method-assign]
    assert pushed_by_move >= 1
    assert store_reads == 0, "the saved game was read back"
    assert pushes == 0, "a look replayed the move"
    assert not [sql for sql in moved if sql.startswith("SELECT version FROM move_requests")], \
        "a move against the current version was looked up by its request id"
    assert len([sql for sql in moved if "digital_tournament_tables" in sql]) == 1, \
        "the game watch looks at the tournament tables once per version"
    assert len(looks) == 3, looks
    assert all(sql.startswith("SELECT version, updated_at, status") for sql in looks), looks


def test_the_movers_answer_is_the_view_its_look_gets_and_a_fresh_panel_gives(tmp_path: Path) -> None:
    settings = make_settings(tmp_path)
    app = create_app({"PANEL": settings, "TESTING": True})
    fresh = create_app({"PANEL": settings, "TESTING": True, "LOBBY": LobbySettings(cached_games=0)})
    try:
        table = Table(app)
        rng = random.Random(8)
        for _ in range(6):
            seat, state = table.mover()
            answer = table.move(seat, state, rng)
            assert answer.get_json()["version"] == state["version"] + 1
            assert table.look(seat).get_data() == answer.get_data()
            replayed = fresh.test_client().get(table.url, headers={"X-Seat-Token": table.tokens[seat]})
            assert replayed.get_data() == answer.get_data()
    finally:
        close_app(app)
        close_app(fresh)


def test_a_move_sent_again_is_looked_up_and_played_once(app: Flask) -> None:
    statements = Statements(app)
    table = Table(app)
    rng = random.Random(5)
    seat, state = table.mover()
    first = table.move(seat, state, rng, request_id="again-1")
    body = {"move": rng.choice(state["legal_moves"]), "version": state["version"], "request_id": "again-1"}
    again = statements.during(lambda: table.seats[seat].post(f"{table.url}/moves", body))
    assert [sql for sql in again if sql.startswith("SELECT version FROM move_requests")], \
        "a move against an older version must be looked up"
    assert not [sql for sql in again if sql.startswith("UPDATE digital_games")]
    assert table.look(seat).get_json()["version"] == first.get_json()["version"]
