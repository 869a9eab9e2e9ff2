"""The general ranking and the player registry of the event server.

Public: the ranking (``/ranking``: points per game over the season's window,
games played, best results; CSV and JSON), each player's page with their
games, and the handicap the ranking proposes for a table. Staff: the player
registry (``/players``): register players, correct them, merge a person
registered twice (the audit trail keeps every value), enter registered
players into a tournament, and link the players a tournament registered by
name; the season (``/season``): the events tournaments belong to and which
tournaments count for the ranking (a friendly or demonstration one does
not). The counting is :mod:`tournaments.ranking`; the storage
:mod:`store.players` and :mod:`store.ranking`.
"""

from __future__ import annotations

# The route modules, each adding its routes to the blueprint (and its paths to the API description).
from webpanel.ranking import api, rating, season, views  # noqa: F401
from webpanel.ranking.blueprint import bp, init_app

__all__ = ["bp", "init_app"]
