"""The one error of the configuration: every problem found, listed at once.

Each package's own configuration error (``HardwareConfigError``,
``BoardConfigError``, ``LinkConfigError``) subclasses :class:`ConfigError`
and its package's base error, so a caller may catch either.
"""

from __future__ import annotations

from collections.abc import Sequence


class ConfigError(ValueError):
    """The configuration file cannot be used as it is.

    ``problems`` lists every problem found, one sentence each; ``source`` says
    where (the file and its section, like ``/etc/hautetension/config.toml
    [board]``), if known. An error gathered from several sections keeps each
    section's own error in ``parts``.
    """

    def __init__(
        self,
        problems: Sequence[str] | str,
        *,
        source: str | None = None,
        parts: Sequence[ConfigError] = (),
    ) -> None:
        self.problems = [problems] if isinstance(problems, str) else list(problems)
        self.source = source
        self.parts: tuple[ConfigError, ...] = tuple(parts) or (self,)
        text = "; ".join(self.problems)
        super().__init__(f"{source}: {text}" if source else text)

    @classmethod
    def gather(cls, errors: Sequence[ConfigError]) -> ConfigError:
        """One error listing every problem of *errors* (each under its own source)."""
        parts = tuple(part for error in errors for part in error.parts)
        problems = [f"{part.source}: {p}" if part.source else p for part in parts for p in part.problems]
        return cls(problems, parts=parts)
