"""The ``[panel]`` section of the configuration file, as typed settings.

Every key is optional; the defaults serve the panel on the loopback
interface, which is what ``make run`` wants. See ``config.example.toml``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from configuration import ConfigError, ConfigFile, database_path

SECRET_KEY_FILENAME = "panel-secret.key"
STAFF_PIN_FILENAME = "staff-pin.hash"


@dataclass(frozen=True)
class PanelSettings:
    """How the panel serves and guards itself."""

    database: Path = Path("var/hautetension.db")
    host: str = "127.0.0.1"
    port: int = 8080
    threads: int = 0
    """waitress worker threads; 0 means ``max_streams + 16`` (each open event stream holds one)."""
    max_streams: int = 64
    stream_max_seconds: float = 120.0
    """An event stream ends after this long; the browser reconnects and resumes."""
    heartbeat_seconds: float = 15.0
    poll_interval: float = 0.025
    """How often the journal is checked for a new board state."""
    command_timeout: float = 3.0
    service_stale_seconds: float = 5.0
    """The service writes its health about once a second; older than this, it is not running."""
    staff_pin_hash: str = ""
    staff_pin_file: Path | None = None
    secret_key_file: Path | None = None
    session_hours: float = 8.0
    login_attempts: int = 5
    login_window_seconds: float = 60.0
    secure_cookies: bool = False
    """Set when the panel is served over HTTPS (a reverse proxy) so cookies carry ``Secure``."""

    @classmethod
    def from_config(cls, config: ConfigFile) -> PanelSettings:
        section = dict(config.section("panel"))
        section.setdefault("database", str(database_path(config)))
        return cls.from_section(section, source=config.describe())

    @classmethod
    def from_section(cls, section: Mapping[str, Any], *, source: str = "[panel]") -> PanelSettings:
        known = {f.name: f for f in fields(cls)}
        unknown = sorted(set(section) - set(known))
        if unknown:
            raise ConfigError(f"{source}: unknown [panel] key(s): {', '.join(unknown)}")
        values: dict[str, Any] = {}
        for name, value in section.items():
            values[name] = _convert(name, value, known[name].default, source)
        settings = cls(**values)
        settings.check(source)
        return settings

    def check(self, source: str = "[panel]") -> None:
        problems = []
        if not 0 < self.port < 65536:
            problems.append(f"port must be 1-65535, not {self.port}")
        if self.max_streams < 1:
            problems.append("max_streams must be at least 1")
        if self.threads and self.threads <= self.max_streams:
            problems.append(f"threads ({self.threads}) must exceed max_streams ({self.max_streams})")
        for name in (
            "stream_max_seconds",
            "heartbeat_seconds",
            "poll_interval",
            "command_timeout",
            "service_stale_seconds",
            "session_hours",
            "login_window_seconds",
        ):
            if getattr(self, name) <= 0:
                problems.append(f"{name} must be positive")
        if self.login_attempts < 1:
            problems.append("login_attempts must be at least 1")
        if problems:
            raise ConfigError(f"{source}: " + "; ".join(problems))

    @property
    def worker_threads(self) -> int:
        return self.threads or self.max_streams + 16

    @property
    def secret_key_path(self) -> Path:
        return self.secret_key_file or self.database.parent / SECRET_KEY_FILENAME

    @property
    def staff_pin_path(self) -> Path:
        return self.staff_pin_file or self.database.parent / STAFF_PIN_FILENAME


def _convert(name: str, value: Any, default: Any, source: str) -> Any:
    def bad(kind: str) -> ConfigError:
        return ConfigError(f"{source}: [panel] {name} must be {kind}, not {value!r}")

    if name in ("database", "staff_pin_file", "secret_key_file"):
        if not isinstance(value, str | Path):
            raise bad("a path")
        return Path(value) if str(value) else None if name != "database" else Path(default)
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise bad("true or false")
        return value
    if isinstance(default, int):
        if isinstance(value, bool) or not isinstance(value, int):
            raise bad("an integer")
        return value
    if isinstance(default, float):
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise bad("a number")
        return float(value)
    if not isinstance(value, str):
        raise bad("a string")
    return value
