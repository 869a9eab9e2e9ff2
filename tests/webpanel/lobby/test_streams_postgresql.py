"""The lobby's game streams on the event server's PostgreSQL: many pages follow a game on one listening
connection, and a move reaches every one of them by the database's notice (not by polling)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from flask import Flask

from store.dialect import POOL_MAX
from store.event.settings import EventSettings
from tests.servers.postgres import PostgresCluster
from tests.webpanel.helpers import Lobby, make_settings
from webpanel.app import close_app, create_app

pytestmark = pytest.mark.parametrize("db_location", ["postgresql"], indirect=True)

FOLLOWERS = 2 * POOL_MAX + 4
"""More pages than the panel's pool has connections: one connection each would show at once."""
WAIT_S = 15.0
"""A bound against hanging (the stream's own heartbeat is longer: only a notice wakes it)."""


@pytest.fixture
def event_app(tmp_path: Path, db_location: str) -> Iterator[Flask]:
    event = EventSettings(event="paris-2026", database=db_location)
    # Heartbeats and stream ends far off: what wakes a stream in these tests is the change notice.
    # Every page from one test client's address: as many places as the pages it opens.
    panel = make_settings(
        tmp_path, heartbeat_seconds=60.0, stream_max_seconds=120.0, max_streams_per_address=FOLLOWERS
    )
    app = create_app({"PANEL": panel, "EVENT": event, "TESTING": True})
    yield app
    close_app(app)


def connections(cluster: PostgresCluster, dsn: str) -> int:
    with psycopg.connect(cluster.dsn(), autocommit=True) as admin:
        row = admin.execute(
            "SELECT COUNT(*) FROM pg_stat_activity WHERE datname = %s AND backend_type = 'client backend'",
            (dsn.rsplit("/", 1)[1],),
        ).fetchone()
    assert row is not None
    return int(row[0])


class Follower:
    """One page's stream of a game, read chunk by chunk."""

    def __init__(self, lobby: Lobby, game_id: int) -> None:
        self.response = lobby.get(f"/api/games/{game_id}/events", buffered=False)
        assert self.response.status_code == 200
        self.chunks: Iterator[bytes] = iter(self.response.response)
        self.versions: list[int] = []

    def until_version(self, version: int) -> None:
        while not self.versions or self.versions[-1] < version:
            text = next(self.chunks).decode()
            self.versions += [int(line.split(":")[1]) for line in text.splitlines() if line.startswith("id:")]

    def close(self) -> None:
        self.response.close()


def test_many_followers_of_a_game_hold_no_connection_each_and_all_see_a_move(
    event_app: Flask, db_location: str, postgres_cluster: PostgresCluster
) -> None:
    display = Lobby(event_app, "qttt")
    game = display.create(hot_seat=True)
    first = [Follower(display, game["id"]) for _ in range(2)]
    for f in first:
        f.until_version(1)
    with_two = connections(postgres_cluster, db_location)
    followers = first + [Follower(display, game["id"]) for _ in range(FOLLOWERS - 2)]
    try:
        for f in followers[2:]:
            f.until_version(1)
        listener: Any = event_app.extensions["change_listener"]
        # Every stream follows the process's change hub, and the hub the one listening connection.
        assert event_app.extensions["change_hub"].subscribers == FOLLOWERS and listener.subscribers == 1
        assert connections(postgres_cluster, db_location) == with_two
        notices = listener.notices
        threads = [threading.Thread(target=f.until_version, args=(2,), daemon=True) for f in followers]
        for thread in threads:
            thread.start()
        assert display.move(game["id"], [0, 1]).status_code == 200
        deadline = time.monotonic() + WAIT_S
        for thread in threads:
            thread.join(WAIT_S)
        assert [f.versions[-1] for f in followers] == [2] * FOLLOWERS
        # The move's own request told the followers; the database's notice of it comes to the listener
        # on its connection, maybe a moment later.
        while listener.notices <= notices and time.monotonic() < deadline:
            time.sleep(0.05)
        assert listener.notices > notices and listener.connects == 1
        # The move's readers borrowed the panel's pool, which has a ceiling: never one per follower.
        assert connections(postgres_cluster, db_location) <= with_two + POOL_MAX
    finally:
        for f in followers:
            f.close()
