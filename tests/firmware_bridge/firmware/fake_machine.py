"""A stand-in for MicroPython's ``machine`` module, written in what MicroPython runs.

The firmware's tests run twice, under CPython and under MicroPython (its
WebAssembly port, see ``test_firmware.py``), so this file keeps to the same
subset as the firmware: no ``typing``, dataclasses or f-strings, annotations
only with built-in names. (:mod:`firmware_bridge.simulator` has the CPython
version, with threads and pseudo-terminals, for the link tests.)

A :class:`Board` holds what the pins are wired to: pawns in slots, a contact
that conducts without a pawn, the test button, the lamp outputs.
:func:`make_machine` returns an object with the ``machine`` API the
firmware uses (``Pin``, ``WDT``, ``UART``, ``reset_cause``); a test can put
it in ``sys.modules["machine"]`` so that ``import machine`` finds it.
"""

# ruff: noqa: UP031 -- %-formatting is what every MicroPython build supports

try:
    from firmware_bridge.firmware import config
except ImportError:  # MicroPython: the firmware files sit flat, as on the device
    import config

PWRON_RESET = 1
WDT_RESET = 3
"""``machine.reset_cause()`` values, as on the RP2040 port."""


class Board:
    """The slots, button and lamps the stand-in pins are wired to.

    Pawns are placed by slot index (the layout's reading order); *conducts*
    says whether the pawn is an attack pawn. Pin levels follow the wiring of
    ``config.BOARD`` updated with *settings*.
    """

    def __init__(self, settings=None) -> None:
        cfg = dict(config.BOARD)
        if settings:
            cfg.update(settings)
        self.cfg = cfg
        self.pawns = {}
        self.conduction_faults = set()
        """Slots that conduct with no pawn in them (a short on the board)."""
        self.button = False
        self.outputs = {}
        """Last level written to each output pin, by pin number."""
        self.select_writes = []
        """Every select value the multiplexers were switched to, in order."""

    def place(self, slot: int, conducts: bool) -> None:
        self.pawns[slot] = conducts

    def lift(self, slot: int) -> None:
        self.pawns.pop(slot, None)

    def lamps(self) -> list:
        """Which lamps are lit, in the firmware's lamp order."""
        on = 1 if self.cfg["lamps_active_high"] else 0
        return [self.outputs.get(pin) == on for pin in self.cfg["lamp_pins"]]

    def select_value(self) -> int:
        value = 0
        for bit, pin in enumerate(self.cfg["select_pins"]):
            value |= self.outputs.get(pin, 0) << bit
        return value

    def read(self, pin: int) -> int:
        cfg = self.cfg
        if pin == cfg["button_pin"]:
            return 0 if self.button else 1  # to ground when pressed
        if pin in cfg["signal_pins"]:
            channel = 16 * list(cfg["signal_pins"]).index(pin) + self.select_value()
            slot = channel >> 1
            if channel & 1:
                active = self.pawns.get(slot, False) or slot in self.conduction_faults
            else:
                active = slot in self.pawns
            if cfg["active_low"]:
                return 0 if active else 1
            return 1 if active else 0
        return self.outputs.get(pin, 0)

    def write(self, pin: int, level: int) -> None:
        self.outputs[pin] = 1 if level else 0
        if pin in self.cfg["select_pins"]:
            self.select_writes.append(self.select_value())


class _Machine:
    """What ``import machine`` gives the firmware: attributes are set by :func:`make_machine`."""


def make_machine(board: Board, uart=None, reset_cause: int = PWRON_RESET) -> object:
    """A ``machine`` stand-in wired to *board*; ``machine.UART(...)`` returns *uart*."""
    machine = _Machine()

    class Pin:
        IN = 0
        OUT = 1
        PULL_UP = 1
        PULL_DOWN = 2

        def __init__(self, id: int, mode: int = 0, pull=None) -> None:
            self.id = id
            self.mode = mode
            self.pull = pull
            machine.pins.append(self)

        def value(self, level=None) -> int:
            if level is None:
                return board.read(self.id)
            if self.mode != Pin.OUT:
                raise ValueError("pin %d is an input" % self.id)
            board.write(self.id, level)
            return None

    class WDT:
        def __init__(self, id: int = 0, timeout: int = 5000) -> None:
            self.timeout_ms = timeout
            self.feeds = 0
            machine.watchdogs.append(self)

        def feed(self) -> None:
            self.feeds += 1

    def make_uart(id: int, baudrate: int = 115200, **options: object) -> object:
        if uart is None:
            raise OSError("this stand-in board has no serial line")
        machine.uarts.append((id, baudrate, options))
        return uart

    machine.Pin = Pin
    machine.WDT = WDT
    machine.UART = make_uart
    machine.reset_cause = lambda: reset_cause
    machine.PWRON_RESET = PWRON_RESET
    machine.WDT_RESET = WDT_RESET
    machine.board = board
    machine.pins = []
    machine.watchdogs = []
    machine.uarts = []
    return machine
