"""The systemd units' bounds (LimitNOFILE, TasksMax) fit what the panel holds at its default settings."""

from __future__ import annotations

import configparser
from pathlib import Path
from typing import Any

from webpanel import serve
from webpanel.config import LobbySettings, PanelSettings

REPO = Path(__file__).resolve().parents[2]
OTHER_THREADS = 6
"""The main thread, waitress's event loop, the board follower, the lobby's game watch, and spare."""
FILES_PER_CONNECTION = 3
"""A SQLite connection in WAL mode: the database, its -wal and its -shm file."""


def service(name: str) -> configparser.SectionProxy:
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read(REPO / "systemd" / name)
    return parser["Service"]


def test_the_panel_may_open_what_it_holds_at_most(monkeypatch: Any) -> None:
    unit = service("hautetension-panel.service")
    files, tasks = int(unit["LimitNOFILE"]), int(unit["TasksMax"])
    panel, lobby = PanelSettings(), LobbySettings()
    monkeypatch.setattr(serve.resource, "getrlimit", lambda _kind: (files, files))
    connections = serve.connections_held(panel)
    assert connections == serve.MAX_CONNECTIONS, "the limit does not cut the panel's connections"
    held = (connections + serve.SPARE_FILES
            + FILES_PER_CONNECTION * (panel.worker_threads + panel.max_streams + lobby.computer_workers))
    assert held <= files, f"{held} files at the defaults, the unit allows {files}"
    threads = panel.worker_threads + lobby.computer_workers + OTHER_THREADS
    assert threads <= tasks // 2, f"{threads} threads at the defaults: room to raise them under {tasks}"


def test_systemds_default_would_cut_the_panels_connections(monkeypatch: Any) -> None:
    """Why the unit sets LimitNOFILE at all."""
    monkeypatch.setattr(serve.resource, "getrlimit", lambda _kind: (1024, 524288))
    assert serve.connections_held(PanelSettings()) < serve.MAX_CONNECTIONS


def test_the_board_service_is_bounded_too() -> None:
    unit = service("hautetension-board.service")
    assert int(unit["LimitNOFILE"]) >= 64 and int(unit["TasksMax"]) >= 16
