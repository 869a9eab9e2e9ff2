"""Finding and parsing the configuration file every process shares.

Where it is read from, first match wins:

1. the path given on the command line (``--config``);
2. the path in the ``HAUTETENSION_CONFIG`` environment variable;
3. ``/etc/hautetension/config.toml`` if it exists;
4. nothing: the embedded defaults (the simulated board), so ``make run``
   needs no configuration at all.

This module only finds and parses the file; each package turns its own
section (``[board]``, ``[hardware]``, ``[serial]``, ``[store]``, ``[panel]``,
``[lobby]``) into typed settings, a :class:`SectionSettings` read with
:meth:`ConfigFile.read` (see :mod:`configuration.reader`). Every key is documented in
``config.example.toml`` at the root of the repository.
"""

from __future__ import annotations

import abc
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Self

from configuration.exc import ConfigError
from configuration.reader import Section

DEFAULT_PATH = Path("/etc/hautetension/config.toml")
ENV_VAR = "HAUTETENSION_CONFIG"
DEFAULT_SYSTEM_DATABASE = Path("/var/lib/hautetension/hautetension.db")
DEFAULT_DEV_DATABASE = Path("var/hautetension.db")
CONFIG_OPTION_HELP = f"configuration file (default: ${ENV_VAR}, {DEFAULT_PATH}, else built-in defaults)"
"""The help of a command's ``--config`` option: where :func:`load_config` looks without it."""
EX_CONFIG = 78
"""Exit status for a configuration that cannot work (systemd: RestartPreventExitStatus)."""


@dataclass(frozen=True)
class ConfigFile:
    """A parsed configuration file (or the empty default) and where it came from."""

    data: dict[str, Any] = field(default_factory=dict)
    path: Path | None = None

    def section(self, name: str) -> dict[str, Any]:
        value = self.data.get(name, {})
        if not isinstance(value, dict):
            raise ConfigError(f"{self.describe()}: [{name}] must be a table")
        return value

    def describe(self) -> str:
        return str(self.path) if self.path else "built-in defaults"

    def read(self, name: str, *, error: type[ConfigError] = ConfigError) -> Section:
        """A reader of section ``[name]``: it raises *error* listing every problem when it is closed."""
        return Section(self.data.get(name, {}), name=f"[{name}]", source=f"{self.describe()} [{name}]",
                       error=error)

    def with_values(self, name: str, values: Mapping[str, Any]) -> ConfigFile:
        """This file with keys of ``[name]`` set (a command line's options); ``None`` values are left out."""
        section = {**self.section(name), **{k: v for k, v in values.items() if v is not None}}
        return ConfigFile(data={**self.data, name: section}, path=self.path)


def resolve_path(explicit: str | os.PathLike[str] | None = None) -> Path | None:
    """The configuration file to read, or ``None`` for the built-in defaults."""
    if explicit:
        return Path(explicit)
    from_env = os.environ.get(ENV_VAR)
    if from_env:
        return Path(from_env)
    if DEFAULT_PATH.is_file():
        return DEFAULT_PATH
    return None


def load_config(explicit: str | os.PathLike[str] | None = None) -> ConfigFile:
    """Find and parse the configuration file (see the module docstring)."""
    path = resolve_path(explicit)
    if path is None:
        return ConfigFile()
    try:
        with path.open("rb") as handle:
            data = tomllib.load(handle)
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such configuration file") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc})") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read it ({exc.strerror})") from None
    return ConfigFile(data=data, path=path)


class SectionSettings(abc.ABC):
    """Settings read from one section of the configuration file.

    A settings class names its section and its error, and declares how the
    section is read (:meth:`read`, with the reader of :mod:`configuration.reader`);
    reading it from the parsed file (:meth:`from_config`) or from the table alone
    (:meth:`from_dict`: a table handed over by another reader, a test) is then
    the same for every section::

        @dataclass(frozen=True)
        class BoardSettings(SectionSettings):
            section: ClassVar[str] = "board"
            error: ClassVar[type[ConfigError]] = BoardConfigError
            settle: float = 0.2

            @classmethod
            def read(cls, s: Section) -> BoardSettings:
                return cls(settle=s.number("settle_ms", cls.settle, minimum=0, unit="ms"))
    """

    section: ClassVar[str]
    """The section's name in the file (``board`` for ``[board]``)."""
    error: ClassVar[type[ConfigError]] = ConfigError
    """What a bad section raises: the package's own configuration error."""

    @classmethod
    @abc.abstractmethod
    def read(cls, s: Section) -> Self:
        """The settings the section *s* declares (its problems are noted in *s*)."""

    @classmethod
    def from_config(cls, config: ConfigFile) -> Self:
        """Parse the section of *config*; raise :attr:`error` listing every bad key."""
        with config.read(cls.section, error=cls.error) as section:
            return cls.read(section)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, source: str | None = None) -> Self:
        """Parse the section's table alone (*source* says where it comes from in messages)."""
        name = f"[{cls.section}]"
        with Section(data, name=name, source=source or name, error=cls.error) as section:
            return cls.read(section)


@dataclass(frozen=True)
class StoreSettings(SectionSettings):
    """The ``[store]`` section: where the shared database is, and its rolling backups.

    Read here, in the leaf, because every process needs the database's path."""

    section: ClassVar[str] = "store"

    path: Path | None = None
    """The database; None: the default (see :func:`database_path`)."""
    backups_kept: int = 10
    """Rolling backups kept of each kind (game ends, tournament rounds); 0: none are made."""
    backup_folder: Path | None = None
    """Where rolling backups go; None: ``backups/`` beside the database."""

    @classmethod
    def read(cls, s: Section) -> StoreSettings:
        return cls(
            path=s.path("path", None),
            backups_kept=s.integer("backups_kept", cls.backups_kept, minimum=0),
            backup_folder=s.path("backup_folder", None),
        )

    def folder_for(self, database: str | os.PathLike[str]) -> Path:
        """Where the rolling backups of *database* go."""
        return self.backup_folder or Path(database).parent / "backups"


def database_path(config: ConfigFile) -> Path:
    """Where the shared SQLite database lives: ``[store] path``, else a default.

    With a configuration file (an installed Pi) the default is under
    ``/var/lib/hautetension``; with the built-in defaults (a development
    checkout, ``make run``) it is ``var/hautetension.db`` in the current folder.
    """
    configured = StoreSettings.from_config(config).path
    if configured is not None:
        return configured
    return DEFAULT_SYSTEM_DATABASE if config.path else DEFAULT_DEV_DATABASE
