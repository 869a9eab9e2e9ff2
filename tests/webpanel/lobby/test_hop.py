"""The |Hop> board page and its API: the page loads its own script and sheet,
the game's view carries the board to draw, and the legal moves with their
energy change go to the seat that acts, and to nobody else.

Each device is its own test client (its own cookie jar).
"""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask

from games.hop import Hop
from games.hop.effects import EFFECT_NAMES, EFFECT_TITLES
from games.hop.rules import ACTION_NAMES, ACTION_TITLES
from tests.webpanel.helpers import Api
from webpanel.lobby.names import HOP_TITLES

MASTER = {"level": "master", "field": "positive", "interaction": "attractive"}
HUMANS = [{"kind": "human", "name": "Ada"}, {"kind": "human", "name": "Bob"}]


@pytest.fixture
def device(app: Flask) -> Any:
    return lambda: Api(app.test_client())


def create(api: Any, **body: Any) -> dict[str, Any]:
    response = api.post("/api/games", {"game": "hop", "seats": HUMANS, "options": MASTER, "seed": 3, **body})
    assert response.status_code == 201, response.get_json()
    data: dict[str, Any] = response.get_json()
    return data


def seated(device: Any, game: dict[str, Any], seat: int) -> Any:
    tablet = device()
    code = game["seats"][seat]["join_code"]
    assert tablet.post(f"/api/games/{game['id']}/join", {"code": code}).status_code == 200
    return tablet


def energy(api: Any, game_id: int, **kwargs: Any) -> Any:
    return api.get(f"/api/games/{game_id}/hop/moves", **kwargs)


def test_the_game_page_loads_the_hop_board(client: Any, api: Any) -> None:
    game = create(api)
    response = client.get(f"/games/{game['id']}")
    html = response.get_data(as_text=True)
    assert response.status_code == 200
    assert 'data-game="hop"' in html and 'id="hop-board"' in html and 'id="hop-actions"' in html
    assert "/games/static/hop.js" in html and "/games/static/hop.css" in html
    assert "<script>" not in html and "style=" not in html, "no inline script or style (CSP)"
    assert "script-src 'self'" in response.headers["Content-Security-Policy"]
    with client.get("/games/static/hop.js") as script:
        assert script.status_code == 200 and b'GamePage.register("hop"' in script.data
    with client.get("/games/static/hop.css") as sheet:
        assert sheet.status_code == 200 and b".hop-board" in sheet.data


def test_the_view_holds_the_board_the_page_draws(api: Any) -> None:
    game = create(api)
    view = api.get(f"/api/games/{game['id']}").get_json()["view"]
    board = view["board"]
    assert len(board["nodes"]) == 25 and all(len(xy) == 2 for xy in board["nodes"].values())
    assert [(e["colour"], e["node"]) for e in board["electrodes"]] == [("red", "a1"), ("blue", "e5")]
    assert set(view["sites"]) == set(board["nodes"]) - {"a1", "e5"}
    assert view["electrodes"] == {"red": {"red": 7}, "blue": {"blue": 7}}
    assert [p["energy"] for p in view["players"]] == [2, 2] and view["bank"] == 4
    assert view["hamiltonian"] == {"field": "positive", "interaction": "attractive"}
    assert view["movement_board"] == ["hop", "doublon", "spin-flip", "cradle", "tunnel"]


def test_the_page_shows_the_titles_the_view_sends(api: Any, client: Any) -> None:
    game = create(api, options={**MASTER, "level": "doctorate"})
    view = api.get(f"/api/games/{game['id']}").get_json()["view"]
    titles = view["titles"]
    assert [titles[a] for a in view["movement_board"]] == ["Hop", "Doublon", "Spin flip", "Cradle",
                                                           "Thesis defense"]
    assert all(titles[item["effect"]] for item in view["market"])
    with client.get("/games/static/hop.js") as script:
        held = [t for t in titles.values() if f'"{t}"'.encode() in script.data]
    assert held == [], "the script keeps no display names of its own: names.py is their one home"
    # The pages' words for them (names.py) cover every action and effect card the engine names, and
    # say them in English as the engine does.
    engine = {ACTION_NAMES[k]: ACTION_TITLES[k] for k in ACTION_TITLES} | {
        EFFECT_NAMES[k]: EFFECT_TITLES[k] for k in EFFECT_TITLES}
    with client.application.test_request_context(headers={"Accept-Language": "en"}):
        assert {name: str(text) for name, text in HOP_TITLES.items()} == engine
    with client.application.test_request_context(headers={"Accept-Language": "fr"}):
        assert str(HOP_TITLES["thesis-defense"]) == "Défense de thèse"
        assert str(HOP_TITLES["cradle"]) == "Pendule quantique de Newton"
    # The API's description of a move names every effect card the engine has, and nothing else.
    document = client.get("/api/openapi.json").get_json()
    named = {name for shape in document["components"]["schemas"]["HopMove"]["oneOf"]
             for name in shape["properties"].get("effect", {}).get("enum", [])}
    assert named == set(EFFECT_NAMES.values())


def test_energy_changes_go_to_the_seat_that_acts_only(api: Any, device: Any) -> None:
    game = create(api)
    ada, bob = seated(device, game, 0), seated(device, game, 1)
    spectator = device()
    game_id = game["id"]
    # Bob (the seat after Ada) blocks first: he alone is told his moves.
    first = energy(bob, game_id).get_json()
    assert first["to_act"] == 1 and first["version"] == bob.get(f"/api/games/{game_id}").get_json()["version"]
    assert [m["move"] for m in first["moves"]] == [{"block": a} for a in
                                                   ["hop", "doublon", "spin-flip", "cradle", "tunnel"]]
    assert all(m["energy_change"] == 0 for m in first["moves"]), "a block costs nothing"
    for other in (ada, spectator, api):
        answer = energy(other, game_id)
        assert answer.status_code == 200 and answer.get_json()["moves"] is None
    assert bob.post(f"/api/games/{game_id}/moves", {"move": {"block": "tunnel"}}).status_code == 200

    # Ada moves: every legal move with the engine's energy change, in the lobby's order.
    moves = energy(ada, game_id).get_json()["moves"]
    state = ada.get(f"/api/games/{game_id}").get_json()
    assert [m["move"] for m in moves] == state["legal_moves"]
    reference = Hop.new(["Ada", "Bob"], options=MASTER, seed=3)
    reference.push({"block": "tunnel"})
    assert moves == reference.annotated_moves()
    by_move = {(m["move"]["action"], m["move"].get("spin"), m["move"]["to"]): m["energy_change"]
               for m in moves if m["move"].get("from") == "a1"}
    # The rules' examples, positive field: onto an up spin the board loses 1 (Ada takes a token).
    assert by_move[("hop", "up", "b1")] == -1 and by_move[("hop", "down", "b1")] == 1
    # An attractive pair leaving the source: only the new pair counts.
    assert by_move[("doublon", None, "b1")] == -1
    assert energy(bob, game_id).get_json()["moves"] is None


def test_hot_seat_host_is_told_the_moves(api: Any, device: Any) -> None:
    game = create(api, hot_seat=True)
    assert len(energy(api, game["id"]).get_json()["moves"]) == 5
    assert energy(device(), game["id"]).get_json()["moves"] is None


def test_refusals(api: Any, device: Any) -> None:
    game = create(api)
    assert energy(api, 999).status_code == 404
    other = api.post("/api/games", {"game": "qttt", "seats": HUMANS}).get_json()
    answer = energy(api, other["id"])
    assert answer.status_code == 404 and "not |Hop>" in answer.get_json()["error"]
    forged = energy(device(), game["id"], headers={"X-Seat-Token": "not-a-token"})
    assert forged.status_code == 403
    assert api.get("/api/games/abc/hop/moves").status_code == 404


def test_a_finished_game_offers_no_moves(api: Any) -> None:
    game = create(api, hot_seat=True, options={**MASTER, "max_rounds": 1})
    for _ in range(20):
        moves = energy(api, game["id"]).get_json()["moves"]
        if moves is None:
            break
        response = api.post(f"/api/games/{game['id']}/moves", {"move": moves[0]["move"]})
        assert response.status_code == 200, response.get_json()
    state = api.get(f"/api/games/{game['id']}").get_json()
    assert state["status"] == "over" and energy(api, game["id"]).get_json()["moves"] is None


def schema_accepts(schema: dict[str, Any], move: dict[str, Any]) -> bool:
    """One of HopMove's shapes fits: its required keys present, no other key, enums and consts kept."""
    def fits(shape: dict[str, Any]) -> bool:
        props = shape["properties"]
        if not set(shape["required"]) <= set(move) or not set(move) <= set(props):
            return False
        for key, value in move.items():
            rule = props[key]
            if "enum" in rule and value not in rule["enum"]:
                return False
            if "const" in rule and value != rule["const"]:
                return False
        return True
    return sum(fits(shape) for shape in schema["oneOf"]) == 1


def test_openapi_describes_the_path_and_the_notation(api: Any) -> None:
    doc = api.get("/api/openapi.json").get_json()
    path = doc["paths"]["/api/games/{game_id}/hop/moves"]["get"]
    assert {"200", "403", "404"} <= set(path["responses"])
    schemas = doc["components"]["schemas"]
    assert {"HopMove", "HopAnnotatedMove", "HopView"} <= set(schemas)
    doctorate = Hop.new(["a", "b"], options={"level": "doctorate"}, seed=1).view()
    assert set(schemas["HopView"]["properties"]) <= set(doctorate)
    # Every move of a played-out game fits exactly one shape of the notation.
    game = Hop.new(["a", "b"], options={**MASTER, "max_rounds": 6}, seed=9)
    seen: set[str] = set()
    while game.outcome() is None:
        for move in game.legal_moves():
            assert schema_accepts(schemas["HopMove"], move), move
            seen.add(str(move.get("action", "block" if "block" in move else "pass")))
        game.push(game.legal_moves()[-1])
    assert {"block", "hop", "doublon"} <= seen
    assert not schema_accepts(schemas["HopMove"], {"action": "hop", "from": "a1", "to": "b1"})
    assert not schema_accepts(schemas["HopMove"], {"block": "teleport"})


def test_openapi_describes_the_doctorate_moves(api: Any) -> None:
    import random

    schemas = api.get("/api/openapi.json").get_json()["components"]["schemas"]
    seen: set[str] = set()
    for seed in range(12):
        game = Hop.new(["a", "b"], options={"level": "doctorate", "max_rounds": 12}, seed=seed)
        rng = random.Random(seed)
        while game.outcome() is None:
            for move in game.legal_moves():
                assert schema_accepts(schemas["HopMove"], move), move
                seen.add(str(move.get("effect") or next(iter(move))))
            game.push(rng.choice(game.legal_moves()))
    assert {"end_defense", "vortex", "resistance", "impurity-vacancy", "ionization"} <= seen
    assert not schema_accepts(schemas["HopMove"], {"effect": "vortex", "at": "c3"})


def test_a_doctorate_game_is_played_through_the_api(api: Any) -> None:
    game = create(api, hot_seat=True, options={"level": "doctorate"}, seed=5)
    view = api.get(f"/api/games/{game['id']}").get_json()["view"]
    assert [card["cost"] for card in view["market"]] == [1, 1, 2, 2, 3, 3, 4]
    assert api.post(f"/api/games/{game['id']}/moves", {"move": {"block": "hop"}}).status_code == 200
    defense = api.post(f"/api/games/{game['id']}/moves", {"move": {"action": "thesis-defense"}})
    assert defense.status_code == 200
    moves = energy(api, game["id"]).get_json()["moves"]
    assert {"move": {"end_defense": True}, "energy_change": 0, "energy_paid": 0} in moves
    refused = api.post(f"/api/games/{game['id']}/moves", {"move": {"effect": "levitation"}})
    assert 400 <= refused.status_code < 500
    assert "levitation" in str(refused.get_json()["error"])
