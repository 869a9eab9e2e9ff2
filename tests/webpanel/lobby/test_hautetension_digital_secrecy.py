"""Secrecy of digital Haute-Tension through the lobby's HTTP API (DESIGN §3).

Property: two worlds that differ only in one seat's pawn kinds (and light the
same lamps at the same placements) give byte-identical answers to every
other seat, to spectators and to the display: game states after every move,
the moves those seats play, replays of the past, the game list, the event
stream's first event. Seat 0's kinds are drawn independently in the two
worlds; everything else (seed, slots, the other seats' kinds) is the same.
"""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path
from typing import Any

from flask import Flask
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.frame import DigitalGame, game_class
from tests.webpanel.helpers import Api, make_settings
from webpanel.app import close_app, create_app
from webpanel.config import LobbySettings

NAMES = ["Ana", "Ben", "Cleo"]
SECRET_SEAT = 0


def plan_worlds(choices: list[tuple[int, bool, bool]], seed: int) -> tuple[list[Any], list[Any]]:
    """The moves of both worlds, cut where their public views would part (a lamp lit in only one)."""
    a = game_class("hautetension").new(NAMES, options={"first": 0}, seed=seed)
    b = game_class("hautetension").new(NAMES, options={"first": 0}, seed=seed)
    moves_a: list[Any] = []
    moves_b: list[Any] = []
    for slot_choice, kind_a, kind_b in choices:
        if a.is_over():
            break
        seat = a.to_act
        free = a.game.free_slots()  # type: ignore[attr-defined]
        slot = free[slot_choice % len(free)]  # small choices fill rows in reading order: lamps light
        move_a = {"slot": slot, "pawn": pick(a, kind_a)}
        move_b = {"slot": slot, "pawn": pick(b, kind_b)} if seat == SECRET_SEAT else dict(move_a)
        trial_a, trial_b = a.play(move_a), b.play(move_b)
        if trial_a.view(None) != trial_b.view(None):
            break  # the kinds would show on the table (a lamp): the worlds are no longer alike
        a, b = trial_a, trial_b
        moves_a.append(move_a)
        moves_b.append(move_b)
    return moves_a, moves_b


def pick(game: DigitalGame, defense: bool) -> str:
    attack, spare = game.game.stock(game.to_act)  # type: ignore[attr-defined]
    if defense and spare:
        return "defense"
    return "attack" if attack else "defense"


class World:
    """One panel with one game: a display (host), a spectator and a tablet per seat."""

    def __init__(self, root: Path, seed: int) -> None:
        self.app: Flask = create_app({"PANEL": make_settings(root), "TESTING": True})
        self.display = Api(self.app.test_client())
        self.spectator = Api(self.app.test_client())
        seats = [{"kind": "human", "name": n} for n in NAMES]
        created = self.display.post("/api/games", {"game": "hautetension", "seats": seats, "seed": seed,
                                                   "options": {"first": 0}})
        assert created.status_code == 201, created.get_json()
        self.id = created.get_json()["id"]
        self.tablets = []
        for seat in created.get_json()["seats"]:
            tablet = Api(self.app.test_client())
            joined = tablet.post(f"/api/games/{self.id}/join", {"code": seat["join_code"]})
            assert joined.status_code == 200
            self.tablets.append(tablet)

    def observers(self) -> dict[str, Any]:
        seen = {f"seat {i}": t for i, t in enumerate(self.tablets) if i != SECRET_SEAT}
        return {**seen, "display": self.display, "spectator": self.spectator}

    def looks(self, path: str = "") -> dict[str, bytes]:
        return {who: device.get(f"/api/games/{self.id}{path}").get_data()
                for who, device in self.observers().items()}

    def close(self) -> None:
        close_app(self.app)


CREATED = re.compile(rb'"created_at":[0-9.e+-]+')


def bare(answer: bytes) -> bytes:
    """The answer without its creation time (the two worlds' games were created a moment apart)."""
    return CREATED.sub(b'"created_at":0', answer)


def same(a: dict[str, bytes], b: dict[str, bytes], where: str) -> None:
    a, b = {k: bare(v) for k, v in a.items()}, {k: bare(v) for k, v in b.items()}
    for who in a:
        assert a[who] == b[who], f"{who} sees a difference {where}: {a[who]!r} != {b[who]!r}"


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    choices=st.lists(
        st.tuples(st.integers(0, 3) | st.integers(0, 79), st.booleans(), st.booleans()),
        min_size=1, max_size=36,
    ),
    seed=st.integers(0, 2**32 - 1),
)
def test_other_seats_answers_do_not_depend_on_one_seats_kinds(choices: Any, seed: int) -> None:
    moves_a, moves_b = plan_worlds(choices, seed)
    with tempfile.TemporaryDirectory() as root_a, tempfile.TemporaryDirectory() as root_b:
        a, b = World(Path(root_a), seed), World(Path(root_b), seed)
        try:
            same(a.looks(), b.looks(), "at the start")
            for number, (move_a, move_b) in enumerate(zip(moves_a, moves_b, strict=True), 1):
                seat = json.loads(a.looks()["display"])["to_act"]
                answer_a = a.tablets[seat].post(f"/api/games/{a.id}/moves", {"move": move_a})
                answer_b = b.tablets[seat].post(f"/api/games/{b.id}/moves", {"move": move_b})
                assert answer_a.status_code == answer_b.status_code == 200, answer_a.get_json()
                if seat != SECRET_SEAT:
                    mine = bare(answer_a.get_data()), bare(answer_b.get_data())
                    assert mine[0] == mine[1], f"seat {seat}'s own move {number}"
                else:
                    # The secret seat itself sees its own kinds, and they differ only there.
                    mine_a, mine_b = answer_a.get_json(), answer_b.get_json()
                    for state in (mine_a, mine_b):
                        state["view"].pop("you")
                        state.pop("legal_moves")
                        state.pop("created_at")
                    assert mine_a == mine_b
                same(a.looks(), b.looks(), f"after move {number}")
            total = len(moves_a)
            for at in sorted({0, total // 2, total}):
                same(a.looks(f"?at={at}"), b.looks(f"?at={at}"), f"in the replay at {at}")
            listing_a = a.spectator.get("/api/games").get_json()["games"]
            listing_b = b.spectator.get("/api/games").get_json()["games"]
            for entry in (*listing_a, *listing_b):
                entry.pop("created_at")
            assert listing_a == listing_b
        finally:
            a.close()
            b.close()


def test_the_worlds_do_differ_for_the_secret_seat() -> None:
    """The property above is not empty: the secret seat's own answers show its kinds."""
    moves_a, moves_b = plan_worlds([(0, True, False), (1, False, False), (2, False, False)], seed=5)
    assert moves_a[0]["pawn"] == "defense" and moves_b[0]["pawn"] == "attack"
    with tempfile.TemporaryDirectory() as root_a, tempfile.TemporaryDirectory() as root_b:
        a, b = World(Path(root_a), 5), World(Path(root_b), 5)
        try:
            for move_a, move_b in zip(moves_a, moves_b, strict=True):
                seat = json.loads(a.looks()["display"])["to_act"]
                assert a.tablets[seat].post(f"/api/games/{a.id}/moves", {"move": move_a}).status_code == 200
                assert b.tablets[seat].post(f"/api/games/{b.id}/moves", {"move": move_b}).status_code == 200
            secret_a = a.tablets[SECRET_SEAT].get(f"/api/games/{a.id}").get_json()["view"]["you"]
            secret_b = b.tablets[SECRET_SEAT].get(f"/api/games/{b.id}").get_json()["view"]["you"]
            assert secret_a != secret_b
            same(a.looks(), b.looks(), "at the end")
        finally:
            a.close()
            b.close()


def test_the_event_stream_says_only_version_and_status(app: Flask) -> None:
    display = Api(app.test_client())
    seats = [{"kind": "human", "name": n} for n in NAMES]
    game = display.post("/api/games", {"game": "hautetension", "seats": seats}).get_json()
    response = display.get(f"/api/games/{game['id']}/events", buffered=False)
    try:
        chunks = iter(response.response)
        text = ""
        while "event: game" not in text:
            text += next(chunks).decode()
        data_line = next(line for line in text.splitlines() if line.startswith("data: {"))
        assert set(json.loads(data_line[6:])) == {"version", "status"}
    finally:
        response.close()


LOOKERS = ["seat 0", "seat 1", "seat 2", "display", "spectator"]


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    moves=st.lists(st.tuples(st.integers(0, 79), st.booleans()), min_size=1, max_size=12),
    looks=st.lists(st.tuples(st.sampled_from(LOOKERS), st.integers(0, 12)), min_size=1, max_size=25),
    seed=st.integers(0, 2**32 - 1),
)
def test_a_kept_game_never_shows_one_seat_what_another_looked_at(
    moves: list[tuple[int, bool]], looks: list[tuple[str, int]], seed: int
) -> None:
    """The panel keeps each answer it made (webpanel/lobby/cache.py). Whoever looked first, and in
    whatever order, every look gets exactly what a panel that keeps nothing answers that looker."""
    with tempfile.TemporaryDirectory() as root:
        world = World(Path(root), seed)
        fresh = create_app({"PANEL": make_settings(Path(root)), "TESTING": True,
                            "LOBBY": LobbySettings(cached_games=0)})
        try:
            game = game_class("hautetension").new(NAMES, options={"first": 0}, seed=seed)
            for slot_choice, defense in moves:
                if game.is_over():
                    break
                free = game.game.free_slots()  # type: ignore[attr-defined]
                move = {"slot": free[slot_choice % len(free)], "pawn": pick(game, defense)}
                seat = game.to_act
                assert seat is not None
                game.push(move)
                played = world.tablets[seat].post(f"/api/games/{world.id}/moves", {"move": move})
                assert played.status_code == 200, played.get_json()
            devices = {f"seat {i}": t for i, t in enumerate(world.tablets)}
            devices.update(display=world.display, spectator=world.spectator)
            fresh_devices = {who: Api(fresh.test_client()) for who in devices}
            for who, device in devices.items():  # the same seat and host tokens on both panels
                for name in (f"hts_seat_{world.id}", f"hts_host_{world.id}"):
                    cookie = device.client.get_cookie(name)
                    if cookie is not None:
                        fresh_devices[who].client.set_cookie(name, cookie.value)
            total = len(game.history)
            answers: dict[str, bytes] = {}
            for who, at in looks:
                path = f"/api/games/{world.id}" + (f"?at={at % (total + 1)}" if at else "")
                kept, replayed = devices[who].get(path).get_data(), fresh_devices[who].get(path).get_data()
                assert kept == replayed, f"{who} GET {path}: the kept answer is not this looker's"
                if not at:
                    answers[who] = kept
            if "seat 0" in answers and "spectator" in answers and total:
                assert answers["seat 0"] != answers["spectator"], "seat 0 sees its own kinds"
        finally:
            world.close()
            close_app(fresh)
