"""Fixtures of the event network's tests: the broker with the event's users and ACL, the event server."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.servers.mosquitto import MosquittoBroker
from tests.uplink.helpers import Central, broker_settings, event_broker


@pytest.fixture
def secured(make_broker: Callable[..., MosquittoBroker]) -> MosquittoBroker:
    """A broker as the event runs it: accounts for the event server and three boards, the event's ACL."""
    return event_broker(make_broker)


@pytest.fixture
def central(tmp_path: Path, secured: MosquittoBroker) -> Iterator[Central]:
    server = Central(tmp_path / "central", broker_settings(secured, "central"))
    yield server.start()
    server.stop()
    server.conn.close()
