"""Errors of the Hypnosia engine, each with a reason a player understands."""

from __future__ import annotations

from games.exc import GameError, IllegalMoveError
from games.frame import BadMoveError


class BoardError(GameError, ValueError):
    """A board file describes a board that cannot be played.

    ``problems`` lists every problem found, one sentence each.
    """

    def __init__(self, problems: list[str] | str, *, source: str = "board") -> None:
        self.problems = [problems] if isinstance(problems, str) else list(problems)
        self.source = source
        super().__init__(f"{source}: " + "; ".join(self.problems))


class UnknownBoardError(BoardError, LookupError):
    """No board of that name ships with the game and no such file exists."""


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
