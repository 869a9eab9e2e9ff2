"""Fixtures of the games' tests: a clock that ticks once per reading, for the thinking-time budget."""

from __future__ import annotations

import pytest


class Ticks:
    """A clock that moves one second each time it is read: a search's budget then counts its readings."""

    def __init__(self) -> None:
        self.readings = 0

    def __call__(self) -> float:
        self.readings += 1
        return float(self.readings - 1)


@pytest.fixture
def ticks() -> Ticks:
    return Ticks()
