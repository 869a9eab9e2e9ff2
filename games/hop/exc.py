"""Errors of the |Hop> engine, each with a reason a player understands."""

from __future__ import annotations

# The board-file errors are shared by the board games; importable from here too.
from games.exc import BoardError as BoardError
from games.exc import IllegalMoveError
from games.exc import UnknownBoardError as UnknownBoardError
from games.frame import BadMoveError


class NotationError(BadMoveError):
    """Not a |Hop> move: {"block": action}, {"action": ..., "from": ..., ...} or {"pass": true}."""


class BlockError(IllegalMoveError):
    """A block that is not the blocker's to make, or blocks the action blocked last turn."""


class BlockedActionError(IllegalMoveError):
    """A movement action that the blocker has blocked this turn."""


class WrongPhaseError(IllegalMoveError):
    """A movement while a block is due, a block while movements are due, or a pass with moves left."""


class NotYourElectronError(IllegalMoveError):
    """The place moved from holds no electron of the player's colour."""


class PlaceTakenError(IllegalMoveError):
    """The place moved to already holds an electron (one electron per spin)."""


class ImpossibleMoveError(IllegalMoveError):
    """A movement the board does not allow (not adjacent, no line of electrons, own electrode...)."""


class EnergyError(IllegalMoveError):
    """A movement whose energy change neither the mover nor the bank can balance."""
