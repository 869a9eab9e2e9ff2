"""The event server's own settings, from the ``[central]`` section.

The same section also holds the broker keys (:class:`uplink.settings.BrokerSettings`)
and where the server listens; ``hautetension central`` reads all of them from
the one section with one reader, so a key nobody reads is reported once.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

from configuration import Section
from store.dialect import is_postgresql
from tournaments.ranking import RankingRules

DEFAULT_EVENT_DATABASE = Path("var/central.db")
DEFAULT_SYSTEM_EVENT_DATABASE = Path("/var/lib/hautetension/central.db")


@dataclass(frozen=True)
class EventSettings:
    """Which event this server runs, where it keeps it, and how long players have to confirm."""

    event: str = "demo"
    database: Path | str = DEFAULT_EVENT_DATABASE
    """An SQLite file (one hall, one machine) or a PostgreSQL DSN ``postgresql://…`` (several
    server processes on one database)."""
    confirm_timeout: float = 300.0
    """A board's result not confirmed by every seat within this many seconds is flagged for staff."""
    ranking: RankingRules = field(default_factory=RankingRules)
    """How the general ranking counts (``ranking_window_days``, ``ranking_min_games``,
    ``ranking_handicap_step``)."""

    @classmethod
    def read(cls, s: Section, *, database: Path = DEFAULT_EVENT_DATABASE) -> EventSettings:
        return cls(
            event=s.text("event", cls.event),
            database=_database(s, database),
            confirm_timeout=s.number("confirm_timeout_s", cls.confirm_timeout, minimum=10),
            ranking=RankingRules(
                window_days=s.number("ranking_window_days", RankingRules.window_days, minimum=1),
                min_games=s.integer("ranking_min_games", RankingRules.min_games, minimum=1, maximum=1000),
                # A decimal as written ("0.5"), kept exact: handicap leads are compared as fractions.
                handicap_step=Fraction(
                    str(s.number("ranking_handicap_step", float(RankingRules.handicap_step), minimum=0.01))
                ).limit_denominator(100),
            ),
        )


def _database(s: Section, default: Path) -> Path | str:
    """``database``: a DSN as written (``postgresql://user:password@host/name``), else a file's path."""
    value = s.text("database", "", what="a file's path or a postgresql:// DSN")
    if is_postgresql(value):
        return value
    return Path(value) if value else default
