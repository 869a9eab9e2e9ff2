"""The wall behind nginx in a real browser: the page follows its language's wall channel and draws the
view each message holds, with no request to the event server per change.

Debian's Chromium (Playwright) → Debian's nginx with nchan (the shipped template) → the event server
served by waitress, publishing to nginx.
"""

from __future__ import annotations

import json
import sqlite3
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from protocol import LiveReport
from store.event.intake import Intake
from store.event.settings import EventSettings
from store.tournaments import Tournaments
from tests.servers.nginx import NginxFront, nginx_with_nchan
from tests.servers.process import server_folder
from tests.store.event.helpers import a_tournament, boards_online, send
from tests.webpanel.helpers import Api, Served, make_settings, staff_tablet, watch_errors
from webpanel.app import create_app

pytestmark = [pytest.mark.browser, pytest.mark.parametrize("db_location", ["sqlite"], indirect=True)]


@pytest.fixture
def behind_nginx(tmp_path: Path, event_settings: EventSettings) -> Iterator[tuple[NginxFront, Flask]]:
    binary = nginx_with_nchan()
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


def _subscribers(front: NginxFront, channel: str) -> int:
    """How many pages nchan holds on *channel* (its publisher's channel info; 0 while it has none)."""
    url = f"{front.publisher_url}?id={channel}"
    request = urllib.request.Request(url, headers={"Accept": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=5) as answer:
            return int(json.loads(answer.read())["subscribers"])
    except urllib.error.HTTPError as exc:
        if exc.code == 404:  # no such channel yet: nobody subscribed, nothing published
            return 0
        raise


def _delete_channel(front: NginxFront, channel: str) -> int:
    """Delete *channel* on nginx (what it keeps, its subscribers told): its publisher's answer."""
    request = urllib.request.Request(f"{front.publisher_url}?id={channel}", method="DELETE")
    try:
        with urllib.request.urlopen(request, timeout=5) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)


def _until(page: Any, predicate: Callable[[], bool], what: str, seconds: float = 10.0) -> None:
    """Wait in the browser's own time (its events are dispatched meanwhile) until *predicate* holds."""
    for _ in range(int(seconds * 20)):
        if predicate():
            return
        page.wait_for_timeout(50)
    raise AssertionError(f"timed out waiting for {what}")


def test_the_staff_overview_behind_nginx_misses_no_change_and_reloads_once_for_each(
    behind_nginx: tuple[NginxFront, Flask], browser: Any, intake: Intake
) -> None:
    """nginx's channel opens with the message it keeps, or with the next change when it keeps none:
    the overview reloads for every change, never twice for one (the one it reloaded for comes again
    each time the page subscribes anew)."""
    front, _ = behind_nginx
    boards_online(intake, "board-1")
    with staff_tablet(browser, front.url, "en", timeout_ms=15_000) as page:
        assert page.locator("#event-overview").get_attribute("data-stream") == "/live/event"
        page.goto(front.url + "/tournaments")  # away, while the channel forgets what it kept
        assert _delete_channel(front, "event") in (200, 404)
        page.goto(front.url + "/event")
        loads: list[str] = []
        page.on("load", lambda p: loads.append(p.url))
        _until(page, lambda: _subscribers(front, "event") == 1, "the overview subscribed to /live/event")
        page.wait_for_timeout(500)
        assert loads == []
        # Nothing kept on the channel: its first message is a change made after the page was made.
        send(intake, "board-1", [_live(1, "f9")])
        _until(page, lambda: len(loads) == 1, "the overview reloaded for the first change")
        # Subscribed anew, the page is sent the kept message it reloaded for: no second reload.
        _until(page, lambda: _subscribers(front, "event") == 1, "the reloaded overview subscribed again")
        page.wait_for_timeout(1000)
        assert len(loads) == 1
        send(intake, "board-1", [_live(2, "f8")])
        _until(page, lambda: len(loads) == 2, "the overview reloaded for the next change")


def test_a_players_page_behind_nginx_follows_the_event_channel(
    behind_nginx: tuple[NginxFront, Flask], browser: Any, conn: sqlite3.Connection
) -> None:
    """A phone's page is held by nginx, not by a server thread, and shows a change made elsewhere (its
    player checked in at the door) without being reloaded."""
    front, app = behind_nginx
    store = Tournaments(conn)
    tid = store.create("Paris open", seed=3).id  # registered, no round made yet: the check-in comes first
    for n in range(1, 5):
        store.record(tid, lambda t, n=n: t.register(f"P{n}"), actor="test")
    staff = Api(app.test_client())
    assert staff.login().status_code == 200
    links = {row["name"]: row["url"] for row in staff.get(f"/api/event/tournaments/{tid}/players").get_json()}
    token = links["P1"].rsplit("/", 1)[1]
    page = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    errors = watch_errors(page)
    page.goto(f"{front.url}/p/{token}?lang=en")
    page.wait_for_selector("#check-in-button")
    assert page.locator("#player").get_attribute("data-stream") == "/live/event"
    _until(page, lambda: _subscribers(front, "event") == 1, "the player's page subscribed to /live/event")
    loads: list[str] = []
    page.on("load", lambda p: loads.append(p.url))
    door = Api(app.test_client())
    assert door.post(f"/api/event/players/{token}/check-in", {}).status_code == 200
    page.wait_for_selector("#no-table")  # checked in, waiting for a table: drawn from a fetch, no reload
    assert loads == []
    assert errors == []
