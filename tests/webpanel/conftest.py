"""Fixtures for the panel's tests: a panel app on a temporary database, the stand-in board service,
test clients, and Debian's Chromium for the browser tests. The classes and functions they use are
in :mod:`tests.webpanel.helpers`, which test modules import directly."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from tests.webpanel.helpers import Api, FakeService, Lobby, Served, SseClient, make_settings
from webpanel.app import close_app, create_app
from webpanel.config import PanelSettings


@pytest.fixture
def settings(tmp_path: Path) -> PanelSettings:
    return make_settings(tmp_path)


@pytest.fixture
def app(settings: PanelSettings) -> Iterator[Flask]:
    application = create_app({"PANEL": settings, "TESTING": True})
    yield application
    close_app(application)


@pytest.fixture
def service(settings: PanelSettings) -> Iterator[FakeService]:
    fake = FakeService(settings.database).start()
    yield fake
    fake.stop()


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


@pytest.fixture
def device(app: Flask, request: pytest.FixtureRequest) -> Callable[[], Lobby]:
    """Makes a new device (a test client of its own) at the lobby of the test module's ``GAME``."""
    game: str = request.module.GAME
    return lambda: Lobby(app, game)


@pytest.fixture
def display(device: Callable[[], Lobby]) -> Lobby:
    return device()


@pytest.fixture
def api(client: FlaskClient) -> Api:
    return Api(client)


@pytest.fixture
def staff(client: FlaskClient) -> Api:
    staff_api = Api(client)
    assert staff_api.login().status_code == 200
    return staff_api


@pytest.fixture
def served(app: Flask) -> Iterator[Served]:
    serving = Served(app)
    yield serving
    serving.close()


# -- the browser harness ---------------------------------------------------------------------------
# Playwright drives Debian's Chromium (never a downloaded one) against the panel served by waitress,
# so the pages run under the real Content-Security-Policy. Tests marked ``browser`` use it.

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
CHROMIUM_MISSING = f"{CHROMIUM} is missing (apt-get install chromium)"


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    # Before any fixture: a browser test skipped here starts no panel and no board service.
    if item.get_closest_marker("browser") is not None and not os.path.exists(CHROMIUM):
        pytest.skip(CHROMIUM_MISSING)


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    """One Chromium per test module (launching it is the slow part)."""
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture
def browser(chromium: Any) -> Iterator[Any]:
    """Chromium for one test: the pages it opens are closed after it, their streams with them."""
    yield chromium
    for context in chromium.contexts:
        context.close()


@pytest.fixture
def sse() -> Iterator[Any]:
    opened: list[SseClient] = []

    def open_stream(port: int, **kwargs: Any) -> SseClient:
        client = SseClient(port, **kwargs)
        opened.append(client)
        return client

    yield open_stream
    for client in opened:
        client.close()
