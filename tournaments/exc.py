"""The tournament's errors: each one a :class:`games.exc.GameError` and the matching built-in.

:class:`ResultError` is the game's own (a lamp order that cannot have happened), here with the rest.
"""

from __future__ import annotations

from games.exc import GameError
from games.hautetension.outcome import ResultError

__all__ = ["RegistrationError", "ResultError", "RoundError", "TournamentError"]


class TournamentError(GameError):
    """Base class of the tournament's errors."""


class RegistrationError(TournamentError, ValueError):
    """A player cannot be registered (or withdrawn) this way."""


class RoundError(TournamentError, RuntimeError):
    """A round cannot be made now, or names a table that does not exist."""

