"""Errors raised by :mod:`firmware_bridge` on the host.

Each subclasses :class:`LinkError` and the built-in exception that matches its
meaning (the gpiozero convention). Faults of a running link (a pulled cable, a
damaged frame, a silent device) are not raised: the driver reports them as
link events and keeps going.
"""

from __future__ import annotations


class LinkError(Exception):
    """Base class of every error raised by :mod:`firmware_bridge`."""


class LinkConfigError(LinkError, ValueError):
    """The ``[serial]`` settings cannot describe a working link.

    ``problems`` lists every problem found, one sentence each.
    """

    def __init__(self, problems: list[str] | str, *, source: str = "[serial]") -> None:
        self.problems = [problems] if isinstance(problems, str) else list(problems)
        self.source = source
        super().__init__(f"{source}: " + "; ".join(self.problems))


class LinkClosedError(LinkError, RuntimeError):
    """The link was used after :meth:`BoardLink.close`."""
