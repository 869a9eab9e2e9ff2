"""Every page of the board, simulated board and staff areas in a real browser, in French and English,
at the sizes people see them: a TV (1920×1080), a laptop (1280×800), a tablet upright (820×1180)
and a phone (390×844).

At each size: nothing overflows the screen sideways, the board fits, no word is broken across two
lines, the controls are at least 44 CSS px on the tablet and the phone, and a French page shows no
common English word once its script has drawn it. Each page, in each language, passes axe-core's
checks of WCAG 2.1 levels A and AA (contrast included) — axe-core comes inside the
axe-playwright-python package: no network. Screenshots go to ``test-artifacts/pages/`` (ignored by
git) for people to look at.

One Chromium and one panel for the module; each page is opened once per language and resized.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from store.db import connect
from store.journal import Journal, JournalKind
from tests.webpanel import helpers, i18n_checks
from webpanel.app import create_app

pytestmark = pytest.mark.browser

ARTIFACTS = i18n_checks.REPO / "test-artifacts" / "pages"
SIZES = [(1920, 1080), (1280, 800), (820, 1180), (390, 844)]
TOUCH = {(820, 1180), (390, 844)}
TIMEOUT_MS = 15_000

PAGES: dict[str, tuple[str, ...]] = {
    "/board": ("#conn[data-state=live]", "#seats li", "#lamp-banner:not([hidden])"),
    "/board?kiosk=1": ("#conn[data-state=live]", "#seats li"),
    "/sim": ("#conn[data-state=live]", "#count-attack:not(:empty)"),
    "/staff/login": ("#login-form",),
    "/staff": ("#health-summary dt", "#fault-board .slot[data-trouble=fault]"),
    "/staff/tests": ("#slot-board .slot[data-reading]",),
    "/staff/game": ("#running-seats li",),
    "/staff/journal": ("#journal li.journal-line",),
    "/staff/wiring": ("#wiring-board .slot", "#wiring-start:disabled"),
}
BOARD_PAGES = {"/board", "/board?kiosk=1", "/sim"}


def _checks() -> dict[str, str]:
    """The functions of page_checks.js by name (what page.evaluate runs)."""
    text = (Path(__file__).parent / "page_checks.js").read_text()
    parts = text.split("// @check ")[1:]
    return {part.split("\n", 1)[0].strip(): part.split("\n", 1)[1].strip() for part in parts}


CHECKS = _checks()
LAYOUT_PROBLEMS, BOARD_FIT, SHOWN_TEXT = CHECKS["LAYOUT_PROBLEMS"], CHECKS["BOARD_FIT"], CHECKS["SHOWN_TEXT"]
STAFF = {"/staff", "/staff/tests", "/staff/game", "/staff/journal", "/staff/wiring"}
REFUSED_DURING_A_GAME = {"/staff/tests", "/staff/wiring"}
"""Pages whose requests are refused (409) while a game runs, as the scene has one."""





# -- one panel for the module, with a game to show ---------------------------------------------------


@pytest.fixture(scope="module")
def panel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[helpers.Served, Path]]:
    settings = helpers.make_settings(tmp_path_factory.mktemp("pages"))
    fake = helpers.FakeService(settings.database).start()
    app: Flask = create_app({"PANEL": settings, "TESTING": True})
    served = helpers.Served(app)
    try:
        _set_the_scene(helpers.Api(app.test_client()), settings.database)
        yield served, settings.database
    finally:
        served.close()
        fake.stop()


def _set_the_scene(staff: helpers.Api, database: Path) -> None:
    """A three-player game where Ada's lamp has just lit (a banner), a pawn lifted (an anomaly),
    black pawns on the board, and a contact that faulted in the last hour (the health drawing)."""
    assert staff.login().status_code == 200
    helpers.start_game(staff, names=("Ada", "Bob", "Cid"))
    # Ada, Bob, then Cid, Ada, Bob, Cid, Ada fill column f: lamp N (Ada's) lights on the last one.
    for slot in ("d2", "h4", "f9", "f8", "f7", "f6", "f5"):
        assert staff.post(f"/api/sim/slots/{slot}", {"pawn": "attack"}).status_code == 200
    assert staff.post("/api/sim/slots/h4", {"pawn": None}).status_code == 200
    journal = Journal(connect(database))
    journal.append(JournalKind.FAULT, {"kind": "conduction-without-presence", "slot": "d4",
                                       "message": "d4 conducts without presence", "at": time.time()})
    journal.conn.close()


@pytest.fixture(scope="module", params=["fr", "en"])
def visitor(request: pytest.FixtureRequest, chromium: Any, panel: Any) -> Iterator[Any]:
    """A staff tablet in one language (the browser asks for it), logged in."""
    served, _ = panel
    lang: str = request.param
    with helpers.staff_tablet(chromium, served.url, lang, timeout_ms=TIMEOUT_MS) as page:
        yield lang, page, served.url


# -- the pages ---------------------------------------------------------------------------------


def _shoot(page: Any, lang: str, path: str, size: tuple[int, int]) -> None:
    name = path.strip("/").replace("/", "-").replace("?", "-").replace("=", "") or "home"
    folder = ARTIFACTS / lang
    folder.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(folder / f"{name}-{size[0]}x{size[1]}.png"), full_page=True)


@pytest.mark.parametrize("path", list(PAGES))
def test_page_at_every_size(visitor: Any, path: str) -> None:
    lang, page, base = visitor
    errors = helpers.watch_errors(page, [])
    if path == "/staff/login":
        page.context.clear_cookies()  # the login page as someone not logged in sees it
        page.context.add_cookies([{"name": "hautetension_lang", "value": lang, "url": base}])
    page.goto(base + path)
    for selector in PAGES[path]:
        page.wait_for_selector(selector, state="attached")
    assert page.get_attribute("html", "lang") == lang
    problems = []
    for size in SIZES:
        page.set_viewport_size({"width": size[0], "height": size[1]})
        page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
        _shoot(page, lang, path, size)
        problems += [f"{size[0]}×{size[1]}: {p}" for p in page.evaluate(LAYOUT_PROBLEMS, size in TOUCH)]
        if path in BOARD_PAGES:
            fit = page.evaluate(BOARD_FIT)
            if fit["right"] > fit["innerWidth"] + 1 or fit["left"] < 0:
                problems.append(f"{size[0]}×{size[1]}: the board is wider than the screen: {fit}")
            if size[0] > size[1] and fit["bottom"] > fit["innerHeight"] + 1:
                problems.append(f"{size[0]}×{size[1]}: the board is taller than the screen: {fit}")
            # A slot's target is its whole cell: 44 px where the screen allows, else the board takes the
            # whole width (nine columns and the lamps do not fit 9 × 44 px on a 390 px phone).
            full_width = fit["width"] >= 0.94 * fit["innerWidth"]
            full_width = full_width and fit["cell"] >= 0.99 * fit["width"] / 11.2
            if path == "/sim" and size in TOUCH and fit["cell"] < 44 and not full_width:
                problems.append(f"{size[0]}×{size[1]}: a slot is a {fit['cell']:.0f} px target")
    if lang == "fr":
        english = i18n_checks.english_words_in(page.evaluate(SHOWN_TEXT))
        assert english == [], f"{path} in French shows English: {english}"
    assert problems == [], "\n".join(problems)
    # The slot test's one refused reading (a game runs) is the only error the console may show.
    assert [e for e in errors if not (path in REFUSED_DURING_A_GAME and "409" in e)] == []
    if path == "/staff/login":  # log in again for the next pages
        page.fill("#pin", helpers.PIN)
        page.click("#login-form button[type=submit]")
        page.wait_for_selector("#health-page")


@pytest.mark.parametrize("path", list(PAGES))
def test_page_passes_axe(visitor: Any, path: str) -> None:
    from axe_playwright_python.sync_playwright import Axe

    lang, page, base = visitor
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(base + path)
    for selector in PAGES[path]:
        page.wait_for_selector(selector, state="attached")
    results = Axe().run(page, options={"runOnly": {"type": "tag",
                                                   "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}})
    assert results.violations_count == 0, results.generate_report()


def test_the_slot_test_shows_every_slots_readings_when_no_game_runs(visitor: Any, panel: Any) -> None:
    """After the game: the slot test reads the board again (it waited, without asking, during the
    game) and the self-test's report reads as a table."""
    lang, page, base = visitor
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url) if "/api/staff/slots" in r.url else None)
    page.goto(base + "/staff/tests")
    page.wait_for_selector("#slot-board .slot[data-reading]", state="attached")
    page.wait_for_timeout(1500)
    assert len(requests) == 1, "the slot test asked again while a game was running"
    staff = helpers.Api(panel[0].app.test_client())
    staff.login()
    assert staff.post("/api/staff/game/abandon").status_code == 200
    try:
        page.wait_for_selector("#slot-board .slot[data-reading=conducts]", state="attached")
        assert page.locator("#slot-board .slot").count() == 80
        assert page.get_attribute("#slot-f9", "data-reading") == "conducts"
        assert page.get_attribute("#slot-a1", "data-reading") == "empty"
        page.click("#self-test")
        page.wait_for_selector("#self-test-report:not([hidden]) tbody tr")
        for size in SIZES:
            page.set_viewport_size({"width": size[0], "height": size[1]})
            _shoot(page, lang, "/staff/tests-no-game", size)
            assert page.evaluate(LAYOUT_PROBLEMS, size in TOUCH) == []
    finally:
        _set_the_scene(staff, panel[1])  # the other pages' scene, as it was


def test_the_accessibility_check_can_fail(chromium: Any) -> None:
    """axe-core as the tests run it reports what it should: a picture without a text, grey on grey."""
    from axe_playwright_python.sync_playwright import Axe

    page = chromium.new_page()
    try:
        page.set_content('<html lang="en"><head><title>t</title></head><body><main><img src="data:,">'
                         '<p style="color:#777;background-color:#888">Grey text on a grey background</p>'
                         "</main></body></html>")
        results = Axe().run(page, options={"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa"]}})
        rules = {v["id"] for v in results.response["violations"]}
        assert {"image-alt", "color-contrast"} <= rules
    finally:
        page.close()


def test_the_layout_check_can_fail(chromium: Any) -> None:
    """The layout check finds a word broken across lines, a box wider than the screen and a small
    button."""
    page = chromium.new_page(viewport={"width": 390, "height": 844})
    try:
        page.set_content(
            '<html><body><p style="width:60px;overflow-wrap:anywhere">Anticonstitutionnellement</p>'
            '<div style="width:500px">wide</div>'
            '<button style="width:20px;height:20px">x</button></body></html>'
        )
        problems = page.evaluate(LAYOUT_PROBLEMS, True)
        assert any("Anticonstitutionnellement" in p for p in problems)
        assert any("overflows" in p for p in problems) and any("small target" in p for p in problems)
    finally:
        page.close()
