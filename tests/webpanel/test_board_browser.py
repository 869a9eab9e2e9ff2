"""The live and simulated boards in a real browser: a lamp that lights is announced (banner and
chime, which the display can mute), the problems shown are the current ones, each once, newest
first, and the simulated board's hand shows what the player to move has left."""

from __future__ import annotations

from typing import Any

import pytest

from tests.webpanel import helpers

pytestmark = pytest.mark.browser

TIMEOUT_MS = 10_000

# Counts the tones the page plays: Web Audio oscillators started (set before the page's scripts run).
COUNT_TONES = """(() => {
  const Real = window.AudioContext;
  let tones = 0;
  window.AudioContext = class extends Real {
    createOscillator() { const o = super.createOscillator(); const start = o.start.bind(o);
      o.start = (...a) => { tones += 1; return start(...a); }; return o; }
  };
  Object.defineProperty(window, "playedTones", { get: () => tones });
})();"""


def _page(browser: Any, url: str) -> tuple[Any, list[str]]:
    page = browser.new_context(locale="en-GB").new_page()
    page.set_default_timeout(TIMEOUT_MS)
    errors = helpers.watch_errors(page)
    page.add_init_script(COUNT_TONES)
    page.goto(url)
    page.wait_for_selector("#conn[data-state=live]")
    return page, errors


def _game(served: Any, *names: str) -> helpers.Api:
    """Staff start a game of *names* (Ada and Bob by default); their API client."""
    staff = helpers.Api(served.app.test_client())
    assert staff.login().status_code == 200
    helpers.start_game(staff, names=names or ("Ada", "Bob"))
    return staff


def _place(api: helpers.Api, *slots: str, pawn: str = "attack") -> None:
    for slot in slots:
        assert api.post(f"/api/sim/slots/{slot}", {"pawn": pawn}).status_code == 200


def test_a_lamp_that_lights_is_announced_with_a_chime_the_display_can_mute(
    browser: Any, served: Any, service: Any
) -> None:
    staff = _game(served, "Ada", "Bob", "Cid")
    page, errors = _page(browser, served.url + "/board?kiosk=1")
    assert page.locator("#lamp-banner").is_hidden()
    page.click("#sound")  # the display's volunteer: off, then on again (which lets the page sound)
    page.click("#sound")
    assert page.get_attribute("#sound", "data-sound") == "on"
    _place(staff, "f9", "f8", "f7", "f6", "f5")  # Ada, Bob, Cid, Ada, Bob: column f lights Ada's lamp
    page.wait_for_selector("#lamp-banner:has-text('Lamp N lit: Ada is out.')")
    page.wait_for_function("() => window.playedTones === 2")
    _place(staff, "a1")  # the next placement: the news is old
    page.wait_for_selector("#lamp-banner", state="hidden")
    page.click("#sound")  # muted
    assert page.text_content("#sound") == "Turn the lamp chime on"
    _place(staff, "e4", "f4", "g4", "h4", "i4")  # Bob, Cid, Bob, Cid, Bob... row 5 lights Bob's lamp E
    page.wait_for_selector("#lamp-banner:has-text('Lamp E lit: Bob is out.')")
    assert page.evaluate("() => window.playedTones") == 2
    page.reload()  # the choice is the display's: remembered
    page.wait_for_selector("#sound[data-sound=off]")
    assert errors == []


def test_the_problems_are_the_current_ones_each_once_newest_first(
    browser: Any, served: Any, service: Any
) -> None:
    staff = _game(served)
    _place(staff, "f9")
    assert staff.post("/api/sim/slots/f9", {"pawn": None}).status_code == 200  # lifted
    assert staff.post("/api/sim/slots/f9", {"pawn": "attack"}).status_code == 200  # refused: f9 is Ada's
    assert staff.post("/api/sim/slots/f9", {"pawn": None}).status_code == 200  # lifted again
    page, errors = _page(browser, served.url + "/board")
    page.wait_for_selector("#anomalies li")
    assert page.locator("#anomalies li").all_inner_texts() == [
        "The pawn on f9 was lifted: put it back.",
        "The pawn on f9 cannot be placed now: lift it.",
    ]
    assert errors == []


def test_the_simulated_boards_hand_shows_the_stock_of_the_player_to_move(
    browser: Any, served: Any, service: Any
) -> None:
    staff = _game(served)
    page, errors = _page(browser, served.url + "/sim")
    page.wait_for_selector("#hand-player:has-text(\"Ada's hand\")")
    assert page.text_content("#count-attack") == "(22 left)"
    assert page.text_content("#count-defense") == "(3 left)"
    for mine, theirs in (("a9", "b9"), ("c9", "d9"), ("a8", "b8")):
        page.check("#pawn-defense")
        page.click(f"#slot-{mine}")  # Ada places a defense pawn
        page.wait_for_selector(f"#slot-{mine}.occupied")
        page.wait_for_selector("#hand-player:has-text(\"Bob's hand\")")
        page.check("#pawn-attack")
        page.click(f"#slot-{theirs}")
        page.wait_for_selector(f"#slot-{theirs}.occupied")
        page.wait_for_selector("#hand-player:has-text(\"Ada's hand\")")
    # Ada has no defense pawn left: the hand does not offer one (nothing public changed).
    page.wait_for_selector("#count-defense:has-text('(0 left)')")
    assert page.is_disabled("#pawn-defense") and page.is_checked("#pawn-attack")
    assert page.text_content("#count-attack") == "(22 left)"
    assert "defense" not in str(staff.get("/api/board").get_json())
    assert errors == []
