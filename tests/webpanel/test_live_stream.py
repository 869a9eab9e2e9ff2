"""The one stream template: opening, a notice per change, heartbeats, the end, the place given back."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from tests.webpanel.helpers import make_settings
from webpanel.hub import ChangeHub, Notice, game_topic
from webpanel.live import LiveStream
from webpanel.stream import BoardFollower, sse


class Versions(LiveStream):
    """Says each version of game 1; ends at version 3."""

    def opening(self, before: list[Notice]) -> Iterator[str]:
        yield sse("hello", str(len(before)))

    def changed(self, notice: Notice) -> Iterator[str]:
        yield sse("game", str(notice.version), notice.version)
        self.finished = notice.version == 3


def test_a_stream_opens_follows_its_topic_beats_and_ends(tmp_path: Path) -> None:
    follower = BoardFollower(make_settings(tmp_path, heartbeat_seconds=0.05, stream_max_seconds=60.0))
    hub = ChangeHub(tmp_path / "panel.db")
    hub.publish(game_topic(1), version=1)
    assert follower.try_open_stream()
    stream = Versions(follower, hub, [game_topic(1)])
    chunks = iter(stream)
    try:
        assert next(chunks).startswith(b"retry:")
        assert next(chunks) == b"event: hello\ndata: 1\n\n"  # the last notice before it opened
        assert next(chunks) == b": keep-alive\n\n"  # nothing changed meanwhile
        hub.publish(game_topic(2), version=9)  # another topic: not this stream's
        hub.publish(game_topic(1), version=2)
        assert next(chunks) == b"id: 2\nevent: game\ndata: 2\n\n"
        hub.publish(game_topic(1), version=3)
        assert next(chunks) == b"id: 3\nevent: game\ndata: 3\n\n"
        assert b"event: reconnect" in next(chunks)  # finished: the page reconnects if it wants more
        assert next(chunks, None) is None
        assert hub.subscribers == 0
    finally:
        stream.close()
        hub.close()
    assert follower.open_streams == 0  # its place given back


def test_a_stream_ends_at_its_deadline(tmp_path: Path) -> None:
    follower = BoardFollower(make_settings(tmp_path, heartbeat_seconds=60.0, stream_max_seconds=0.05))
    hub = ChangeHub(tmp_path / "panel.db")
    assert follower.try_open_stream()
    stream = Versions(follower, hub, [game_topic(1)])
    try:
        chunks = list(stream)  # no change comes: only its deadline ends it
        assert chunks[1] == b"event: hello\ndata: 0\n\n" and b"event: reconnect" in chunks[-1]
    finally:
        stream.close()
        hub.close()
    assert follower.open_streams == 0


def test_a_stream_ends_when_the_hub_closes(tmp_path: Path) -> None:
    follower = BoardFollower(make_settings(tmp_path, heartbeat_seconds=60.0, stream_max_seconds=600.0))
    hub = ChangeHub(tmp_path / "panel.db")
    assert follower.try_open_stream()
    stream = Versions(follower, hub, [game_topic(1)])
    chunks = iter(stream)
    try:
        assert next(chunks).startswith(b"retry:")
        assert next(chunks) == b"event: hello\ndata: 0\n\n"
        hub.close()  # the panel stops: the stream ends, nobody waits out its heartbeat
        assert b"event: reconnect" in next(chunks)
    finally:
        stream.close()
