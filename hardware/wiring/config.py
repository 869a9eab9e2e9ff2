"""What a learned wiring becomes in the configuration file, and what the builder should know about it.

The wiring wizard writes ``[hardware.slots]``: one line per slot whose learned
channels differ from the computed map of the file's ``wiring`` setting (every
slot with ``wiring = "none"``), in reading order. The old ``[hardware.slots]``
is replaced; every other line of the file stays as it was
(:func:`configuration.edit.replace_table`). Nothing else is written: a free
channel becomes a reference only once the builder has tied it to a level, so
the free channels are reported (:func:`reference_advice`), not declared.
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Mapping
from pathlib import Path

from configuration.edit import back_up, replace_table, write_atomically
from games.hautetension.layout import Layout
from hardware.settings import ChannelRef, HardwareSettings, Signal, SlotWiring
from hardware.wiring.learner import LearnedWiring

TABLE = "hardware.slots"


def slot_overrides(learned: Mapping[str, SlotWiring], settings: HardwareSettings,
                   layout: Layout) -> dict[str, SlotWiring]:
    """The slots of *learned* that the computed map (the file's ``wiring``) does not already give."""
    computed = dataclasses.replace(settings, slot_overrides={}).slot_map(layout)
    return {slot: learned[slot] for slot in layout.slots if learned[slot] != computed[slot]}


def _channel(ref: ChannelRef | None) -> str:
    assert ref is not None, "a learned slot has both channels"
    return f"[{ref.multiplexer}, {ref.channel}]"


def slots_table(overrides: Mapping[str, SlotWiring], *, note: str) -> list[str]:
    """The lines of ``[hardware.slots]`` (without its header) for *overrides*."""
    lines = [f"# {note}"] if note else []
    if not overrides:
        lines.append("# (every slot is where the computed map puts it)")
    width = max((len(slot) for slot in overrides), default=0)
    lines += [f"{slot:<{width}} = {{ presence = {_channel(w.presence)}, "
              f"conduction = {_channel(w.conduction)} }}" for slot, w in overrides.items()]
    return lines


def updated_text(text: str, learned: Mapping[str, SlotWiring], settings: HardwareSettings, layout: Layout,
                 *, note: str) -> str | None:
    """The file *text* with the learned map in ``[hardware.slots]``; ``None`` if the file already
    gives exactly that map (nothing to write). Raises :class:`~configuration.ConfigError` when the
    file cannot be edited safely."""
    if settings.slot_map(layout) == dict(learned):
        return None
    return replace_table(text, TABLE, slots_table(slot_overrides(learned, settings, layout), note=note))


def diff(old: str, new: str, path: Path | str) -> str:
    """A unified diff from the current file to the new one, for the builder to read before confirming."""
    return "".join(difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True),
                                        fromfile=f"{path} (now)", tofile=f"{path} (learned)"))


def changed_slots(learned: Mapping[str, SlotWiring], settings: HardwareSettings, layout: Layout) -> list[str]:
    """One line per slot the new map moves, in words (``a9 presence: multiplexer 0 channel 0 → …``)."""
    current = settings.slot_map(layout)
    lines = []
    for slot in layout.slots:
        for signal in Signal:
            before, after = current[slot].channel_of(signal), learned[slot].channel_of(signal)
            if before != after:
                lines.append(f"{slot} {signal.value}: {before or 'not wired'} → {after}")
    return lines


def write(path: Path, text: str) -> Path | None:
    """Write *text* to *path* atomically, the old file kept as a backup first (its path; ``None``
    when there was no file)."""
    backup = back_up(path) if path.exists() else None
    write_atomically(path, text)
    return backup


def reference_advice(result: LearnedWiring, settings: HardwareSettings) -> list[str]:
    """What to do with the channels no slot uses: per multiplexer, the free ones (tie one to the
    active level and declare it a reference, so a dead chip is caught even on an empty board), and
    the ones left out because they read closed on the empty board."""
    level = "high" if settings.active_high else "low"
    lines: list[str] = []
    referenced = {r.multiplexer for r in settings.references}
    for mux in range(settings.multiplexers):
        free = [ref.channel for ref in result.free if ref.multiplexer == mux]
        if free:
            lines.append(f"multiplexer {mux}: channel(s) {', '.join(map(str, free))} free"
                         + (" (it has a reference already)" if mux in referenced else
                            f"; tie channel {free[0]} to {level} and add [[hardware.references]] "
                            f"multiplexer = {mux}, channel = {free[0]}, level = \"{level}\""))
    for ref in result.closed_on_empty:
        lines.append(f"{ref} read closed on the empty board and was left out: if it is tied to {level} on "
                     f"purpose, declare it with [[hardware.references]] multiplexer = {ref.multiplexer}, "
                     f"channel = {ref.channel}, level = \"{level}\"; if not, its contact is stuck closed")
    if not lines:
        lines.append("every channel is used by a slot or a reference: none is free for a reference channel")
    return lines
