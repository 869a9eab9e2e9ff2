"""Tournaments in the panel: pairings, tablet scorekeeping, standings, exports.

Reading is public (standings for a wall display, printable pairings, each
player's history, CSV exports); registering, making rounds, entering and
correcting results and undo need the staff PIN. See docs/tournaments.md.
"""

from webpanel.tournaments.views import bp

__all__ = ["bp"]
