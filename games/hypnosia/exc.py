"""Errors of the Hypnosia engine, each with a reason a player understands."""

from __future__ import annotations

# The board-file errors are shared by the board games; importable from here too.
from games.exc import BoardError as BoardError
from games.exc import IllegalMoveError
from games.exc import UnknownBoardError as UnknownBoardError
from games.frame import BadMoveError


class NotationError(BadMoveError):
    """Not a Hypnosia move: {"roll": [a, b]} or {"die": 0|1|"sum", "pawn": id, ...}."""


class WaitForDiceError(IllegalMoveError):
    """A pawn move while the dice have not been rolled, or a roll while a pawn must move."""


class DiceError(IllegalMoveError):
    """A roll that real dice cannot show, or that differs from the program's roll."""


class DieUsedError(IllegalMoveError):
    """A die (or the sum) that is not available any more this turn."""


class NotYourPawnError(IllegalMoveError):
    """A pawn that does not exist or belongs to another player."""


class PawnOffBoardError(IllegalMoveError):
    """A pawn that is already in the centre or has been captured."""


class StartLaneError(IllegalMoveError):
    """A pawn in its start lane with too small a number to reach the outer circle."""


class BridgeError(IllegalMoveError):
    """A crossing from a square that is not a bridge, or into the centre without a 1."""


class StackError(IllegalMoveError):
    """A stack that does not exist, would grow past two, or may not cross (variant)."""


class CaptureError(IllegalMoveError):
    """A single pawn landing on an enemy stack."""
