"""Errors raised by :mod:`hardware`.

Each subclasses :class:`HardwareError` and the built-in exception that matches
its meaning (the gpiozero convention), so callers may catch either. Messages
are written for the person wiring or debugging the board.
"""

from __future__ import annotations

from collections.abc import Sequence

from configuration import ConfigError


class HardwareError(Exception):
    """Base class of every error raised by :mod:`hardware`."""


class HardwareConfigError(HardwareError, ConfigError):
    """The ``[hardware]`` section cannot describe a board that works.

    ``problems`` lists every problem found, one sentence each.
    """

    def __init__(
        self, problems: Sequence[str] | str, *, source: str | None = "[hardware]",
        parts: Sequence[ConfigError] = (),
    ) -> None:
        super().__init__(problems, source=source, parts=parts)


class BoardConfigError(HardwareConfigError):
    """The ``[board]`` section (the board service's settings) is not valid."""

    def __init__(
        self, problems: Sequence[str] | str, *, source: str | None = "[board]",
        parts: Sequence[ConfigError] = (),
    ) -> None:
        super().__init__(problems, source=source, parts=parts)


class PinAccessError(HardwareError, RuntimeError):
    """The GPIO pins cannot be reached (no pin factory, pins busy, not a Pi)."""


class UnknownBackendError(HardwareError, LookupError):
    """A board backend name that does not exist."""


class WiringError(HardwareError, ValueError):
    """The wiring wizard cannot do that: no raw channels on this board, saved progress that does not
    fit it, an action that makes no sense now. The message says what to do."""
