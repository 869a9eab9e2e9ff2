"""The event server's own settings, from the ``[central]`` section.

The same section also holds the broker keys (:class:`uplink.settings.BrokerSettings`)
and where the server listens; ``hautetension central`` reads all of them from
the one section with one reader, so a key nobody reads is reported once.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from configuration import Section

DEFAULT_EVENT_DATABASE = Path("var/central.db")
DEFAULT_SYSTEM_EVENT_DATABASE = Path("/var/lib/hautetension/central.db")


@dataclass(frozen=True)
class EventSettings:
    """Which event this server runs, where it keeps it, and how long players have to confirm."""

    event: str = "demo"
    database: Path = DEFAULT_EVENT_DATABASE
    confirm_timeout: float = 300.0
    """A board's result not confirmed by every seat within this many seconds is flagged for staff."""

    @classmethod
    def read(cls, s: Section, *, database: Path = DEFAULT_EVENT_DATABASE) -> EventSettings:
        return cls(
            event=s.text("event", cls.event),
            database=s.path("database", database) or database,
            confirm_timeout=s.number("confirm_timeout_s", cls.confirm_timeout, minimum=10),
        )
