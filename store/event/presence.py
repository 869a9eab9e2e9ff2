"""Which boards report from two places at once: two uplinks with one board id (a copied SD card).

Each uplink process names itself in its status (``uplink``, a random id made when it starts). A board
that restarts comes back with a new id and never with an old one; two uplinks sharing a board id take
the broker's session from each other in turn (the broker pins a client's id to its user), so their
statuses alternate: an id heard again after another one, within :data:`WINDOW_S`, is two places.
The server keeps the moment it last saw that in the board's stored status (``two_places_at``, its own
key: a board's own value is dropped), where the event's pages read it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

WINDOW_S = 300.0
"""How long an uplink id is remembered: one heard again within it, after another, is a second place."""
SHOWN_S = 600.0
"""How long staff are warned after the last alternation seen (the copy may only be switched off)."""
KEY = "two_places_at"
MAX_ID = 32
"""An uplink id longer than this is not one (the uplink makes 12 hex digits): ignored."""
MAX_REMEMBERED = 8
"""Uplink ids remembered per board at most (a hostile board sending a new one each time costs nothing)."""


class Uplinks:
    """The uplink ids each board's statuses named lately (one per ingest: what it heard, in order)."""

    def __init__(self) -> None:
        self._seen: dict[str, dict[str, float]] = {}
        self._last: dict[str, str] = {}
        self._two_places_at: dict[str, float] = {}

    def heard(
        self, board: str, status: Mapping[str, Any], now: float, stored: float | None
    ) -> dict[str, Any]:
        """*status* as it is stored: with the last time the board was seen in two places, if ever (*stored*:
        what the database held already, from this process or another)."""
        kept = {k: v for k, v in status.items() if k != KEY}
        uplink = status.get("uplink")
        if isinstance(uplink, str) and 0 < len(uplink) <= MAX_ID:
            seen = self._seen.setdefault(board, {})
            for old in [u for u, at in seen.items() if now - at > WINDOW_S]:
                del seen[old]
            while len(seen) >= MAX_REMEMBERED and uplink not in seen:
                del seen[min(seen, key=seen.__getitem__)]
            previous = self._last.get(board)
            if previous is not None and previous != uplink and uplink in seen:
                self._two_places_at[board] = now
            seen[uplink] = now
            self._last[board] = uplink
        at = max(self._two_places_at.get(board, 0.0), stored or 0.0)
        if at:
            kept[KEY] = at
        return kept


def two_places_since(status: Mapping[str, Any] | None, now: float) -> float | None:
    """When the board was last seen in two places, if that is recent enough to show staff."""
    at = (status or {}).get(KEY)
    if isinstance(at, int | float) and not isinstance(at, bool) and 0 <= now - at <= SHOWN_S:
        return float(at)
    return None
