"""The panel's sections of the configuration file, ``[panel]`` and ``[lobby]``, as typed settings.

Every key is optional; the defaults serve the panel on the loopback
interface, which is what ``make run`` wants. See ``config.example.toml``.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from configuration import (
    DEFAULT_DEV_DATABASE,
    ConfigError,
    ConfigFile,
    Section,
    SectionSettings,
    database_path,
    read_all,
)
from store.dialect import is_postgresql

DEFAULT_DATABASE = DEFAULT_DEV_DATABASE
SECRET_KEY_FILENAME = "panel-secret.key"
STAFF_PIN_FILENAME = "staff-pin.hash"
LANGUAGES = ("fr", "en")
"""The panel's languages (webpanel/translations/): the first is the default."""


@dataclass(frozen=True)
class PanelSettings(SectionSettings):
    """How the panel serves and guards itself."""

    section: ClassVar[str] = "panel"

    database: Path | str = DEFAULT_DEV_DATABASE
    """An SQLite file; on the event server also a PostgreSQL DSN (``postgresql://…``)."""
    host: str = "127.0.0.1"
    port: int = 8080
    threads: int = 0
    """waitress worker threads; 0 means ``max_streams + 16`` (each open event stream holds one)."""
    max_streams: int = 64
    max_streams_per_address: int = 8
    """Streams one client address may hold (every kind together): one address cannot take every place.
    Eight: a browser holds at most six connections to a host, and a few devices may share an address."""
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
    """Wrong PINs an address (or a known staff device) may send at once; its block may send four times
    as many. After that each try waits twice as long as the one before (webpanel/guesses.py)."""
    login_window_seconds: float = 3600.0
    """How long a wrong PIN counts against its address, block and device."""
    login_max_delay_seconds: float = 900.0
    """The longest wait between two tries of one address (block, device)."""
    secure_cookies: bool = False
    """Set when the panel is served over HTTPS (a reverse proxy) so cookies carry ``Secure``."""
    connection_limit: int = 0
    """Connections waitress holds at once; 0 fits it to the open-file limit (webpanel/serve.py)."""
    trusted_proxy: str = ""
    """The front server's address: only from it is ``X-Forwarded-For`` taken as the client's address."""
    language: str = LANGUAGES[0]
    """The pages' language when neither the visitor's switch nor their browser chooses one."""
    metrics_from: str = "127.0.0.1/8, ::1/128"
    """The networks ``GET /metrics`` answers (comma-separated, CIDR): staff information, the machine itself by
    default; add the Prometheus server's address."""
    live_publisher: str = ""
    """nginx's nchan publisher location (``http://127.0.0.1:8082/live/publish``): every change is published
    there once and nginx holds the live pages (webpanel/fanout.py); empty: the process serves its own."""

    @classmethod
    def from_config(cls, config: ConfigFile, *, database: Path | None = None) -> PanelSettings:
        """Parse ``[panel]``; raise :class:`ConfigError` listing every bad key. The database defaults
        to *database*, else to ``[store] path``."""
        database = database_path(config) if database is None else database
        with config.read(cls.section) as section:
            return cls.read(section, database=database)

    @classmethod
    def from_section(cls, section: Mapping[str, Any], *, source: str = "[panel]") -> PanelSettings:
        """The ``[panel]`` table alone (the database defaults to the development one)."""
        return cls.from_dict(section, source=source)

    @classmethod
    def read(cls, s: Section, *, database: Path = DEFAULT_DATABASE) -> PanelSettings:
        """The settings the ``[panel]`` table *s* declares (its problems are noted in *s*)."""
        settings = cls(
            database=s.path("database", database) or database,
            host=s.text("host", cls.host),
            port=s.integer("port", cls.port, minimum=1, maximum=65535),
            threads=s.integer("threads", cls.threads, minimum=0),
            max_streams=s.integer("max_streams", cls.max_streams, minimum=1),
            max_streams_per_address=s.integer(
                "max_streams_per_address", cls.max_streams_per_address, minimum=1
            ),
            stream_max_seconds=s.number("stream_max_seconds", cls.stream_max_seconds, above=0),
            heartbeat_seconds=s.number("heartbeat_seconds", cls.heartbeat_seconds, above=0),
            poll_interval=s.number("poll_interval", cls.poll_interval, above=0),
            command_timeout=s.number("command_timeout", cls.command_timeout, above=0),
            service_stale_seconds=s.number("service_stale_seconds", cls.service_stale_seconds, above=0),
            staff_pin_hash=s.text("staff_pin_hash", cls.staff_pin_hash),
            staff_pin_file=s.path("staff_pin_file", None),
            secret_key_file=s.path("secret_key_file", None),
            session_hours=s.number("session_hours", cls.session_hours, above=0),
            login_attempts=s.integer("login_attempts", cls.login_attempts, minimum=1),
            login_window_seconds=s.number("login_window_seconds", cls.login_window_seconds, above=0),
            login_max_delay_seconds=s.number("login_max_delay_seconds", cls.login_max_delay_seconds, above=0),
            secure_cookies=s.flag("secure_cookies", cls.secure_cookies),
            connection_limit=s.integer("connection_limit", cls.connection_limit, minimum=0),
            trusted_proxy=s.text("trusted_proxy", cls.trusted_proxy),
            language=s.choice("language", LANGUAGES, cls.language),
            metrics_from=s.text("metrics_from", cls.metrics_from),
            live_publisher=s.text("live_publisher", cls.live_publisher),
        )
        s.check(settings.problems())
        return settings

    def problems(self) -> list[str]:
        """Problems in combinations of values (each alone may be fine)."""
        problems = []
        if self.threads and self.threads <= self.max_streams:
            problems.append(f"threads ({self.threads}) must exceed max_streams ({self.max_streams})")
        if self.connection_limit and self.connection_limit <= self.worker_threads:
            problems.append(
                f"connection_limit ({self.connection_limit}) must exceed the worker threads "
                f"({self.worker_threads}): every live page holds a connection"
            )
        if self.live_publisher and not self.live_publisher.startswith("http://"):
            problems.append(f"live_publisher must be an http:// address (nginx on this machine), not "
                            f"{self.live_publisher!r}")
        if self.trusted_proxy and not _is_ip_address(self.trusted_proxy):
            problems.append(f"trusted_proxy must be an IP address, not {self.trusted_proxy!r}")
        for network in self.metrics_networks:
            try:
                ipaddress.ip_network(network, strict=False)
            except ValueError:
                problems.append(f"metrics_from lists networks like 192.168.1.0/24, not {network!r}")
        return problems

    @property
    def metrics_networks(self) -> list[str]:
        """The networks of :attr:`metrics_from`."""
        return [part.strip() for part in self.metrics_from.split(",") if part.strip()]

    @property
    def worker_threads(self) -> int:
        return self.threads or self.max_streams + 16

    @property
    def files(self) -> Path:
        """The folder of the panel's own files (secret key, staff PIN) when they are not set: the
        database's folder (on PostgreSQL, the folder of the default database)."""
        if is_postgresql(self.database):
            return DEFAULT_DATABASE.parent
        return Path(self.database).parent

    @property
    def secret_key_path(self) -> Path:
        return self.secret_key_file or self.files / SECRET_KEY_FILENAME

    @property
    def staff_pin_path(self) -> Path:
        return self.staff_pin_file or self.files / STAFF_PIN_FILENAME


def _is_ip_address(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


@dataclass(frozen=True)
class LobbySettings(SectionSettings):
    """The ``[lobby]`` section: how tablets reach the games lobby, and what it may hold."""

    section: ClassVar[str] = "lobby"

    public_url: str | None = None
    """The address tablets use to reach the panel (join links and QR codes); None: the request's."""
    max_open_games: int = 100
    """Games running at once in all (finished, abandoned and expired games do not count)."""
    max_open_games_per_device: int = 10
    """Games running at once that one device (client address) created; staff are not capped by it."""
    expire_idle_hours: float = 4.0
    """A game nobody moved in or joined for this long ends as expired."""
    computer_workers: int = 2
    """Threads that play the computer seats of every game, one move at a time (the rest queue)."""
    thinking_seconds: float = 1.0
    """Wall-clock seconds a searching computer level thinks at most per move (games.budget)."""
    cached_games: int = 64
    """Games kept loaded in memory (by version) so that looking at one does not replay it; 0: none."""
    cached_moves: int = 20_000
    """At most this many moves in all the games kept loaded (the memory bound with cached_games:
    measured at most ≈150 KiB per game and 2 KiB per move with every answer kept, ≈50 MiB in all)."""

    @classmethod
    def read(cls, s: Section) -> LobbySettings:
        url = s.text("public_url", "")
        if url and not url.startswith(("http://", "https://")):
            s.problem(f"public_url must be an http:// or https:// address, not {url!r}")
        settings = cls(
            public_url=url or None,
            max_open_games=s.integer("max_open_games", cls.max_open_games, minimum=1),
            max_open_games_per_device=s.integer("max_open_games_per_device", cls.max_open_games_per_device,
                                                minimum=1),
            expire_idle_hours=s.number("expire_idle_hours", cls.expire_idle_hours, above=0),
            computer_workers=s.integer("computer_workers", cls.computer_workers, minimum=1, maximum=64),
            thinking_seconds=s.number("thinking_seconds", cls.thinking_seconds, above=0, maximum=60),
            cached_games=s.integer("cached_games", cls.cached_games, minimum=0),
            cached_moves=s.integer("cached_moves", cls.cached_moves, minimum=0),
        )
        if settings.max_open_games_per_device > settings.max_open_games:
            s.problem(f"max_open_games_per_device ({settings.max_open_games_per_device}) cannot exceed "
                      f"max_open_games ({settings.max_open_games})")
        return settings

    @property
    def expire_idle_seconds(self) -> float:
        return self.expire_idle_hours * 3600.0


def panel_sections(config: ConfigFile) -> tuple[PanelSettings, LobbySettings]:
    """The panel's sections: ``[panel]``, ``[lobby]`` and the database's ``[store] path``; one error
    listing every problem of all three."""

    def panel(config: ConfigFile) -> PanelSettings:
        try:
            database = database_path(config)
        except ConfigError:
            database = DEFAULT_DATABASE  # [store] reports its own problems
        return PanelSettings.from_config(config, database=database)

    sections = read_all(config, {"store": database_path, "panel": panel, "lobby": LobbySettings.from_config})
    panel_settings, lobby = sections["panel"], sections["lobby"]
    assert isinstance(panel_settings, PanelSettings) and isinstance(lobby, LobbySettings)
    return panel_settings, lobby
