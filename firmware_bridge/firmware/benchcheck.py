"""Bench check of a freshly wired scanning board, run on the device itself.

With the REPL available (test button held at power-up, see
docs/firmware-bridge.md)::

    mpremote connect /dev/ttyACM0 run firmware_bridge/firmware/benchcheck.py

It prints what every multiplexer channel reads, which slots hold a pawn and
of which kind, the button, the time one full scan takes, and lights each
lamp in turn for half a second so they can be checked by eye.
"""

# ruff: noqa: UP031 -- %-formatting is what every MicroPython build supports

try:
    from firmware_bridge.firmware import config, scanner
except ImportError:
    import config
    import scanner

try:
    from time import sleep_ms, ticks_diff, ticks_us
except ImportError:
    from time import monotonic_ns, sleep

    def ticks_us() -> int:
        return monotonic_ns() // 1000

    def ticks_diff(a: int, b: int) -> int:
        return a - b

    def sleep_ms(ms: int) -> None:
        sleep(ms / 1000)


def check(machine: object, out: object = print, lamp_ms: int = 500) -> dict:
    """Run the bench check; return what was found (also printed through *out*)."""
    cfg = config.BOARD
    pin = machine.Pin
    mux = scanner.MuxScanner(
        [pin(n, pin.OUT) for n in cfg["select_pins"]],
        [pin(n, pin.IN, pin.PULL_UP) for n in cfg["signal_pins"]],
        cfg["slot_count"],
        active_low=cfg["active_low"],
    )
    start = ticks_us()
    readings = mux.scan()
    scan_us = ticks_diff(ticks_us(), start)
    out("one scan: %d us, %d select writes, %d signal reads" % (scan_us, mux.pin_writes, mux.pin_reads))
    for m in range(len(cfg["signal_pins"])):
        row = []
        for ch in range(scanner.CHANNELS_PER_MUX):
            index = scanner.CHANNELS_PER_MUX * m + ch
            if index < 2 * cfg["slot_count"]:
                bit = scanner.CONDUCTS if index & 1 else scanner.PRESENT
                row.append("1" if readings[index >> 1] & bit else ".")
            else:
                row.append(" ")
        out("mux %d: %s" % (m, "".join(row)))
    pawns = {}
    for slot in range(cfg["slot_count"]):
        value = readings[slot]
        if value & scanner.PRESENT:
            pawns[slot] = "attack" if value & scanner.CONDUCTS else "defense"
        elif value & scanner.CONDUCTS:
            out("slot %d conducts with no pawn: check its wiring" % slot)
    out("pawns (slot index: kind): %r" % pawns)
    button = pin(cfg["button_pin"], pin.IN, pin.PULL_UP).value() == 0
    out("button: %s" % ("held" if button else "released"))
    on = 1 if cfg["lamps_active_high"] else 0
    lamps = [pin(n, pin.OUT) for n in cfg["lamp_pins"]]
    for lamp in lamps:
        lamp.value(1 - on)
    for i, lamp in enumerate(lamps):
        out("lamp %d on" % i)
        lamp.value(on)
        sleep_ms(lamp_ms)
        lamp.value(1 - on)
    return {"scan_us": scan_us, "pawns": pawns, "button": button}


if __name__ == "__main__":
    import machine as _machine

    check(_machine)
