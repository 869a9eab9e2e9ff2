"""Where the event network's messages go: ``hautetension/<event>/board/<board>/<leaf>``, and the broker."""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from urllib.parse import urlsplit

from protocol.exc import MessageError
from protocol.messages import dumps

ROOT = "hautetension"
NAME = re.compile(r"^[a-z0-9-]{1,40}$")
"""An event id or a board id (the board's MQTT username)."""
DEFAULT_PORTS = {"mqtt": 1883, "mqtts": 8883}


class Leaf(enum.StrEnum):
    """The topics of one board (docs/event-network.md, "Topics")."""

    STATUS = "status"
    """board → server, QoS 1, retained; the last will is ``{"online": false}``."""
    OUTBOX = "outbox"
    """board → server, QoS 1: one outbox row."""
    LIVE = "live"
    """board → server, QoS 0: the public board view, on change, at most a few per second."""
    ACK = "ack"
    """server → board, QoS 1, retained: every row up to ``seq`` of ``history`` is stored."""
    ASSIGNMENT = "assignment"
    """server → board, QoS 1, retained: the table the board plays next (empty: none)."""


BOARD_LEAVES = (Leaf.STATUS, Leaf.OUTBOX, Leaf.LIVE)
"""What a board publishes (everything else on its topics is the server's)."""


def check_name(value: str, what: str) -> str:
    if not isinstance(value, str) or not NAME.match(value):
        raise ValueError(f"{what} must be 1 to 40 characters among a-z, 0-9 and '-', not {value!r}")
    return value


def topic(event: str, board: str, leaf: Leaf) -> str:
    return f"{ROOT}/{event}/board/{board}/{leaf.value}"


def event_filter(event: str) -> str:
    """Every board topic of one event (what the event server subscribes to)."""
    return f"{ROOT}/{event}/board/+/+"


def parse_topic(name: str) -> tuple[str, str, Leaf]:
    """``(event, board, leaf)`` of a board topic; :class:`MessageError` for any other topic."""
    parts = name.split("/")
    if len(parts) != 5 or parts[0] != ROOT or parts[2] != "board":
        raise MessageError(f"not a board topic: {name[:120]!r}")
    try:
        leaf = Leaf(parts[4])
    except ValueError:
        raise MessageError(f"unknown topic {parts[4][:40]!r} in {name[:120]!r}") from None
    if not NAME.match(parts[1]) or not NAME.match(parts[3]):
        raise MessageError(f"bad event or board id in {name[:120]!r}")
    return parts[1], parts[3], leaf


OFFLINE = dumps({"online": False})
"""The status a board leaves behind: its last will, and what it says itself on a clean stop."""


@dataclass(frozen=True)
class BrokerAddress:
    """Where the broker listens: ``mqtt://host:port`` or, over TLS, ``mqtts://host:port``."""

    host: str
    port: int
    tls: bool

    @classmethod
    def parse(cls, url: str) -> BrokerAddress:
        parts = urlsplit(url.strip())
        if parts.scheme not in DEFAULT_PORTS or not parts.hostname:
            raise ValueError(f"a broker address is mqtt://HOST:PORT or mqtts://HOST:PORT, not {url!r}")
        if parts.path not in ("", "/") or parts.query or parts.username:
            raise ValueError(f"a broker address has no path, query or user name: {url!r}")
        try:
            port = parts.port or DEFAULT_PORTS[parts.scheme]
        except ValueError:
            raise ValueError(f"the port of {url!r} is not a port number") from None
        return cls(parts.hostname, port, parts.scheme == "mqtts")

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{'mqtts' if self.tls else 'mqtt'}://{host}:{self.port}"
