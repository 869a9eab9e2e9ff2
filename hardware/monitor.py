"""From raw levels to debounced events: slot readings, debounce, faults.

:class:`BoardMonitor` gets the levels of one scan (the scanner's snapshot: one
int, a bit per channel) and the time, and returns the events that scan
confirmed. Only the bits that changed since the last scan are looked at; a
scan equal to the last one, once nothing is pending (no reading waiting for
its debounce, no flickering slot, no reference waiting, no change in the last
two scans), costs one comparison (:attr:`BoardMonitor.settled`):

- A slot's reading (empty, defense = presence only, attack = presence and
  conduction) changes only after the new reading has been seen on
  ``debounce.scans`` consecutive scans *and* for ``debounce.min_seconds``.
  The reading is debounced as a whole, so the presence contact closing a scan
  before the conduction contact never shows an attack pawn as a defense pawn.
- Conduction without presence, stable for the debounce time, is a fault of the
  slot (a bent contact or a short); the slot keeps its last good reading.
- A slot whose raw reading changed more than ``flicker_per_minute`` times in
  the last minute flickers (a fault); the fault clears when it calms down to
  half that.
- A reference channel that reads the wrong level (stably) is a fault.
- A multiplexer is dead when all its wired channels read one level and that
  pattern is impossible: a reference on it expects the other level, or at
  least ``dead_changes`` of its slots changed within two scans (hands place
  pawns one at a time). Its slots are frozen (no events) until it reads a
  possible pattern again; a dead multiplexer means the readings cannot be
  trusted (``scanner_faulted``), so lamps go to their safe state.
"""

from __future__ import annotations

import enum
from collections import deque
from dataclasses import dataclass, field

from games.hautetension.layout import Layout
from games.hautetension.pawn import PawnKind
from hardware.events import BoardEvent, Fault, FaultCleared, FaultKind, PawnLifted, PawnPlaced
from hardware.settings import ChannelRef, DebounceSettings, HardwareSettings, ReferenceChannel

FLICKER_WINDOW = 60.0


class Reading(enum.IntEnum):
    """A slot's two contacts as one value: bit 0 presence, bit 1 conduction."""

    EMPTY = 0
    DEFENSE = 1
    INVALID = 2
    """Conduction without presence."""
    ATTACK = 3

    @property
    def kind(self) -> PawnKind | None:
        return {Reading.DEFENSE: PawnKind.DEFENSE, Reading.ATTACK: PawnKind.ATTACK}.get(self)


@dataclass
class Debounced:
    """One debounced value: *stable* changes after a candidate lasts long enough."""

    stable: int
    candidate: int | None = None
    since: float = 0.0
    count: int = 0

    def update(self, value: int, now: float, rule: DebounceSettings) -> bool:
        """Feed one scan's raw value; True when *stable* just changed."""
        if value == self.stable:
            self.candidate = None
            return False
        if value != self.candidate:
            self.candidate, self.since, self.count = value, now, 0
        self.count += 1
        if self.count >= rule.scans and now - self.since >= rule.min_seconds:
            self.stable, self.candidate = value, None
            return True
        return False


@dataclass(eq=False)
class SlotTrack:
    """Everything the monitor keeps about one slot."""

    slot: str
    presence: int
    conduction: int
    multiplexers: tuple[int, ...]
    presence_bit: int = 0
    """The presence channel's bit in the snapshot (``1 << position``)."""
    conduction_bit: int = 0
    reading: Debounced = field(default_factory=lambda: Debounced(Reading.EMPTY))
    pawn: Reading = Reading.EMPTY
    """The last valid debounced reading (what the board service sees)."""
    raw: int = Reading.EMPTY
    changes: deque[float] = field(default_factory=deque)
    flickering: bool = False
    flicker_total: int = 0


@dataclass
class MultiplexerTrack:
    number: int
    channels: tuple[int, ...]
    references: tuple[ReferenceChannel, ...]
    slots: tuple[SlotTrack, ...] = ()
    mask: int = 0
    """Its wired channels' bits in the snapshot."""
    dead: bool = False
    changes: deque[int] = field(default_factory=lambda: deque([0, 0], maxlen=2))


class BoardMonitor:
    """Turns scans into debounced events and faults; see the module docstring."""

    def __init__(self, settings: HardwareSettings, layout: Layout, *, index: dict[ChannelRef, int],
                 position: dict[ChannelRef, int] | None = None) -> None:
        """*index*: each wired channel's place in a scan's list of levels (what the self-test reads);
        *position*: its bit in the snapshot :meth:`update` gets (default: the same as *index*)."""
        self.settings = settings
        self.rule = settings.debounce
        self.index = index
        position = index if position is None else position
        wiring = settings.slot_map(layout)
        self.slots: dict[str, SlotTrack] = {}
        for slot, w in wiring.items():
            if w.presence is None or w.conduction is None:
                raise ValueError(f"slot {slot} is not fully wired; check the settings with check_wiring()")
            self.slots[slot] = SlotTrack(
                slot, index[w.presence], index[w.conduction],
                tuple(sorted({w.presence.multiplexer, w.conduction.multiplexer})),
                presence_bit=1 << position[w.presence], conduction_bit=1 << position[w.conduction],
            )
        self.wiring = wiring
        self.references = {r.ref: (r, Debounced(r.level)) for r in settings.references}
        self._reference_bits = {r.ref: 1 << position[r.ref] for r in settings.references}
        self._reference_mask = sum(self._reference_bits.values())
        self._references_pending = bool(self.references)
        self.multiplexers = [self._mux_track(m, position) for m in range(settings.multiplexers)]
        self.active_faults: dict[tuple[FaultKind, str], Fault] = {}
        self.scanner_faulted = False
        """Whether an active fault means the readings cannot be trusted (lamps go to their safe state)."""
        self._tracks = list(self.slots.values())
        self._order = {track.slot: n for n, track in enumerate(self._tracks)}
        self._at_bit: dict[int, list[SlotTrack]] = {}
        for track in self._tracks:
            for bit in (track.presence_bit, track.conduction_bit):
                self._at_bit.setdefault(bit, []).append(track)
        self._busy: set[SlotTrack] = set()
        self.last: int | None = None
        """The snapshot of the last update (None before the first)."""
        self.settled = False
        """True when the last update had nothing to do and left nothing pending: the next snapshot, if
        equal to it, would change nothing either (:meth:`update` returns at once)."""

    def _mux_track(self, mux: int, position: dict[ChannelRef, int]) -> MultiplexerTrack:
        refs = tuple(r for r in self.settings.references if r.multiplexer == mux)
        wired = {ref for w in self.wiring.values() for ref in (w.presence, w.conduction)
                 if ref is not None and ref.multiplexer == mux} | {r.ref for r in refs}
        slots = tuple(t for t in self.slots.values() if mux in t.multiplexers)
        channels = sorted(self.index[ref] for ref in wired)
        mask = sum(1 << position[ref] for ref in wired)
        return MultiplexerTrack(mux, tuple(channels), refs, slots, mask=mask)

    def flicker_counts(self, now: float) -> dict[str, int]:
        """Raw changes per slot in the last minute (slots without any left out)."""
        counts = {t.slot: sum(1 for at in t.changes if now - at <= FLICKER_WINDOW) for t in self._tracks}
        return {slot: n for slot, n in counts.items() if n}

    def snapshot(self) -> dict[str, PawnKind]:
        return {t.slot: t.pawn.kind for t in self.slots.values() if t.pawn.kind is not None}

    # ------------------------------------------------------------------ one scan

    def update(self, snapshot: int, now: float) -> list[BoardEvent]:
        """Feed one scan's snapshot; the events it confirmed."""
        events: list[BoardEvent] = []
        last = self.last
        changed = snapshot ^ last if last is not None else -1
        if not changed and self.settled:
            return events
        self.last = snapshot
        active = self.settings.active_high
        busy = self._busy
        if changed:
            # Only the slots on a changed bit: lowest set bit first, until none is left.
            bits = changed if last is not None else sum(self._at_bit)
            at_bit = self._at_bit
            while bits:
                low = bits & -bits
                bits ^= low
                for track in at_bit.get(low, ()):
                    raw = ((snapshot & track.presence_bit != 0) == active) | (
                        (snapshot & track.conduction_bit != 0) == active) << 1
                    if raw != track.raw:
                        track.raw = raw
                        track.changes.append(now)
                        track.flicker_total += 1
                        self._check_flicker(track, now, events)
                        busy.add(track)
                        for number in track.multiplexers:
                            self.multiplexers[number].changes[-1] += 1
        if self.references and (changed & self._reference_mask or self._references_pending):
            self._check_references(snapshot, now, events)
        dead_changes = self.rule.dead_changes
        recent = False
        for mux in self.multiplexers:
            moved = sum(mux.changes)
            recent = recent or moved > 0
            # Only a multiplexer with references, already dead, or with many changes can look dead.
            if mux.references or mux.dead or moved >= dead_changes:
                self._check_multiplexer(mux, snapshot, now, events)
        frozen = {m.number for m in self.multiplexers if m.dead}
        # Settled slots need no work: only pending readings and flickering slots are looked at.
        for track in sorted(busy, key=lambda t: self._order[t.slot]):
            if track.flickering:
                self._check_flicker(track, now, events)
            if frozen and frozen.intersection(track.multiplexers):
                continue
            if track.reading.update(track.raw, now, self.rule):
                self._reading_changed(track, Reading(track.reading.stable), now, events)
            if track.raw == track.reading.stable and not track.flickering:
                busy.discard(track)
        for mux in self.multiplexers:
            mux.changes.append(0)
        self.settled = not changed and not recent and not busy and not self._references_pending
        return events

    def _reading_changed(self, track: SlotTrack, reading: Reading, now: float,
                         events: list[BoardEvent]) -> None:
        if reading is Reading.INVALID:
            conduction = self.wiring[track.slot].conduction
            self._raise(events, Fault(
                FaultKind.CONDUCTION_WITHOUT_PRESENCE,
                f"slot {track.slot}: conduction contact closed without presence ({conduction}); "
                "check the slot's contacts",
                now, slot=track.slot, multiplexer=conduction.multiplexer if conduction else None,
                channel=conduction.channel if conduction else None,
            ), key=track.slot)
            return
        self._clear(events, FaultKind.CONDUCTION_WITHOUT_PRESENCE, track.slot, now)
        old = track.pawn
        if reading == old:
            return
        track.pawn = reading
        if old.kind is not None:
            events.append(PawnLifted(track.slot, old.kind, now))
        if reading.kind is not None:
            events.append(PawnPlaced(track.slot, reading.kind, now))

    def _check_flicker(self, track: SlotTrack, now: float, events: list[BoardEvent]) -> None:
        changes = track.changes
        while changes and now - changes[0] > FLICKER_WINDOW:
            changes.popleft()
        limit = self.rule.flicker_per_minute
        if not track.flickering and len(changes) > limit:
            track.flickering = True
            self._raise(events, Fault(
                FaultKind.FLICKER,
                f"slot {track.slot} flickers: {len(changes)} changes in the last minute (limit {limit}); "
                "check its contacts and wiring",
                now, slot=track.slot,
            ), key=track.slot)
        elif track.flickering and len(changes) <= limit // 2:
            track.flickering = False
            self._clear(events, FaultKind.FLICKER, track.slot, now)

    def _check_references(self, snapshot: int, now: float, events: list[BoardEvent]) -> None:
        pending = False
        for ref, (reference, debounced) in self.references.items():
            changed = debounced.update(int(snapshot & self._reference_bits[ref] != 0), now, self.rule)
            pending = pending or debounced.candidate is not None
            if not changed:
                continue
            key = f"{ref.multiplexer}.{ref.channel}"
            if bool(debounced.stable) == reference.level:
                self._clear(events, FaultKind.REFERENCE_MISMATCH, key, now)
            else:
                self._raise(events, Fault(
                    FaultKind.REFERENCE_MISMATCH,
                    f"reference {ref} reads {_level(bool(debounced.stable))}, "
                    f"expected {_level(reference.level)}",
                    now, multiplexer=ref.multiplexer, channel=ref.channel,
                ), key=key)
        self._references_pending = pending

    def _check_multiplexer(self, mux: MultiplexerTrack, snapshot: int, now: float,
                           events: list[BoardEvent]) -> None:
        if not mux.mask:
            return
        high = snapshot & mux.mask
        uniform = high == 0 or high == mux.mask
        first = high != 0
        impossible = uniform and (
            any(r.level != first for r in mux.references) or sum(mux.changes) >= self.rule.dead_changes
        )
        key = str(mux.number)
        if impossible and not mux.dead:
            mux.dead = True
            wrong_refs = any(r.level != first for r in mux.references)
            why = ("its reference channels read the wrong level" if wrong_refs
                   else f"{sum(mux.changes)} of its slots changed at once")
            self._raise(events, Fault(
                FaultKind.DEAD_MULTIPLEXER,
                f"multiplexer {mux.number}: every channel reads {_level(first)} and {why}; "
                "check its power, its signal wire and the ribbon cable",
                now, multiplexer=mux.number, scanner_faulted=True,
            ), key=key)
        elif mux.dead and (not uniform or (mux.references and all(r.level == first for r in mux.references))):
            mux.dead = False
            self._clear(events, FaultKind.DEAD_MULTIPLEXER, key, now)

    # ------------------------------------------------------------------ faults

    def _raise(self, events: list[BoardEvent], fault: Fault, *, key: str) -> None:
        if (fault.kind, key) in self.active_faults:
            return
        self.active_faults[(fault.kind, key)] = fault
        self.scanner_faulted = self.scanner_faulted or fault.scanner_faulted
        events.append(fault)

    def _clear(self, events: list[BoardEvent], kind: FaultKind, key: str, now: float) -> None:
        fault = self.active_faults.pop((kind, key), None)
        if fault is not None:
            self.scanner_faulted = any(f.scanner_faulted for f in self.active_faults.values())
            events.append(FaultCleared(kind, f"cleared: {fault.message}", now, slot=fault.slot,
                                       multiplexer=fault.multiplexer))

    def add_fault(self, fault: Fault, key: str) -> list[BoardEvent]:
        """Record a fault found outside the scan (lamp feedback in the self-test)."""
        events: list[BoardEvent] = []
        self._raise(events, fault, key=key)
        return events

    def clear_fault(self, kind: FaultKind, key: str, now: float) -> list[BoardEvent]:
        events: list[BoardEvent] = []
        self._clear(events, kind, key, now)
        return events


def _level(value: bool) -> str:
    return "high" if value else "low"
