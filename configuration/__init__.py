"""The configuration leaf: the file every process reads, and the reader of its sections.

It imports only the standard library, so every package may import it
(DESIGN §2). Packages receive a parsed :class:`ConfigFile` (or their typed
section) from the ``hautetension`` command; none of them finds or reads the
file itself.
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
    database_path,
    load_config,
    resolve_path,
)

__all__ = [
    "CONFIG_OPTION_HELP",
    "DEFAULT_DEV_DATABASE",
    "DEFAULT_PATH",
    "DEFAULT_SYSTEM_DATABASE",
    "ENV_VAR",
    "EX_CONFIG",
    "ConfigError",
    "ConfigFile",
    "database_path",
    "load_config",
    "resolve_path",
]
