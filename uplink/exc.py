"""Errors raised by :mod:`uplink`.

Each subclasses :class:`UplinkError` and the built-in exception that matches
its meaning (the gpiozero convention). A link that drops is not an error: both
ends reconnect by themselves and catch up from the last acknowledgement.
"""

from __future__ import annotations

from collections.abc import Sequence

from configuration import ConfigError


class UplinkError(Exception):
    """Base class of every error raised by :mod:`uplink`."""


class UplinkConfigError(UplinkError, ConfigError):
    """The ``[uplink]`` (or ``[central]``) settings cannot describe a working link.

    ``problems`` lists every problem found, one sentence each.
    """

    def __init__(
        self,
        problems: Sequence[str] | str,
        *,
        source: str | None = "[uplink]",
        parts: Sequence[ConfigError] = (),
    ) -> None:
        super().__init__(problems, source=source, parts=parts)

