"""Data files of the games: the layouts and boards that ship with a package, or a builder's own file.

A Haute-Tension layout, a Hypnosia board and a |Hop> board are all JSON files
read the same way: by name from a folder of the package that ships them, or
by path from a file a board builder wrote. Shipped files never change, so
each is parsed once and shared; a builder's file is read again on every load
(it may be edited between two loads). Every way a file can fail -- unknown
name, unreadable file, invalid JSON -- raises the kind's own
:class:`~games.exc.ProblemsError`, naming where to look.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any, Generic, TypeVar

from games.exc import ProblemsError

T = TypeVar("T")


class DataFiles(Generic[T]):
    """The data files of one kind: shipped in ``package``/``folder``, or given by path.

    ``parse(data, source)`` builds the object from the decoded JSON (raising
    ``error`` with every problem); ``unknown`` is raised for a name that is
    neither shipped nor a file; ``what`` names the kind in messages
    ("layout", "board").
    """

    def __init__(
        self,
        package: str,
        folder: str,
        *,
        parse: Callable[[Any, str], T],
        error: type[ProblemsError],
        unknown: type[ProblemsError],
        what: str,
    ) -> None:
        self.package = package
        self.folder = folder
        self.parse = parse
        self.error = error
        self.unknown = unknown
        self.what = what
        self._shipped: dict[str, T] = {}

    def names(self) -> list[str]:
        """Names of the files shipped with the package, sorted."""
        folder = resources.files(self.package) / self.folder
        return sorted(p.name.removesuffix(".json") for p in folder.iterdir() if p.name.endswith(".json"))

    def load(self, name_or_path: str | Path) -> T:
        """A shipped file by name (parsed once), or a file by path (read again each time)."""
        key = str(name_or_path)
        if key in self._shipped:
            return self._shipped[key]
        shipped = key in self.names()
        text, source = self._read(key, shipped)
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise self.error(f"not valid JSON ({exc.msg} at line {exc.lineno})", source=source) from None
        loaded = self.parse(data, source)
        if shipped:
            self._shipped[key] = loaded
        return loaded

    def _read(self, key: str, shipped: bool) -> tuple[str, str]:
        if shipped:
            shipped_file = resources.files(self.package) / self.folder / f"{key}.json"
            return shipped_file.read_text(encoding="utf-8"), key
        path = Path(key)
        if not path.is_file():
            raise self.unknown(
                f"no {self.what} named {key!r} and no such file "
                f"(shipped {self.what}s: {', '.join(self.names())})",
                source=key,
            )
        try:
            return path.read_text(encoding="utf-8"), str(path)
        except (OSError, UnicodeDecodeError) as exc:
            raise self.error(f"cannot read the file ({exc})", source=str(path)) from None
