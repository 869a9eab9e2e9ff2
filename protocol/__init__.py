"""The protocol leaf: the event network's wire format, one bounded reader and writer of every message.

Both ends of the link (the board's uplink, the event server's ingest) and the
store import it; it imports only the standard library (DESIGN §2). The topics
are :mod:`protocol.topics`, the messages and their records
:mod:`protocol.messages`, the bounded reader :mod:`protocol.reader` within the
bounds of :mod:`protocol.limits`; a refused message is a
:class:`~protocol.exc.MessageError` saying why (docs/event-network.md).
"""

from __future__ import annotations

from protocol.exc import MessageError, ProtocolError
from protocol.messages import (
    REFUSED_KIND,
    Ack,
    LiveReport,
    ReportedRow,
    StatusReport,
    compact,
    dumps,
    parse_ack,
    parse_assignment,
    parse_live,
    parse_row,
    parse_status,
    row_message,
    stand_in,
)
from protocol.topics import (
    BOARD_LEAVES,
    NAME,
    OFFLINE,
    BrokerAddress,
    Leaf,
    check_name,
    event_filter,
    parse_topic,
    topic,
)

__all__ = [
    "BOARD_LEAVES",
    "NAME",
    "OFFLINE",
    "REFUSED_KIND",
    "Ack",
    "BrokerAddress",
    "Leaf",
    "LiveReport",
    "MessageError",
    "ProtocolError",
    "ReportedRow",
    "StatusReport",
    "check_name",
    "compact",
    "dumps",
    "event_filter",
    "parse_ack",
    "parse_assignment",
    "parse_live",
    "parse_row",
    "parse_status",
    "parse_topic",
    "row_message",
    "stand_in",
    "topic",
]
