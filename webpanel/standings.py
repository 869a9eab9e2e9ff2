"""A tournament's standings as the pages and the JSON API show them: plain values, ready to show.

The tournament's own pages and API show them, and so do the event server's
pages (the standings beside the round's tables): one shape for both.
"""

from __future__ import annotations

from typing import Any

from tournaments.tournament import Tournament
from webpanel import tournament_words as words


def standings_view(t: Tournament) -> list[dict[str, Any]]:
    return [
        {
            "place": s.place,
            "player": s.player,
            "name": s.name,
            "points": s.points,
            "status": s.status,
            "status_label": str(words.STATUS[s.status]),
            "out_in_round": s.out_in_round,
            "out_at_table": s.out_at_table,
            "note": s.note,
            "out_as_stood": s.out_as_stood,
            "spared_in_round": s.spared_in_round,
            "spared_at_table": s.spared_at_table,
            "withdrew_in_round": s.withdrew_in_round,
            "notes": words.standing_notes(s),
            "games": [
                {"round": g.round, "table": g.table, "seat": g.seat + 1, "points": g.points} for g in s.games
            ],
            "lot": round(s.lot, 6),
        }
        for s in t.standings()
    ]
