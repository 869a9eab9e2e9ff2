"""The settings reader: one section of the configuration file, read key by key.

Each package declares its section in a few lines::

    with config.read("board", error=BoardConfigError) as board:
        settings = BoardSettings(
            backend=board.choice("backend", BACKEND_NAMES, BoardSettings.backend),
            settle=board.number("settle_ms", BoardSettings.settle, minimum=0, unit="ms"),
            ...
        )
    return settings

A reader never raises while it reads: a bad value is noted as a problem and
the default stands in for it, so the next key is read too. Leaving the
``with`` block (or :meth:`Section.close`) notes every key that nobody read as
unknown, then raises the section's error listing every problem at once.
Defaults are given in the settings' units; ``unit`` converts what the file
says into seconds (``settle_ms = 200`` read with ``unit="ms"`` is 0.2 s);
bounds are in the file's unit, as its readers see them.

:func:`read_all` reads several sections and raises one error listing every
problem of every section (what ``hautetension config check`` reports).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar

from configuration.exc import ConfigError

T = TypeVar("T")

_MISSING: Any = object()
_PER_SECOND = {"s": 1.0, "ms": 1e3, "us": 1e6}
"""The time units a file may count in. Dividing (not multiplying by 1e-3) gives exactly the
float that the same number of seconds written in the code gives."""


class Section:
    """One table of the configuration file (or a table inside one), read key by key."""

    def __init__(
        self,
        data: Any,
        *,
        name: str,
        source: str | None = None,
        error: type[ConfigError] = ConfigError,
        prefix: str = "",
        problems: list[str] | None = None,
    ) -> None:
        self.name = name
        self.source = source
        self.error = error
        self.problems: list[str] = [] if problems is None else problems
        """Every problem found so far, one sentence each (shared with the tables inside this one)."""
        self._prefix = prefix
        self._read: set[str] = set()
        self._read_order: list[str] = []
        self._children: list[Section] = []
        if not isinstance(data, Mapping):
            self.problem(f"{name} must be a table, not {data!r}")
            data = {}
        self.data: Mapping[str, Any] = data

    def __contains__(self, key: object) -> bool:
        """Whether the file sets *key* (a key whose presence changes what the others mean)."""
        return key in self.data

    # -- the with block ------------------------------------------------------------

    def __enter__(self) -> Section:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if exc_type is None:
            self.close()

    def close(self) -> None:
        """Note the keys nobody read, then raise every problem at once (if there is any)."""
        self._note_unknown()
        if self.problems:
            raise self.error(self.problems, source=self.source) if self.source else self.error(self.problems)

    def _note_unknown(self) -> None:
        for key in self.data:
            if key not in self._read:
                self.problem(f"unknown key {self._prefix + str(key)!r}")
        for child in self._children:
            child._note_unknown()

    # -- problems --------------------------------------------------------------------

    def problem(self, message: str) -> None:
        """Note a problem this reader cannot see by itself (a combination of values)."""
        self.problems.append(message)

    def check(self, problems: Iterable[str]) -> None:
        """Note every problem of *problems* (a settings object's own cross-checks)."""
        self.problems.extend(problems)

    def _get(self, key: str) -> Any:
        if key not in self._read:
            self._read.add(key)
            self._read_order.append(key)
        return self.data.get(key, _MISSING)

    def _bad(self, key: str, what: str, value: Any) -> None:
        self.problem(f"{self._prefix}{key} must be {what}, not {value!r}")

    def _missing(self, key: str, what: str = "") -> None:
        self.problem(f"{self._prefix}{key} is missing{f' ({what})' if what else ''}")

    # -- values ------------------------------------------------------------------------

    def raw(self, key: str, default: Any = None) -> Any:
        """The value as the file has it (for a table whose keys are data, like slot names)."""
        value = self._get(key)
        return default if value is _MISSING else value

    def number(
        self,
        key: str,
        default: float,
        *,
        minimum: float | None = None,
        above: float | None = None,
        maximum: float | None = None,
        unit: str = "s",
    ) -> float:
        """A number (integer or not) within the bounds; in seconds if *unit* is ``"ms"`` or ``"us"``."""
        value = self._get(key)
        if value is _MISSING:
            return default
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            self._bad(key, "a number", value)
            return default
        if not self._within(key, value, minimum, above, maximum):
            return default
        return float(value) / _PER_SECOND[unit]

    def integer(
        self,
        key: str,
        default: int,
        *,
        minimum: int | None = None,
        maximum: int | None = None,
        what: str = "an integer",
        required: bool = False,
    ) -> int:
        """A whole number within the bounds; *what* names it in the message (``"a GPIO number"``)."""
        value = self._get(key)
        if value is _MISSING:
            if required:
                self._missing(key)
            return default
        if isinstance(value, bool) or not isinstance(value, int):
            self._bad(key, what, value)
            return default
        if not self._within(key, value, minimum, None, maximum):
            return default
        return value

    def integers(
        self, key: str, default: tuple[int, ...], *, what: str = "an integer", plural: str = "integers"
    ) -> tuple[int, ...]:
        """A list of whole numbers (each checked like :meth:`integer`)."""
        value = self._get(key)
        if value is _MISSING:
            return default
        if not isinstance(value, list):
            self._bad(key, f"a list of {plural}", value)
            return default
        result = []
        for index, item in enumerate(value):
            if isinstance(item, bool) or not isinstance(item, int):
                self._bad(f"{key}[{index}]", what, item)
            else:
                result.append(item)
        return tuple(result)

    def choice(
        self,
        key: str,
        choices: Sequence[str],
        default: str,
        *,
        aliases: Mapping[str, str] | None = None,
        required: bool = False,
    ) -> str:
        """One of *choices* (an alias stands for its choice)."""
        value = self._get(key)
        if value is _MISSING:
            if required:
                self._missing(key, " or ".join(f'"{c}"' for c in choices))
            return default
        if isinstance(value, str) and aliases and value in aliases:
            value = aliases[value]
        if not isinstance(value, str) or value not in choices:
            self._bad(key, f"one of {', '.join(map(repr, choices))}", value)
            return default
        return value

    def flag(self, key: str, default: bool) -> bool:
        value = self._get(key)
        if value is _MISSING:
            return default
        if not isinstance(value, bool):
            self._bad(key, "true or false", value)
            return default
        return value

    def text(self, key: str, default: str, *, what: str = "a string", empty: bool = True) -> str:
        """A string (*empty*: the empty string is allowed)."""
        value = self._get(key)
        if value is _MISSING:
            return default
        if not isinstance(value, str) or not (value or empty):
            self._bad(key, what, value)
            return default
        return value

    def path(self, key: str, default: Path | None) -> Path | None:
        """A file's path; the empty string keeps the default."""
        value = self._get(key)
        if value is _MISSING:
            return default
        if not isinstance(value, str | Path):
            self._bad(key, "a path", value)
            return default
        return Path(value) if str(value) else default

    def _within(
        self, key: str, value: float, minimum: float | None, above: float | None, maximum: float | None
    ) -> bool:
        if minimum is not None and maximum is not None and not minimum <= value <= maximum:
            self._bad(key, f"{minimum:g}-{maximum:g}", value)
        elif minimum is not None and value < minimum:
            self._bad(key, f"at least {minimum:g}", value)
        elif above is not None and value <= above:
            self._bad(key, f"more than {above:g}", value)
        elif maximum is not None and value > maximum:
            self._bad(key, f"at most {maximum:g}", value)
        else:
            return True
        return False

    # -- tables inside the section -------------------------------------------------

    def table(self, key: str, *, what: str = "a table") -> Section:
        """A table of settings inside this one (``[hardware.debounce]``); empty if absent."""
        value = self._get(key)
        if value is not _MISSING and not isinstance(value, Mapping):
            self._bad(key, what, value)
        return self._child({} if value is _MISSING or not isinstance(value, Mapping) else value, key)

    def tables(self, key: str, *, what: str = "a table of tables") -> dict[str, Section] | None:
        """A table of named tables (``[hardware.lamps]``: lamp name → its settings); None if absent."""
        value = self._get(key)
        if value is _MISSING:
            return None
        if not isinstance(value, Mapping):
            self._bad(key, what, value)
            return {}
        return {str(name): self._child(entry, f"{key}.{name}") for name, entry in value.items()}

    def table_list(self, key: str, *, what: str = "a list of tables") -> list[Section]:
        """An array of tables (``[[hardware.references]]``); empty if absent."""
        value = self._get(key)
        if value is _MISSING:
            return []
        if not isinstance(value, list):
            self._bad(key, what, value)
            return []
        return [self._child(entry, f"{key}[{index}]") for index, entry in enumerate(value)]

    def _child(self, data: Any, key: str) -> Section:
        name = self._prefix + key
        child = Section(data, name=name, prefix=name + ".", problems=self.problems)
        self._children.append(child)
        return child


def keys_of(read: Callable[[Section], object]) -> tuple[str, ...]:
    """Every key the section declaration *read* knows, in the order it reads them
    (what the example configuration must document)."""
    section = Section({}, name="keys")
    read(section)
    return tuple(section._read_order)


def read_all(config: T, readers: Mapping[str, Callable[[T], object]]) -> dict[str, object]:
    """Every section *readers* name, read from *config*; one error listing every problem of every section."""
    results: dict[str, object] = {}
    errors: list[ConfigError] = []
    for name, read in readers.items():
        try:
            results[name] = read(config)
        except ConfigError as exc:
            errors.append(exc)
    if errors:
        raise ConfigError.gather(errors)
    return results
