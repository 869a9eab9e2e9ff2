"""The uplink's settings (``[uplink]``) and the broker connection both ends share.

``[uplink]`` is read on a board; the event server reads the same broker keys
from its ``[central]`` section (:meth:`BrokerSettings.read` on that section),
so a board and the server are configured with the same words. Every key is
documented in config.example.toml.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

from configuration import ConfigError, Section, SectionSettings
from protocol import NAME, BrokerAddress
from uplink.exc import UplinkConfigError

DEFAULT_BROKER = "mqtt://127.0.0.1:1883"


@dataclass(frozen=True)
class BrokerSettings:
    """How to reach the broker and who to be there."""

    address: BrokerAddress = field(default_factory=lambda: BrokerAddress.parse(DEFAULT_BROKER))
    username: str = ""
    """Empty: the board id on a board, ``central`` on the event server."""
    password: str = ""
    password_file: Path | None = None
    """A file holding the password (first line): what install.sh writes, readable by the uplink only."""
    ca_file: Path | None = None
    """The certificate authority that signed the broker's TLS certificate; None: the system's."""
    keepalive: int = 15
    """Seconds: a client silent for 1.5 times this is dropped by the broker, which then sends its will."""

    @classmethod
    def read(cls, s: Section) -> BrokerSettings:
        url = s.text("broker", DEFAULT_BROKER)
        try:
            address = BrokerAddress.parse(url)
        except ValueError as exc:
            s.problem(str(exc))
            address = BrokerAddress.parse(DEFAULT_BROKER)
        settings = cls(
            address=address,
            username=s.text("username", cls.username),
            password=s.text("password", cls.password),
            password_file=s.path("password_file", None),
            ca_file=s.path("ca_file", None),
            keepalive=s.integer("keepalive_s", cls.keepalive, minimum=5, maximum=600),
        )
        if settings.password and settings.password_file:
            s.problem("give password or password_file, not both")
        if settings.ca_file is not None and not address.tls:
            s.problem(f"ca_file is for a TLS broker (mqtts://), but broker is {address.url}")
        return settings

    def secret(self) -> str | None:
        """The password (read from its file now), or None for a broker without accounts."""
        if self.password_file is not None:
            try:
                text = self.password_file.read_text(encoding="utf-8")
            except OSError as exc:
                raise UplinkConfigError(
                    f"password_file {self.password_file}: cannot read it ({exc.strerror})"
                ) from None
            lines = text.splitlines()
            if not lines or not lines[0].strip():
                raise UplinkConfigError(f"password_file {self.password_file} is empty")
            return lines[0].strip()
        return self.password or None


@dataclass(frozen=True)
class UplinkSettings(SectionSettings):
    """Typed ``[uplink]`` settings: which event this board reports to, as whom, and how."""

    section: ClassVar[str] = "uplink"
    error: ClassVar[type[ConfigError]] = UplinkConfigError

    event: str = ""
    """Empty: the board is not part of an event (the uplink refuses to start)."""
    board_id: str = ""
    broker: BrokerSettings = field(default_factory=BrokerSettings)
    poll_interval: float = 0.1
    """The least time between two reads of the board state; where the database's writes cannot be
    watched (no inotify), how often the outbox and the board state are read for something new."""
    ack_wait: float = 2.0
    """After connecting, how long to wait for the server's retained ack before sending from the start."""
    max_inflight: int = 100
    """Outbox rows published and not yet acknowledged by the broker, at most."""
    resend_after: float = 5.0
    """Rows sent that the server has not acknowledged after this long (its acks stopped moving) are sent
    again: the broker took them, but nobody was there to store them (the event server was down)."""
    live_interval: float = 0.25
    """The live board is sent on change, at most once per this many seconds."""
    status_every: float = 30.0
    """The status is sent again at least this often, unchanged: the server's "last seen" of an idle board."""
    service_stale: float = 5.0
    """The board service's heartbeat older than this: the board reports it as not running."""

    @classmethod
    def read(cls, s: Section) -> UplinkSettings:
        settings = cls(
            event=s.text("event", cls.event),
            board_id=s.text("board_id", cls.board_id),
            broker=BrokerSettings.read(s),
            poll_interval=s.number("poll_ms", cls.poll_interval, minimum=10, maximum=5000, unit="ms"),
            ack_wait=s.number("ack_wait_s", cls.ack_wait, minimum=0.1, maximum=60),
            max_inflight=s.integer("max_inflight", cls.max_inflight, minimum=1, maximum=1000),
            resend_after=s.number("resend_after_s", cls.resend_after, minimum=0.5),
            live_interval=1 / s.number("live_max_per_s", 1 / cls.live_interval, above=0, maximum=50),
            status_every=s.number("status_every_s", cls.status_every, minimum=1),
            service_stale=s.number("service_stale_s", cls.service_stale, above=0),
        )
        for key, value in (("event", settings.event), ("board_id", settings.board_id)):
            if value and not NAME.match(value):
                s.problem(f"{key} must be 1 to 40 characters among a-z, 0-9 and '-', not {value!r}")
        return settings

    @property
    def username(self) -> str:
        return self.broker.username or self.board_id

    def missing(self) -> list[str]:
        """What the uplink needs and the settings do not say."""
        return [
            f"[uplink] {key} is not set"
            for key, value in (("event", self.event), ("board_id", self.board_id))
            if not value
        ]
