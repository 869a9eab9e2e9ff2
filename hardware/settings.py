"""The pin map and timing of a board, parsed from the ``[hardware]`` config section.

Every key is documented in ``config.example.toml`` and ``docs/hardware.md``.
The default describes the pinwheel-80 board of DESIGN §4: ten 16-channel
multiplexers (74HC4067 class) sharing four select lines, one signal GPIO per
multiplexer, the slots wired in reading order (slot *i* has its presence
contact on overall channel 2*i* and its conduction contact on 2*i*+1, i.e.
multiplexer ``i // 8``, channels ``2*(i % 8)`` and ``2*(i % 8) + 1``). That
map is computed, not listed, and any slot can be rewired in
``[hardware.slots]``.

Parsing (:meth:`HardwareSettings.from_config`, with the configuration's
settings reader) checks types and reports every bad key at once;
:func:`check_wiring` then checks the wiring against a layout (two signals on
one channel, channel out of range, a GPIO used twice, a slot without a
signal, …) before any pin is touched.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import ClassVar

from configuration import ConfigError, ConfigFile, Section, SectionSettings
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
LEVELS = ("high", "low")


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
class HardwareSettings(SectionSettings):
    """Typed ``[hardware]`` settings; see the module docstring."""

    section: ClassVar[str] = "hardware"
    error: ClassVar[type[ConfigError]] = HardwareConfigError

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
    def read(cls, s: Section) -> HardwareSettings:
        """The settings the ``[hardware]`` table *s* declares (its problems are noted in *s*)."""
        d = cls()
        shared = s.integer("signal_gpio", -1, what=GPIO) if "signal_gpio" in s else None
        return cls(
            select_gpios=s.integers("select_gpios", d.select_gpios, what=GPIO, plural=GPIOS),
            signal_gpios=s.integers("signal_gpios", () if shared is not None else d.signal_gpios,
                                    what=GPIO, plural=GPIOS),
            shared_signal_gpio=shared,
            enable_gpios=s.integers("enable_gpios", d.enable_gpios, what=GPIO, plural=GPIOS),
            enable_active_high=_level(s, "enable_active", d.enable_active_high),
            signal_pull=s.choice("signal_pull", PULLS, d.signal_pull),
            active_high=_level(s, "active_level", d.active_high),
            settle_seconds=s.number("settle_us", d.settle_seconds, minimum=0, unit="us"),
            scan_period=s.number("scan_period_ms", d.scan_period, minimum=0.1, unit="ms"),
            bank_read=s.choice("bank_read", BANK_READS, d.bank_read),
            pin_factory=s.text("pin_factory", "", what="a gpiozero pin factory name") or None,
            wiring=s.choice("wiring", WIRINGS, d.wiring),
            slot_overrides=_slots(s),
            references=_references(s),
            lamps=_lamps(s, d.lamps),
            button_gpio=s.integer("button_gpio", d.button_gpio, what=GPIO),
            button_pull_up=s.choice("button_pull", ("up", "down"), "up") == "up",
            long_press_seconds=s.number("long_press_s", d.long_press_seconds, minimum=0.1),
            lamp_feedback_seconds=s.number("lamp_feedback_ms", d.lamp_feedback_seconds, minimum=0, unit="ms"),
            debounce=_debounce(s.table("debounce")),
        )


# --------------------------------------------------------------------------- parsing

GPIO = "a GPIO number (BCM)"
GPIOS = "GPIO numbers"


def _level(s: Section, key: str, default: bool) -> bool:
    """``"high"`` or ``"low"``, as True or False."""
    return s.choice(key, LEVELS, "high" if default else "low") == "high"


def _debounce(t: Section) -> DebounceSettings:
    d = DebounceSettings()
    return DebounceSettings(
        scans=t.integer("scans", d.scans, minimum=1),
        min_seconds=t.number("min_ms", d.min_seconds, minimum=0, unit="ms"),
        flicker_per_minute=t.integer("flicker_per_minute", d.flicker_per_minute, minimum=1),
        dead_changes=t.integer("dead_changes", d.dead_changes, minimum=2),
    )


def _lamps(s: Section, default: Mapping[str, LampWiring]) -> dict[str, LampWiring]:
    lamps = s.tables("lamps", what='a table of lamp = { gpio = N, active = "high" }')
    if lamps is None:
        return dict(default)
    return {
        lamp: LampWiring(
            gpio=t.integer("gpio", -1, what=GPIO, required=True),
            active_high=_level(t, "active", True),
            feedback_gpio=t.integer("feedback_gpio", -1, what=GPIO) if "feedback_gpio" in t else None,
            feedback_active_high=_level(t, "feedback_active", True),
        )
        for lamp, t in lamps.items()
    }


def _references(s: Section) -> tuple[ReferenceChannel, ...]:
    return tuple(
        ReferenceChannel(
            multiplexer=t.integer("multiplexer", -1, minimum=0, required=True),
            channel=t.integer("channel", -1, minimum=0, required=True),
            level=t.choice("level", LEVELS, "high", required=True) == "high",
        )
        for t in s.table_list("references", what="a list of { multiplexer, channel, level } tables")
    )


def _slots(s: Section) -> dict[str, dict[Signal, ChannelRef]]:
    """``[hardware.slots]``: its keys are slot names and signal names, data rather than settings."""
    value = s.raw("slots", {})
    if not isinstance(value, dict):
        s.problem("slots must be a table of slot = { presence = [m, c], conduction = [m, c] }")
        return {}
    result: dict[str, dict[Signal, ChannelRef]] = {}
    for slot, entry in value.items():
        if not isinstance(entry, dict) or not entry:
            s.problem(f"slots.{slot} must be a table with presence and/or conduction")
            continue
        wiring: dict[Signal, ChannelRef] = {}
        for key, channel in entry.items():
            try:
                signal = Signal(key)
            except ValueError:
                s.problem(f"slots.{slot}: unknown signal {key!r} (presence or conduction)")
                continue
            if (isinstance(channel, list) and len(channel) == 2
                    and all(isinstance(v, int) and not isinstance(v, bool) for v in channel)):
                wiring[signal] = ChannelRef(channel[0], channel[1])
            else:
                s.problem(f"slots.{slot}.{key} must be [multiplexer, channel], not {channel!r}")
        result[str(slot)] = wiring
    return result


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


def channel_roles(settings: HardwareSettings, layout: Layout) -> dict[ChannelRef, str]:
    """Every wired multiplexer channel, with what is wired there (``"i7 presence (multiplexer 3 channel
    4)"``, ``"reference multiplexer 9 channel 15"``): the self-test's and ``scan --raw``'s names."""
    roles = {ref: f"{slot} {signal.value} ({ref})" for slot, w in settings.slot_map(layout).items()
             for signal in Signal if (ref := w.channel_of(signal)) is not None}
    roles.update({r.ref: f"reference {r.ref}" for r in settings.references})
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
