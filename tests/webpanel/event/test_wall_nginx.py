"""The wall behind nginx (Debian's libnginx-mod-nchan, the shipped template): each change of the event
publishes the wall's view once per language, built once whatever the number of spectators, and each
message is exactly what ``GET /api/event/wall`` answers in that language."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from protocol import LiveReport
from store.event.intake import Intake
from store.event.settings import EventSettings
from tests.servers.nginx import NginxFront
from tests.store.event.helpers import a_tournament, boards_online, send
from tests.webpanel.helpers import make_settings
from tests.webpanel.test_fanout_nginx import CLIENT_TIMEOUT_S, Subscriber, front  # noqa: F401
from webpanel.app import close_app, create_app
from webpanel.event.wall_feed import WallFeed
from webpanel.fanout import NchanPublisher
from webpanel.hub import EVENT, hub_of, wall_topic

pytestmark = pytest.mark.parametrize("db_location", ["sqlite"], indirect=True)  # nginx's part: one engine
SPECTATORS = 40
"""Per language."""


@pytest.fixture
def wall_app(front: NginxFront, tmp_path: Path, event_settings: EventSettings) -> Iterator[Flask]:  # noqa: F811
    settings = make_settings(tmp_path, live_publisher=front.publisher_url)
    app = create_app({"PANEL": settings, "EVENT": event_settings, "TESTING": True})
    yield app
    close_app(app)


def _without_time(view: dict[str, Any]) -> dict[str, Any]:
    """The view but the time it was made (each build stamps its own)."""
    return {k: v for k, v in view.items() if k != "at"}


def _settled(app: Flask) -> None:
    feed: WallFeed = app.extensions["wall_feed"]
    publisher: NchanPublisher = app.extensions["live_publisher"]
    assert feed.flush(CLIENT_TIMEOUT_S) and publisher.flush(CLIENT_TIMEOUT_S)


def test_the_wall_channels_hold_the_walls_view_in_their_language(
    front: NginxFront, wall_app: Flask, conn: sqlite3.Connection, intake: Intake  # noqa: F811
) -> None:
    boards_online(intake, "board-1")
    a_tournament(conn, 4)
    hub = hub_of(wall_app.extensions)
    feed: WallFeed = wall_app.extensions["wall_feed"]
    crowd = {lang: [Subscriber(front, f"event-wall-{lang}", n + (200 if lang == "fr" else 0))
                    for n in range(SPECTATORS)] for lang in ("en", "fr")}
    try:
        for subscribers in crowd.values():
            for subscriber in subscribers:
                subscriber.until("200 OK")
        _settled(wall_app)
        built, told = feed.built, hub.last(EVENT)
        live = LiveReport({"id": 41, "pawns": {"f9": {"owner": 0}}, "lamps": {"lit": ["N"]}})
        send(intake, "board-1", [live])
        client = wall_app.test_client()
        for lang, subscribers in crowd.items():
            answer = client.get("/api/event/wall", headers={"Accept-Language": lang}).get_json()
            assert answer["boards"][0]["live"]["pawns"] == {"f9": {"owner": 0}}
            for subscriber in subscribers:
                subscriber.until('"f9"')
                public = [m["public"] for m in subscriber.messages() if isinstance(m.get("public"), dict)]
                # The newest message: the API's answer in the page's language, nothing more, nothing less.
                assert _without_time(public[-1]) == _without_time(answer), lang
        _settled(wall_app)
        # The words are the page's language's (a player's standing), each channel its own.
        english = client.get("/api/event/wall", headers={"Accept-Language": "en"}).get_json()
        french = client.get("/api/event/wall", headers={"Accept-Language": "fr"}).get_json()
        assert english["standings"][0]["status_label"] != french["standings"][0]["status_label"]
        # Built once per change and language, not once per spectator.
        last = hub.last(EVENT)
        assert told is not None and last is not None
        changes = last.number - told.number
        assert changes >= 1 and feed.built - built <= 2 * changes < SPECTATORS
    finally:
        for subscribers in crowd.values():
            for subscriber in subscribers:
                subscriber.close()


def test_the_wall_page_follows_its_languages_channel(wall_app: Flask) -> None:
    client = wall_app.test_client()
    page = client.get("/event/wall", headers={"Accept-Language": "fr"}).get_data(as_text=True)
    assert 'data-live="/live/event-wall-fr"' in page
    page = client.get("/event/wall?lang=en").get_data(as_text=True)
    assert 'data-live="/live/event-wall-en"' in page
    # Another tournament's wall follows the event's changes and fetches its own view.
    assert "data-live=" not in client.get("/event/wall?t=3&lang=en").get_data(as_text=True)


def test_without_nginx_no_wall_is_built(tmp_path: Path, event_settings: EventSettings) -> None:
    app = create_app({"PANEL": make_settings(tmp_path), "EVENT": event_settings, "TESTING": True})
    try:
        assert "wall_feed" not in app.extensions
        page = app.test_client().get("/event/wall").get_data(as_text=True)
        assert "data-live=" not in page and 'data-stream="/api/event/stream"' in page
    finally:
        close_app(app)


def test_changes_within_the_gap_between_builds_are_one_build(wall_app: Flask) -> None:
    """However many changes an event makes at once, the wall is built at most once per gap and language:
    the first change at once, then everything told meanwhile in one more build."""
    hub = hub_of(wall_app.extensions)
    feed = WallFeed(wall_app, hub, ("en", "fr"), min_gap_s=2.0)
    try:
        assert feed.flush(CLIENT_TIMEOUT_S)  # the change the hub published before this feed listened
        built = feed.built
        for _ in range(5):  # five changes a tenth of a second apart, the feed idle between: one gap
            hub.publish(EVENT)
            time.sleep(0.1)
        assert feed.flush(CLIENT_TIMEOUT_S)
        assert feed.built - built <= 2 * 2  # at most two builds (one at once, one after the gap) of two
        last = hub.last(EVENT)
        wall = hub.last(wall_topic("en"))
        assert last is not None and wall is not None and wall.version == last.number  # the newest built
    finally:
        feed.close()
