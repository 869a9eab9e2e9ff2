"""Starting the firmware: main.py at power-up, app.run(), the bench check; under CPython and MicroPython."""

# ruff: noqa: UP031 -- %-formatting is what every MicroPython build supports

from fake_machine import Board, make_machine
from firmware_harness import Clock, Patch, StandIns, app, benchcheck, beside, config, framing, messages


class StopLoop(Exception):
    """Raised by a stand-in to leave the firmware's endless loop."""


class Uart:
    """A ``machine.UART`` whose host says nothing; it ends the loop after *turns* reads."""

    def __init__(self, turns: int = 20) -> None:
        self.turns = turns
        self.reads = 0
        self.sent = bytearray()

    def any(self) -> int:
        self.reads += 1
        if self.reads > self.turns:
            raise StopLoop()
        return 0

    def read(self, n: int) -> bytes:
        return b""

    def write(self, data: bytes) -> int:
        self.sent.extend(data)
        return len(data)


class Module:
    """A stand-in module whose functions record their calls."""

    def __init__(self) -> None:
        self.calls = []

    def record(self, name: str) -> object:
        return lambda *args: self.calls.append((name,) + args)


def test_run_imports_machine_and_talks_over_the_uart() -> None:
    board = Board()
    uart = Uart()
    machine = make_machine(board, uart=uart)
    with Clock(), StandIns({"machine": machine}):
        try:
            app.run(settings={"uart": 1, "baudrate": 9600})
        except StopLoop:
            pass
        else:
            raise AssertionError("the main loop returned")
    assert machine.uarts == [(1, 9600, {"timeout": 0})]
    frames = framing.Decoder().feed(bytes(uart.sent))
    assert [f.type for f in frames] == [messages.HELLO_REPLY]
    assert uart.reads == 21 and machine.watchdogs[0].feeds == 20


class Line:
    """Stand-in for ``sys.stdin`` or ``sys.stdout`` of the USB serial port (``.buffer`` is itself)."""

    def __init__(self, data: bytes = b"") -> None:
        self.data = bytes(data)
        self.buffer = self

    def read(self, n: int) -> bytes:
        chunk = self.data[:n]
        self.data = self.data[n:]
        return chunk

    def write(self, data: bytes) -> int:
        self.data += bytes(data)
        return len(data)


class Select:
    """Stand-in for the ``select`` module: a line polls readable while it holds bytes."""

    POLLIN = 1

    class Poll:
        def __init__(self) -> None:
            self.lines = []

        def register(self, line: Line, events: int) -> None:
            self.lines.append((line, events))

        def poll(self, timeout_ms: int) -> list:
            assert timeout_ms == 0  # the main loop never waits
            return [(line, events) for line, events in self.lines if line.data]

    def poll(self) -> object:
        return Select.Poll()


def test_the_usb_serial_port_is_read_without_waiting_256_bytes_a_turn() -> None:
    stdin, stdout = Line(bytes(range(1, 201)) * 3), Line()
    with StandIns({"select": Select()}):
        usb = app.UsbStream(stdin, stdout)
    assert [len(usb.read()) for _ in range(4)] == [256, 256, 88, 0]
    usb.write(b"\x01\x02")
    assert stdout.data == b"\x01\x02"


def test_the_firmware_over_the_usb_serial_port() -> None:
    board = Board()
    stdin, stdout = Line(), Line()
    with Clock(), StandIns({"select": Select()}):
        firmware = app.Firmware(stream=app.UsbStream(stdin, stdout), machine=make_machine(board))
        stdin.write(framing.encode_frame(messages.HELLO, 0, messages.pack_hello(1, 500, 3000)))
        stdin.write(framing.encode_frame(messages.LAMPS, 1, messages.pack_lamps(0b0011)))
        firmware.step()
    frames = framing.Decoder().feed(stdout.data)
    kinds = [messages.HELLO_REPLY, messages.HELLO_REPLY, messages.SNAPSHOT, messages.ACK]
    assert [f.type for f in frames] == kinds  # the boot announcement, then the answers
    assert board.lamps() == [True, True, False, False]


def run_main_py(board: Board) -> tuple:
    """Execute main.py as MicroPython does at power-up, with stand-in modules; (app calls, kbd_intr calls)."""
    machine = make_machine(board)
    fake_app = Module()
    fake_app.run = fake_app.record("run")
    micropython = Module()
    micropython.kbd_intr = micropython.record("kbd_intr")
    with open(beside(app, "main.py")) as f:
        source = f.read()
    stand_ins = {"machine": machine, "micropython": micropython, "app": fake_app, "config": config}
    with StandIns(stand_ins):
        exec(source, {"__name__": "__main__"})
    return fake_app.calls, micropython.calls, machine


def test_main_starts_the_firmware_with_ctrl_c_off() -> None:
    app_calls, kbd_calls, machine = run_main_py(Board())
    assert app_calls == [("run", machine)]
    assert kbd_calls == [("kbd_intr", -1)]  # frames hold 0x03 bytes: no KeyboardInterrupt from the line


def test_main_leaves_the_repl_free_when_the_button_is_held() -> None:
    board = Board()
    board.button = True
    app_calls, kbd_calls, _ = run_main_py(board)
    assert app_calls == [] and kbd_calls == []


def test_bench_check_reports_pawns_button_and_cycles_lamps() -> None:
    board = Board()
    board.place(0, True)
    board.place(9, False)
    board.conduction_faults.add(20)
    board.button = True
    lit_while_waiting = []
    lines = []
    with Clock(), Patch([(benchcheck, "sleep_ms", lambda ms: lit_while_waiting.append(board.lamps()))]):
        found = benchcheck.check(make_machine(board), out=lines.append)
    assert found["pawns"] == {0: "attack", 9: "defense"} and found["button"] is True
    assert "mux 0: 11" + "." * 14 in lines
    assert "mux 1: ..1" + "." * 13 in lines
    assert "mux 2: " + "." * 9 + "1" + "." * 6 in lines
    assert "slot 20 conducts with no pawn: check its wiring" in lines
    assert "one scan: 0 us, 15 select writes, 160 signal reads" in lines
    assert lit_while_waiting == [[i == k for i in range(4)] for k in range(4)]
    assert board.lamps() == [False] * 4
