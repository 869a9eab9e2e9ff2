"""Loaded games kept by version: a look at a game does not replay it, and answers what a replay would.

The property: a panel that keeps loaded games and one that replays every
game at every look (``[lobby] cached_games = 0``), on the same database,
give byte-identical answers to every caller (spectator, host, each seat)
after every move of random games of every kind, whichever panel the moves
were played through: the live state, replay positions, Hypnosia's board data
and |Hop>'s annotated moves.
"""

from __future__ import annotations

import json
import random
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.frame import game_class
from games.hypnosia.game import Hypnosia
from store.db import connect
from store.games import GameStore, SeatSpec
from tests.webpanel.helpers import Api, make_settings
from webpanel.app import close_app, create_app
from webpanel.config import LobbySettings
from webpanel.lobby import cache as cache_module
from webpanel.lobby.cache import GameCache
from webpanel.lobby.runner import settle_chance

HUMANS = [SeatSpec("human", "Ada"), SeatSpec("human", "Bob")]


@pytest.fixture
def store(tmp_path: Path) -> Iterator[GameStore]:
    conn = connect(tmp_path / "games.db")
    yield GameStore(conn)
    conn.close()


def played(store: GameStore, game_id: int, moves: int, seed: int = 0) -> None:
    """Play *moves* random moves of the stored game (dice rolled as the lobby rolls them)."""
    rng = random.Random(seed)
    for _ in range(moves):
        record = store.get(game_id)
        game = record.load()
        if game.is_over():
            return
        game.push(rng.choice(game.legal_moves()))
        settle_chance(game)
        store.save(game_id, game, expected_version=record.version)


# -- the cache on its own ---------------------------------------------------------------------------


def test_a_version_is_loaded_once_and_newer_ones_are_built_from_it(store: GameStore) -> None:
    record, _ = store.create(game_class("hypnosia").new(["Ada", "Bob"], seed=3), HUMANS, hot_seat=False)
    cache = GameCache(max_games=4, max_moves=10_000)
    first = cache.load(store, record.id)
    assert cache.load(store, record.id) is first and cache.loads == 1, "the same version: from memory"
    played(store, record.id, 30)
    newer = cache.load(store, record.id)
    assert newer is not first and cache.loads == 1, "the new moves pushed on a copy, no replay"
    fresh = store.get(record.id).load()
    assert newer.read(lambda g: (g.to_json(), g.view(0), g.legal_moves())) == \
        (fresh.to_json(), fresh.view(0), fresh.legal_moves())
    assert first.read(lambda g: len(g.history)) == 0, "an older version's game is never changed"
    store.join(record.id, record.seats[0].join_code or "")
    joined = cache.load(store, record.id)
    assert joined is not newer and joined.record.seats[0].joined and cache.loads == 1


def test_a_changed_row_with_the_same_version_is_read_again(store: GameStore) -> None:
    """A database put back from a backup may hold another game under the same id and version."""
    record, _ = store.create(game_class("qttt").new(["Ada", "Bob"], seed=1), HUMANS, hot_seat=False)
    cache = GameCache(max_games=4, max_moves=10_000)
    cache.load(store, record.id)
    other = game_class("qttt").new(["Ada", "Bob"], seed=1)
    other.push([4, 5])
    store.conn.execute("UPDATE digital_games SET state = ?, updated_at = updated_at + 1 WHERE id = ?",
                       (json.dumps(other.to_json()), record.id))
    assert cache.load(store, record.id).read(lambda g: g.history) == [[4, 5]]


def test_memory_is_bounded_by_games_moves_and_answers(store: GameStore) -> None:
    ids = []
    for seed in range(4):
        game = game_class("hypnosia").new(["Ada", "Bob"], seed=seed)
        record, _ = store.create(game, HUMANS, hot_seat=False)
        played(store, record.id, 20, seed)
        ids.append(record.id)
    cache = GameCache(max_games=3, max_moves=10_000)
    for game_id in ids:
        cache.load(store, game_id)
    assert len(cache) == 3, "the least recently used game makes room"
    cache.load(store, ids[0])
    assert cache.loads == 5, "the evicted game is replayed when looked at again"
    lengths = [store.get(game_id).moves for game_id in ids]
    budget = lengths[-1] + lengths[-2]  # room for the last two games looked at, not for a third
    moves = GameCache(max_games=10, max_moves=budget)
    for game_id in ids:
        moves.load(store, game_id)
    assert moves.moves == budget and len(moves) == 2
    tiny = GameCache(max_games=10, max_moves=5)
    tiny.load(store, ids[0])
    assert len(tiny) == 0, "a game longer than the whole budget is served, not kept"
    loaded = cache.load(store, ids[1])
    for number in range(cache_module.MAX_ANSWERS + 10):
        loaded.answer(("state", number), lambda g: b"x")
    assert len(loaded._answers) == cache_module.MAX_ANSWERS


def test_an_older_version_never_replaces_a_newer_one(store: GameStore) -> None:
    record, _ = store.create(game_class("qttt").new(["Ada", "Bob"], seed=1), HUMANS, hot_seat=False)
    cache = GameCache(max_games=4, max_moves=10_000)
    old = store.get(record.id)
    played(store, record.id, 2)
    newer = cache.load(store, record.id)
    cache.put(old)  # a slow thread saving what it read before
    assert cache.load(store, record.id) is newer


def test_pages_looking_while_moves_are_played_see_whole_versions(tmp_path: Path) -> None:
    """Request threads share kept games: each answer is one version's, the same for every look at it."""
    import threading

    app = create_app({"PANEL": make_settings(tmp_path), "TESTING": True})
    try:
        host = Api(app.test_client())
        created = host.post("/api/games", {"game": "hypnosia", "seats": [{"kind": "human"}] * 2, "seed": 9,
                                           "hot_seat": True}).get_json()
        path, seen, stop = f"/api/games/{created['id']}", [], threading.Event()
        token = {"X-Host-Token": created["host_token"]}

        def look() -> None:
            client = app.test_client()
            while not stop.is_set():
                for headers in ({}, token):
                    answer = client.get(path, headers=headers)
                    seen.append((bool(headers), answer.get_json()["version"], answer.get_data()))

        lookers = [threading.Thread(target=look) for _ in range(4)]
        for thread in lookers:
            thread.start()
        rng = random.Random(9)
        try:
            for _ in range(25):
                state = host.get(path, headers=token).get_json()
                if not state["can_move"]:
                    break
                moved = host.post(f"{path}/moves", {"move": rng.choice(state["legal_moves"])}, headers=token)
                assert moved.status_code == 200, moved.get_json()
        finally:
            stop.set()
            for thread in lookers:
                thread.join(30)
        by_version: dict[tuple[bool, int], set[bytes]] = {}
        for host_looks, version, body in seen:
            by_version.setdefault((host_looks, version), set()).add(body)
        assert len(by_version) > 10, "the lookers saw the game move on"
        assert all(len(bodies) == 1 for bodies in by_version.values()), "one answer per version and caller"
    finally:
        close_app(app)


def test_nothing_kept_means_a_replay_at_every_look(store: GameStore) -> None:
    record, _ = store.create(game_class("qttt").new(["Ada", "Bob"], seed=1), HUMANS, hot_seat=False)
    cache = GameCache(max_games=0, max_moves=0)
    cache.load(store, record.id)
    cache.load(store, record.id)
    assert cache.loads == 2 and len(cache) == 0


def test_a_look_at_a_long_game_replays_nothing(tmp_path: Path) -> None:
    """Through the API: a 200-move Hypnosia game, looked at again and again by several callers,
    pushes no move through the engine once each answer was made."""
    app = create_app({"PANEL": make_settings(tmp_path), "TESTING": True})
    try:
        conn = connect(tmp_path / "panel.db")
        store = GameStore(conn)
        record, host = store.create(Hypnosia.new(["Ada", "Bob"], seed=5), HUMANS, hot_seat=False)
        played(store, record.id, 200, 5)
        conn.close()
        client = app.test_client()
        paths = [(f"/api/games/{record.id}", {}), (f"/api/games/{record.id}", {"X-Host-Token": host}),
                 (f"/api/games/{record.id}/hypnosia", {}), (f"/api/games/{record.id}?at=100", {})]
        first = [client.get(path, headers=headers) for path, headers in paths]
        pushes = 0

        def counting(self: Any, move: Any) -> None:
            nonlocal pushes
            pushes += 1
            original(self, move)

        original = Hypnosia.push
        Hypnosia.push = counting  # type: ignore[method-assign]
        try:
            again = [client.get(path, headers=headers) for _ in range(3) for path, headers in paths]
        finally:
            Hypnosia.push = original  # type: ignore[method-assign]
        assert all(a.status_code == 200 for a in first + again)
        assert [a.get_data() for a in again] == [a.get_data() for a in first] * 3
        assert pushes == 0, f"{pushes} moves pushed"
        assert app.extensions["lobby_games"].loads == 1, "replayed once, at the first look"
    finally:
        close_app(app)


# -- the property: the same bytes as a replay, for every caller --------------------------------------

KINDS = {
    "qttt": (2, {}),
    "hypnosia": (2, {}),
    "hypnosia-entered": (2, {"dice": "entered"}),
    "hop": (2, {}),
    "hop-master": (2, {"level": "master"}),
    "hautetension": (3, {"first": 0}),
}


class Panels:
    """A panel that keeps loaded games and one that replays at every look, on one database."""

    def __init__(self, root: Path, kind: str, seed: int) -> None:
        panel = make_settings(root)
        self.cached = create_app({"PANEL": panel, "TESTING": True, "LOBBY": LobbySettings(cached_games=8)})
        self.fresh = create_app({"PANEL": panel, "TESTING": True, "LOBBY": LobbySettings(cached_games=0)})
        self.game = kind.split("-")[0]
        players, options = KINDS[kind]
        seats = [{"kind": "human", "name": f"P{n}"} for n in range(players)]
        created = Api(self.cached.test_client()).post(
            "/api/games", {"game": self.game, "seats": seats, "options": options, "seed": seed})
        assert created.status_code == 201, created.get_json()
        body = created.get_json()
        self.id = body["id"]
        self.callers: dict[str, dict[str, str]] = {"spectator": {},
                                                   "host": {"X-Host-Token": body["host_token"]}}
        for seat in body["seats"]:
            joiner = Api(self.cached.test_client())  # a device per seat
            joined = joiner.post(f"/api/games/{self.id}/join", {"code": seat["join_code"]})
            assert joined.status_code == 200, joined.get_json()
            self.callers[f"seat {seat['seat']}"] = {"X-Seat-Token": joined.get_json()["token"]}
        self.posters = {"cached": Api(self.cached.test_client()), "fresh": Api(self.fresh.test_client())}

    def paths(self, moves: int, rng: random.Random) -> list[str]:
        base = f"/api/games/{self.id}"
        paths = [base, f"{base}?at={rng.randint(0, moves)}"]
        if self.game == "hypnosia":
            paths.append(f"{base}/hypnosia")
        if self.game == "hop":
            paths.append(f"{base}/hop/moves")
        return paths

    def compare(self, moves: int, rng: random.Random, where: str) -> dict[str, Any]:
        """Every caller's answers from both panels (byte for byte); returns each caller's state."""
        states = {}
        cached, fresh = self.cached.test_client(), self.fresh.test_client()
        for path in self.paths(moves, rng):
            # Several looks in a row: the first may fill the cache, the others are served from it.
            for who, headers in rng.sample(list(self.callers.items()), len(self.callers)) * 2:
                one, other = cached.get(path, headers=headers), fresh.get(path, headers=headers)
                assert one.status_code == other.status_code == 200, (path, who, one.get_json())
                assert one.get_data() == other.get_data(), f"{who} GET {path} {where}"
                if path == f"/api/games/{self.id}":
                    states[who] = one.get_json()
        return states

    def close(self) -> None:
        close_app(self.cached)
        close_app(self.fresh)


@pytest.mark.parametrize("kind", sorted(KINDS))
@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1), moves=st.integers(5, 30),
       through=st.lists(st.booleans(), max_size=30))
def test_kept_games_answer_what_a_replay_answers(
    kind: str, seed: int, moves: int, through: list[bool]
) -> None:
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as root:
        panels = Panels(Path(root), kind, seed)
        try:
            states = panels.compare(0, rng, "at the start")
            for number in range(moves):
                mover = next((who for who, s in states.items() if s["can_move"] and who != "spectator"), None)
                if mover is None:
                    assert states["spectator"]["status"] == "over", "someone may always move in a game on"
                    break
                move = rng.choice(states[mover]["legal_moves"])
                # Moves come through either panel: the other learns of them from the database.
                poster = panels.posters["fresh" if number < len(through) and through[number] else "cached"]
                answer = poster.post(f"/api/games/{panels.id}/moves", {"move": move},
                                     headers=panels.callers[mover])
                assert answer.status_code == 200, answer.get_json()
                states = panels.compare(number + 1, rng, f"after move {number + 1}")
        finally:
            panels.close()


def test_the_fresh_panel_does_replay() -> None:
    """The property above compares two different paths: the panel without cache replays every look."""
    with tempfile.TemporaryDirectory() as root:
        panels = Panels(Path(root), "hypnosia", 1)
        try:
            client = panels.fresh.test_client()
            for _ in range(3):
                assert client.get(f"/api/games/{panels.id}").status_code == 200
            assert panels.fresh.extensions["lobby_games"].loads >= 3
            assert len(panels.fresh.extensions["lobby_games"]) == 0
        finally:
            panels.close()


def test_an_app_without_lobby_settings_keeps_games(app: Flask) -> None:
    assert app.extensions["lobby_games"].max_games == LobbySettings().cached_games > 0
