"""|Hop> at the Doctorate level in a real browser: the effects board with its prices,
a thesis defense, effect cards aimed by tapping the board, the tokens drawn with
their direction, and the log saying what each effect did.

Drives Debian's Chromium through Playwright against the panel served by waitress.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from tests.webpanel.helpers import choose_options, game_state, watch_errors

pytestmark = pytest.mark.browser

DOCTORATE = {"level": "doctorate", "field": "positive", "interaction": "attractive", "max_rounds": 5}
SEED = 73
"""A deal with the Penning trap and the vortex on the two positions costing 1."""
OFFERED = "bs => bs.map(b => JSON.parse(b.dataset.move))"


def create(page: Any, url: str, *, seed: int = SEED) -> int:
    page.goto(url + "/games")
    page.wait_for_selector(".seat-row[data-seat='1']")
    page.select_option("#game", "hop")
    for seat, name in enumerate(("Ada", "Bob")):
        page.fill(f".seat-row[data-seat='{seat}'] .seat-name", name)
    choose_options(page, "hop", DOCTORATE)
    page.click("#create details > summary")
    page.fill("#seed", str(seed))
    page.check("#hot-seat")
    page.click("#create-button")
    page.wait_for_url(re.compile(r"/games/\d+$"))
    return int(page.url.rsplit("/", 1)[1])


def settle(page: Any, game_id: int, moves: int) -> dict[str, Any]:
    """The game once ``moves`` moves are played and the page shows that position."""
    for _ in range(200):
        state: dict[str, Any] = game_state(page, game_id)
        if state["moves"] >= moves:
            break
        page.wait_for_timeout(25)
    assert state["moves"] == moves, state["moves"]
    page.wait_for_selector(f"#game-page[data-version='{state['version']}']")
    return state


def test_effects_bought_and_aimed_by_touch(served: Any, browser: Any) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors = watch_errors(page)
    game_id = create(page, served.url)
    page.wait_for_selector("#hop-market .hop-card")
    state = settle(page, game_id, 0)
    market = state["view"]["market"]
    assert [m["effect"] for m in market][:2] == ["penning-trap", "vortex"]
    prices = page.locator("#hop-market .hop-card").evaluate_all("cs => cs.map(c => Number(c.dataset.cost))")
    assert prices == [1, 1, 2, 2, 3, 3, 4]
    assert page.locator("#hop-market .hop-card .price").first.inner_text() == "⚡ 1"
    assert page.locator("#hop-market .hop-card:not([disabled])").count() == 0  # no defense yet
    assert page.locator("#hop-actions .hop-action[data-action='thesis-defense']").count() == 1

    page.click("#hop-actions .hop-action.choice[data-action='hop']")  # Bob blocks Ada's hop
    settle(page, game_id, 1)
    page.click("#hop-choices .hop-move:has-text('thesis defense')")
    state = settle(page, game_id, 2)
    assert state["view"]["defending"]
    assert "thesis defense" in page.inner_text("#hop-hint").lower()

    # The Penning trap: tap its card, then the site it goes on, then the one move left.
    page.click("#hop-market .hop-card[data-effect='penning-trap']")
    page.click("#hop-board .hop-place[data-node='c3'][data-spin='up']")
    offered = page.locator("#hop-choices .hop-move").evaluate_all(OFFERED)
    assert offered == [{"effect": "penning-trap", "at": "c3"}]
    page.click("#hop-choices .hop-move")
    state = settle(page, game_id, 3)
    assert state["view"]["tokens"] == [{"effect": "penning-trap", "at": "c3"}]
    assert page.locator("#hop-board .hop-token[data-effect='penning-trap']").count() == 1
    assert "used" in (page.get_attribute("#hop-market .hop-card[data-effect='penning-trap']", "class") or "")
    assert "Penning trap on c3" in page.inner_text("#history li:last-child")

    # The vortex: its card, then the first card a2 of its square, then the clockwise one.
    page.click("#hop-market .hop-card[data-effect='vortex']")
    page.click("#hop-board .hop-place[data-node='a2'][data-spin='up']")
    offered = page.locator("#hop-choices .hop-move").evaluate_all(OFFERED)
    assert {"effect": "vortex", "sites": ["a2", "a3", "b3", "b2"], "turning": "clockwise"} in offered
    assert all(m.get("effect") == "vortex" and m["sites"][0] == "a2" for m in offered)
    page.click("#hop-choices .hop-move:has-text('Vortex ↻')")
    state = settle(page, game_id, 4)
    assert page.locator("#hop-board .hop-token[data-effect='vortex'][data-turning='clockwise']").count() == 1
    assert "Vortex ↻ round a2, a3, b3, b2" in page.inner_text("#history li:last-child")
    assert state["view"]["players"][0]["energy"] == 0  # 2, less 1 for each card

    page.click("#hop-choices .hop-move:has-text('end the thesis defense')")
    state = settle(page, game_id, 5)
    assert not state["view"]["defending"] and state["view"]["phase"] == "second"
    assert page.locator("#hop-market .hop-card:not([disabled])").count() == 0
    # Ada's second action, a doublon onto a2, ends her turn: the vortex turns both electrons to a3,
    # and the page says so.
    page.click(
        "#hop-choices .hop-move[data-move='" + as_sent({"action": "doublon", "from": "a1", "to": "a2"}) + "']"
    )
    state = settle(page, game_id, 6)
    assert state["view"]["turn"] == 1 and state["view"]["sites"]["a3"] == {"up": "red", "down": "red"}
    assert (
        page.inner_text("#hop-after-turn")
        == "After the last turn: Vortex moved a2↑ → a3; Vortex moved a2↓ → a3."
    )
    assert errors == [], errors


def as_sent(move: dict[str, Any]) -> str:
    return json.dumps(move, separators=(",", ":"), sort_keys=True)


def play(page: Any, game_id: int, moves: int, move: dict[str, Any]) -> dict[str, Any]:
    """Play ``move`` by tapping the page (the movement board, a market card, or the move's button,
    whose ``data-move`` is the move as the API sends it: keys sorted)."""
    if "block" in move:
        page.click(f"#hop-actions .hop-action.choice[data-action='{move['block']}']")
    else:
        if "effect" in move:
            page.click(f"#hop-market .hop-card[data-effect='{move['effect']}']")
        page.click(f"#hop-choices .hop-move[data-move='{as_sent(move)}']")
    return settle(page, game_id, moves + 1)


def test_a_superposed_electron_asks_its_owner_for_the_spin(served: Any, browser: Any) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors = watch_errors(page)
    game_id = create(page, served.url, seed=4)  # superposition on the first position
    page.wait_for_selector("#hop-market .hop-card")
    played = [
        {"block": "doublon"},
        {"action": "hop", "from": "a1", "spin": "up", "to": "a2"},
        {"action": "thesis-defense"},
        {"effect": "superposition", "at": "a2", "spin": "up"},
        {"end_defense": True},
        {"block": "doublon"},
        {"action": "thesis-defense"},
        {"end_defense": True},
        {"action": "thesis-defense"},
        {"end_defense": True},
        {"block": "cradle"},  # doublon was blocked for Ada last turn
        {"action": "hop", "from": "a2", "spin": "down", "to": "a3"},
    ]
    state = settle(page, game_id, 0)
    for count, move in enumerate(played):
        state = play(page, game_id, count, move)
    assert state["view"]["collapse"] == {"at": "a2", "move": played[-1]}
    assert page.locator("#hop-board .hop-place.superposed[data-node='a2']").count() == 2
    assert "superposed electron at a2" in page.inner_text("#hop-hint")
    offered = page.locator("#hop-choices .hop-move").evaluate_all(OFFERED)
    assert offered == [{"collapse": "up", "at": "a2"}, {"collapse": "down", "at": "a2"}]
    state = play(page, game_id, len(played), {"collapse": "down", "at": "a2"})
    assert state["view"]["sites"]["a3"]["down"] == "red" and state["view"]["superposed"] == []
    assert page.locator("#hop-board .hop-place.superposed").count() == 0
    assert "superposed electron at a2 is spin ↓" in page.inner_text("#history li:last-child")
    assert errors == [], errors
