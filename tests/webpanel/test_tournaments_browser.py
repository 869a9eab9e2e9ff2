"""A scorekeeper's tablet in a real browser: log in, make a round, enter a table by lamp order.

Drives Debian's Chromium through Playwright against the panel served by
waitress, so the pages are checked with the real Content-Security-Policy.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from store.db import connect
from store.tournaments import Tournaments
from webpanel.app import close_app, create_app
from webpanel.serve import make_server

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        not os.path.exists(CHROMIUM), reason=f"{CHROMIUM} is missing: apt-get install chromium"
    ),
]


@pytest.fixture
def panel(tmp_path: Path, tools: Any) -> Iterator[tuple[str, Path]]:
    settings = tools.make_settings(tmp_path)
    app = create_app({"PANEL": settings, "TESTING": True})
    server: Any = make_server(app, host="127.0.0.1", port=0)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.effective_port}", settings.database
    finally:
        server.close()
        thread.join(5)
        close_app(app)


def test_tablet_scorekeeping_in_chromium(panel: tuple[str, Path], tools: Any) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    base, database = panel
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 800, "height": 1280})  # a tablet held upright
            errors: list[str] = []
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.goto(f"{base}/staff/login?next=/tournaments")
            page.fill("#pin", tools.PIN)
            page.click("button[type=submit]")
            page.wait_for_selector("#logout")
            page.goto(f"{base}/tournaments")
            page.fill("input[name=name]", "Tablet cup")
            page.fill("input[name=seed]", "3")
            page.click("button:has-text('Create')")
            page.fill("textarea[name=names]", "Ada\nBob\nCid\nDee")
            page.click("button:has-text('Register')")
            page.wait_for_selector("#standings tbody tr")
            page.click("#next-round")
            page.wait_for_selector("#table-1", timeout=5000)
            page.click("text=Enter result")
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
        finally:
            browser.close()
