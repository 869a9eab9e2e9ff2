"""|Hop> Doctorate in a real browser: the board page draws the board again when an impurity adds a
spare site card beside it, while a spectator watches.

Drives Debian's Chromium through Playwright against the panel served by waitress.
"""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask

from games.hop import Hop
from games.hop.effects import IMPURITY
from tests.webpanel import helpers

pytestmark = pytest.mark.browser

HUMANS = [{"kind": "human", "name": "Ada"}, {"kind": "human", "name": "Bob"}]


def _seed_with_a_cheap_impurity() -> int:
    """A seed that deals the impurity card on one of the four cheapest positions (Ada starts with 2)."""
    options = {"level": "doctorate"}
    dealt = (Hop.new(["a", "b"], options=options, seed=seed).state.market for seed in range(200))
    return next(seed for seed, market in enumerate(dealt) if IMPURITY in market[:4])


def test_the_board_is_drawn_again_as_an_impurity_grows_it(
    app: Flask, served: Any, browser: Any
) -> None:
    host = helpers.Api(app.test_client())
    seed = _seed_with_a_cheap_impurity()
    created = host.post(
        "/api/games", {"game": "hop", "seats": HUMANS, "options": {"level": "doctorate"}, "seed": seed}
    )
    assert created.status_code == 201, created.get_json()
    game = created.get_json()
    players = []
    for seat in (0, 1):
        device = helpers.Api(app.test_client())
        joined = device.post(f"/api/games/{game['id']}/join", {"code": game["seats"][seat]["join_code"]})
        assert joined.status_code == 200
        players.append(device)

    page = browser.new_page(viewport={"width": 800, "height": 1280})  # a spectator's tablet
    errors = helpers.watch_errors(page)
    page.goto(f"{served.url}/games/{game['id']}")
    page.wait_for_selector("#hop-board .hop-site[data-node='c3']")
    assert page.locator("#hop-board .hop-site[data-node='c0']").count() == 0
    height = float(page.get_attribute("#hop-board", "viewBox").split()[3])  # type: ignore[union-attr]

    ada, bob = players
    for device, move in ((bob, {"block": "hop"}), (ada, {"action": "thesis-defense"})):
        assert device.post(f"/api/games/{game['id']}/moves", {"move": move}).status_code == 200
    grow = {"effect": "impurity-vacancy", "add": "c0"}
    answer = ada.post(f"/api/games/{game['id']}/moves", {"move": grow})
    assert answer.status_code == 200, answer.get_json()

    # The spectator's page follows: a new card below c1, the board one card taller, wired to column c.
    page.wait_for_selector("#hop-board .hop-site[data-node='c0']", timeout=10_000)
    grown = float(page.get_attribute("#hop-board", "viewBox").split()[3])  # type: ignore[union-attr]
    assert grown == height + 100  # one card (100 SVG units) more
    assert page.locator("#hop-board .hop-place[data-node='c0']").count() == 2  # its up and down places
    assert "Impurity: put a spare site card on c0" in page.inner_text("#history")
    assert errors == [], errors
