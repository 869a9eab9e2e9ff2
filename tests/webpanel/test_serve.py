"""waitress's settings for the panel: connection limit, timeouts, whom it trusts for the client's address."""

from __future__ import annotations

import logging
import resource
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from configuration import ConfigError
from hautetension.cli import main
from tests.webpanel import helpers
from webpanel import serve
from webpanel.app import close_app, create_app
from webpanel.config import PanelSettings


def _server(tmp_path: Path, **settings: Any) -> tuple[Flask, Any]:
    app = create_app({"PANEL": helpers.make_settings(tmp_path, **settings), "TESTING": True})
    return app, serve.make_server(app, host="127.0.0.1", port=0)


def _close(app: Flask, server: Any) -> None:
    server.close()
    close_app(app)


def test_alone_waitress_trusts_no_proxy_header_and_frees_silent_connections(
    tmp_path: Path
) -> None:
    app, server = _server(tmp_path)
    try:
        adj = server.adj
        assert adj.trusted_proxy is None and adj.trusted_proxy_headers == set()
        assert adj.clear_untrusted_proxy_headers is True
        assert adj.channel_timeout < 120 and adj.cleanup_interval < adj.channel_timeout
        assert adj.asyncore_use_poll is True  # select() stops at descriptor 1023
        assert adj.connection_limit == serve.automatic_limit(app.config["PANEL"].worker_threads)
        assert adj.max_request_body_size >= app.config["MAX_CONTENT_LENGTH"]  # Flask's JSON 413 comes first
    finally:
        _close(app, server)


def test_behind_the_front_server_only_its_x_forwarded_for_counts(tmp_path: Path) -> None:
    app, server = _server(tmp_path, trusted_proxy="127.0.0.1", connection_limit=500)
    try:
        adj = server.adj
        assert adj.trusted_proxy == "127.0.0.1" and adj.trusted_proxy_count == 1
        assert adj.trusted_proxy_headers == {"x-forwarded-for"}
        assert adj.connection_limit == 500
    finally:
        _close(app, server)


@pytest.mark.parametrize(
    ("soft", "expected"),
    [
        (resource.RLIM_INFINITY, serve.MAX_CONNECTIONS),
        (1_000_000, serve.MAX_CONNECTIONS),
        # A terminal's usual 1024: what the threads' database files and the rest leave over.
        (1024, 1024 - 80 * serve.FILES_PER_THREAD - serve.SPARE_FILES),
    ],
)
def test_the_automatic_limit_fits_the_open_file_limit(monkeypatch: Any, soft: int, expected: int) -> None:
    monkeypatch.setattr(resource, "getrlimit", lambda _which: (soft, resource.RLIM_INFINITY))
    assert serve.automatic_limit(80) == expected


def test_a_tiny_open_file_limit_is_reported(monkeypatch: Any, caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setattr(resource, "getrlimit", lambda _which: (256, 4096))
    with caplog.at_level(logging.WARNING, logger="webpanel.serve"):
        assert serve.automatic_limit(80) == 96
    assert "open-file limit (256)" in caplog.text and "ulimit -n" in caplog.text


@pytest.mark.parametrize(
    ("section", "says"),
    [
        ({"connection_limit": -1}, "connection_limit must be at least 0, not -1"),
        ({"connection_limit": 50}, "connection_limit (50) must exceed the worker threads (80)"),
        ({"connection_limit": "many"}, "connection_limit must be an integer"),
        ({"trusted_proxy": "nginx"}, "trusted_proxy must be an IP address, not 'nginx'"),
        ({"trusted_proxy": 127}, "trusted_proxy must be a string"),
    ],
)
def test_bad_front_server_settings_are_refused(section: dict[str, Any], says: str) -> None:
    with pytest.raises(ConfigError) as info:
        PanelSettings.from_section(section)
    assert says in str(info.value)


def test_panel_command_refuses_a_trusted_proxy_that_is_not_an_address(tmp_path: Path, capsys: Any) -> None:
    config = tmp_path / "config.toml"
    config.write_text(f'[store]\npath = "{tmp_path / "h.db"}"\n')
    assert main(["panel", "--config", str(config), "--trusted-proxy", "front.local"]) == 78
    assert "trusted_proxy must be an IP address" in capsys.readouterr().err
