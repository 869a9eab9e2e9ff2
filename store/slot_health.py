"""The board's slot health across games, kept across restarts.

One row per part of the board: each slot by its name, and ``board`` for what
belongs to no slot (games counted, reference channels, lamps, scan overruns).
``counters`` is what the board service needs to go on counting after a
restart; ``findings`` is what those counters make staff check
(:class:`protocol.health.Finding`), worked out by the board service
(:mod:`hardware.slot_health`). The board service writes the rows when a game
ends, never during one, so nothing here says anything about a game still
running; the panel (service mode, ``/metrics``) and the uplink (the board's
status) only read them.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from typing import Any

from protocol.exc import MessageError
from protocol.health import (
    BOUNCES,
    LAMP,
    MAX_FINDINGS,
    NO_CONDUCTION,
    NO_PRESENCE,
    OVERRUNS,
    REFERENCE,
    SLOW_SETTLE,
    STUCK,
    Finding,
    parse_findings,
)
from store.db import transaction
from store.dialect import Connection

__all__ = [
    "BOARD_PART", "BOUNCES", "LAMP", "NO_CONDUCTION", "NO_PRESENCE", "OVERRUNS", "REFERENCE", "SEVERITY",
    "SLOW_SETTLE", "STUCK", "Finding", "SlotHealthStore", "worst_first",
]

BOARD_PART = "board"
"""The row of what belongs to no slot."""


class SlotHealthStore:
    """The ``slot_health`` rows on one connection."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn

    def counters(self) -> dict[str, dict[str, Any]]:
        """Each part's counters (empty before the first game ended)."""
        return {str(row["part"]): _object(row["counters"])
                for row in self.conn.execute("SELECT part, counters FROM slot_health")}

    def save(self, counters: Mapping[str, Mapping[str, Any]], findings: Mapping[str, list[Finding]]) -> None:
        """Replace every part's counters and findings in one transaction (durable when this returns)."""
        now = time.time()
        with transaction(self.conn):
            for part, values in counters.items():
                found = [f.to_json() for f in findings.get(part, [])]
                self.conn.execute(
                    "INSERT INTO slot_health (part, counters, findings, updated_at) VALUES (?, ?, ?, ?)"
                    " ON CONFLICT (part) DO UPDATE SET counters = excluded.counters,"
                    " findings = excluded.findings, updated_at = excluded.updated_at",
                    (part, json.dumps(dict(values), sort_keys=True), json.dumps(found), now),
                )

    def findings(self, limit: int = MAX_FINDINGS) -> list[Finding]:
        """What staff should check, the worst first (:func:`worst_first`), at most *limit*."""
        found: list[Finding] = []
        # Most parts have none: only those that have are read (the uplink asks at every status).
        for row in self.conn.execute("SELECT findings FROM slot_health WHERE findings <> '[]' ORDER BY part"):
            try:
                found += parse_findings(json.loads(row["findings"]), "a slot health row")
            except (ValueError, MessageError):
                continue  # a row this version cannot read says nothing
        return worst_first(found)[:limit]


SEVERITY = (STUCK, NO_CONDUCTION, NO_PRESENCE, REFERENCE, LAMP, BOUNCES, SLOW_SETTLE, OVERRUNS)
"""Which findings come first when a status or a page must leave some out."""


def worst_first(findings: list[Finding]) -> list[Finding]:
    order = {kind: n for n, kind in enumerate(SEVERITY)}
    return sorted(findings, key=lambda f: (order.get(f.kind, len(order)), -f.n, f.part))


def _object(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}
