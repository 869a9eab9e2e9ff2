"""The event's table on the board's display in a real browser: the table, one touch, "I agree".

Drives Debian's Chromium through Playwright against the board's panel served
by waitress, with the real board service on the simulated board; the table
arrives as the uplink stores it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from store.db import connect
from store.outbox import Outbox
from tests.hardware.helpers import LiveService
from tests.webpanel.helpers import Api, Served, fetch_json, make_settings, pass_pregame_check, watch_errors
from tests.webpanel.test_table import ASSIGNMENT
from webpanel.app import create_app

pytestmark = pytest.mark.browser


@pytest.fixture
def board(tmp_path: Path) -> Iterator[tuple[Served, Outbox]]:
    settings = make_settings(tmp_path)
    live = LiveService(settings.database)
    served = Served(create_app({"PANEL": settings, "TESTING": True}))
    outbox = Outbox(connect(settings.database))
    yield served, outbox
    served.close()
    outbox.conn.close()
    live.stop()


def test_players_start_their_table_with_one_touch_and_agree_to_the_result(
    board: tuple[Served, Outbox], browser: Any, tmp_path: Path
) -> None:
    served, outbox = board
    outbox.enroll("paris-2026", "board-3")
    page = browser.new_page(viewport={"width": 1024, "height": 768})  # the board's tablet
    errors = watch_errors(page)
    page.goto(f"{served.url}/table")
    page.wait_for_selector("[data-phase=waiting]:not([hidden])")
    outbox.set_assignment(ASSIGNMENT)  # the uplink got the table: the page shows it by itself
    page.wait_for_selector("[data-phase=assigned]:not([hidden])", timeout=10_000)
    assert page.text_content("#title") == "Round 2 · Table 3"
    assert page.locator("#players li .name").all_text_contents() == ["Cleo", "Dan"]
    assert page.locator("#players li").nth(1).locator(".starts").is_visible()
    assert page.locator("#handicap-list .slot").all_text_contents() == ["f9"]
    assert page.locator("#handicap-board [data-slot=f9].handicap").count() == 1
    page.screenshot(path=str(tmp_path / "table-assigned.png"))
    page.click("#start")
    page.wait_for_selector("[data-phase=playing]:not([hidden])", timeout=10_000)
    pass_pregame_check(Api(served.app.test_client()))
    for slot in ("f9", "f8", "f7", "f6", "f5"):  # the handicap pawn, then Cleo's lamp's column
        fetch = (
            f"fetch('/api/sim/slots/{slot}', {{method: 'POST', headers: {{'Content-Type': 'application/json',"
            " 'X-CSRF-Token': document.querySelector('meta[name=csrf-token]').content},"
            " body: JSON.stringify({pawn: 'attack'})}).then(r => r.status)"
        )
        assert page.evaluate(fetch) == 200
        page.wait_for_function(
            f"() => fetch('/api/board').then(r => r.json()).then(b => '{slot}' in b.pawns)"
        )
    page.wait_for_selector("[data-phase=confirm]:not([hidden])", timeout=10_000)
    assert page.locator("#result .points").all_text_contents() == ["0 points", "4 points"]
    page.locator("#result li").nth(0).locator(".agree").click()
    page.wait_for_selector("#result li:nth-child(1) .agreed:not([hidden])")
    page.locator("#result li").nth(1).locator(".agree").click()
    page.wait_for_selector("[data-phase=confirmed]:not([hidden])", timeout=10_000)
    assert fetch_json(page, "/api/table")["game"]["confirmed"] == [0, 1]
    assert errors == []
