"""What the firmware's tests share: the firmware modules, a clock that wraps, an in-memory line.

Runs under CPython (pytest collects the ``test_*.py`` files beside it) and
under MicroPython (``run_tests.py`` runs the same files there), so it keeps
to the subset the firmware itself keeps to.

MicroPython's ``time.ticks_ms()`` and ``ticks_us()`` wrap to 0 after
``2**30 - 1`` on every port, and only ``time.ticks_diff()`` may compare two
of them. :class:`Clock` wraps the same way and starts just before the wrap,
so every test's clock crosses it. Under MicroPython the firmware keeps the
interpreter's own ``ticks_diff``; CPython has none, so there the firmware
gets :func:`ticks_diff` below, which a test checks against MicroPython's.
"""

# ruff: noqa: UP031 -- %-formatting is what every MicroPython build supports

import sys

import fake_machine

try:  # CPython: the packages, as the host imports them
    from firmware_bridge import framing, messages
    from firmware_bridge.firmware import app, benchcheck, config, scanner
except ImportError:  # MicroPython: the files sit flat, as on the device
    import app
    import benchcheck
    import config
    import framing
    import messages
    import scanner

__all__ = ["app", "benchcheck", "config", "framing", "messages", "scanner"]  # and what is defined below

ON_MICROPYTHON = sys.implementation.name == "micropython"

TICKS_PERIOD = 1 << 30
"""MicroPython's ticks wrap period (``time.ticks_add(0, -1) + 1``)."""


def ticks_diff(end: int, start: int) -> int:
    """MicroPython's ``time.ticks_diff``: the signed distance from *start* to *end* on the wrapping ticks."""
    half = TICKS_PERIOD // 2
    return ((end - start + half) & (TICKS_PERIOD - 1)) - half


def ticks_add(ticks: int, delta: int) -> int:
    """MicroPython's ``time.ticks_add``."""
    return (ticks + delta) & (TICKS_PERIOD - 1)


class Patch:
    """Replace module or class attributes for the length of a ``with`` block (no pytest on MicroPython)."""

    def __init__(self, changes: list) -> None:
        self.changes = changes  # (object, attribute name, new value)
        self.saved = []

    def __enter__(self) -> object:
        for target, name, value in self.changes:
            self.saved.append((target, name, getattr(target, name)))
            setattr(target, name, value)
        return self

    def __exit__(self, *exc: object) -> bool:
        for target, name, value in reversed(self.saved):
            setattr(target, name, value)
        self.saved = []
        return False


class Clock(Patch):
    """The firmware's clock, by hand: ``with Clock() as clock:`` then ``clock.advance(ms)``.

    It starts *before_wrap* milliseconds before ``ticks_ms()`` wraps to 0.
    ``ticks_us()`` is the same instant in microseconds, wrapping likewise
    (every 2**30 us, about 18 minutes). Sleeping advances the clock.
    """

    def __init__(self, before_wrap: int = 500) -> None:
        self.ms = ticks_add(0, -before_wrap)
        changes = [
            (app, "ticks_ms", self.ticks_ms),
            (app, "ticks_us", self.ticks_us),
            (app, "sleep_ms", self.advance),
            (benchcheck, "ticks_us", self.ticks_us),
            (benchcheck, "sleep_ms", self.advance),
        ]
        if not ON_MICROPYTHON:  # CPython's stand-in ticks_diff does not wrap: give it MicroPython's
            changes += [(app, "ticks_diff", ticks_diff), (benchcheck, "ticks_diff", ticks_diff)]
            changes.append((scanner, "_ticks_diff", ticks_diff))
        super().__init__(changes)

    def ticks_ms(self) -> int:
        return self.ms

    def ticks_us(self) -> int:
        return (self.ms * 1000) & (TICKS_PERIOD - 1)

    def advance(self, ms: int) -> None:
        self.ms = ticks_add(self.ms, ms)


class MemoryStream:
    """The firmware's line, in memory: the test plays the host on the other end."""

    def __init__(self) -> None:
        self.inbox = bytearray()
        self.decoder = framing.Decoder()
        self.frames = []
        self.written = bytearray()
        """Every byte the firmware wrote, for tests that look at the wire itself."""

    def read(self) -> bytes:
        data = bytes(self.inbox)
        self.inbox = bytearray()
        return data

    def write(self, data: bytes) -> None:
        self.written.extend(data)
        self.frames.extend(self.decoder.feed(data))

    def take(self) -> list:
        """The frames the firmware sent since the last call."""
        frames = self.frames
        self.frames = []
        return frames


def boot(board: object, stream: MemoryStream, machine: object = None, **settings: object) -> object:
    """Power up the firmware on *board* (through *machine*, by default a stand-in wired to it)."""
    if machine is None:
        machine = fake_machine.make_machine(board)
    return app.Firmware(stream=stream, machine=machine, settings=settings)


def host_sends(stream: MemoryStream, kind: int, seq: int = 0, payload: bytes = b"") -> None:
    stream.inbox.extend(framing.encode_frame(kind, seq, payload))


def hello(stream: MemoryStream, version: int = messages.PROTOCOL_VERSION, heartbeat: int = 500,
          host_timeout: int = 3000) -> None:
    host_sends(stream, messages.HELLO, 0, messages.pack_hello(version, heartbeat, host_timeout))


def connect(board: object, stream: MemoryStream, heartbeat: int = 10000, **settings: object) -> object:
    """Boot and shake hands; the frames sent so far are taken."""
    firmware = boot(board, stream, **settings)
    hello(stream, heartbeat=heartbeat)
    firmware.step()
    stream.take()
    return firmware


def run_for(firmware: object, clock: Clock, ms: int, step: int = 1) -> None:
    """Turn the main loop once every *step* ms for *ms* ms."""
    for _ in range(ms // step):
        clock.advance(step)
        firmware.step()


def of_type(kind: int, frames: list) -> list:
    return [f for f in frames if f.type == kind]


def snapshots(frames: list) -> list:
    return [messages.unpack_snapshot(f.payload) for f in of_type(messages.SNAPSHOT, frames)]


def error_codes(frames: list) -> list:
    return [messages.unpack_error(f.payload)[0] for f in of_type(messages.ERROR, frames)]


def occupied(snapshot: tuple) -> dict:
    """{slot: conducts} of the pawns a snapshot shows."""
    slots, presence, conduction = snapshot[2], snapshot[3], snapshot[4]
    p = int.from_bytes(presence, "little")
    c = int.from_bytes(conduction, "little")
    return {i: bool(c >> i & 1) for i in range(slots) if p >> i & 1}


def raises(exc_type: type, function: object, *args: object) -> BaseException:
    """The exception *function(*args)* raises, which must be an *exc_type*."""
    try:
        function(*args)
    except exc_type as exc:
        return exc
    raise AssertionError("%r did not raise %s" % (function, exc_type.__name__))


class Noise:
    """Deterministic pseudo-random bytes (xorshift32): the same garbage under CPython and MicroPython."""

    def __init__(self, seed: int = 2463534242) -> None:
        self.state = seed

    def number(self) -> int:
        x = self.state
        x ^= (x << 13) & 0xFFFFFFFF
        x ^= x >> 17
        x ^= (x << 5) & 0xFFFFFFFF
        self.state = x
        return x

    def below(self, n: int) -> int:
        return self.number() % n

    def bytes(self, size: int) -> bytes:
        return bytes([self.number() & 0xFF for _ in range(size)])


class StandIns:
    """Stand-in modules in ``sys.modules`` for a ``with`` block: ``import`` finds them first.

    (``sys.modules`` itself cannot be replaced on MicroPython, only its items.)
    """

    def __init__(self, modules: dict) -> None:
        self.modules = modules
        self.saved = {}

    def __enter__(self) -> object:
        for name in self.modules:
            self.saved[name] = sys.modules.get(name)
            sys.modules[name] = self.modules[name]
        return self

    def __exit__(self, *exc: object) -> bool:
        for name in self.saved:
            if self.saved[name] is None:
                del sys.modules[name]
            else:
                sys.modules[name] = self.saved[name]
        self.saved = {}
        return False


def beside(module: object, filename: str) -> str:
    """The path of *filename* in the folder *module* was loaded from."""
    path = module.__file__.replace("\\", "/")
    return path.rsplit("/", 1)[0] + "/" + filename if "/" in path else filename
