"""Fair streams on the event server (real waitress on a loopback port, clients from two addresses).

One address may hold ``max_streams_per_address`` live pages at most, whatever their kind: the 64
streams one address opens no longer take every place, so the wall display's own stream (another
address) still gets through. A client that goes away frees its place at once, not at the next
heartbeat.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

import pytest
from flask import Flask

from store.event.settings import EventSettings
from tests.uplink.helpers import wait_for
from tests.webpanel.helpers import Served, make_settings
from webpanel.app import create_app

ONE, OTHER = "127.0.0.1", "127.0.0.2"
"""Two client addresses (all of 127.0.0.0/8 is loopback on Linux)."""


class Stream:
    """A raw HTTP/1.1 request for a stream, from a chosen source address."""

    def __init__(self, port: int, path: str, *, source: str) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=15, source_address=(source, 0))
        self.sock.sendall(f"GET {path} HTTP/1.1\r\nHost: wall\r\nAccept: text/event-stream\r\n\r\n".encode())
        self.file: BinaryIO = self.sock.makefile("rb")
        self.status = int(self.file.readline().split()[1])
        self.headers: dict[str, str] = {}
        while (line := self.file.readline().decode().strip()) != "":
            name, _, value = line.partition(":")
            self.headers[name.strip().lower()] = value.strip()

    def body_json(self) -> Any:
        return json.loads(self.file.read(int(self.headers["content-length"])))

    def next_change(self) -> dict[str, Any]:
        while True:
            line = self.file.readline()
            assert line, "the stream ended"
            if line.startswith(b"data: "):
                data: dict[str, Any] = json.loads(line[6:])
                return data

    def close(self) -> None:
        self.file.close()
        self.sock.close()


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Flask, Served]]:
    event = EventSettings(event="paris-2026", database=tmp_path / "central.db", confirm_timeout=60)
    # A heartbeat far longer than the test: a place freed comes from noticing the client left.
    panel = make_settings(tmp_path, heartbeat_seconds=60.0, stream_max_seconds=120.0)
    app = create_app({"PANEL": panel, "EVENT": event, "TESTING": True})
    server = Served(app)
    yield app, server
    server.close()


def test_64_streams_from_one_address_leave_the_walls_stream_its_place(served: tuple[Flask, Served]) -> None:
    app, server = served
    per_address = app.config["PANEL"].max_streams_per_address
    opened: list[Stream] = []
    try:
        for _ in range(64):
            opened.append(Stream(server.port, "/api/event/stream", source=ONE))
        held = [s for s in opened if s.status == 200]
        refused = [s for s in opened if s.status != 200]
        assert len(held) == per_address and len(refused) == 64 - per_address
        for stream in refused:
            assert stream.status == 429 and int(stream.headers["retry-after"]) > 0
            assert stream.body_json()["code"] == "too_many_streams_from_address"
        # The wall display, from another address: its own stream gets through, and follows the event.
        wall = Stream(server.port, "/api/event/stream", source=OTHER)
        opened.append(wall)
        assert wall.status == 200
        assert "version" in wall.next_change()
        # Every kind of stream counts against the one address: the board's too.
        opened.append(Stream(server.port, "/api/events", source=ONE))
        assert opened[-1].status == 429
    finally:
        for stream in opened:
            stream.close()


def test_a_stream_whose_client_left_frees_its_place_at_once(served: tuple[Flask, Served]) -> None:
    app, server = served
    follower = app.extensions["event_follower"]
    places = app.extensions["stream_places"]
    streams = [Stream(server.port, "/api/event/stream", source=ONE) for _ in range(3)]
    for stream in streams:
        assert stream.status == 200
        stream.next_change()
    assert follower.open_streams == 3 and places.held(ONE) == 3
    for stream in streams:
        stream.close()
    # Well before the 60 s heartbeat that used to be the first write to fail.
    wait_for(lambda: follower.open_streams == 0 and places.held(ONE) == 0, 10, "every place freed")
    again = Stream(server.port, "/api/event/stream", source=ONE)
    try:
        assert again.status == 200 and follower.open_streams == 1
    finally:
        again.close()
