"""The firmware of the scanning microcontroller: scan, debounce, stream, obey.

MicroPython code for an RP2040 board (Raspberry Pi Pico class); the tests run
it under CPython with a stand-in ``machine`` module. One :meth:`Firmware.step`
is one turn of the main loop: read the host's frames, scan the board when the
scan interval has passed, send what changed, send a heartbeat snapshot when
the line has been quiet, put the lamps out if the host has gone silent, and
feed the watchdog. PROTOCOL.md describes the conversation.
"""

# ruff: noqa: UP031 -- %-formatting is what every MicroPython build supports

try:  # on the host (tests, simulator): the package
    from firmware_bridge import framing, messages
    from firmware_bridge.firmware import config, scanner
except ImportError:  # on the device: the files sit side by side in its flash
    import config
    import framing
    import messages
    import scanner

# MicroPython's ticks wrap (every 2**30 ms, about 12 days; every 2**30 us, about 18 minutes): only
# ticks_diff() may compare two of them, and only over less than half that period. So the firmware keeps
# no timestamp that can grow old: every one it compares is refreshed while the loop runs.
try:
    from time import sleep_ms, ticks_diff, ticks_ms, ticks_us
except ImportError:  # CPython (tests, simulator): monotonic clocks that never wrap
    from time import monotonic_ns, sleep

    def ticks_ms() -> int:
        return monotonic_ns() // 1000000

    def ticks_us() -> int:
        return monotonic_ns() // 1000

    def ticks_diff(a: int, b: int) -> int:
        return a - b

    def sleep_ms(ms: int) -> None:
        sleep(ms / 1000)


try:
    from gc import mem_free
except ImportError:

    def mem_free() -> int:
        return 0


FIRMWARE = "hautetension-scanner 1.0"

HOST_MESSAGES = (messages.LAMPS, messages.SNAPSHOT_REQUEST, messages.HEALTH_REQUEST)


class UartStream:
    """The link over a ``machine.UART``."""

    def __init__(self, uart: object) -> None:
        self.uart = uart

    def read(self) -> bytes:
        waiting = self.uart.any()
        if not waiting:
            return b""
        return self.uart.read(waiting) or b""

    def write(self, data: bytes) -> None:
        self.uart.write(data)


class UsbStream:
    """The link over the USB serial port: MicroPython's stdin and stdout (or the given stand-ins)."""

    def __init__(self, stdin: object = None, stdout: object = None) -> None:
        import select
        import sys

        stdin = stdin or sys.stdin
        self._in = stdin.buffer
        self._out = (stdout or sys.stdout).buffer
        self._poll = select.poll()
        self._poll.register(stdin, select.POLLIN)

    def read(self) -> bytes:
        data = bytearray()
        while len(data) < 256 and self._poll.poll(0):
            data.extend(self._in.read(1))
        return bytes(data)

    def write(self, data: bytes) -> None:
        self._out.write(data)


class Firmware:
    """The device end of the link; *pins* come from ``machine`` (or a stand-in)."""

    def __init__(
        self,
        *,
        stream: object,
        machine: object,
        settings: dict | None = None,
        version: int = messages.PROTOCOL_VERSION,
    ) -> None:
        cfg = dict(config.BOARD)
        if settings:
            cfg.update(settings)
        self.cfg = cfg
        self.stream = stream
        self.version = version
        pin = machine.Pin
        self.slot_count = cfg["slot_count"]
        self.scanner = scanner.MuxScanner(
            [pin(n, pin.OUT) for n in cfg["select_pins"]],
            [pin(n, pin.IN, pin.PULL_UP if cfg["active_low"] else None) for n in cfg["signal_pins"]],
            self.slot_count,
            active_low=cfg["active_low"],
        )
        self.debouncer = scanner.Debouncer(self.slot_count, cfg["debounce_scans"], cfg["debounce_ms"])
        self.lamp_pins = [pin(n, pin.OUT) for n in cfg["lamp_pins"]]
        self.lamp_on = 1 if cfg["lamps_active_high"] else 0
        self.button_pin = pin(cfg["button_pin"], pin.IN, pin.PULL_UP)
        self.button = scanner.Debouncer(1, cfg["debounce_scans"], cfg["debounce_ms"])
        self.wdt = machine.WDT(timeout=cfg["watchdog_ms"]) if cfg["watchdog_ms"] else None
        reset_cause = getattr(machine, "reset_cause", None)
        self.reset_cause = reset_cause() if reset_cause else 0
        self.decoder = framing.Decoder()
        self.lamps = 0
        self.set_lamps(0)
        self.ready = False
        self.heartbeat_ms = cfg["heartbeat_ms"]
        self.host_timeout_ms = cfg["host_timeout_ms"]
        self.tx_seq = 0
        self.tx_frames = 0
        self.rx_frames = 0
        self.snap_seq = 0
        self.scans = 0
        self.scan_us = 0
        self.loop_max_us = 0
        now = ticks_ms()
        self.uptime_ms = 0
        """Summed turn by turn: ticks_ms() alone cannot tell more than half its wrap period."""
        self.last_turn = now
        self.last_scan = now
        self.last_snapshot = now
        self.last_host = now
        self.last_error = None
        """When the last bad-frame error was sent, while that is under 100 ms ago; else None."""
        self._bad_seen = 0
        self._settle()
        self.send(messages.HELLO_REPLY, self._hello_reply(messages.R_BOOT))

    def _settle(self) -> None:
        """Scan until the debounce has confirmed the board as it is at power-up.

        Without this, a host that connects at once would be told the board is
        empty and then, a few milliseconds later, that every pawn arrived.
        """
        start = ticks_ms()
        limit = 10 * (self.cfg["debounce_ms"] + self.cfg["debounce_scans"] * self.cfg["scan_interval_ms"])
        self.scan(start)
        # A contact that keeps flickering must not keep the board from starting: give up after limit.
        while (self.debouncer.pending() or self.button.pending()) and ticks_diff(ticks_ms(), start) < limit:
            sleep_ms(self.cfg["scan_interval_ms"])
            self.scan(ticks_ms())
        self.last_scan = ticks_ms()

    # -- the main loop -------------------------------------------------------

    def run(self) -> None:
        """Loop for ever (on the device)."""
        while True:
            self.step()

    def step(self) -> None:
        start = ticks_us()
        now = ticks_ms()
        self.uptime_ms += ticks_diff(now, self.last_turn)
        self.last_turn = now
        for frame in self.decoder.feed(self.stream.read()):
            self.handle(frame, now)
        self._count_bad_frames(now)
        if ticks_diff(now, self.last_scan) >= self.cfg["scan_interval_ms"]:
            self.last_scan = now
            self.scan(now)
        if self.ready and ticks_diff(now, self.last_snapshot) >= self.heartbeat_ms:
            self.send_snapshot(0)
        if self.lamps and self.host_timeout_ms and ticks_diff(now, self.last_host) >= self.host_timeout_ms:
            self.set_lamps(0)  # the host is gone: lamps to their safe state
        if self.wdt is not None:
            self.wdt.feed()
        self.loop_max_us = max(self.loop_max_us, ticks_diff(ticks_us(), start))

    def scan(self, now: int) -> None:
        start = ticks_us()
        readings = self.scanner.scan()
        self.scan_us = ticks_diff(ticks_us(), start)
        self.scans += 1
        changed = self.debouncer.update(readings, now)
        pressed = self.button.update(bytearray((1 - self.button_pin.value(),)), now)
        if not self.ready:
            return
        if pressed:
            self.send(messages.BUTTON, messages.pack_button(self.button.stable[0] == 1))
        if changed or pressed:
            self.send_snapshot(messages.F_CHANGED)

    # -- frames from the host ------------------------------------------------

    def handle(self, frame: object, now: int) -> None:
        self.rx_frames += 1
        self.last_host = now
        kind = frame.type
        try:
            if kind == messages.HELLO:
                self._on_hello(frame)
            elif kind in (messages.ACK, messages.ERROR):
                pass  # the host's own bookkeeping; answering could start an error ping-pong
            elif kind not in HOST_MESSAGES:
                self.error(messages.E_UNKNOWN_TYPE, frame, "type 0x%02x is not a host message" % kind)
            elif not self.ready:
                self.error(messages.E_NOT_READY, frame, "send hello first")
            elif kind == messages.LAMPS:
                self.set_lamps(messages.unpack_lamps(frame.payload))
                self.send(messages.ACK, messages.pack_ack(kind, frame.seq))
            elif kind == messages.SNAPSHOT_REQUEST:
                self.send_snapshot(messages.F_REQUESTED)
            else:  # HEALTH_REQUEST
                self.send(messages.HEALTH, messages.pack_health(self.health()))
        except messages.PayloadError as exc:
            self.error(messages.E_BAD_PAYLOAD, frame, str(exc))

    def _on_hello(self, frame: object) -> None:
        version, heartbeat_ms, host_timeout_ms = messages.unpack_hello(frame.payload)
        self.send(messages.HELLO_REPLY, self._hello_reply(messages.R_ANSWER))
        if version != self.version:
            self.ready = False
            self.error(messages.E_VERSION_MISMATCH, frame, "device speaks v%d" % self.version)
            return
        if heartbeat_ms:
            self.heartbeat_ms = heartbeat_ms
        self.host_timeout_ms = host_timeout_ms
        self.ready = True
        self.send_snapshot(messages.F_REQUESTED)

    def _hello_reply(self, reason: int) -> bytes:
        return messages.pack_hello_reply(
            self.version, self.slot_count, len(self.lamp_pins), reason, self.reset_cause, FIRMWARE
        )

    def _count_bad_frames(self, now: int) -> None:
        # A damaged frame may have been a command: tell the host (at most every 100 ms) so it resends.
        if self.last_error is not None and ticks_diff(now, self.last_error) >= 100:
            self.last_error = None  # forgotten at once, so it never grows old enough to wrap
        bad = self.decoder.bad_frames + self.decoder.oversize
        if bad != self._bad_seen:
            self._bad_seen = bad
            if self.last_error is None:
                self.last_error = now
                self.send(messages.ERROR, messages.pack_error(messages.E_BAD_FRAME, 0, 0, "crc or framing"))

    # -- outputs ---------------------------------------------------------------

    def set_lamps(self, mask: int) -> None:
        self.lamps = mask & ((1 << len(self.lamp_pins)) - 1)
        for i, lamp in enumerate(self.lamp_pins):
            lit = (self.lamps >> i) & 1
            lamp.value(self.lamp_on if lit else 1 - self.lamp_on)

    def send_snapshot(self, flags: int) -> None:
        if self.button.stable[0]:
            flags |= messages.F_BUTTON
        presence, conduction = scanner.bitmaps(self.debouncer.stable)
        payload = messages.pack_snapshot(self.snap_seq, flags, self.slot_count, presence, conduction)
        self.snap_seq = (self.snap_seq + 1) & 0xFFFF
        self.last_snapshot = ticks_ms()
        self.send(messages.SNAPSHOT, payload)

    def error(self, code: int, frame: object, text: str) -> None:
        self.send(messages.ERROR, messages.pack_error(code, frame.type, frame.seq, text))

    def send(self, kind: int, payload: bytes) -> None:
        self.stream.write(framing.encode_frame(kind, self.tx_seq, payload))
        self.tx_seq = (self.tx_seq + 1) & 0xFFFF
        self.tx_frames += 1

    def health(self) -> tuple:
        return (
            self.uptime_ms & 0xFFFFFFFF,
            self.scans & 0xFFFFFFFF,
            self.scan_us & 0xFFFFFFFF,
            self.loop_max_us & 0xFFFFFFFF,
            self.rx_frames & 0xFFFFFFFF,
            (self.decoder.bad_frames + self.decoder.oversize) & 0xFFFFFFFF,
            self.tx_frames & 0xFFFFFFFF,
            mem_free() & 0xFFFFFFFF,
            self.reset_cause & 0xFF,
            self.lamps,
        )


def run(machine: object = None, stream: object = None, settings: dict | None = None) -> None:
    """Start the firmware: ``machine`` and the stream default to the real ones."""
    if machine is None:
        import machine
    cfg = dict(config.BOARD)
    if settings:
        cfg.update(settings)
    if stream is None:
        if cfg["uart"] is None:
            stream = UsbStream()
        else:
            stream = UartStream(machine.UART(cfg["uart"], cfg["baudrate"], timeout=0))
    Firmware(stream=stream, machine=machine, settings=cfg).run()
