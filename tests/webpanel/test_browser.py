"""Browser tests: Playwright driving Debian's Chromium against the panel served by waitress."""

from __future__ import annotations

import struct
import zlib
from collections.abc import Callable
from typing import Any

import pytest

from tests.webpanel.helpers import PIN, Api, FakeService, Served, make_settings, start_game, watch_errors

TIMEOUT_MS = 10_000

pytestmark = pytest.mark.browser


def expect(locator: Any) -> Any:
    # Playwright's expect polls from Python: no string evaluation, which the panel's CSP forbids.
    from playwright.sync_api import expect as playwright_expect

    return playwright_expect(locator)


@pytest.fixture
def page_errors() -> list[str]:
    return []


@pytest.fixture
def open_page(browser: Any) -> Callable[..., Any]:
    def open_one(url: str, errors: list[str], **context_options: Any) -> Any:
        """A page on its own context (its own cookies: one device), its errors going to *errors*."""
        page = browser.new_context(**context_options).new_page()
        page.set_default_timeout(TIMEOUT_MS)
        page.set_default_navigation_timeout(TIMEOUT_MS)
        watch_errors(page, errors)
        page.goto(url)
        return page

    return open_one


def test_player_watches_a_pawn_appear_and_a_lamp_light(
    open_page: Any, served: Any, service: Any, page_errors: list[str]
) -> None:
    staff = Api(served.app.test_client())
    staff.login()
    start_game(staff)
    live = open_page(served.url + "/board", page_errors)
    live.wait_for_selector("#conn[data-state=live]")
    assert live.text_content("#turn") == "Ada to play"
    sim = open_page(served.url + "/sim", page_errors)
    sim.wait_for_selector("#slot-f9")
    sim.click("#slot-f9")
    # The player's page shows the pawn, in its owner's colour, and the turn passes.
    pawn = live.wait_for_selector("#slot-f9.occupied")
    assert pawn.get_attribute("data-owner") == "0"
    assert live.get_attribute("#slot-f9 .pawn", "fill") == "red"
    expect(live.locator("#turn")).to_have_text("Bob to play")
    assert "lit" not in (live.get_attribute("#lamp-N", "class") or "")
    for slot in ("f8", "f7", "f6", "f5"):  # column f closes the straight row to lamp N
        sim.click(f"#slot-{slot}")
        live.wait_for_selector(f"#slot-{slot}.occupied")
    live.wait_for_selector("#lamp-N.lit")
    live.wait_for_selector("#result:not([hidden])")
    assert "Bob wins" in live.text_content("#result")
    assert page_errors == []


def test_sim_page_lifts_a_pawn_and_shows_refusals(
    open_page: Any, served: Any, service: Any, page_errors: list[str]
) -> None:
    sim = open_page(served.url + "/", page_errors)  # the sim board is the home page on sim
    sim.wait_for_selector("#slot-c3")
    sim.check("input[value=defense]")
    sim.click("#slot-c3")
    sim.wait_for_selector("#slot-c3.occupied")
    assert service.board == {"c3": "defense"}
    sim.click("#slot-c3")  # a click on a pawn lifts it
    sim.wait_for_selector("#slot-c3:not(.occupied)")
    assert service.board == {}
    assert page_errors == []


def _png_size_and_colours(data: bytes) -> tuple[int, int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    idat, pos = b"", 8
    while pos < len(data):
        length = struct.unpack(">I", data[pos : pos + 4])[0]
        kind = data[pos + 4 : pos + 8]
        if kind == b"IDAT":
            idat += data[pos + 8 : pos + 8 + length]
        pos += 12 + length
    raw = zlib.decompress(idat)
    return width, height, len(set(raw[:4_000_000]))


def test_tablet_screenshot_is_not_empty(
    open_page: Any, served: Any, service: Any, page_errors: list[str]
) -> None:
    api = Api(served.app.test_client())
    api.post("/api/sim/slots/e3", {"pawn": "attack"})
    page = open_page(
        served.url + "/board",
        page_errors,
        viewport={"width": 800, "height": 1280},
        has_touch=True,
        is_mobile=True,
    )
    page.wait_for_selector("#slot-e3.occupied")
    box = page.locator("#board").bounding_box()
    assert box is not None and box["width"] > 600  # the board fills the tablet's width
    slot_box = page.locator("#slot-a9 .hole").bounding_box()
    assert slot_box is not None and slot_box["width"] >= 44  # one finger hits one slot
    shot = page.screenshot(full_page=True)
    width, height, values = _png_size_and_colours(shot)
    assert width == 800 and height >= 1280
    assert values > 20  # a drawing, not a blank page
    assert page_errors == []


def test_staff_log_in_see_health_and_are_refused_the_slot_test_during_a_game(
    open_page: Any, served: Any, service: Any, page_errors: list[str]
) -> None:
    # A desktop's width: the whole navigation shown, not folded behind Menu.
    page = open_page(served.url + "/staff", page_errors, viewport={"width": 1600, "height": 1000})
    page.wait_for_selector("#login-form")
    page.fill("#pin", "000000")
    page.click("#login-form button[type=submit]")
    expect(page.locator("#login-msg")).to_have_text("wrong PIN")
    page.fill("#pin", PIN)
    page.click("#login-form button[type=submit]")
    page.wait_for_selector("#health-page")
    expect(page.locator("#health-summary")).to_contain_text("running")
    assert "199.5" in page.text_content("#health-summary")
    # Start a game from the staff game page.
    page.click("nav a:text-is(\"Game\")")
    page.wait_for_selector("#new-game")
    page.fill("input[name=name0]", "Zoé")
    page.click("#new-game button[type=submit]")
    expect(page.locator("#game-msg")).to_have_text("Game started.")
    assert service.game is not None and service.game.seats[0].name == "Zoé"
    page.click("text=Tests")
    expect(page.locator("#slots-msg")).to_contain_text("the slot test waits for it to end")
    page.click("#lamps-on")
    expect(page.locator("#tests-msg")).to_contain_text("game is running")
    assert not service.lamp_test
    # The wrong PIN (401) and the refusals (409) are answers the test asked for; nothing else failed.
    assert [e for e in page_errors if "(UNAUTHORIZED)" not in e and "(CONFLICT)" not in e] == []


def test_live_page_reconnects_when_its_stream_ends(open_page: Any, tmp_path: Any) -> None:
    from webpanel.app import create_app

    settings = make_settings(tmp_path, stream_max_seconds=1.0, heartbeat_seconds=0.2)
    fake = FakeService(settings.database).start()
    served = Served(create_app({"PANEL": settings, "TESTING": True}))
    errors: list[str] = []
    try:
        live = open_page(served.url + "/board", errors)
        live.wait_for_selector("#conn[data-state=live]")
        live.wait_for_timeout(2500)  # the first stream has ended; the page is on its second or third
        Api(served.app.test_client()).post("/api/sim/slots/g2", {"pawn": "attack"})
        live.wait_for_selector("#slot-g2.occupied")
        assert errors == []
    finally:
        served.close()
        fake.stop()


def test_a_page_refused_by_the_stream_cap_gets_in_later(open_page: Any, tmp_path: Any) -> None:
    from webpanel.app import create_app

    settings = make_settings(tmp_path, max_streams=1, heartbeat_seconds=0.2, stream_max_seconds=30)
    fake = FakeService(settings.database).start()
    served = Served(create_app({"PANEL": settings, "TESTING": True}))
    errors: list[str] = []
    try:
        first = open_page(served.url + "/board", errors)
        first.wait_for_selector("#conn[data-state=live]")
        second = open_page(served.url + "/board", errors)
        second.wait_for_selector("#conn[data-state=waiting]")
        first.context.close()  # a tablet leaves: its place goes to the waiting one
        second.wait_for_selector("#conn[data-state=live]", timeout=15_000)
        Api(served.app.test_client()).post("/api/sim/slots/b2", {"pawn": "defense"})
        second.wait_for_selector("#slot-b2.occupied")
        # The refusal was a 503 answer, on purpose.
        assert [e for e in errors if "503" not in e and "SERVICE UNAVAILABLE" not in e] == []
    finally:
        served.close()
        fake.stop()


def test_an_anomaly_pauses_the_game_on_the_live_page(
    open_page: Any, served: Any, service: Any, page_errors: list[str]
) -> None:
    staff = Api(served.app.test_client())
    staff.login()
    start_game(staff)
    staff.post("/api/sim/slots/h3", {"pawn": "attack"})
    live = open_page(served.url + "/board", page_errors)
    live.wait_for_selector("#slot-h3.occupied")
    staff.post("/api/sim/slots/h3", {"pawn": None})  # a pawn lifted during the game
    live.wait_for_selector("#slot-h3.anomaly")
    expect(live.locator("#anomalies")).to_contain_text("The pawn on h3 was lifted: put it back.")
    assert page_errors == []
