"""A game's end as the pages show it, in a real browser, in French and English, at a TV (1920×1080), a
tablet (820×1180) and a phone (390×844): on ``/sim`` the winner and "Replay this game" are on the
TV's screen without scrolling and the hand's choices are off once the game is over; staff's game
page heads a finished game as the last game, not as a running one. Screenshots go to
``test-artifacts/pages/``."""

from __future__ import annotations

from typing import Any

import pytest

from tests.webpanel import helpers, i18n_checks
from tests.webpanel.test_pages_browser import ARTIFACTS, LAYOUT_PROBLEMS, SHOWN_TEXT, TIMEOUT_MS, TOUCH

pytestmark = pytest.mark.browser

SIZES = [(1920, 1080), (820, 1180), (390, 844)]
TV = (1920, 1080)
WINS = {"fr": "Bob gagne", "en": "Bob wins"}
HEADINGS = {"fr": ("Partie en cours", "Dernière partie"), "en": ("Running game", "Last game")}

ON_SCREEN = """(selector) => {
  const r = document.querySelector(selector).getBoundingClientRect();
  return { top: r.top, bottom: r.bottom, innerHeight: window.innerHeight, scrollY: window.scrollY };
}"""


def _over(served: Any) -> helpers.Api:
    """Ada (lamp N) and Bob play column f: five attack pawns light Ada's lamp, Bob wins."""
    staff = helpers.Api(served.app.test_client())
    assert staff.login().status_code == 200
    helpers.start_game(staff, names=("Ada", "Bob"))
    for slot in ("f9", "f8", "f7", "f6", "f5"):
        assert staff.post(f"/api/sim/slots/{slot}", {"pawn": "attack"}).status_code == 200
    return staff


def _shoot(page: Any, lang: str, name: str, size: tuple[int, int]) -> None:
    folder = ARTIFACTS / lang
    folder.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(folder / f"{name}-{size[0]}x{size[1]}.png"))


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_the_end_of_a_game_on_the_simulated_board(browser: Any, served: Any, service: Any, lang: str) -> None:
    staff = _over(served)
    context = browser.new_context(locale="fr-FR" if lang == "fr" else "en-GB")
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    errors = helpers.watch_errors(page)
    for size in SIZES:
        page.set_viewport_size({"width": size[0], "height": size[1]})
        page.goto(served.url + "/sim")
        page.wait_for_selector("#result:not([hidden])")
        page.wait_for_selector("#replay-wrap:not([hidden])")
        assert WINS[lang] in (page.text_content("#result") or "")
        # The game is over: nobody's hand holds a pawn to choose.
        _shoot(page, lang, "sim-over", size)
        assert page.is_disabled("#pawn-attack") and page.is_disabled("#pawn-defense")
        if size == TV:  # the display across the room: the result and the replay without scrolling
            for selector in ("#result", "#replay-link"):
                box = page.evaluate(ON_SCREEN, selector)
                assert box["scrollY"] == 0 and box["top"] >= 0 and box["bottom"] <= box["innerHeight"], (
                    selector, box)
        assert page.evaluate(LAYOUT_PROBLEMS, size in TOUCH) == []
        if lang == "fr":
            assert i18n_checks.english_words_in(page.evaluate(SHOWN_TEXT)) == []
    # Staff's game page heads the finished game as the last one.
    login = helpers.Api(served.app.test_client())
    assert login.login().status_code == 200
    page.goto(served.url + "/staff/login")
    page.fill("#pin", helpers.PIN)
    page.click("#login-form button[type=submit]")
    page.wait_for_selector("#health-page")
    running, last = HEADINGS[lang]
    for size in SIZES:
        page.set_viewport_size({"width": size[0], "height": size[1]})
        page.goto(served.url + "/staff/game")
        page.wait_for_selector("#running-seats li")
        page.wait_for_function("([h, t]) => document.querySelector(h).textContent.trim() === t",
                               arg=["#running-title", last])
        _shoot(page, lang, "staff-game-over", size)
        assert page.evaluate(LAYOUT_PROBLEMS, size in TOUCH) == []
    # A new game: the heading says it runs again.
    helpers.start_game(staff, names=("Cid", "Dee"))
    page.wait_for_function("([h, t]) => document.querySelector(h).textContent.trim() === t",
                           arg=["#running-title", running])
    assert errors == []
    context.close()
