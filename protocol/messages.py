"""The messages of the event network: their records, how each is written, how each is read.

Payloads are compact JSON with sorted keys, so the same content is always the
same bytes (the secrecy test compares what the broker delivers byte for byte):
:func:`compact` is the one place that writes them. Each ``parse_`` function
reads one kind of message with the bounded reader (:mod:`protocol.reader`)
and checks the fields that kind must have, with their types.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from protocol import limits
from protocol.exc import MessageError
from protocol.health import parse_findings
from protocol.reader import OutOfBounds, check_values, parse_object, read_object

HISTORY = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
"""A board's history id (the uplink makes 12 hexadecimal digits)."""
KIND = re.compile(r"^[a-z][a-z-]{0,39}$")
"""An outbox row's kind (a journal kind: ``game-end``, ``placement``…)."""
REFUSED_KIND = "refused"
"""The kind of the stand-in the event server stores in place of an outbox row it refused, so the board's
history has no gap (its acknowledgement passes the row) and the row is never sent again. No journal kind
is called so."""


def compact(value: Any) -> str:
    """*value* as compact JSON text with sorted keys (never NaN nor an infinity)."""
    return json.dumps(value, separators=(",", ":"), sort_keys=True, allow_nan=False)


def dumps(value: Mapping[str, Any]) -> bytes:
    """A message's payload."""
    return compact(value).encode()


@dataclass(frozen=True)
class ReportedRow:
    """One outbox row as a board reported it (docs/event-network.md, ``outbox``)."""

    seq: int
    history: str
    first: int
    kind: str
    game: int | None
    at: float
    body: Mapping[str, Any]

    @functools.cached_property
    def body_text(self) -> str:
        """The body as stored (read once: the reader measures it, the store writes it)."""
        return compact(self.body)


@dataclass(frozen=True)
class StatusReport:
    """A board's retained status: presence, its history, the game in short, health."""

    status: Mapping[str, Any]


@dataclass(frozen=True)
class LiveReport:
    """A board's public live view."""

    view: Mapping[str, Any]


@dataclass(frozen=True)
class Ack:
    """The server's acknowledgement of one board's history: every row up to ``seq`` is stored."""

    seq: int
    history: str
    resend: bool = False
    """Rows are missing above ``seq``: send again from it."""
    refused: tuple[int, ...] = ()
    """Rows of the history the server refused (stored as stand-ins, acknowledged, never to be sent again):
    the most recent :data:`~protocol.limits.MAX_REFUSED_IN_ACK`."""

    def payload(self) -> bytes:
        body: dict[str, Any] = {"seq": self.seq, "history": self.history}
        if self.resend:
            body["resend"] = True
        if self.refused:
            body["refused"] = list(self.refused[-limits.MAX_REFUSED_IN_ACK :])
        return dumps(body)


def whole(value: Any, what: str, **where: Any) -> int:
    """*value* if it is a whole number from 0 to :data:`~protocol.limits.MAX_SEQ` (*where*: the row's
    place, for the refusal)."""
    if isinstance(value, OutOfBounds):
        raise MessageError(f"{what}: {value.reason}", **where)
    if type(value) is not int or not 0 <= value <= limits.MAX_SEQ:
        raise MessageError(f"{what} is a whole number from 0 to 2^53, not {_short(value)}", **where)
    return value


def stand_in(history: str, seq: int, first: int, reason: str, *, game: int | None = None,
             at: float = 0.0) -> ReportedRow:
    """What stands for a refused outbox row: the same place in the history, kind :data:`REFUSED_KIND`,
    the reason as its body."""
    return ReportedRow(seq, history, first, REFUSED_KIND, game, at, {"reason": reason[:200]})


def row_message(row: ReportedRow) -> bytes:
    """An outbox row's payload (the board splices the journal's stored body in instead:
    :meth:`store.outbox.OutboxRow.message`, the same bytes)."""
    return dumps({"seq": row.seq, "history": row.history, "first": row.first, "kind": row.kind,
                  "game": row.game, "at": row.at, "body": dict(row.body)})


def parse_ack(payload: bytes) -> Ack:
    """The server's acknowledgement of one board's history (``ack``)."""
    data = read_object(payload, limit=limits.MAX_ACK, what="an ack")
    seq, history = whole(data.get("seq"), "an ack's seq"), data.get("history")
    if not isinstance(history, str) or not HISTORY.match(history):
        raise MessageError("an ack is {seq: n >= 0, history: id}")
    refused = data.get("refused", [])
    if not isinstance(refused, list) or len(refused) > limits.MAX_REFUSED_IN_ACK:
        raise MessageError(f"an ack's refused rows are a list of at most {limits.MAX_REFUSED_IN_ACK}")
    return Ack(seq, history, data.get("resend") is True, tuple(whole(s, "a refused row") for s in refused))


def parse_assignment(payload: bytes) -> dict[str, Any] | None:
    """The table the server assigned the board (``assignment``); None when it cleared it."""
    if not payload:
        return None
    data = read_object(payload, limit=limits.MAX_ASSIGNMENT, what="an assignment")
    if not data:
        return None
    if not isinstance(data.get("assignment"), str):
        raise MessageError("an assignment names its id")
    return data


def parse_row(payload: bytes) -> ReportedRow:
    """One outbox row as the board wrote it (:meth:`store.outbox.OutboxRow.message`). A refusal names the
    row's history and seq when they could be read."""
    data, scan = parse_object(payload, limit=limits.MAX_ROW, what="an outbox row")
    history, seq, first = data.get("history"), data.get("seq"), data.get("first")
    if not isinstance(history, str) or not HISTORY.match(history):
        raise MessageError("an outbox row names its history (1 to 64 letters, digits, '-' or '_')")
    seq = whole(seq, "an outbox row's seq")
    first = whole(first, "an outbox row's first")
    if seq < first:
        raise MessageError(f"seq {seq} is below the history's first row {first}")
    where: dict[str, Any] = {"history": history, "seq": seq, "first": first}
    if scan.suspicious:
        check_values(data, "an outbox row", **where)
    game = data.get("game")
    if game is not None:
        game = whole(game, "an outbox row's game", **where)
    at, kind, body = data.get("at"), data.get("kind"), data.get("body")
    if not isinstance(at, int | float) or isinstance(at, bool) or at < 0:
        raise MessageError("at is a time: a number of seconds, 0 or more", **where)
    if not isinstance(kind, str) or not KIND.match(kind):
        raise MessageError(f"kind is a journal kind, not {_short(kind)}", **where)
    if not isinstance(body, dict):
        raise MessageError("an outbox row's body is an object", **where)
    _names(body.get("players"), f"a {kind} row's players", **where)
    row = ReportedRow(seq, history, first, kind, game, float(at), body)
    if len(row.body_text) > limits.MAX_BODY:
        raise MessageError(f"an outbox row's body is more than {limits.MAX_BODY} bytes", **where)
    return row


def parse_status(payload: bytes) -> StatusReport:
    """A board's status (``status``): ``online`` always; its history and first row when online."""
    data = read_object(payload, limit=limits.MAX_STATUS, what="a status")
    if not isinstance(data.get("online"), bool):
        raise MessageError("a status says online: true or false")
    history = data.get("history")
    if history is not None and (not isinstance(history, str) or not HISTORY.match(history)):
        raise MessageError("a status's history is 1 to 64 letters, digits, '-' or '_'")
    if "first" in data and data["first"] is not None:
        whole(data["first"], "a status's first row")
    game = data.get("game")
    if isinstance(game, dict):
        _names(game.get("players"), "a status's players")
    health = data.get("health")
    if isinstance(health, dict):
        parse_findings(health.get("slots"))
    return StatusReport(data)


def parse_live(payload: bytes) -> LiveReport:
    """A board's public live view (``live``)."""
    return LiveReport(read_object(payload, limit=limits.MAX_LIVE, what="a live view"))


def _names(players: Any, what: str, **where: Any) -> None:
    """Players' names (strings, or objects with a ``name``) within :data:`~protocol.limits.MAX_NAME`."""
    if not isinstance(players, list):
        return
    for player in players:
        name = player.get("name") if isinstance(player, dict) else player
        if isinstance(name, str) and len(name) > limits.MAX_NAME:
            raise MessageError(f"{what}: a name of {len(name)} characters, more than {limits.MAX_NAME}",
                               **where)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:39] + "…"
