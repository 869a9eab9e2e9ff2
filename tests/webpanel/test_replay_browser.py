"""The replay and the pre-game check in a real browser, in French and English, at TV, laptop,
tablet and phone sizes (tests/webpanel/test_pages_browser.py's checks: nothing overflows, no word
broken, 44 px targets on touch screens, no English on a French page, axe-core WCAG 2.1 AA).
Screenshots go to ``test-artifacts/pages/``.

The scene comes from the real board service (in-process, simulated board): game 1 played to its
end with a bluff and revealed by both players, game 2 waiting for the players to say whether they
saw the lamps light.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.hardware.helpers import Rig
from tests.webpanel import helpers, i18n_checks
from tests.webpanel.test_pages_browser import LAYOUT_PROBLEMS, SHOWN_TEXT, SIZES, TIMEOUT_MS, TOUCH, _shoot
from tests.webpanel.test_replay import ANA, BEN, play
from webpanel.app import close_app, create_app

pytestmark = pytest.mark.browser

PAGES: dict[str, tuple[str, ...]] = {
    "/replay": (".replay-list li",),
    "/replay/board/1": ("#timeline li", "#seats li"),
    "/board": ("#check:not([hidden])", "#check-answer:not([hidden]) button"),
    "/staff/game": ("#skip-check:not([hidden])",),
}


@pytest.fixture(scope="module")
def panel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("replay-pages")
    settings = helpers.make_settings(folder)
    rig = Rig(folder, database=settings.database)
    app = create_app({"PANEL": settings, "TESTING": True})
    served = helpers.Served(app)
    try:
        play(rig)
        staff = helpers.Api(app.test_client())
        assert staff.login().status_code == 200
        for seat in (0, 1):
            assert staff.post("/api/replay/board/1/reveal", {"seat": seat}).status_code == 200
        for slot in ANA + BEN:
            rig.lift(slot)
        rig.new_game(pregame_check="ask")
        rig.hold_button()
        yield served.url
    finally:
        served.close()
        close_app(app)
        rig.close()


@pytest.fixture(scope="module", params=["fr", "en"])
def visitor(request: pytest.FixtureRequest, chromium: Any, panel: str) -> Iterator[Any]:
    lang: str = request.param
    context = chromium.new_context(locale="fr-FR" if lang == "fr" else "en-GB")
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(panel + "/staff/login")
    page.fill("#pin", helpers.PIN)
    page.click("#login-form button[type=submit]")
    page.wait_for_selector("#health-page")
    yield lang, page, panel
    context.close()


def _open(page: Any, base: str, path: str) -> None:
    page.goto(base + path)
    for selector in PAGES[path]:
        page.wait_for_selector(selector, state="attached")


@pytest.mark.parametrize("path", list(PAGES))
def test_page_at_every_size(visitor: Any, path: str) -> None:
    lang, page, base = visitor
    errors = helpers.watch_errors(page, [])
    _open(page, base, path)
    if path == "/replay/board/1":
        page.click("#step-last")  # the end: Ana's lamp lit, every pawn revealed
    problems = []
    for size in SIZES:
        page.set_viewport_size({"width": size[0], "height": size[1]})
        page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
        _shoot(page, lang, path + ("-revealed" if path.startswith("/replay/") else "-check"), size)
        problems += [f"{size[0]}×{size[1]}: {p}" for p in page.evaluate(LAYOUT_PROBLEMS, size in TOUCH)]
    if lang == "fr":
        english = i18n_checks.english_words_in(page.evaluate(SHOWN_TEXT))
        assert english == [], f"{path} in French shows English: {english}"
    assert problems == [], "\n".join(problems)
    assert errors == []


@pytest.mark.parametrize("path", list(PAGES))
def test_page_passes_axe(visitor: Any, path: str) -> None:
    from axe_playwright_python.sync_playwright import Axe

    lang, page, base = visitor
    page.set_viewport_size({"width": 1280, "height": 800})
    _open(page, base, path)
    results = Axe().run(page, options={"runOnly": {"type": "tag",
                                                   "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}})
    assert results.violations_count == 0, results.generate_report()


def test_the_scrubber_and_the_steps_walk_through_the_game(visitor: Any) -> None:
    lang, page, base = visitor
    _open(page, base, "/replay/board/1")
    assert page.locator(".slot.occupied").count() == 0 and page.is_disabled("#step-first")
    page.click("#step-next")
    assert page.get_attribute("#slot-f9", "data-owner") == "0"
    page.fill("#scrubber", "3")
    page.dispatch_event("#scrubber", "input")
    assert page.locator("#timeline li[aria-current=step]").count() == 1
    page.click("#step-last")
    assert "lit" in (page.get_attribute("#lamp-N", "class") or "")
    assert page.locator(".wire.closed").count() == 1  # revealed: the closed row that lit N
    assert page.locator(".slot.kind-defense").count() == 3
    page.click("#analyse")
    page.wait_for_function("() => document.getElementById('analysis-text').textContent.includes('%')")


def test_the_players_answer_the_check_on_the_display(browser: Any, panel: str) -> None:
    context = browser.new_context(locale="en-GB")
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(panel + "/board")
    page.wait_for_selector("#check-answer:not([hidden]) button")
    assert page.inner_text("#check-text").startswith("Did lamps N, E, S")
    assert page.locator("#check-dark button").count() == 4
    page.click("#check-all-lit")  # the service (stopped here) does not answer: the page says why
    page.wait_for_function("() => document.getElementById('check-msg').textContent.length > 0")


@pytest.mark.parametrize("lang, size", [("fr", (390, 844)), ("fr", (1920, 1080)), ("en", (820, 1180))])
def test_the_players_reveal_at_the_boards_display(
    chromium: Any, tmp_path: Any, lang: str, size: tuple[int, int]
) -> None:
    """The display beside the board (the Pi's own browser: no staff session): the page says how, each
    player taps their name and confirms, and the replay shows the kinds once both have."""
    settings = helpers.make_settings(tmp_path)
    rig = Rig(tmp_path, database=settings.database)
    app = create_app({"PANEL": settings, "TESTING": True})
    served = helpers.Served(app)
    try:
        play(rig)
        context = chromium.new_context(locale="fr-FR" if lang == "fr" else "en-GB",
                                       viewport={"width": size[0], "height": size[1]})
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        errors = helpers.watch_errors(page)
        page.on("dialog", lambda dialog: dialog.accept())  # each player confirms
        page.goto(served.url + "/replay/board/1")
        buttons = page.locator("#reveal-buttons button")
        buttons.first.wait_for()
        said = page.text_content("#reveal-text") or ""
        assert ("touche son nom" in said) if lang == "fr" else ("taps their name" in said), said
        assert buttons.count() == 2
        page.screenshot(path=str(tmp_path / f"reveal-{lang}-{size[0]}.png"), full_page=True)
        buttons.first.click()
        page.wait_for_function("() => document.querySelectorAll('#reveal-buttons button').length === 1")
        half = helpers.fetch_json(page, "/api/replay/board/1")
        assert half["revealed"] is False and "kinds" not in str(half["steps"])  # one is not enough
        assert page.locator("#analysis").is_hidden()
        buttons.first.click()
        page.wait_for_selector("#analysis:not([hidden])")
        if lang == "fr":
            assert i18n_checks.english_words_in(page.text_content("#reveal") or "") == []
        page.screenshot(path=str(tmp_path / f"revealed-{lang}-{size[0]}.png"), full_page=True)
        assert errors == []
        context.close()
    finally:
        served.close()
        close_app(app)
        rig.close()
