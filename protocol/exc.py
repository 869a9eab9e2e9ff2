"""Errors raised by :mod:`protocol`.

Each subclasses :class:`ProtocolError` and the built-in exception that matches
its meaning (the gpiozero convention).
"""

from __future__ import annotations


class ProtocolError(Exception):
    """Base class of every error raised by :mod:`protocol`."""


class MessageError(ProtocolError, ValueError):
    """A message the bounded reader refuses (docs/event-network.md, "The reader"): ``reason`` says why.

    When the message was an outbox row whose place in its board's history could still be read,
    ``history``, ``seq`` and ``first`` (the history's first row) name it, so the event server can tell
    the board that row was refused (and acknowledge past it) instead of being sent it again forever."""

    def __init__(
        self, reason: str, *, history: str | None = None, seq: int | None = None, first: int | None = None
    ) -> None:
        super().__init__(reason)
        self.reason = reason
        self.history = history
        self.seq = seq
        self.first = first
