"""Digital Haute-Tension in a real browser: the display creates a game of one
human against two computer pseudo-players, a tablet joins by the link the
display shows and plays to the end by choosing attack or defense and tapping
slots; the display keeps the spectator view (no kinds), the tablet marks its
own pawns' kinds and shows its own stock, and both show the lit lamps, the
eliminations, the result and the tournament points.

Drives Debian's Chromium through Playwright against the panel served by
waitress, so the pages run under the real Content-Security-Policy.
"""

from __future__ import annotations

import os
from typing import Any

import pytest

from tests.webpanel.helpers import game_state, join_by_link, watch_errors

pytestmark = pytest.mark.browser


def test_a_tablet_plays_against_two_computers_to_the_end(served: Any, browser: Any) -> None:
    display = browser.new_page(viewport={"width": 1280, "height": 800})
    display_errors = watch_errors(display)
    display.goto(served.url + "/games")
    display.wait_for_selector(".seat-row[data-seat='1']")
    # Hot seat is refused for a game with secrets.
    created = display.evaluate(
        """() => import("/static/panel.js").then(panel => panel.api("POST", "/api/games", {
              game: "hautetension", hot_seat: true,
              seats: [{kind: "human", name: "Ada"}, {kind: "ai", level: "heuristic"}]}))
              .then(() => "created", err => err.message)""")
    assert "hot seat" in created
    display_errors.clear()  # the browser logs that refusal (a 400) as a failed load
    game = display.evaluate(
        """() => import("/static/panel.js").then(panel => panel.api("POST", "/api/games", {
              game: "hautetension", seed: 11, options: {first: 0},
              seats: [{kind: "human", name: "Ada"}, {kind: "ai", level: "heuristic", name: "Volt"},
                      {kind: "ai", level: "random", name: "Ohm"}]}))""")
    game_id = int(game["id"])
    display.goto(f"{served.url}/games/{game_id}")
    display.wait_for_selector("#ht-board .slot[data-slot='a9']")
    # The display does not offer to take a seat itself: a game with secrets is played from tablets.
    display.wait_for_selector(".lobby-seat[data-seat='0'] .play-here", state="attached")
    assert display.locator(".play-here").is_hidden()

    tablet, tablet_errors = join_by_link(browser, display, served.url, game_id,
                                               viewport={"width": 800, "height": 1280})
    tablet.wait_for_selector("#ht-stock:has-text('22 attack pawns, 3 defense pawns')")

    placed = 0
    for _ in range(200):
        state = game_state(tablet, game_id)
        if state["status"] == "over":
            break
        if not state["can_move"]:
            tablet.wait_for_timeout(50)
            continue
        tablet.wait_for_selector(f"#game-page[data-version='{state['version']}']")
        tablet.wait_for_selector("#ht-play:not([hidden])")
        # A defense pawn first, attack pawns after; the first free slot in reading order.
        kind = "defense" if placed == 0 else "attack"
        tablet.click(f"#ht-{kind}")
        move = next(m for m in state["legal_moves"] if m["pawn"] == kind)
        tablet.click(f"#ht-board .slot[data-slot='{move['slot']}']")
        tablet.wait_for_function("v => Number(document.getElementById('game-page').dataset.version) > v",
                                 arg=state["version"])
        placed += 1
        if placed == 1:
            mark = tablet.wait_for_selector(f"#slot-{move['slot']} .mine:has-text('D')")
            assert mark is not None
            tablet.wait_for_selector("#ht-stock:has-text('22 attack pawns, 2 defense pawns')")
            if os.environ.get("HT_SCREENSHOTS"):
                tablet.screenshot(path=os.path.join(os.environ["HT_SCREENSHOTS"], "tablet-playing.png"))
    final = game_state(tablet, game_id)
    assert final["status"] == "over", "the game did not end"
    if os.environ.get("HT_SCREENSHOTS"):
        tablet.screenshot(path=os.path.join(os.environ["HT_SCREENSHOTS"], "tablet.png"), full_page=True)
        display.screenshot(path=os.path.join(os.environ["HT_SCREENSHOTS"], "display.png"), full_page=True)

    for page in (tablet, display):
        page.wait_for_selector("#status:has-text('Game over')")
        page.wait_for_selector("#ht-points:not([hidden])")
        assert page.locator("#ht-points tbody tr").count() == 3
        assert page.locator("#history li").count() == final["moves"]
        assert page.locator("#ht-board .slot.occupied").count() == len(final["view"]["pawns"])
        assert page.locator("#ht-eliminations li").count() == len(final["view"]["eliminations"])
        assert page.locator("#ht-board .lamp.lit").count() == len(final["view"]["lit"])
    points = [int(t) for t in display.locator("#ht-points tbody tr td:nth-child(3)").all_inner_texts()]
    assert points == final["view"]["points"]
    # The display never shows a kind; the tablet marks exactly its own pawns.
    assert display.locator("#ht-board .slot .mine:not(:empty)").count() == 0
    assert display.locator("#ht-stock").is_hidden()
    own = [s for s, p in final["view"]["pawns"].items() if p["owner"] == 0]
    assert tablet.locator("#ht-board .slot[data-kind]").count() == len(own)
    assert display_errors == [] and tablet_errors == [], (display_errors, tablet_errors)
