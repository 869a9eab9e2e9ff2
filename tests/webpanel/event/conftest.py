"""Fixtures for the event server's pages: the panel in its event role, on the event's database."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask

from store.event.db import connect_event
from store.event.intake import Intake
from store.event.settings import EventSettings
from tests.webpanel.helpers import Api, make_settings
from webpanel.app import close_app, create_app


@pytest.fixture
def event_settings(tmp_path: Path) -> EventSettings:
    return EventSettings(event="paris-2026", database=tmp_path / "central.db", confirm_timeout=60)


@pytest.fixture
def event_app(tmp_path: Path, event_settings: EventSettings) -> Iterator[Flask]:
    app = create_app({"PANEL": make_settings(tmp_path), "EVENT": event_settings, "TESTING": True})
    yield app
    close_app(app)


@pytest.fixture
def conn(event_settings: EventSettings) -> Iterator[sqlite3.Connection]:
    connection = connect_event(event_settings.database)
    yield connection
    connection.close()


@pytest.fixture
def intake(conn: sqlite3.Connection) -> Intake:
    """What the ingest would store from the boards (no broker needed for the pages)."""
    return Intake(conn, confirm_timeout=60)


@pytest.fixture
def visitor(event_app: Flask) -> Api:
    return Api(event_app.test_client())


@pytest.fixture
def staff(event_app: Flask) -> Api:
    api = Api(event_app.test_client())
    assert api.login().status_code == 200
    return api
