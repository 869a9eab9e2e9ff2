"""The multiplexer scan and the debounce, as the microcontroller runs them.

MicroPython code (also run under CPython by the tests): no dataclasses, no
``typing`` at run time.

Wiring (DESIGN §4): ten 16-channel multiplexers share four select lines; each
has its own signal pin, so one select step reads ten channels. Channels are
numbered ``16 * multiplexer + channel``; slot ``i`` (the layout's reading
order) has its presence signal on channel number ``2 * i`` and its conduction
signal on ``2 * i + 1``, so multiplexer ``m`` carries slots ``8m`` to
``8m + 7``. The select lines walk the channels in Gray-code order: exactly one
select line changes per step, including the wrap from the last step back to
the first, which halves the pin writes and the switching glitches.
"""

# ruff: noqa: UP031 -- %-formatting is what every MicroPython build supports

GRAY = (0, 1, 3, 2, 6, 7, 5, 4, 12, 13, 15, 14, 10, 11, 9, 8)
"""The 16 select values in the order they are visited."""

CHANNELS_PER_MUX = 16

PRESENT = 1
"""Bit 0 of a slot reading: a pawn stands in the slot."""
CONDUCTS = 2
"""Bit 1 of a slot reading: the slot conducts (an attack pawn)."""


def _ticks_diff(a: int, b: int) -> int:
    return a - b


try:  # noqa: SIM105 -- MicroPython has no contextlib
    from time import ticks_diff as _ticks_diff  # noqa: F811 -- MicroPython's wrap-safe difference
except ImportError:
    pass


class MuxScanner:
    """Reads every slot through the multiplexers: one call of :meth:`scan` per full scan.

    *select_pins* are four output pins (bit 0 first), *signal_pins* one input
    pin per multiplexer. With ``active_low`` (pull-ups, the default) a signal
    reads 0 when a pawn is there / conducts.
    """

    def __init__(
        self, select_pins: list, signal_pins: list, slot_count: int, active_low: bool = True
    ) -> None:
        if len(select_pins) != 4:
            raise ValueError("a 16-channel multiplexer needs 4 select lines")
        if 2 * slot_count > CHANNELS_PER_MUX * len(signal_pins):
            raise ValueError(
                "%d slots need %d channels; %d multiplexers have %d"
                % (slot_count, 2 * slot_count, len(signal_pins), CHANNELS_PER_MUX * len(signal_pins))
            )
        self.select_pins = select_pins
        self.signal_pins = signal_pins
        self.slot_count = slot_count
        self.active_low = active_low
        self.select_value = 0
        self.pin_writes = 0
        self.pin_reads = 0
        for pin in select_pins:
            pin.value(0)
        # For each Gray step: (multiplexer, raw channel index) pairs that map onto a slot signal.
        self._steps = []
        for select in GRAY:
            reads = []
            for mux in range(len(signal_pins)):
                index = CHANNELS_PER_MUX * mux + select
                if index < 2 * slot_count:
                    reads.append((signal_pins[mux], index))
            self._steps.append((select, reads))

    def scan(self) -> bytearray:
        """One full scan: a reading per slot (``PRESENT | CONDUCTS`` bits)."""
        raw = bytearray(2 * self.slot_count)
        inactive = 1 if self.active_low else 0
        for select, reads in self._steps:
            self._select(select)
            for pin, index in reads:
                raw[index] = 1 if pin.value() != inactive else 0
                self.pin_reads += 1
        readings = bytearray(self.slot_count)
        for slot in range(self.slot_count):
            readings[slot] = raw[2 * slot] | (raw[2 * slot + 1] << 1)
        return readings

    def _select(self, value: int) -> None:
        changed = value ^ self.select_value
        bit = 0
        while changed:
            if changed & 1:
                self.select_pins[bit].value((value >> bit) & 1)
                self.pin_writes += 1
            changed >>= 1
            bit += 1
        self.select_value = value


class Debouncer:
    """Confirms a new reading after *scans* identical scans spanning at least *min_ms*.

    The same rule as the Pi's own scanner: a reading that differs from the
    confirmed one must be seen on ``scans`` consecutive scans, the first and
    last at least ``min_ms`` apart, before it replaces it. Any different
    reading in between starts the count again.
    """

    def __init__(self, count: int, scans: int = 3, min_ms: int = 15) -> None:
        self.stable = bytearray(count)
        self._candidate = bytearray(count)
        self._seen = bytearray(count)
        self._since = [0] * count
        self.scans = scans
        self.min_ms = min_ms

    def pending(self) -> bool:
        """True while some new reading is waiting to be confirmed."""
        return any(self._seen)

    def update(self, readings: bytearray, now_ms: int) -> list:
        """Feed one scan; return the indices whose confirmed reading changed."""
        changed = []
        stable = self.stable
        candidate = self._candidate
        seen = self._seen
        for i in range(len(readings)):
            value = readings[i]
            if value == stable[i]:
                seen[i] = 0
                continue
            if seen[i] == 0 or value != candidate[i]:
                candidate[i] = value
                seen[i] = 1
                self._since[i] = now_ms
            elif seen[i] < 255:
                seen[i] += 1
            if seen[i] >= self.scans and _ticks_diff(now_ms, self._since[i]) >= self.min_ms:
                stable[i] = value
                seen[i] = 0
                changed.append(i)
        return changed


def bitmaps(stable: bytearray) -> tuple:
    """(presence, conduction) bitmaps of the confirmed readings: bit i = slot i, LSB first."""
    size = (len(stable) + 7) // 8
    presence = bytearray(size)
    conduction = bytearray(size)
    for i in range(len(stable)):
        value = stable[i]
        if value & PRESENT:
            presence[i >> 3] |= 1 << (i & 7)
        if value & CONDUCTS:
            conduction[i >> 3] |= 1 << (i & 7)
    return presence, conduction
