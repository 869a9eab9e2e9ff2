"""Staff's event page warns of a board connected from two places, at every size and in both
languages (Debian's Chromium through Playwright, the event server served by waitress)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from protocol import StatusReport
from store.event.db import connect_event
from store.event.intake import Intake
from store.event.settings import EventSettings
from tests.store.event.helpers import Reports, boards_online, send
from tests.webpanel.helpers import PIN, Served, make_settings, watch_errors
from webpanel.app import close_app, create_app

pytestmark = pytest.mark.browser

SIZES = {"tv": (1920, 1080), "tablet": (820, 1180), "phone": (390, 844)}
WORDS = {
    "en": "Board Table 2 (board-2) is connected from two places",
    "fr": "Le plateau Table 2 (board-2) est connecté depuis deux endroits",
}


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    event = EventSettings(event="paris-2026", database=tmp_path / "central.db", confirm_timeout=60)
    app: Flask = create_app({"PANEL": make_settings(tmp_path), "EVENT": event, "TESTING": True})
    conn = connect_event(event.database)
    intake = Intake(conn, confirm_timeout=60)
    boards_online(intake, "board-1", "board-2", "board-3")
    base = Reports("board-2").status().status
    # Two uplinks with board-2's id, taking turns: ids a, b, a.
    send(intake, "board-2", [StatusReport({**base, "uplink": u}) for u in ("a1", "b2", "a1")])
    conn.close()
    serving = Served(app)
    yield serving
    serving.close()
    close_app(app)


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_the_event_page_warns_of_a_board_in_two_places(
    served: Served, browser: Any, tmp_path: Path, lang: str
) -> None:
    context = browser.new_context(locale="fr-FR" if lang == "fr" else "en-GB")
    page = context.new_page()
    errors = watch_errors(page)
    page.goto(served.url + "/staff/login")
    page.fill("#pin", PIN)
    page.click("#login-form button[type=submit]")
    page.wait_for_url(lambda url: "/staff/login" not in url)  # logged in: the page moved on
    for name, (width, height) in SIZES.items():
        page.set_viewport_size({"width": width, "height": height})
        page.goto(served.url + "/event")
        warning = page.locator("#two-places")
        warning.wait_for()
        assert WORDS[lang] in (warning.text_content() or "")
        assert page.locator("#board-board-2 .fault").count() == 1
        assert page.locator("#board-board-1 .fault").count() == 0
        overflow = page.evaluate("document.scrollingElement.scrollWidth - window.innerWidth")
        assert overflow <= 0 or name == "phone" and _only_the_table_scrolls(page), (name, overflow)
        page.screenshot(path=str(tmp_path / f"two-places-{lang}-{name}.png"), full_page=True)
    assert errors == []
    context.close()


def _only_the_table_scrolls(page: Any) -> bool:
    """A wide table scrolls inside its own box on a phone; the page itself must not."""
    return bool(page.evaluate("document.body.scrollWidth <= window.innerWidth"))
