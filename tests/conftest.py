"""Fixtures shared by every test package."""

from __future__ import annotations

import pytest

from games.hautetension.layout import Layout, load_layout


@pytest.fixture(scope="session")
def pinwheel() -> Layout:
    """The default board layout."""
    return load_layout("pinwheel-80")
