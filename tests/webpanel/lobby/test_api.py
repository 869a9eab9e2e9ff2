"""The games lobby's JSON API through Flask's test client: every endpoint, every refusal.

Each device is its own test client (its own cookie jar), as a display and two
tablets would be.
"""

from __future__ import annotations

from typing import Any, TypeAlias

import pytest
from flask import Flask

from tests.webpanel.helpers import Api, Lobby, make_settings

HUMANS = [{"kind": "human", "name": "Ada"}, {"kind": "human", "name": "Bob"}]


# The conftest's ``device`` and ``display`` fixtures are Lobby devices of this game:
# each its own test client, cookies and CSRF token.
GAME = "qttt"
Device: TypeAlias = Any


@pytest.fixture
def runner(app: Flask) -> Any:
    yield app.extensions["lobby_ai"]
    app.extensions["lobby_ai"].close()


def seated_game(display: Device, device: Any) -> tuple[dict[str, Any], Device, Device]:
    """A two-human game with a tablet on each seat."""
    game = display.create()
    ada, bob = device(), device()
    assert ada.join(game["id"], game["seats"][0]["join_code"]).status_code == 200
    assert bob.join(game["id"], game["seats"][1]["join_code"]).status_code == 200
    return game, ada, bob


def assert_refused(response: Any, status: int, words: str) -> None:
    assert response.status_code == status, response.get_json()
    assert words in response.get_json()["error"]


# -- creating -------------------------------------------------------------------------------


def test_create_a_game(display: Device) -> None:
    response = display.post("/api/games", {"game": "qttt", "seats": HUMANS, "seed": 5})
    assert response.status_code == 201
    game = response.get_json()
    assert response.headers["Location"] == f"/api/games/{game['id']}"
    cookie = response.headers["Set-Cookie"]
    assert f"hts_host_{game['id']}=" in cookie and "HttpOnly" in cookie and "SameSite=Strict" in cookie
    assert game["status"] == "running" and game["version"] == 1 and game["to_act"] == 0
    assert game["you"] == {"seat": None, "host": True} and game["host_token"]
    assert [s["name"] for s in game["seats"]] == ["Ada", "Bob"]
    assert all(s["join_code"] and s["join_url"] == f"/j/{s['join_code']}" for s in game["seats"])
    assert game["legal_moves"] is None and not game["can_move"], "the host of a tablet game plays no seat"
    assert game["view"]["players"] == ["Ada", "Bob"] and "legal_moves" not in game["view"]


def test_default_names(display: Device) -> None:
    game = display.create([{"kind": "human"}, {"kind": "ai", "level": "random"}])
    assert [s["name"] for s in game["seats"]] == ["Player 1", "Computer (random)"]


@pytest.mark.parametrize(("body", "words"), [
    ({"seats": HUMANS}, "missing field(s): game"),
    ({"game": "chess", "seats": HUMANS}, "unknown game 'chess'"),
    ({"game": 3, "seats": HUMANS}, "unknown game"),
    ({"game": "qttt", "seats": "two"}, "seats must be a list"),
    ({"game": "qttt", "seats": HUMANS[:1]}, "played by 2 players, not 1"),
    ({"game": "qttt", "seats": HUMANS * 2}, "played by 2 players, not 4"),
    ({"game": "qttt", "seats": [HUMANS[0], "Bob"]}, "seat 1 must be an object"),
    ({"game": "qttt", "seats": [HUMANS[0], {"kind": "robot"}]}, 'kind must be "human" or "ai"'),
    ({"game": "qttt", "seats": [HUMANS[0], {"kind": "ai"}]}, "computer level must be one of random"),
    ({"game": "qttt", "seats": [HUMANS[0], {"kind": "ai", "level": "godlike"}]}, "computer level"),
    ({"game": "qttt", "seats": [HUMANS[0], {"kind": "human", "level": "random"}]}, "human seat has no level"),
    ({"game": "qttt", "seats": [HUMANS[0], {"kind": "human", "name": "x" * 41}]}, "1 to 40 characters"),
    ({"game": "qttt", "seats": [HUMANS[0], {"kind": "human", "name": "   "}]}, "1 to 40 characters"),
    ({"game": "qttt", "seats": [HUMANS[0], {"kind": "human", "colour": "red"}]}, "unknown field(s): colour"),
    ({"game": "qttt", "seats": HUMANS, "options": []}, "options must be a JSON object"),
    ({"game": "qttt", "seats": HUMANS, "options": {"size": 4}}, "takes no options"),
    ({"game": "qttt", "seats": HUMANS, "seed": -1}, "seed must be a whole number"),
    ({"game": "qttt", "seats": HUMANS, "seed": True}, "seed must be a whole number"),
    ({"game": "qttt", "seats": HUMANS, "seed": 2**40}, "seed must be a whole number"),
    ({"game": "qttt", "seats": HUMANS, "hot_seat": "yes"}, "hot_seat must be true or false"),
    ({"game": "qttt", "seats": HUMANS, "board": "big"}, "unknown field(s): board"),
])
def test_create_refusals(display: Device, body: dict[str, Any], words: str) -> None:
    assert_refused(display.post("/api/games", body), 400, words)
    assert display.get("/api/games").get_json()["games"] == [], "a refused game is not created"


def test_create_refuses_bad_bodies(display: Device, app: Flask) -> None:
    assert_refused(display.post("/api/games", data="{", headers={"Content-Type": "application/json"}), 400,
                   "not valid JSON")
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    assert_refused(display.post("/api/games", data="game=qttt", headers=form), 415, "as JSON")
    assert_refused(display.post("/api/games", ["qttt"]), 400, "must be a JSON object")
    no_csrf = app.test_client().post("/api/games", json={"game": "qttt", "seats": HUMANS})
    assert_refused(no_csrf, 403, "CSRF")
    assert display.get("/api/games").get_json()["games"] == []


def test_list_games_and_catalogue(display: Device) -> None:
    first = display.create()
    second = display.create([HUMANS[0], {"kind": "ai", "level": "heuristic"}])
    data = display.get("/api/games").get_json()
    assert [g["id"] for g in data["games"]] == [second["id"], first["id"]]
    assert data["games"][0]["seats"][1] == {"seat": 1, "name": "Computer (heuristic)", "kind": "ai",
                                            "level": "heuristic", "joined": False, "default_name": True}
    assert data["games"][0]["seats"][0]["default_name"] is False, "a name given at creation is the player's"
    assert "join_code" not in str(data), "the list never shows join codes"
    qttt = next(c for c in data["catalogue"] if c["game"] == "qttt")
    assert qttt == {"game": "qttt", "min_players": 2, "max_players": 2,
                    "levels": ["random", "heuristic", "perfect"]}


# -- reading ----------------------------------------------------------------------------------


def test_unknown_games(display: Device) -> None:
    for path in ("/api/games/9", "/api/games/abc", "/api/games/-1", "/api/games/" + "9" * 30):
        assert_refused(display.get(path), 404, "there is no game")
    assert_refused(display.move(9, [0, 1]), 404, "there is no game")
    assert_refused(display.join(9, "abcdef"), 404, "there is no game")
    assert_refused(display.get("/api/games/9/events"), 404, "there is no game")


def test_spectators_see_the_board_but_no_codes_nor_moves(display: Device, device: Any) -> None:
    game = display.create()
    spectator = device()
    seen = spectator.state(game["id"])
    assert seen["you"] == {"seat": None, "host": False}
    assert seen["legal_moves"] is None and not seen["can_move"]
    assert all("join_code" not in s and "qr_url" not in s for s in seen["seats"])
    assert seen["view"]["squares"] == game["view"]["squares"]


def test_legal_moves_only_for_the_seat_to_act(display: Device, device: Any) -> None:
    game, ada, bob = seated_game(display, device)
    gid = game["id"]
    assert len(ada.state(gid)["legal_moves"]) == 36 and ada.state(gid)["you"]["seat"] == 0
    assert bob.state(gid)["legal_moves"] is None and bob.state(gid)["you"]["seat"] == 1
    assert display.state(gid)["legal_moves"] is None
    assert ada.move(gid, [0, 1]).status_code == 200
    assert ada.state(gid)["legal_moves"] is None
    assert bob.state(gid)["legal_moves"][0] == [0, 1]


def test_replay_positions(display: Device) -> None:
    game = display.create(hot_seat=True)
    gid = game["id"]
    for move in ([0, 1], [0, 1], {"collapse": 1}):
        assert display.move(gid, move).status_code == 200
    start = display.state(gid, query_string={"at": 0})
    assert start["at"] == 0 and start["total_moves"] == 3 and start["moves"] == 0
    assert start["can_move"] is False and start["legal_moves"] is None, "nobody moves in a replay"
    assert all(not sq["spooky"] and not sq["classical"] for sq in start["view"]["squares"])
    cycle = display.state(gid, query_string={"at": 2})
    assert cycle["view"]["collapse"] == {"move": 2, "squares": [0, 1]}
    for bad in ("4", "-1", "x", ""):
        assert_refused(display.get(f"/api/games/{gid}", query_string={"at": bad}), 400, "at must be")


# -- playing ------------------------------------------------------------------------------------


def test_a_whole_game_between_two_tablets(display: Device, device: Any) -> None:
    game, ada, bob = seated_game(display, device)
    gid = game["id"]
    script = [(ada, [0, 1]), (bob, [0, 1]), (ada, {"collapse": 0}), (ada, [3, 4]), (bob, [3, 4]),
              (ada, {"collapse": 3}), (ada, [6, 7]), (bob, [6, 7]), (ada, {"collapse": 6})]
    version = display.state(gid)["version"]
    for who, move in script:
        response = who.move(gid, move)
        assert response.status_code == 200, (move, response.get_json())
        assert response.get_json()["version"] == version + 1
        version += 1
    final = display.state(gid)
    # Both lines close in the last collapse; X's (moves 1, 3, 5) was complete first.
    assert final["status"] == "over" and final["outcome"]["winners"] == [0] and final["view"]["winner"] == "X"
    assert final["view"]["history"] == [m for _, m in script]
    assert_refused(bob.move(gid, [2, 5]), 409, "the game is over")
    assert_refused(bob.join(gid, "abcdef"), 409, "the game is over")


def test_illegal_moves_are_refused_with_the_engines_reason(display: Device, device: Any) -> None:
    game, ada, bob = seated_game(display, device)
    gid = game["id"]
    assert ada.move(gid, [0, 1]).status_code == 200
    assert bob.move(gid, [0, 1]).status_code == 200  # closes a cycle: Ada chooses
    before = display.state(gid)
    refusals = [
        ([2, 3], 422, "must first choose where it collapses"),
        ({"collapse": 5}, 422, "not 5"),
        ([9, 1], 422, "is not a square"),
        ("e4", 422, "is not a move"),
        ({"collapse": 0, "extra": 1}, 422, "a collapse choice is"),
        ([0], 422, ""),
    ]
    for move, status, words in refusals:
        assert_refused(ada.move(gid, move), status, words)
    assert ada.move(gid, {"collapse": 0}).status_code == 200
    assert_refused(ada.move(gid, [0, 2]), 422, "already holds the classical")
    assert_refused(ada.move(gid, [2, 2]), 422, "two different squares")
    assert_refused(ada.move(gid, {"collapse": 2}), 422, "no cycle is waiting")
    assert_refused(ada.post(f"/api/games/{gid}/moves", {"mvoe": [2, 3]}), 400, "unknown field(s): mvoe")
    assert_refused(ada.post(f"/api/games/{gid}/moves", {}), 400, "missing field(s): move")
    as_json = {"Content-Type": "application/json"}
    assert_refused(ada.post(f"/api/games/{gid}/moves", data="[", headers=as_json), 400, "not valid JSON")
    after = display.state(gid)
    assert after["version"] == before["version"] + 1, "only the good collapse changed the game"
    assert after["view"]["history"] == [[0, 1], [0, 1], {"collapse": 0}]


def test_a_stale_version_is_refused(display: Device) -> None:
    game = display.create(hot_seat=True)
    gid = game["id"]
    assert display.post(f"/api/games/{gid}/moves", {"move": [0, 1], "version": 1}).status_code == 200
    assert_refused(display.post(f"/api/games/{gid}/moves", {"move": [2, 3], "version": 1}), 409, "moved on")
    assert_refused(display.post(f"/api/games/{gid}/moves", {"move": [2, 3], "version": "2"}), 400, "version")
    assert display.state(gid)["view"]["history"] == [[0, 1]]


def test_not_your_turn(display: Device, device: Any) -> None:
    game, ada, bob = seated_game(display, device)
    gid = game["id"]
    assert_refused(bob.move(gid, [0, 1]), 409, "not your turn: seat 0 (Ada) is to play")
    assert ada.move(gid, [0, 1]).status_code == 200
    assert_refused(ada.move(gid, [2, 3]), 409, "not your turn: seat 1 (Bob)")
    assert display.state(gid)["view"]["history"] == [[0, 1]]


def test_token_misuse(display: Device, device: Any, app: Flask) -> None:
    game, ada, bob = seated_game(display, device)
    gid = game["id"]
    ada_token = ada.api.client.get_cookie(f"hts_seat_{gid}").value
    bob_token = bob.api.client.get_cookie(f"hts_seat_{gid}").value
    other = display.create()
    elsewhere = device().join(other["id"], other["seats"][0]["join_code"]).get_json()["token"]
    stranger = device()
    # Another seat's token: Bob's token does not play Ada's move.
    assert_refused(stranger.move(gid, [0, 1], headers={"X-Seat-Token": bob_token}), 409, "not your turn")
    # A token from another game, sent as a header: refused outright, even to read.
    assert_refused(stranger.move(gid, [0, 1], headers={"X-Seat-Token": elsewhere}), 403,
                   "does not belong to this game")
    assert_refused(stranger.get(f"/api/games/{gid}", headers={"X-Seat-Token": elsewhere}), 403,
                   "does not belong to this game")
    # A guessed token, and another game's host token.
    assert_refused(stranger.move(gid, [0, 1], headers={"X-Seat-Token": "A" * 32}), 403, "does not belong")
    assert_refused(stranger.move(gid, [0, 1], headers={"X-Host-Token": other["host_token"]}), 403,
                   "host token does not belong")
    # No token at all, and the host of a tablet game: neither plays a seat.
    assert_refused(stranger.move(gid, [0, 1]), 403, "you hold no seat")
    assert_refused(display.move(gid, [0, 1]), 403, "you hold no seat")
    assert display.state(gid)["view"]["history"] == [], "no refused request changed the game"
    # The real token works from any client as a header (an API client's way).
    api_client = Api(app.test_client())
    response = api_client.post(f"/api/games/{gid}/moves", {"move": [0, 1]},
                               headers={"X-Seat-Token": ada_token})
    assert response.status_code == 200 and response.get_json()["you"]["seat"] == 0
    host = api_client.get(f"/api/games/{gid}", headers={"X-Host-Token": game["host_token"]}).get_json()
    assert host["you"] == {"seat": None, "host": True}


def test_a_forged_cookie_makes_a_spectator(display: Device, device: Any) -> None:
    game, ada, _ = seated_game(display, device)
    gid = game["id"]
    stranger = device()
    stranger.api.client.set_cookie(f"hts_seat_{gid}", "forged-token")
    assert stranger.state(gid)["you"] == {"seat": None, "host": False}
    assert_refused(stranger.move(gid, [0, 1]), 403, "you hold no seat")


def test_hot_seat(display: Device, device: Any) -> None:
    game = display.create(hot_seat=True)
    gid = game["id"]
    assert all("join_code" not in s for s in game["seats"]), "nobody joins a hot-seat game"
    assert game["can_move"] and len(game["legal_moves"]) == 36
    assert display.move(gid, [0, 1]).status_code == 200
    state = display.move(gid, [0, 2]).get_json()  # the display plays O as well
    assert state["view"]["history"] == [[0, 1], [0, 2]] and state["can_move"]
    spectator = device()
    assert_refused(spectator.move(gid, [3, 4]), 403, "only the display that created")
    assert spectator.state(gid)["legal_moves"] is None


# -- joining ----------------------------------------------------------------------------------------


def test_join_by_code(display: Device, device: Any) -> None:
    game = display.create()
    gid = game["id"]
    tablet = device()
    response = tablet.join(gid, game["seats"][1]["join_code"].upper())  # typed in capitals: still fine
    assert response.status_code == 200
    body = response.get_json()
    assert body["seat"] == 1 and body["token"] and body["you"]["seat"] == 1
    cookie = response.headers["Set-Cookie"]
    assert f"hts_seat_{gid}=" in cookie and "HttpOnly" in cookie
    # A refresh (the cookie) returns to the same seat.
    assert tablet.state(gid)["you"]["seat"] == 1
    seats = display.state(gid)["seats"]
    assert seats[1]["joined"] and "join_code" not in seats[1] and "join_code" in seats[0]
    # One seat per device and game.
    assert_refused(tablet.join(gid, seats[0]["join_code"]), 409, "already plays a seat of this game")
    # The seat is taken for everyone else.
    assert_refused(device().join(gid, game["seats"][1]["join_code"]), 409, "already taken")
    for bad in ("", 5, "x" * 40):
        assert_refused(device().join(gid, bad), 400, "code must be")
    assert_refused(device().post(f"/api/games/{gid}/join", {"code": "abc", "seat": 0}), 400, "unknown field")
    assert_refused(device().join(gid, "nope42"), 404, "does not open a seat")


def test_join_code_of_another_game(display: Device, device: Any) -> None:
    first, second = display.create(), display.create()
    assert_refused(device().join(first["id"], second["seats"][0]["join_code"]), 404, "does not open")
    assert not display.state(second["id"])["seats"][0]["joined"]


def test_computer_seats_cannot_be_joined(display: Device) -> None:
    game = display.create([HUMANS[0], {"kind": "ai", "level": "random"}])
    assert "join_code" not in game["seats"][1]


# -- computer players --------------------------------------------------------------------------------


def test_the_computer_answers_a_move(display: Device, device: Any, runner: Any) -> None:
    game = display.create([HUMANS[0], {"kind": "ai", "level": "heuristic"}], seed=11)
    gid = game["id"]
    ada = device()
    ada.join(gid, game["seats"][0]["join_code"])
    assert_refused(device().move(gid, [0, 1]), 403, "you hold no seat")
    assert ada.move(gid, [0, 4]).status_code == 200
    assert runner.wait_idle(gid, 30)
    state = ada.state(gid)
    assert len(state["view"]["history"]) == 2 and state["to_act"] == 0 and state["can_move"]
    assert state["ai_error"] is None and not state["ai_thinking"]


def test_a_computer_that_starts_moves_at_creation(display: Device, runner: Any) -> None:
    game = display.create([{"kind": "ai", "level": "random"}, HUMANS[1]], hot_seat=True, seed=3)
    gid = game["id"]
    assert runner.wait_idle(gid, 30)
    state = display.state(gid)
    assert len(state["view"]["history"]) == 1 and state["to_act"] == 1 and state["can_move"]


def test_moving_for_the_computer_is_refused(display: Device, runner: Any) -> None:
    runner.close()  # keep the computer from moving while we try
    game = display.create([{"kind": "ai", "level": "random"}, HUMANS[1]], hot_seat=True)
    assert_refused(display.move(game["id"], [0, 1]), 409, "the computer plays seat 0")
    assert display.state(game["id"])["view"]["history"] == []


def test_two_computers_play_a_whole_game(display: Device, runner: Any) -> None:
    game = display.create([{"kind": "ai", "level": "random"}, {"kind": "ai", "level": "heuristic"}], seed=99)
    assert runner.wait_idle(game["id"], 60)
    final = display.state(game["id"])
    assert final["status"] == "over" and final["outcome"] is not None


def test_a_failing_computer_is_reported_not_retried(display: Device, runner: Any, caplog: Any) -> None:
    calls = []

    class Broken:
        def choose(self, game: Any) -> Any:
            calls.append(len(game.history))
            return [0, 0]  # the engine refuses it

    runner.player_factory = lambda game, level, rng: Broken()
    game = display.create([{"kind": "ai", "level": "random"}, HUMANS[1]], hot_seat=True)
    gid = game["id"]
    assert runner.wait_idle(gid, 10)
    state = display.state(gid)
    assert runner.wait_idle(gid, 10)
    assert state["ai_error"] == "the computer player of seat 0 failed (see the panel's log)"
    assert "two different squares" in caplog.text, "the engine's reason is in the log"
    assert state["view"]["history"] == [] and calls == [0], "the same position is not tried again"


def test_a_restarted_panel_resumes_the_computer(tmp_path: Any) -> None:
    from webpanel.app import close_app, create_app

    settings = make_settings(tmp_path)
    first = create_app({"PANEL": settings, "TESTING": True})
    first.extensions["lobby_ai"].close()  # the panel dies before the computer moves
    game = Lobby(first, "qttt").create([{"kind": "ai", "level": "random"}, HUMANS[1]], hot_seat=True)
    close_app(first)
    second = create_app({"PANEL": settings, "TESTING": True})
    try:
        spectator = Lobby(second, "qttt")
        assert spectator.state(game["id"])["view"]["history"] == []  # this look pokes the computer
        assert second.extensions["lobby_ai"].wait_idle(game["id"], 30)
        assert len(spectator.state(game["id"])["view"]["history"]) == 1
    finally:
        second.extensions["lobby_ai"].close()
        close_app(second)


# -- documentation ----------------------------------------------------------------------------------


def test_every_lobby_path_is_in_the_openapi_document(display: Device) -> None:
    paths = display.get("/api/openapi.json").get_json()["paths"]
    assert set(paths["/api/games"]) == {"get", "post"}
    for path, method in (("/api/games/{game_id}", "get"), ("/api/games/{game_id}/moves", "post"),
                         ("/api/games/{game_id}/join", "post"), ("/api/games/{game_id}/events", "get")):
        assert method in paths[path]
    assert "422" in paths["/api/games/{game_id}/moves"]["post"]["responses"]


# -- guessing ----------------------------------------------------------------------------------------


def test_guessing_codes_is_slowed_down(display: Device, device: Any) -> None:
    game = display.create()
    gid, code = game["id"], game["seats"][0]["join_code"]
    guesser = device()
    for attempt in range(10):
        assert_refused(guesser.join(gid, f"guess{attempt}"), 404, "does not open")
    refused = guesser.join(gid, code)
    assert_refused(refused, 429, "too many wrong join codes or tokens")
    assert int(refused.headers["Retry-After"]) > 0
    assert guesser.get(f"/j/{code}").status_code == 429, "the join page is no way around it"
    assert not display.state(gid)["seats"][0]["joined"], "the right code did not work while blocked"


def test_guessing_tokens_is_slowed_down(display: Device, device: Any) -> None:
    game = display.create(hot_seat=True)
    gid = game["id"]
    guesser = device()
    for attempt in range(10):
        assert_refused(guesser.get(f"/api/games/{gid}", headers={"X-Host-Token": f"guess{attempt}"}), 403,
                       "does not belong")
    assert_refused(guesser.move(gid, [0, 1], headers={"X-Host-Token": game["host_token"]}), 429, "too many")
    assert display.state(gid)["view"]["history"] == []
    assert guesser.get(f"/api/games/{gid}").status_code == 200, "watching needs no token"
