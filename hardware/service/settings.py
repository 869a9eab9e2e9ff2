"""The board service's own settings: the ``[board]`` section of the configuration file."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from configuration import ConfigError, Section, SectionSettings
from games.hautetension.layout import DEFAULT_LAYOUT
from hardware.exc import BoardConfigError

BACKEND_NAMES = ("sim", "gpio", "serial")
"""``mock`` is accepted as an alias of ``sim``."""


@dataclass(frozen=True)
class BoardSettings(SectionSettings):
    """Typed ``[board]`` settings (every key is documented in config.example.toml)."""

    section: ClassVar[str] = "board"
    error: ClassVar[type[ConfigError]] = BoardConfigError

    backend: str = "sim"
    layout: str = DEFAULT_LAYOUT
    min_turn: float = 1.0
    settle: float = 0.2
    health_interval: float = 1.0
    command_interval: float = 0.02
    sim_board_file: str | None = None

    @classmethod
    def read(cls, s: Section) -> BoardSettings:
        """The settings the ``[board]`` table *s* declares (its problems are noted in *s*)."""
        return cls(
            backend=s.choice("backend", BACKEND_NAMES, cls.backend, aliases={"mock": "sim"}),
            layout=s.text("layout", cls.layout) or cls.layout,
            min_turn=s.number("min_turn_s", cls.min_turn, minimum=0),
            settle=s.number("settle_ms", cls.settle, minimum=0, unit="ms"),
            health_interval=s.number("health_interval_s", cls.health_interval, minimum=0.05),
            command_interval=s.number("command_interval_ms", cls.command_interval, minimum=1, unit="ms"),
            sim_board_file=s.text("sim_board_file", "") or None,
        )
