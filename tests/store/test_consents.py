"""The players' consents to the reveal: once given, kept as first given."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from store.consents import Consents, Source
from store.db import connect


def test_a_consent_is_kept_as_first_given_and_per_game_and_place(tmp_path: Path) -> None:
    consents = Consents(connect(tmp_path / "db.sqlite"))
    assert consents.of_game(Source.BOARD, 1) == {}
    assert consents.give(Source.BOARD, 1, 0, at=10.0) == 10.0
    assert consents.give(Source.BOARD, 1, 0, at=20.0) == 10.0  # again: nothing changes
    consents.give(Source.LOBBY, 1, 1, at=30.0)
    assert consents.of_game(Source.BOARD, 1) == {0: 10.0}
    assert consents.of_game(Source.LOBBY, 1) == {1: 30.0}
    assert consents.of_game(Source.BOARD, 2) == {}


def test_only_known_places_and_seats(tmp_path: Path) -> None:
    consents = Consents(connect(tmp_path / "db.sqlite"))
    with pytest.raises(ValueError):
        consents.give("moon", 1, 0)  # type: ignore[arg-type]
    with pytest.raises(sqlite3.IntegrityError):
        consents.give(Source.BOARD, 1, -1)
