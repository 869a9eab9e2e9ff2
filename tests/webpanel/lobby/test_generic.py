"""The lobby plays any game registered in games.frame: a small game with dice
and a secret per seat checks the generic parts (chance rolled on the server,
views per seat, the generic board page) without depending on a real game."""

from __future__ import annotations

import enum
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, ClassVar

import pytest
from flask import Flask

from games.exc import IllegalMoveError
from games.frame import AI_LEVELS, CHANCE, GAMES, JSON, DigitalGame, Move, Outcome, RandomPlayer
from tests.webpanel.helpers import Api


class Termination(enum.Enum):
    LAST_PEBBLE = "last_pebble"


class Pebbles(DigitalGame):
    """A die sets the heap (3-5 pebbles); each player takes 1 or 2; whoever takes the last wins.

    Each seat holds a secret word only that seat may see.
    """

    name: ClassVar[str] = "pebbles"
    max_players: ClassVar[int] = 3

    def __init__(self, players: Sequence[str], *, options: Mapping[str, JSON] | None = None,
                 seed: int | None = None) -> None:
        super().__init__(players, options=options, seed=seed)
        self._restart()

    def _restart(self) -> None:
        self.heap: int | None = None
        self.turn = 0
        self.last = 0

    @property
    def to_act(self) -> int | None:
        if self.heap is None:
            return CHANCE
        return None if self.heap == 0 else self.turn

    def legal_moves(self) -> list[Move]:
        if self.heap is None:
            return [3, 4, 5]
        return [n for n in (1, 2) if n <= self.heap]

    def _apply(self, move: Move) -> None:
        if move not in self.legal_moves():
            raise IllegalMoveError(f"take 1 or 2 pebbles, not {move!r}")
        if self.heap is None:
            self.heap = move
            return
        self.heap -= move
        self.last = self.turn
        self.turn = (self.turn + 1) % len(self.players)

    def outcome(self) -> Outcome | None:
        return Outcome(Termination.LAST_PEBBLE, winners=(self.last,)) if self.heap == 0 else None

    def view(self, seat: int | None = None) -> dict[str, JSON]:
        return {"heap": self.heap, "secret": None if seat is None else f"word-{seat}",
                "history": list(self.history)}


@pytest.fixture
def pebbles() -> Iterator[None]:
    GAMES["pebbles"] = Pebbles
    AI_LEVELS["pebbles"] = {"random": lambda rng: RandomPlayer(rng)}
    yield
    GAMES.pop("pebbles")
    AI_LEVELS.pop("pebbles")


SEATS = [{"kind": "human", "name": "Ada"}, {"kind": "human", "name": "Bob"}, {"kind": "human", "name": "Cy"}]


def test_chance_is_rolled_and_views_are_per_seat(pebbles: None, api: Any, app: Flask) -> None:
    response = api.post("/api/games", {"game": "pebbles", "seats": SEATS, "seed": 4})
    assert response.status_code == 201, response.get_json()
    game = response.get_json()
    gid = game["id"]
    assert game["view"]["heap"] in (3, 4, 5), "the die was rolled on the server"
    assert game["view"]["secret"] is None, "the host of a tablet game sees what a spectator sees"
    tablets = []
    for seat in game["seats"]:
        tablet = Api(app.test_client())
        assert tablet.post(f"/api/games/{gid}/join", {"code": seat["join_code"]}).status_code == 200
        tablets.append(tablet)
    views = [t.get(f"/api/games/{gid}").get_json() for t in tablets]
    assert [v["view"]["secret"] for v in views] == ["word-0", "word-1", "word-2"]
    assert [v["legal_moves"] is not None for v in views] == [True, False, False]
    refused = tablets[0].post(f"/api/games/{gid}/moves", {"move": 3})
    assert refused.status_code == 422 and "take 1 or 2" in refused.get_json()["error"]
    assert tablets[0].post(f"/api/games/{gid}/moves", {"move": 1}).status_code == 200
    assert tablets[1].get(f"/api/games/{gid}").get_json()["legal_moves"] == [1, 2]


def test_hot_seat_shows_the_acting_seat(pebbles: None, api: Any) -> None:
    game = api.post("/api/games", {"game": "pebbles", "seats": SEATS[:2], "hot_seat": True}).get_json()
    assert game["view"]["secret"] == "word-0"
    after = api.post(f"/api/games/{game['id']}/moves", {"move": 1}).get_json()
    assert after["view"]["secret"] == "word-1"


def test_computers_finish_a_game(pebbles: None, api: Any, app: Flask) -> None:
    seats = [{"kind": "ai", "level": "random"}, {"kind": "ai", "level": "random"}]
    game = api.post("/api/games", {"game": "pebbles", "seats": seats, "seed": 8}).get_json()
    runner = app.extensions["lobby_ai"]
    try:
        assert runner.wait_idle(game["id"], 20)
        final = api.get(f"/api/games/{game['id']}").get_json()
        assert final["status"] == "over" and len(final["outcome"]["winners"]) == 1
    finally:
        runner.close()


def test_generic_board_page(pebbles: None, api: Any, client: Any) -> None:
    game = api.post("/api/games", {"game": "pebbles", "seats": SEATS[:2]}).get_json()
    html = client.get(f"/games/{game['id']}").get_data(as_text=True)
    assert 'id="generic-view"' in html and "generic.js" not in html and "/games/static/game.js" in html
    assert 'data-game="pebbles"' in html
    catalogue = api.get("/api/games").get_json()["catalogue"]
    assert {"game": "pebbles", "min_players": 2, "max_players": 3, "levels": ["random"]} in catalogue
