"""The pin map and timing of a board, parsed from the ``[hardware]`` config section.

Every key is documented in ``config.example.toml`` and ``docs/hardware.md``.
The default describes the pinwheel-80 board of DESIGN §4: ten 16-channel
multiplexers (74HC4067 class) sharing four select lines, one signal GPIO per
multiplexer, the slots wired in reading order (slot *i* has its presence
contact on overall channel 2*i* and its conduction contact on 2*i*+1, i.e.
multiplexer ``i // 8``, channels ``2*(i % 8)`` and ``2*(i % 8) + 1``). That
map is computed, not listed, and any slot can be rewired in
``[hardware.slots]``.

Parsing (:meth:`HardwareSettings.from_config`) checks types and reports every
bad key at once; :func:`check_wiring` then checks the wiring against a layout
(two signals on one channel, channel out of range, a GPIO used twice, a slot
without a signal, …) before any pin is touched.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from configuration import ConfigFile
from games.hautetension.layout import Layout
from hardware.exc import HardwareConfigError

HEADER_GPIOS = range(0, 28)
"""The GPIOs on the Raspberry Pi's 40-pin header (BCM numbering)."""

DEFAULT_SELECT_GPIOS = (5, 6, 13, 19)
DEFAULT_SIGNAL_GPIOS = (4, 17, 18, 27, 22, 23, 24, 10, 9, 25)
DEFAULT_LAMP_GPIOS = {"N": 12, "E": 16, "S": 20, "W": 21}
DEFAULT_BUTTON_GPIO = 26
WIRINGS = ("sequential", "none")
PULLS = ("up", "down", "none")
BANK_READS = ("auto", "off")


class Signal(enum.Enum):
    """The two contacts of a slot."""

    PRESENCE = "presence"
    """Closed by any pawn standing in the slot."""
    CONDUCTION = "conduction"
    """Closed only through an attack pawn."""


@dataclass(frozen=True, order=True)
class ChannelRef:
    """One input of one multiplexer."""

    multiplexer: int
    channel: int

    def __str__(self) -> str:
        return f"multiplexer {self.multiplexer} channel {self.channel}"


@dataclass(frozen=True)
class SlotWiring:
    """Where a slot's two contacts are wired (``None``: not wired)."""

    presence: ChannelRef | None
    conduction: ChannelRef | None

    def channel_of(self, signal: Signal) -> ChannelRef | None:
        return self.presence if signal is Signal.PRESENCE else self.conduction


@dataclass(frozen=True)
class ReferenceChannel:
    """A spare channel tied to a known level, checked on every scan."""

    multiplexer: int
    channel: int
    level: bool
    """The electrical level it must read (True = high)."""

    @property
    def ref(self) -> ChannelRef:
        return ChannelRef(self.multiplexer, self.channel)


@dataclass(frozen=True)
class LampWiring:
    """A lamp output and its optional current-feedback input."""

    gpio: int
    active_high: bool = True
    feedback_gpio: int | None = None
    feedback_active_high: bool = True


@dataclass(frozen=True)
class DebounceSettings:
    """When a reading counts as changed, and when a slot counts as flickering."""

    scans: int = 3
    """Consecutive scans a new reading must last."""
    min_seconds: float = 0.015
    """…and at least this long."""
    flicker_per_minute: int = 30
    """More raw changes than this in the last minute make a slot flicker (a fault)."""
    dead_changes: int = 3
    """This many slots of one multiplexer changing in the same scan to one uniform level
    cannot be hands placing pawns: the multiplexer (or its cable) is dead."""


@dataclass(frozen=True)
class HardwareSettings:
    """Typed ``[hardware]`` settings; see the module docstring."""

    select_gpios: tuple[int, ...] = DEFAULT_SELECT_GPIOS
    signal_gpios: tuple[int, ...] = DEFAULT_SIGNAL_GPIOS
    shared_signal_gpio: int | None = None
    enable_gpios: tuple[int, ...] = ()
    enable_active_high: bool = False
    signal_pull: str = "up"
    active_high: bool = False
    """The level a closed contact gives on a signal line (with pull-ups: low)."""
    settle_seconds: float = 10e-6
    scan_period: float = 0.005
    bank_read: str = "auto"
    pin_factory: str | None = None
    wiring: str = "sequential"
    slot_overrides: Mapping[str, Mapping[Signal, ChannelRef]] = field(default_factory=dict)
    references: tuple[ReferenceChannel, ...] = ()
    lamps: Mapping[str, LampWiring] = field(
        default_factory=lambda: {name: LampWiring(gpio) for name, gpio in DEFAULT_LAMP_GPIOS.items()}
    )
    button_gpio: int = DEFAULT_BUTTON_GPIO
    button_pull_up: bool = True
    long_press_seconds: float = 3.0
    lamp_feedback_seconds: float = 0.05
    debounce: DebounceSettings = field(default_factory=DebounceSettings)

    @property
    def shared_signal(self) -> bool:
        """True when the multiplexers share one signal line and are picked by enable lines."""
        return self.shared_signal_gpio is not None

    @property
    def multiplexers(self) -> int:
        return len(self.enable_gpios) if self.shared_signal else len(self.signal_gpios)

    @property
    def channels_per_multiplexer(self) -> int:
        return int(2 ** len(self.select_gpios))

    @property
    def floating_level(self) -> bool | None:
        """What a signal line reads when nothing drives it (dead chip, pulled cable)."""
        return {"up": True, "down": False}.get(self.signal_pull)

    def slot_map(self, layout: Layout) -> dict[str, SlotWiring]:
        """Every slot's wiring: the computed default with the per-slot overrides applied."""
        result: dict[str, SlotWiring] = {}
        per_mux = self.channels_per_multiplexer
        for index, slot in enumerate(layout.slots):
            presence: ChannelRef | None = None
            conduction: ChannelRef | None = None
            if self.wiring == "sequential" and per_mux > 1:
                presence = ChannelRef(*divmod(2 * index, per_mux))
                conduction = ChannelRef(*divmod(2 * index + 1, per_mux))
            override = self.slot_overrides.get(slot, {})
            result[slot] = SlotWiring(
                presence=override.get(Signal.PRESENCE, presence),
                conduction=override.get(Signal.CONDUCTION, conduction),
            )
        return result

    @classmethod
    def from_config(cls, config: ConfigFile) -> HardwareSettings:
        """Parse ``[hardware]`` of *config*; raise :class:`HardwareConfigError` listing every bad key."""
        return cls.from_dict(config.section("hardware"), source=f"{config.describe()} [hardware]")

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, source: str = "[hardware]") -> HardwareSettings:
        parser = _Parser(data)
        settings = parser.settings()
        if parser.problems:
            raise HardwareConfigError(parser.problems, source=source)
        return settings


# --------------------------------------------------------------------------- parsing


_TOP_KEYS = {
    "select_gpios", "signal_gpios", "signal_gpio", "enable_gpios", "enable_active", "signal_pull",
    "active_level", "settle_us", "scan_period_ms", "bank_read", "pin_factory", "wiring", "slots",
    "references", "lamps", "button_gpio", "button_pull", "long_press_s", "lamp_feedback_ms", "debounce",
}
_DEBOUNCE_KEYS = {"scans", "min_ms", "flicker_per_minute", "dead_changes"}
_LAMP_KEYS = {"gpio", "active", "feedback_gpio", "feedback_active"}


class _Parser:
    """Turns the raw TOML table into settings, collecting every problem."""

    def __init__(self, data: Mapping[str, Any]) -> None:
        self.data = data
        self.problems: list[str] = []

    def settings(self) -> HardwareSettings:
        d = self.data
        defaults = HardwareSettings()
        for key in sorted(set(d) - _TOP_KEYS):
            self.problems.append(f"unknown key {key!r}")
        shared = self._gpio(d["signal_gpio"], "signal_gpio") if "signal_gpio" in d else None
        signals = self._gpio_list(d, "signal_gpios", () if shared is not None else defaults.signal_gpios)
        return HardwareSettings(
            select_gpios=self._gpio_list(d, "select_gpios", defaults.select_gpios),
            signal_gpios=signals,
            shared_signal_gpio=shared,
            enable_gpios=self._gpio_list(d, "enable_gpios", ()),
            enable_active_high=self._level(d, "enable_active", False),
            signal_pull=self._choice(d, "signal_pull", PULLS, defaults.signal_pull),
            active_high=self._level(d, "active_level", defaults.active_high),
            settle_seconds=self._number(d, "settle_us", 10.0, minimum=0.0) / 1e6,
            scan_period=self._number(d, "scan_period_ms", 5.0, minimum=0.1) / 1e3,
            bank_read=self._choice(d, "bank_read", BANK_READS, "auto"),
            pin_factory=self._pin_factory(d),
            wiring=self._choice(d, "wiring", WIRINGS, "sequential"),
            slot_overrides=self._slots(d.get("slots", {})),
            references=self._references(d.get("references", [])),
            lamps=self._lamps(d.get("lamps"), defaults.lamps),
            button_gpio=self._gpio(d.get("button_gpio", DEFAULT_BUTTON_GPIO), "button_gpio"),
            button_pull_up=self._choice(d, "button_pull", ("up", "down"), "up") == "up",
            long_press_seconds=self._number(d, "long_press_s", 3.0, minimum=0.1),
            lamp_feedback_seconds=self._number(d, "lamp_feedback_ms", 50.0, minimum=0.0) / 1e3,
            debounce=self._debounce(d.get("debounce", {})),
        )

    # -- scalars

    def _gpio(self, value: Any, what: str) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            self.problems.append(f"{what} must be a GPIO number (BCM), not {value!r}")
            return -1
        return value

    def _gpio_list(self, d: Mapping[str, Any], key: str, default: tuple[int, ...]) -> tuple[int, ...]:
        value = d.get(key, default)
        if not isinstance(value, (list, tuple)):
            self.problems.append(f"{key} must be a list of GPIO numbers, not {value!r}")
            return ()
        return tuple(self._gpio(v, f"{key}[{i}]") for i, v in enumerate(value))

    def _number(self, d: Mapping[str, Any], key: str, default: float, *, minimum: float) -> float:
        value = d.get(key, default)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            self.problems.append(f"{key} must be a number, not {value!r}")
            return default
        if value < minimum:
            self.problems.append(f"{key} must be at least {minimum:g}, not {value!r}")
            return default
        return float(value)

    def _int(self, d: Mapping[str, Any], key: str, default: int, *, minimum: int, where: str) -> int:
        value = d.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            self.problems.append(f"{where}{key} must be a whole number of at least {minimum}, not {value!r}")
            return default
        return value

    def _choice(self, d: Mapping[str, Any], key: str, choices: tuple[str, ...], default: str) -> str:
        value = d.get(key, default)
        if value not in choices:
            self.problems.append(f"{key} must be one of {', '.join(map(repr, choices))}, not {value!r}")
            return default
        return str(value)

    def _level(self, d: Mapping[str, Any], key: str, default: bool) -> bool:
        return self._choice(d, key, ("high", "low"), "high" if default else "low") == "high"

    def _pin_factory(self, d: Mapping[str, Any]) -> str | None:
        value = d.get("pin_factory", "")
        if not isinstance(value, str):
            self.problems.append(f"pin_factory must be a gpiozero pin factory name, not {value!r}")
            return None
        return value or None

    # -- tables

    def _channel(self, value: Any, what: str) -> ChannelRef | None:
        if (
            isinstance(value, list)
            and len(value) == 2
            and all(isinstance(v, int) and not isinstance(v, bool) for v in value)
        ):
            return ChannelRef(value[0], value[1])
        self.problems.append(f"{what} must be [multiplexer, channel], not {value!r}")
        return None

    def _slots(self, value: Any) -> dict[str, dict[Signal, ChannelRef]]:
        if not isinstance(value, dict):
            self.problems.append("slots must be a table of slot = { presence = [m, c], conduction = [m, c] }")
            return {}
        result: dict[str, dict[Signal, ChannelRef]] = {}
        for slot, entry in value.items():
            if not isinstance(entry, dict) or not entry:
                self.problems.append(f"slots.{slot} must be a table with presence and/or conduction")
                continue
            wiring: dict[Signal, ChannelRef] = {}
            for key, channel in entry.items():
                try:
                    signal = Signal(key)
                except ValueError:
                    self.problems.append(f"slots.{slot}: unknown signal {key!r} (presence or conduction)")
                    continue
                ref = self._channel(channel, f"slots.{slot}.{key}")
                if ref is not None:
                    wiring[signal] = ref
            result[str(slot)] = wiring
        return result

    def _references(self, value: Any) -> tuple[ReferenceChannel, ...]:
        if not isinstance(value, list):
            self.problems.append("references must be a list of { multiplexer, channel, level } tables")
            return ()
        result = []
        for number, entry in enumerate(value):
            where = f"references[{number}]."
            if not isinstance(entry, dict):
                self.problems.append(f"references[{number}] must be a table")
                continue
            for key in sorted(set(entry) - {"multiplexer", "channel", "level"}):
                self.problems.append(f"{where}{key} is not a reference key")
            if "level" not in entry:
                self.problems.append(f"{where}level is missing (\"high\" or \"low\")")
            result.append(
                ReferenceChannel(
                    multiplexer=self._int(entry, "multiplexer", -1, minimum=0, where=where),
                    channel=self._int(entry, "channel", -1, minimum=0, where=where),
                    level=self._choice(entry, "level", ("high", "low"), "high") == "high",
                )
            )
        return tuple(result)

    def _lamps(self, value: Any, default: Mapping[str, LampWiring]) -> dict[str, LampWiring]:
        if value is None:
            return dict(default)
        if not isinstance(value, dict):
            self.problems.append("lamps must be a table of lamp = { gpio = N, active = \"high\" }")
            return dict(default)
        result = {}
        for lamp, entry in value.items():
            if not isinstance(entry, dict) or "gpio" not in entry:
                self.problems.append(f"lamps.{lamp} must be a table with at least gpio")
                continue
            for key in sorted(set(entry) - _LAMP_KEYS):
                self.problems.append(f"lamps.{lamp}.{key} is not a lamp key")
            feedback = entry.get("feedback_gpio")
            result[str(lamp)] = LampWiring(
                gpio=self._gpio(entry["gpio"], f"lamps.{lamp}.gpio"),
                active_high=self._level(entry, "active", True),
                feedback_gpio=(None if feedback is None
                               else self._gpio(feedback, f"lamps.{lamp}.feedback_gpio")),
                feedback_active_high=self._level(entry, "feedback_active", True),
            )
        return result

    def _debounce(self, value: Any) -> DebounceSettings:
        if not isinstance(value, dict):
            self.problems.append("debounce must be a table")
            return DebounceSettings()
        for key in sorted(set(value) - _DEBOUNCE_KEYS):
            self.problems.append(f"debounce.{key} is not a debounce key")
        return DebounceSettings(
            scans=self._int(value, "scans", 3, minimum=1, where="debounce."),
            min_seconds=self._number(value, "min_ms", 15.0, minimum=0.0) / 1e3,
            flicker_per_minute=self._int(value, "flicker_per_minute", 30, minimum=1, where="debounce."),
            dead_changes=self._int(value, "dead_changes", 3, minimum=2, where="debounce."),
        )


# --------------------------------------------------------------------------- wiring check


def check_wiring(settings: HardwareSettings, layout: Layout) -> list[str]:
    """Every reason this wiring cannot work with *layout*, one sentence each (empty: fine)."""
    problems: list[str] = []
    problems += _check_gpios(settings)
    problems += _check_multiplexers(settings)
    problems += _check_channels(settings, layout)
    problems += _check_lamps(settings, layout)
    return problems


def gpio_roles(settings: HardwareSettings) -> list[tuple[int, str]]:
    """Every GPIO the board uses, with what it is for."""
    roles = [(g, f"select line S{i}") for i, g in enumerate(settings.select_gpios)]
    roles += [(g, f"multiplexer {i} signal") for i, g in enumerate(settings.signal_gpios)]
    if settings.shared_signal_gpio is not None:
        roles.append((settings.shared_signal_gpio, "shared signal line"))
    roles += [(g, f"multiplexer {i} enable") for i, g in enumerate(settings.enable_gpios)]
    for lamp, wiring in settings.lamps.items():
        roles.append((wiring.gpio, f"lamp {lamp}"))
        if wiring.feedback_gpio is not None:
            roles.append((wiring.feedback_gpio, f"lamp {lamp} feedback"))
    roles.append((settings.button_gpio, "test button"))
    return roles


def _check_gpios(settings: HardwareSettings) -> list[str]:
    problems = []
    seen: dict[int, str] = {}
    for gpio, role in gpio_roles(settings):
        if gpio not in HEADER_GPIOS:
            if gpio >= 0:  # negative numbers were already reported by the parser
                problems.append(f"{role}: GPIO {gpio} is not on the 40-pin header (GPIO 0-27)")
            continue
        if gpio in seen:
            problems.append(f"GPIO {gpio} is used twice: {seen[gpio]} and {role}")
        else:
            seen[gpio] = role
    return problems


def _check_multiplexers(settings: HardwareSettings) -> list[str]:
    problems = []
    if not 1 <= len(settings.select_gpios) <= 6:
        problems.append(f"select_gpios lists {len(settings.select_gpios)} lines; a multiplexer has 1 to 6")
    if settings.shared_signal:
        if settings.signal_gpios:
            problems.append("give either signal_gpios (one per multiplexer) "
                            "or signal_gpio with enable_gpios, not both")
        if not settings.enable_gpios:
            problems.append("signal_gpio (one shared signal line) needs enable_gpios, one per multiplexer")
    else:
        if settings.enable_gpios:
            problems.append("enable_gpios only make sense with one shared signal_gpio")
        if not settings.signal_gpios:
            problems.append("signal_gpios is empty: at least one multiplexer is needed")
    return problems


def _check_channels(settings: HardwareSettings, layout: Layout) -> list[str]:
    problems = []
    wiring = settings.slot_map(layout)
    for slot in sorted(set(settings.slot_overrides) - set(wiring)):
        problems.append(f"slots.{slot}: there is no slot {slot} on layout {layout.name}")
    used: dict[ChannelRef, str] = {}

    def claim(ref: ChannelRef, what: str) -> None:
        if not 0 <= ref.multiplexer < settings.multiplexers:
            problems.append(
                f"{what}: multiplexer {ref.multiplexer} does not exist "
                f"({settings.multiplexers} multiplexers, numbered 0-{settings.multiplexers - 1})"
            )
        elif not 0 <= ref.channel < settings.channels_per_multiplexer:
            problems.append(
                f"{what}: channel {ref.channel} is out of range 0-{settings.channels_per_multiplexer - 1} "
                f"({len(settings.select_gpios)} select lines)"
            )
        elif ref in used:
            problems.append(f"{ref} is wired to both {used[ref]} and {what}")
        else:
            used[ref] = what

    for slot, slot_wiring in wiring.items():
        for signal in Signal:
            ref = slot_wiring.channel_of(signal)
            if ref is None:
                problems.append(f"slot {slot} has no {signal.value} channel")
            else:
                claim(ref, f"slot {slot} {signal.value}")
    for reference in settings.references:
        if reference.multiplexer >= 0 and reference.channel >= 0:
            claim(reference.ref, f"reference {reference.multiplexer}.{reference.channel}")
    return problems


def _check_lamps(settings: HardwareSettings, layout: Layout) -> list[str]:
    problems = []
    for lamp in layout.lamps:
        if lamp not in settings.lamps:
            problems.append(f"lamp {lamp} of layout {layout.name} has no GPIO (lamps.{lamp}.gpio)")
    for lamp in sorted(set(settings.lamps) - set(layout.lamps)):
        problems.append(f"lamps.{lamp}: layout {layout.name} has no lamp {lamp} "
                        f"(lamps: {', '.join(layout.lamps)})")
    return problems


def load_settings(config: ConfigFile, layout: Layout) -> HardwareSettings:
    """Parse and check the ``[hardware]`` section; raise with every problem at once."""
    settings = HardwareSettings.from_config(config)
    problems = check_wiring(settings, layout)
    if problems:
        raise HardwareConfigError(problems, source=f"{config.describe()} [hardware]")
    return settings
