"""Fixtures for the event store's tests: the event's database."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from store.event.db import connect_event
from store.event.intake import Intake


@pytest.fixture
def conn(tmp_path: Path) -> Iterator[sqlite3.Connection]:
    connection = connect_event(tmp_path / "central.db")
    yield connection
    connection.close()


@pytest.fixture
def intake(conn: sqlite3.Connection) -> Intake:
    return Intake(conn, confirm_timeout=60.0, clock=lambda: 5000.0)
