"""Fixtures for the ranking's pages: the event server with registered players and a played tournament."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from store.event.settings import EventSettings
from store.players import Players
from store.tournaments import Tournaments
from tests.store.event.helpers import play
from tests.webpanel.event.conftest import conn, event_app, staff, visitor  # noqa: F401
from tournaments.ranking import RankingRules

NAMES = ("Ana", "Ben", "Chloé", "Dan", "Eve")


@pytest.fixture
def event_settings(tmp_path: Path) -> EventSettings:
    return EventSettings(
        event="paris-2026", database=tmp_path / "central.db", ranking=RankingRules(min_games=3)
    )


@pytest.fixture
def season(conn: sqlite3.Connection) -> dict[str, int]:  # noqa: F811
    """Five registered players (Ana in a club) who played a whole tournament: name → registered id."""
    players = Players(conn)
    ids = {
        n: players.create(n, club="Club de Brest" if n == "Ana" else None, actor="staff@test").id
        for n in NAMES
    }
    tid = Tournaments(conn).create("Printemps", seed=4).id
    for pid in ids.values():
        players.enter(tid, pid, actor="staff@test")
    play(conn, tid, seed=5)
    return ids
