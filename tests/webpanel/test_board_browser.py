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


# The players' colours staff choose from (games.hautetension.setup.COLOURS), as CSS draws them.
CSS_COLOURS = {
    "red": (255, 0, 0), "blue": (0, 0, 255), "black": (0, 0, 0), "white": (255, 255, 255),
    "green": (0, 128, 0), "yellow": (255, 255, 0), "orange": (255, 165, 0), "purple": (128, 0, 128),
}
HOLE = (0x2A, 0x32, 0x3B)  # .slot .hole in panel.css


def _rgb(colour: str) -> tuple[int, int, int]:
    if colour.startswith("#"):
        return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)
    return CSS_COLOURS[colour]


def _contrast(a: tuple[int, int, int], b: tuple[int, int, int]) -> float:
    """WCAG 2's contrast ratio, computed here independently of the page's own."""
    def luminance(rgb: tuple[int, int, int]) -> float:
        c = [v / 255 for v in rgb]
        c = [v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4 for v in c]
        return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]

    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


@pytest.mark.parametrize(
    "colours", [("black", "blue", "purple", "green"), ("white", "yellow", "orange", "#1a1a40")]
)
def test_every_players_colour_stands_out_from_the_board(
    browser: Any, served: Any, service: Any, colours: tuple[str, ...]
) -> None:
    """A pawn reads 3:1 against its hole: by its colour, or by the outline the page gives it."""
    staff = helpers.Api(served.app.test_client())
    staff.login()
    players = [{"name": n, "colour": c} for n, c in zip(("Ada", "Bob", "Cid", "Dee"), colours, strict=True)]
    assert staff.post("/api/staff/game", {"players": players, "first": 0}).status_code == 201
    _place(staff, "a9", "b9", "c9", "d9")
    page, errors = _page(browser, served.url + "/board")
    page.wait_for_selector("#slot-d9.occupied")
    outlined = 0
    for slot, colour in zip(("a9", "b9", "c9", "d9"), colours, strict=True):
        fill = page.get_attribute(f"#slot-{slot} .pawn", "fill")
        stroke = page.get_attribute(f"#slot-{slot} .pawn", "stroke")
        assert fill == colour and stroke is not None
        if _contrast(_rgb(colour), HOLE) < 3:
            assert _contrast(_rgb(stroke), HOLE) >= 3, f"{colour} on the board: {stroke} outline"
            outlined += 1
    assert outlined == (4 if colours[0] == "black" else 1)  # the dark ones; #1a1a40 too
    assert errors == []
