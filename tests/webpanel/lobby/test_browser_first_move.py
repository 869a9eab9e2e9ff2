"""A first-time player on a phone (390×844): in Hypnosia and |Hop>, on their turn, one sentence under the
turn says what to do next, with the rules a tap away, and following it makes a move."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from tests.webpanel import helpers
from webpanel.app import create_app
from webpanel.config import LobbySettings

pytestmark = pytest.mark.browser

TIMEOUT_MS = 20_000
PHONE = {"width": 390, "height": 844}

# The game: (what the sentence speaks of, the taps it asks for, in order).
STEPS = {
    "hypnosia": ("#hyp-hint", ("pawn", "pion"),
                 ["#hyp-board .hyp-square.movable", "#hyp-board .hyp-square.dest"]),
    "hop": ("#hop-hint", ("electron", "électron"), ["#hop-board .source", "#hop-board .target"]),
}


@pytest.fixture(scope="module")
def lobby(tmp_path_factory: pytest.TempPathFactory) -> Iterator[helpers.Served]:
    settings = helpers.make_settings(tmp_path_factory.mktemp("first-move"))
    fake = helpers.FakeService(settings.database).start()
    app: Flask = create_app({"PANEL": settings, "LOBBY": LobbySettings(max_open_games_per_device=50),
                             "TESTING": True})
    served = helpers.Served(app)
    try:
        yield served
    finally:
        served.close()
        fake.stop()


def _in_screen(page: Any, selector: str) -> bool:
    box = page.locator(selector).bounding_box()
    return box is not None and box["y"] >= 0 and box["y"] + box["height"] <= PHONE["height"]


@pytest.mark.parametrize("lang", ["fr", "en"])
@pytest.mark.parametrize("game", list(STEPS))
def test_the_sentence_under_the_turn_leads_to_a_move(
    chromium: Any, lobby: helpers.Served, game: str, lang: str, tmp_path: Path
) -> None:
    said, words, taps = STEPS[game]
    context = chromium.new_context(locale="fr-FR" if lang == "fr" else "en-GB", viewport=PHONE,
                                   has_touch=True, is_mobile=True)
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    errors = helpers.watch_errors(page)
    page.goto(lobby.url + "/games")
    page.select_option("#game", game)
    page.select_option(".seat-row[data-seat='1'] .seat-kind", "ai")
    page.click("#create-button")
    page.wait_for_url(lambda url: "/games/" in url and url.rsplit("/", 1)[1].isdigit())
    game_id = int(page.url.rsplit("/", 1)[1])
    hint = page.locator(said)
    page.wait_for_function("id => document.querySelector(id).textContent.trim() !== ''", arg=said)
    sentence = hint.text_content() or ""
    assert any(word in sentence.lower() for word in words), sentence
    assert _in_screen(page, said), "the sentence is below the fold"
    link = f"a.rules-link[href='/games/rules/{game}']"
    rules = page.locator(link).first
    assert _in_screen(page, f"{link} >> nth=0"), "the rules are below the fold"
    assert rules.is_visible()
    page.screenshot(path=str(tmp_path / f"{game}-{lang}-turn.png"))
    before = helpers.game_state(page, game_id)["moves"]
    for tap in taps:
        target = page.locator(tap).first
        target.wait_for()
        target.tap()
    page.wait_for_function(
        "([id, before]) => fetch('/api/games/' + id).then(r => r.json()).then(s => s.moves > before)",
        arg=[game_id, before], polling=200,
    )
    page.screenshot(path=str(tmp_path / f"{game}-{lang}-moved.png"))
    assert errors == []
    context.close()
