"""The wall behind nginx in a real browser: the page follows its language's wall channel and draws the
view each message holds, with no request to the event server per change.

Debian's Chromium (Playwright) → Debian's nginx with nchan (the shipped template) → the event server
served by waitress, publishing to nginx.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from protocol import LiveReport
from store.event.intake import Intake
from store.event.settings import EventSettings
from tests.servers.nginx import INSTALL_HINT, NCHAN_MODULE, NginxFront
from tests.servers.process import find_binary, server_folder
from tests.store.event.helpers import a_tournament, boards_online, send
from tests.webpanel.helpers import Served, make_settings, watch_errors
from webpanel.app import create_app

pytestmark = [pytest.mark.browser, pytest.mark.parametrize("db_location", ["sqlite"], indirect=True)]


@pytest.fixture
def behind_nginx(tmp_path: Path, event_settings: EventSettings) -> Iterator[tuple[NginxFront, Flask]]:
    binary = find_binary("nginx")
    if binary is None:
        pytest.skip(f"nginx is missing ({INSTALL_HINT})")
    if not Path(NCHAN_MODULE).exists():
        pytest.skip("nginx's nchan module is missing (tools/ensure_packages.py installs libnginx-mod-nchan)")
    front = NginxFront(server_folder("nginx"), binary=binary, panel="127.0.0.1:1")  # the panel's, below
    settings = make_settings(tmp_path, live_publisher=front.publisher_url)
    app = create_app({"PANEL": settings, "EVENT": event_settings, "TESTING": True})
    served = Served(app)
    front.panel = f"127.0.0.1:{served.port}"
    try:
        front.start()
        yield front, app
    finally:
        front.stop()
        served.close()


def _live(number: int, slot: str) -> LiveReport:
    return LiveReport({"id": number, "pawns": {slot: {"owner": 0}}, "lamps": {"lit": []}})


def test_the_wall_draws_each_message_without_fetching(
    behind_nginx: tuple[NginxFront, Flask], browser: Any, conn: sqlite3.Connection, intake: Intake
) -> None:
    front, _ = behind_nginx
    boards_online(intake, "board-1")
    a_tournament(conn, 4)
    send(intake, "board-1", [_live(1, "f9")])
    page = browser.new_page(viewport={"width": 1920, "height": 1080})
    errors = watch_errors(page)
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url.removeprefix(front.url)))
    page.goto(f"{front.url}/event/wall?lang=en")
    card = page.locator("#wall-board-board-1")
    card.locator("[data-slot=f9].occupied").wait_for()
    assert "/live/event-wall-en" in asked
    fetched = asked.count("/api/event/wall")
    send(intake, "board-1", [_live(2, "f8")])
    card.locator("[data-slot=f8].occupied").wait_for()  # drawn from the channel's message
    send(intake, "board-1", [_live(3, "f7")])
    card.locator("[data-slot=f7].occupied").wait_for()
    assert card.locator(".slot.occupied").count() == 1
    assert asked.count("/api/event/wall") == fetched  # two changes, no fetch
    assert errors == []
