"""Abandoning a game in a real browser: only the display that created it has the button; a tablet
following the game sees it end live.

Drives Debian's Chromium through Playwright against the panel served by waitress.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.webpanel.helpers import game_state, join_by_link, watch_errors

pytestmark = pytest.mark.browser


def test_the_host_abandons_the_game_and_the_tablet_sees_it(served: Any, browser: Any) -> None:
    display = browser.new_page(viewport={"width": 1280, "height": 800})
    errors = watch_errors(display)
    display.goto(served.url + "/games")
    display.wait_for_selector(".seat-row[data-seat='1']")
    display.select_option("#game", "qttt")
    display.select_option("#my-seat", "watch")  # the display hosts; the tablet plays
    display.click("#create-button")
    display.wait_for_url(re.compile(r"/games/\d+$"))
    game_id = int(display.url.rsplit("/", 1)[1])
    tablet, tablet_errors = join_by_link(browser, display, served.url, game_id)
    tablet.wait_for_selector("#conn[data-state='live']")
    assert tablet.locator("#abandon").is_hidden(), "a seat is not the host"

    display.wait_for_selector("#abandon:visible")
    dialogs: list[str] = []

    def answer(dialog: Any) -> None:
        dialogs.append(dialog.message)
        if len(dialogs) == 1:
            dialog.dismiss()
        else:
            dialog.accept()

    display.on("dialog", answer)
    display.click("#abandon")  # dismissed: nothing happens
    assert game_state(display, game_id)["status"] == "running"
    display.click("#abandon")
    display.wait_for_selector("#status:has-text('Abandoned by its host')")
    assert len(dialogs) == 2 and "Abandon this game?" in dialogs[0]
    display.wait_for_selector("#abandon", state="hidden")
    assert game_state(display, game_id)["status"] == "abandoned"

    tablet.wait_for_selector("#status:has-text('Abandoned by its host')")  # live, no reload
    tablet.wait_for_selector("#conn[data-state='abandoned']")
    assert errors == [] and tablet_errors == []
