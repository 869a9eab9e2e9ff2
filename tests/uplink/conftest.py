"""Fixtures of the event network's tests: the broker with the event's users and ACL, the event server."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from flask import Flask

from store.dialect import is_postgresql
from store.event.settings import EventSettings
from tests.servers.mosquitto import MosquittoBroker
from tests.uplink.helpers import EVENT, Central, broker_settings, event_broker
from tests.uplink.hostile import Hostile
from tests.webpanel.helpers import make_settings
from webpanel.app import close_app, create_app


@pytest.fixture
def secured(make_broker: Callable[..., MosquittoBroker]) -> MosquittoBroker:
    """A broker as the event runs it: accounts for the event server and three boards, the event's ACL."""
    return event_broker(make_broker)


@pytest.fixture
def central(tmp_path: Path, secured: MosquittoBroker) -> Iterator[Central]:
    server = Central(tmp_path / "central", broker_settings(secured, "central"))
    yield server.start()
    server.stop()
    server.conn.close()


@pytest.fixture
def server(tmp_path: Path, secured: MosquittoBroker, db_location: str) -> Iterator[Central]:
    """The event server's ingest on each engine."""
    central = Central(tmp_path / "central", broker_settings(secured, "central"), location=db_location)
    yield central.start()
    central.stop()
    central.conn.close()


@pytest.fixture
def pages(tmp_path: Path, db_location: str) -> Iterator[Flask]:
    """The event server's pages on the same database."""
    database = db_location if is_postgresql(db_location) else Path(db_location)
    app = create_app(
        {
            "PANEL": make_settings(tmp_path),
            "EVENT": EventSettings(event=EVENT, database=database, confirm_timeout=60),
            "TESTING": True,
        }
    )
    yield app
    close_app(app)


@pytest.fixture
def hostile(secured: MosquittoBroker, server: Central) -> Iterator[Hostile]:
    client = Hostile(secured)
    client.hello(server)
    yield client
    client.close()
