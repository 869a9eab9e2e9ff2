"""Errors of the quantum tic-tac-toe engine, each with a readable reason."""

from __future__ import annotations

from games.exc import IllegalMoveError
from games.frame import BadMoveError


class NotationError(BadMoveError):
    """Not a quantum tic-tac-toe move: [a, b], [a] or {"collapse": square}."""


class SquareTakenError(IllegalMoveError):
    """A spooky mark aimed at a square that already holds a classical mark."""


class SameSquareError(IllegalMoveError):
    """Both spooky marks of a pair aimed at the same square."""


class CollapseFirstError(IllegalMoveError):
    """A pair played while a cycle waits for its collapse to be chosen."""


class NoCollapseError(IllegalMoveError):
    """A collapse chosen while no cycle waits for one."""


class CollapseSquareError(IllegalMoveError):
    """A collapse onto a square where the cycle's last mark is not."""


class LastSquareError(IllegalMoveError):
    """A classical mark [a] outside X's ninth move with one square left, or a
    pair when only that square is left."""
