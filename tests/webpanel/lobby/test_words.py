"""What the lobby's pages say, in French and English: the game options as controls, the computer
levels and default seat names, the error codes, the rules pages and the pages without English."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from games.frame import AI_LEVELS, BadOptionsError
from tests.webpanel import i18n_checks
from webpanel.lobby.api import known_games
from webpanel.lobby.names import LEVELS, RULES, STRENGTHS, level_name, seat_name
from webpanel.lobby.options import DESCRIBED, Option, game_options

HUMANS = [{"kind": "human", "name": "Ada"}, {"kind": "human", "name": "Bob"}]
GAME = "qttt"
"""The game of the conftest's ``device`` fixture."""
GAMES = known_games()


def values(option: Option, players: int) -> list[Any]:
    """Every value a person can give *option* with the form's control, for *players* players."""
    if option.control == "select":
        return [c.value for c in option.choices if not c.players or players in c.players]
    if option.control == "number":
        return [option.minimum, option.default, option.maximum]
    if option.control == "toggle":
        return [option.on]
    if option.control == "colours":
        return [[c.value for c in option.choices[:players]]]
    if option.control == "seat":
        return list(range(players))
    if option.control == "handicap":
        return [{lamp: option.maximum for lamp in option.lamps[players][:1]}]
    raise AssertionError(option.control)


@pytest.mark.parametrize("game", sorted(DESCRIBED))
def test_every_value_the_controls_offer_makes_a_game(app: Flask, game: str) -> None:
    """The form can only send what the engine accepts: each control's every value, alone."""
    cls = GAMES[game]
    with app.test_request_context():
        options = game_options(game)
        assert options is not None
        for players in range(cls.min_players, cls.max_players + 1):
            names = [f"P{n}" for n in range(players)]
            for option in options:
                for value in values(option, players):
                    chosen = {option.key: value}
                    if option.shown_when:  # a control shown only with another's value
                        other, wanted = option.shown_when
                        shown = next(o for o in options if o.key == other)
                        chosen[other] = wanted[0] if wanted else shown.maximum
                    cls.new(names, options=chosen, seed=1)  # raises on a value the engine refuses


def test_the_engine_still_refuses_what_the_form_cannot_send() -> None:
    with pytest.raises(BadOptionsError):
        GAMES["hop"].new(["A", "B"], options={"level": "professor"}, seed=1)


def test_every_computer_level_has_a_strength_and_a_way_of_playing(app: Flask) -> None:
    shipped = {game: AI_LEVELS[game] for game in LEVELS}
    assert set(LEVELS) <= set(AI_LEVELS)
    for game, levels in shipped.items():
        assert set(LEVELS[game]) == set(levels), game
        for level in LEVELS[game].values():
            assert level.strength in STRENGTHS
    with app.test_request_context(headers={"Accept-Language": "fr"}):
        assert level_name("qttt", "heuristic") == "moyen" and level_name("hop", "mcts") == "fort"
        assert level_name("qttt", "new-level") == "new-level", "an unknown level keeps the engine's name"


def test_a_seat_without_a_name_is_named_in_the_page_language(app: Flask, api: Any) -> None:
    unnamed = [{"kind": "human"}, {"kind": "ai", "level": "perfect"}]
    created = api.post("/api/games", {"game": "qttt", "seats": unnamed})
    seats = created.get_json()["seats"]
    assert [s["name"] for s in seats] == ["Player 1", "Computer (perfect)"], "the API keeps its English names"
    assert [s["default_name"] for s in seats] == [True, True]
    with app.test_request_context(headers={"Accept-Language": "fr"}):
        assert seat_name("qttt", "human", None, 0, "Player 1") == "Joueur 1"
        assert seat_name("qttt", "ai", "perfect", 1, "Computer (perfect)") == "Ordinateur (parfait)"
        assert seat_name("qttt", "human", None, 0, "Player 2") == "Player 2", "a name someone typed stays"


# -- the API's error codes ------------------------------------------------------------------------


def test_lobby_errors_carry_a_code_with_a_text_in_each_language(app: Flask, api: Any, device: Any) -> None:
    from webpanel.i18n import ERROR_TEXTS, catalogue

    refusals = [
        (api.get("/api/games/999"), 404, "game_not_found"),
        (api.post("/api/games", {"game": "chess", "seats": HUMANS}), 400, "unknown_game"),
        (api.post("/api/games", {"game": "qttt", "seats": HUMANS[:1]}), 400, "bad_seats"),
        (api.post("/api/games", {"game": "hop", "seats": HUMANS, "options": {"level": "x"}}), 400,
         "bad_options"),
        (api.post("/api/games", {"game": "hautetension", "seats": HUMANS, "hot_seat": True}), 400,
         "no_hot_seat"),
    ]
    game = api.post("/api/games", {"game": "qttt", "seats": HUMANS}).get_json()
    stranger = device()
    refusals += [
        (stranger.post(f"/api/games/{game['id']}/moves", {"move": [0, 1]}), 403, "no_seat"),
        (stranger.post(f"/api/games/{game['id']}/join", {"code": "nope00"}), 404, "code_not_found"),
        (api.get(f"/api/games/{game['id']}?at=9"), 404, "no_such_position"),
    ]
    for response, status, code in refusals:
        body = response.get_json()
        assert (response.status_code, body.get("code")) == (status, code), body
        assert isinstance(body["error"], str) and body["error"], "the English sentence stays, for programs"
        assert code in ERROR_TEXTS
    with app.test_request_context():
        french, english = catalogue("fr")["errors"], catalogue("en")["errors"]
    for _, _, code in refusals:
        assert french[code] != english[code], code


# -- the rules pages ------------------------------------------------------------------------------


@pytest.mark.parametrize("game", RULES)
def test_each_game_has_a_rules_page_with_its_board_in_both_languages(client: FlaskClient, game: str) -> None:
    pages = {}
    for lang in ("fr", "en"):
        response = client.get(f"/games/rules/{game}?lang={lang}")
        assert response.status_code == 200
        pages[lang] = html = response.get_data(as_text=True)
        block = re.search(r'<script type="application/json" id="rules-data">(.*?)</script>', html, re.S)
        assert block is not None
        data = json.loads(block.group(1))
        drawn = {"hautetension": "layout", "hypnosia": "board", "hop": "boards", "qttt": None}[game]
        assert drawn is None or data[drawn], "the drawing comes from the game's own data"
        assert 'id="rules-board"' in html or 'id="hyp-board"' in html or 'id="hop-board"' in html
    assert pages["fr"] != pages["en"]
    assert i18n_checks.english_words(pages["fr"]) == []


def test_an_unknown_game_has_no_rules_page(client: FlaskClient) -> None:
    assert client.get("/games/rules/chess").status_code == 404


def test_each_game_page_links_its_rules(client: FlaskClient, api: Any) -> None:
    for game in ("qttt", "hop", "hypnosia"):
        created = api.post("/api/games", {"game": game, "seats": HUMANS, "hot_seat": True}).get_json()
        html = client.get(f"/games/{created['id']}").get_data(as_text=True)
        assert f'href="/games/rules/{game}"' in html, game


# -- no English on a French page ------------------------------------------------------------------


def test_the_lobby_game_and_join_pages_in_french_show_no_english(client: FlaskClient, api: Any) -> None:
    client.set_cookie("hautetension_lang", "fr")
    paths = ["/games"]
    for game in ("qttt", "hop", "hypnosia"):
        created = api.post("/api/games", {"game": game, "seats": HUMANS, "hot_seat": True}).get_json()
        paths.append(f"/games/{created['id']}")
    secret = api.post("/api/games", {"game": "hautetension", "seats": HUMANS}).get_json()
    paths.append(f"/games/{secret['id']}")
    paths.append(f"/j/{secret['seats'][0]['join_code']}")
    for path in paths:
        response = client.get(path)
        assert response.status_code == 200, path
        html = response.get_data(as_text=True)
        assert i18n_checks.page_language(html) == "fr"
        assert i18n_checks.english_words(html) == [], path
