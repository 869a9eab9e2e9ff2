"""Fixtures for the event store's tests: the event's database, on SQLite and on PostgreSQL."""

from __future__ import annotations

import pytest

from store.dialect import Connection
from store.event.intake import Intake


@pytest.fixture
def conn(event_db: Connection) -> Connection:
    return event_db


@pytest.fixture
def intake(conn: Connection) -> Intake:
    return Intake(conn, confirm_timeout=60.0, clock=lambda: 5000.0)
