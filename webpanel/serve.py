"""Serving the panel with waitress, the production WSGI server.

Each open live page holds one waitress worker thread for its event stream,
so the pool is sized from ``[panel] max_streams`` (``threads`` = streams + 16
by default): live pages can never take the threads the other requests need.
"""

from __future__ import annotations

import logging

from flask import Flask
from waitress.server import create_server

from webpanel.config import PanelSettings

log = logging.getLogger(__name__)


def make_server(app: Flask, *, host: str | None = None, port: int | None = None) -> object:
    """A waitress server for *app* (not yet running: call ``.run()``, stop with ``.close()``)."""
    settings: PanelSettings = app.config["PANEL"]
    threads = settings.worker_threads
    return create_server(
        app,
        host=host or settings.host,
        port=settings.port if port is None else port,
        threads=threads,
        connection_limit=max(100, 2 * threads),
        channel_timeout=max(120, int(settings.stream_max_seconds) + 30),
        ident="hautetension-panel",
        clear_untrusted_proxy_headers=True,
    )
