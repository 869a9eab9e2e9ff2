"""Errors raised by the rules engines.

Every error subclasses :class:`GameError` and the built-in exception that
matches its meaning, so callers can catch either (the gpiozero convention).
Messages are written for the player or staff member who caused them.
"""

from __future__ import annotations

from typing import ClassVar


class GameError(Exception):
    """Base class of every error raised by :mod:`games`.

    The message is English, for logs and programs. An error a person meets can also name what went
    wrong with a ``code`` (``"name_taken"``) and the facts its sentence is made of in ``details``
    (``{"name": "Ada"}``), so that a page says it in its own language: both are optional.
    """

    code: str | None = None
    details: dict[str, object]

    def __init__(self, *args: object, code: str | None = None, **details: object) -> None:
        super().__init__(*args)
        if code is not None:
            self.code = code
        self.details = details


class ProblemsError(GameError, ValueError):
    """A file that cannot be used, with every problem found in it.

    ``problems`` lists the problems, one sentence each; ``source`` names the
    file (or the shipped name) so the message says where to look.
    """

    default_source: ClassVar[str] = "file"

    def __init__(self, problems: list[str] | str, *, source: str | None = None) -> None:
        self.problems = [problems] if isinstance(problems, str) else list(problems)
        self.source = self.default_source if source is None else source
        super().__init__(f"{self.source}: " + "; ".join(self.problems))


class LayoutError(ProblemsError):
    """A layout file describes a board that cannot be wired."""

    default_source = "layout"


class UnknownLayoutError(LayoutError, LookupError):
    """No layout of that name ships with the package and no such file exists."""


class UnknownSlotError(GameError, KeyError):
    """A slot name that the layout does not have."""

    def __init__(self, slot: str) -> None:
        self.slot = slot
        super().__init__(slot)

    def __str__(self) -> str:
        return f"there is no slot {self.slot!r} on this board"


class IllegalMoveError(GameError, ValueError):
    """A move the rules forbid in the current position."""


class SlotTakenError(IllegalMoveError):
    """The slot already holds a pawn."""


class NoPawnLeftError(IllegalMoveError):
    """The player has no pawn of that kind left."""


class NotYourTurnError(IllegalMoveError):
    """Someone other than the player to move tried to play."""


class GameOverError(IllegalMoveError):
    """The game has ended; no more moves."""


class BadOptionsError(GameError, ValueError):
    """Players or options a digital game does not accept."""


class SetupError(GameError, ValueError):
    """A game cannot start this way (player count, lamps, handicap, first player)."""


class GameSetupError(SetupError):
    """A game setup with every problem found in it: ``problems``, one sentence each."""

    def __init__(self, problems: list[str] | str) -> None:
        self.problems = [problems] if isinstance(problems, str) else list(problems)
        super().__init__("; ".join(self.problems))


class NothingToUndoError(GameError, IndexError):
    """Undo was asked for but no placement has been made."""


class BoardError(ProblemsError):
    """A board file of a board game (|Hop>, Hypnosia) describes a board that cannot be played."""

    default_source = "board"


class UnknownBoardError(BoardError, LookupError):
    """No board of that name ships with the game and no such file exists."""


class BoardFileError(GameError, ValueError):
    """A board position file (which slots hold which pawns) is malformed."""


class ThinkingTimeError(GameError, ValueError):
    """A computer player's thinking time that cannot be used (negative, or not a number)."""


class RecordError(GameError, ValueError):
    """A game record (docs/game-record.md) that cannot be read: ``line`` is where (1 for the first)."""

    def __init__(self, line: int, problem: str) -> None:
        self.line = line
        self.problem = problem
        super().__init__(f"line {line}: {problem}")
