"""GET /api/events through waitress: live board events, resume, caps and stream ends."""

from __future__ import annotations

import json
import time
from typing import Any

from flask.testing import FlaskClient

from tests.webpanel.helpers import Api, FakeService, Served, make_settings, wait_for


def test_stream_sends_the_board_then_each_change(served: Any, service: Any, sse: Any) -> None:
    api = Api(served.app.test_client())
    stream = sse(served.port)
    assert stream.status == 200
    assert stream.response.getheader("Content-Type").startswith("text/event-stream")
    first = stream.next_of("board")
    board = json.loads(first["data"])
    assert int(first["id"]) == board["id"] > 0 and board["pawns"] == {}
    assert json.loads(stream.next_of("service")["data"]) == {"running": True}
    assert api.post("/api/sim/slots/d4", {"pawn": "attack"}).status_code == 200
    change = stream.next_of("board")
    assert json.loads(change["data"])["pawns"] == {"d4": {"owner": None}}
    assert int(change["id"]) > int(first["id"])


def test_resume_with_last_event_id(served: Any, service: Any, sse: Any) -> None:
    api = Api(served.app.test_client())
    current = api.get("/api/board").get_json()["id"]
    # Up to date: no board event first, only the service state (then changes).
    stream = sse(served.port, last_event_id=str(current))
    first_event = stream.next_event()
    assert first_event is not None and first_event.get("event") == "service", first_event
    api.post("/api/sim/slots/d4", {"pawn": "attack"})
    assert json.loads(stream.next_of("board")["data"])["pawns"] == {"d4": {"owner": None}}
    # Missed something: the current state comes at once.
    behind = sse(served.port, last_event_id=str(current))
    event = behind.next_event()
    assert event["event"] == "board" and json.loads(event["data"])["pawns"] == {"d4": {"owner": None}}


def test_bad_last_event_id_is_400(client: FlaskClient) -> None:
    for bad in ("abc", "-1", "1.5", "9" * 40):
        response = client.get("/api/events", headers={"Last-Event-ID": bad})
        assert response.status_code == 400 and "Last-Event-ID" in response.get_json()["error"]
    assert client.get("/api/events?last_event_id=x").status_code == 400


def test_streams_are_capped_with_retry_after(tmp_path: Any, sse: Any) -> None:
    from webpanel.app import create_app

    settings = make_settings(tmp_path, max_streams=2)
    fake = FakeService(settings.database).start()
    app = create_app({"PANEL": settings, "TESTING": True})
    served = Served(app)
    try:
        a, b = sse(served.port), sse(served.port)
        assert a.status == b.status == 200
        a.next_of("board")
        b.next_of("board")
        refused = sse(served.port)
        assert refused.status == 503
        assert refused.response.getheader("Retry-After") == "5"
        assert "too many" in json.loads(refused.response.read())["error"]
        # Normal requests still get a thread while the streams are open.
        assert Api(app.test_client()).get("/api/board").status_code == 200
        a.close()
        follower = app.extensions["board_follower"]
        wait_for(lambda: follower.open_streams < 2, 10)
        assert sse(served.port).status == 200
    finally:
        served.close()
        fake.stop()




def test_a_stream_ends_after_its_time_with_a_reconnect_hint(tmp_path: Any, sse: Any) -> None:
    from webpanel.app import create_app

    settings = make_settings(tmp_path, stream_max_seconds=0.5, heartbeat_seconds=0.1)
    fake = FakeService(settings.database).start()
    app = create_app({"PANEL": settings, "TESTING": True})
    served = Served(app)
    try:
        stream = sse(served.port)
        events = []
        started = time.monotonic()
        while (event := stream.next_event()) is not None:
            events.append(event)
        assert time.monotonic() - started < 5
        assert events[-1]["event"] == "reconnect"
        assert any(e.get("comment") == ": keep-alive" for e in events) or len(events) >= 2
        wait_for(lambda: app.extensions["board_follower"].open_streams == 0)
    finally:
        served.close()
        fake.stop()


def test_stream_release_when_never_iterated(app: Any) -> None:
    from webpanel.board import BoardStream
    from webpanel.hub import hub_of

    follower = app.extensions["board_follower"]
    assert follower.try_open_stream()
    BoardStream(follower, hub_of(app.extensions), last_event_id=None).close()
    assert follower.open_streams == 0


def test_service_event_when_the_service_stops(tmp_path: Any, sse: Any) -> None:
    from webpanel.app import create_app

    settings = make_settings(tmp_path, service_stale_seconds=0.8)
    fake = FakeService(settings.database).start()
    app = create_app({"PANEL": settings, "TESTING": True})
    served = Served(app)
    try:
        stream = sse(served.port)
        # On a busy machine the heartbeat may look stale for a moment: wait for "running" first.
        while json.loads(stream.next_of("service")["data"]) != {"running": True}:
            pass
        fake.stop()
        assert json.loads(stream.next_of("service")["data"]) == {"running": False}
    finally:
        served.close()
