"""The configuration leaf: the file every process reads, and the reader of its sections.

It imports only the standard library, so every package may import it
(DESIGN §2). Packages receive a parsed :class:`ConfigFile` (or their typed
section) from the ``hautetension`` command; none of them finds or reads the
file itself. Each package declares its own section as a
:class:`SectionSettings` whose ``read`` uses the section reader
(:mod:`configuration.reader`), which lists every problem of the section at
once in one :class:`ConfigError`.
"""

from __future__ import annotations

from configuration.exc import ConfigError
from configuration.file import (
    CONFIG_OPTION_HELP,
    DEFAULT_DEV_DATABASE,
    DEFAULT_PATH,
    DEFAULT_SYSTEM_DATABASE,
    ENV_VAR,
    EX_CONFIG,
    ConfigFile,
    SectionSettings,
    StoreSettings,
    database_path,
    load_config,
    resolve_path,
)
from configuration.reader import Section, keys_of, read_all

__all__ = [
    "CONFIG_OPTION_HELP",
    "DEFAULT_DEV_DATABASE",
    "DEFAULT_PATH",
    "DEFAULT_SYSTEM_DATABASE",
    "ENV_VAR",
    "EX_CONFIG",
    "ConfigError",
    "ConfigFile",
    "Section",
    "SectionSettings",
    "StoreSettings",
    "database_path",
    "keys_of",
    "load_config",
    "read_all",
    "resolve_path",
]
