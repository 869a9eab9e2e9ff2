"""A scorekeeper's tablet in a real browser: log in, make a round, enter a table by lamp order.

Drives Debian's Chromium through Playwright against the panel served by
waitress, so the pages are checked with the real Content-Security-Policy.
"""

from __future__ import annotations

from typing import Any

import pytest

from store.db import connect
from store.tournaments import Tournaments
from tests.webpanel.helpers import PIN, watch_errors

pytestmark = pytest.mark.browser


def test_tablet_scorekeeping_in_chromium(served: Any, browser: Any, settings: Any) -> None:
    base, database = served.url, settings.database
    page = browser.new_page(viewport={"width": 800, "height": 1280})  # a tablet held upright
    errors = watch_errors(page)
    page.goto(f"{base}/staff/login?next=/tournaments")
    page.fill("#pin", PIN)
    page.click("button[type=submit]")
    page.wait_for_selector("#logout", state="attached")  # on a tablet it is in the folded menu
    page.goto(f"{base}/tournaments")
    page.fill("input[name=name]", "Tablet cup")
    page.fill("input[name=seed]", "3")
    page.click("button:has-text('Create')")
    page.fill("textarea[name=names]", "Ada\nBob\nCid\nDee")
    page.click("button:has-text('Register')")
    page.wait_for_selector("#standings tbody tr")
    page.click("#next-round")
    page.wait_for_selector("#table-1", timeout=5000)
    page.click("#table-1 a.button")
    # Seat 1 lit first, seats 2 and 3 together on a pawn placed by seat 4.
    page.select_option("select[name=lit0]", "1")
    page.select_option("select[name=lit1]", "2")
    page.select_option("select[name=lit2]", "2")
    page.select_option("select[name=by2]", "4")
    page.click("button[value=preview]")
    preview = page.text_content("#preview") or ""
    assert preview.endswith("8") or " 8," in preview
    page.click("button[value=save]")
    page.wait_for_selector("#recorded")
    t = Tournaments(connect(database)).load(Tournaments(connect(database)).all()[0].id)
    assert t.result(1, 1) is not None and t.result(1, 1).points == (0, 2, 2, 8)  # type: ignore[union-attr]
    page.goto(f"{base}/tournaments/1?kiosk=1")
    rows = page.locator("#standings tbody tr")
    assert rows.count() == 4
    assert "8" in (rows.nth(0).text_content() or "")
    assert not [e for e in errors if "Content Security Policy" in e]
