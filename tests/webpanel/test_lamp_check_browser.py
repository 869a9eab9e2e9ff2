"""The pre-game lamps' check on /sim with a mouse, against the real board service: the test button stays
where it is while held (a hand near its edge keeps holding it), and the answers appear away from the
pointer once it is released."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.webpanel.helpers import Api, start_game, wait_for, watch_errors
from tests.webpanel.test_end_to_end import board_service  # noqa: F401  (the real service, a fixture)

pytestmark = pytest.mark.browser

TIMEOUT_MS = 15_000


def _check(api: Api) -> Any:
    return api.get("/api/board").get_json()["game"]["check"]


@pytest.mark.parametrize(
    "viewport", [(1920, 1080), (820, 1180), (390, 844)], ids=["tv", "tablet", "phone"]
)
@pytest.mark.parametrize("locale", ["en-GB", "fr-FR"])
def test_the_test_button_stays_still_while_held(
    browser: Any, served: Any, board_service: Any, viewport: tuple[int, int], locale: str,  # noqa: F811
    tmp_path: Path,
) -> None:
    staff = Api(served.app.test_client())
    assert staff.login().status_code == 200
    start_game(staff, check="ask")
    width, height = viewport
    page = browser.new_context(locale=locale, viewport={"width": width, "height": height}).new_page()
    page.set_default_timeout(TIMEOUT_MS)
    errors = watch_errors(page)
    page.goto(served.url + "/sim")
    page.wait_for_selector("#check:not([hidden])")
    button = page.locator("#test-button")
    button.scroll_into_view_if_needed()
    before = button.bounding_box()
    heading = page.text_content("#turn")
    assert before is not None
    # A pointer 2 px inside the button's top edge, as a hand reaching for it does.
    x, y = before["x"] + before["width"] / 2, before["y"] + 2
    page.mouse.move(x, y)
    page.mouse.down()
    wait_for(lambda: _check(staff)["status"] == "holding", 15)
    page.wait_for_selector("#lamp-N.lit")  # every lamp lit on the page: it shows the held button
    page.wait_for_timeout(1000)  # held for a second: still a hold
    held = button.bounding_box()
    assert held == before, (before, held)
    assert page.text_content("#turn") == heading  # the heading above the button does not change
    assert page.is_visible("#lamp-test")  # the lamp test is said in the page's foot instead
    assert _check(staff)["status"] == "holding" and button.get_attribute("aria-pressed") == "true"
    page.screenshot(path=str(tmp_path / f"held-{locale}-{width}.png"))
    page.mouse.up()
    asked = wait_for(lambda: (c := _check(staff))["status"] == "confirm" and c, 15)
    assert asked["status"] == "confirm"  # a hold long enough to look at the lamps, not "hold longer"
    page.wait_for_selector("#check-answer:not([hidden]) #check-dark button")
    after = button.bounding_box()
    assert after == before, (before, after)
    # Nothing to answer lands under the pointer that just let go.
    for answer in page.locator("#check-answer button").all():
        box = answer.bounding_box()
        assert box is not None
        under = box["x"] <= x <= box["x"] + box["width"] and box["y"] <= y <= box["y"] + box["height"]
        assert not under, box
    page.screenshot(path=str(tmp_path / f"asked-{locale}-{width}.png"))
    assert errors == []
