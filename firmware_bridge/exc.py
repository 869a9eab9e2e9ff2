"""Errors raised by :mod:`firmware_bridge` on the host.

Each subclasses :class:`LinkError` and the built-in exception that matches its
meaning (the gpiozero convention). Faults of a running link (a pulled cable, a
damaged frame, a silent device) are not raised: the driver reports them as
link events and keeps going.
"""

from __future__ import annotations

from collections.abc import Sequence

from configuration import ConfigError


class LinkError(Exception):
    """Base class of every error raised by :mod:`firmware_bridge`."""


class LinkConfigError(LinkError, ConfigError):
    """The ``[serial]`` settings cannot describe a working link.

    ``problems`` lists every problem found, one sentence each.
    """

    def __init__(
        self, problems: Sequence[str] | str, *, source: str | None = "[serial]",
        parts: Sequence[ConfigError] = (),
    ) -> None:
        super().__init__(problems, source=source, parts=parts)


class LinkClosedError(LinkError, RuntimeError):
    """The link was used after :meth:`BoardLink.close`."""


class ToolMissingError(LinkError, FileNotFoundError):
    """A development tool of the firmware is not installed.

    mpy-cross, Node.js or MicroPython's WebAssembly port: the message says
    which, and how to install it.
    """


class FirmwareCompileError(LinkError, ValueError):
    """mpy-cross refused a firmware file: it would not run on the device.

    ``file`` is the file's name on the device, ``details`` what mpy-cross said.
    """

    def __init__(self, file: str, details: str) -> None:
        self.file = file
        self.details = details
        super().__init__(f"{file} does not compile for MicroPython: {details}")


class MicroPythonError(LinkError, RuntimeError):
    """A script run under MicroPython's WebAssembly port failed; ``output`` holds what it printed."""

    def __init__(self, message: str, *, output: str = "") -> None:
        self.output = output
        super().__init__(message)
