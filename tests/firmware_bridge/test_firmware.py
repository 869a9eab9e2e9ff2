"""The firmware's logic under CPython, with the stand-in ``machine`` module and a fake clock."""

from __future__ import annotations

import sys
from typing import Any

import pytest

from firmware_bridge import framing, messages
from firmware_bridge.firmware import app, config, scanner
from firmware_bridge.framing import Frame, encode_frame
from firmware_bridge.simulator import VirtualBoard, make_machine
from games.hautetension.layout import Layout
from hardware.settings import HardwareSettings


class FakeClock:
    def __init__(self) -> None:
        self.ms = 1000

    def advance(self, ms: int) -> None:
        self.ms += ms


class MemoryStream:
    """The firmware's stream, in memory: the test plays the host."""

    def __init__(self) -> None:
        self.inbox = bytearray()
        self.decoder = framing.Decoder()

    def read(self) -> bytes:
        data, self.inbox = bytes(self.inbox), bytearray()
        return data

    def write(self, data: bytes) -> None:
        self.frames.extend(self.decoder.feed(data))

    frames: list[Frame]

    def take(self) -> list[Frame]:
        frames, self.frames = self.frames, []
        return frames


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    fake = FakeClock()
    monkeypatch.setattr(app, "ticks_ms", lambda: fake.ms)
    monkeypatch.setattr(app, "ticks_us", lambda: fake.ms * 1000)
    monkeypatch.setattr(app.Firmware, "_sleep_ms", staticmethod(fake.advance))
    return fake


@pytest.fixture
def board() -> VirtualBoard:
    return VirtualBoard()


@pytest.fixture
def stream() -> MemoryStream:
    s = MemoryStream()
    s.frames = []
    return s


def boot(board: VirtualBoard, stream: MemoryStream, **settings: Any) -> app.Firmware:
    return app.Firmware(stream=stream, machine=make_machine(board), settings=settings)


def host_sends(stream: MemoryStream, kind: int, seq: int = 0, payload: bytes = b"") -> None:
    stream.inbox += encode_frame(kind, seq, payload)


def hello(stream: MemoryStream, version: int = messages.PROTOCOL_VERSION, heartbeat: int = 500) -> None:
    host_sends(stream, messages.HELLO, 0, messages.pack_hello(version, heartbeat, 3000))


def run_for(firmware: app.Firmware, clock: FakeClock, ms: int, step: int = 1) -> None:
    for _ in range(ms // step):
        clock.advance(step)
        firmware.step()


def snapshots(frames: list[Frame]) -> list[tuple[Any, ...]]:
    return [messages.unpack_snapshot(f.payload) for f in frames if f.type == messages.SNAPSHOT]


def occupied(snapshot: tuple[Any, ...]) -> dict[int, bool]:
    _, _, slots, presence, conduction = snapshot
    p, c = int.from_bytes(presence, "little"), int.from_bytes(conduction, "little")
    return {i: bool(c >> i & 1) for i in range(slots) if p >> i & 1}


# --------------------------------------------------------------------------- the scanner


def test_scan_reads_every_slot_through_the_multiplexers(board: VirtualBoard) -> None:
    machine = make_machine(board)
    cfg = config.BOARD
    mux = scanner.MuxScanner(
        [machine.Pin(n, machine.Pin.OUT) for n in cfg["select_pins"]],
        [machine.Pin(n, machine.Pin.IN) for n in cfg["signal_pins"]],
        80,
    )
    placed = {0: True, 7: False, 8: True, 41: False, 79: True}
    for slot, conducts in placed.items():
        board.place(slot, conducts=conducts)
    board.conduction_faults.add(50)
    readings = mux.scan()
    expected = bytearray(80)
    for slot, conducts in placed.items():
        expected[slot] = scanner.PRESENT | (scanner.CONDUCTS if conducts else 0)
    expected[50] = scanner.CONDUCTS
    assert readings == expected
    # Gray-code walk: one select-line write per step, 16 steps, ten signals read per step.
    writes = mux.pin_writes
    mux.scan()
    assert mux.pin_writes - writes == 16
    assert mux.pin_reads == 2 * 160


def test_slot_map_is_the_same_as_the_gpio_scanner(pinwheel: Layout) -> None:
    wiring = HardwareSettings().slot_map(pinwheel)
    for index, slot in enumerate(pinwheel.slots):
        presence, conduction = wiring[slot].presence, wiring[slot].conduction
        assert presence is not None and conduction is not None
        assert 16 * presence.multiplexer + presence.channel == 2 * index
        assert 16 * conduction.multiplexer + conduction.channel == 2 * index + 1
    assert HardwareSettings().debounce.scans == config.BOARD["debounce_scans"]
    assert HardwareSettings().debounce.min_seconds * 1000 == config.BOARD["debounce_ms"]


def test_gray_walk_changes_one_select_line_per_step() -> None:
    steps = list(scanner.GRAY) + [scanner.GRAY[0]]
    assert sorted(scanner.GRAY) == list(range(16))
    assert all(bin(a ^ b).count("1") == 1 for a, b in zip(steps, steps[1:], strict=False))


def test_too_many_slots_for_the_multiplexers_is_refused(board: VirtualBoard) -> None:
    machine = make_machine(board)
    with pytest.raises(ValueError, match="81 slots need 162 channels"):
        scanner.MuxScanner([machine.Pin(n) for n in range(4)], [machine.Pin(n) for n in range(10)], 81)


def test_debounce_needs_three_scans_and_fifteen_ms() -> None:
    d = scanner.Debouncer(1, scans=3, min_ms=15)
    assert d.update(bytearray([1]), 0) == []
    assert d.update(bytearray([1]), 2) == []
    assert d.update(bytearray([1]), 4) == []  # three scans, but only 4 ms
    assert d.update(bytearray([1]), 14) == []
    assert d.update(bytearray([1]), 15) == [0]
    assert d.stable[0] == 1


def test_debounce_restarts_on_a_flicker() -> None:
    d = scanner.Debouncer(1, scans=3, min_ms=15)
    for t, value in ((0, 1), (5, 1), (10, 0), (20, 1), (30, 1)):
        assert d.update(bytearray([value]), t) == []
    assert d.update(bytearray([1]), 35) == [0]  # 20 → 35: fifteen ms and three scans since the flicker


def test_debounce_slow_scans_still_need_three() -> None:
    d = scanner.Debouncer(1, scans=3, min_ms=15)
    assert d.update(bytearray([3]), 0) == []
    assert d.update(bytearray([3]), 100) == []
    assert d.update(bytearray([3]), 200) == [0]


# --------------------------------------------------------------------------- the protocol


def test_boot_announces_itself_with_the_board_as_it_is(
    board: VirtualBoard, stream: MemoryStream, clock: FakeClock
) -> None:
    board.place(5, conducts=True)
    firmware = boot(board, stream)
    (reply,) = stream.take()
    assert reply.type == messages.HELLO_REPLY
    version, slots, lamps, reason, _cause, name = messages.unpack_hello_reply(reply.payload)
    assert (version, slots, lamps, reason) == (messages.PROTOCOL_VERSION, 80, 4, messages.R_BOOT)
    assert name == app.FIRMWARE
    # Settled before answering anything: the first snapshot already has the pawn.
    hello(stream)
    firmware.step()
    frames = stream.take()
    assert [f.type for f in frames] == [messages.HELLO_REPLY, messages.SNAPSHOT]
    assert occupied(snapshots(frames)[0]) == {5: True}


def test_nothing_is_streamed_before_the_handshake(
    board: VirtualBoard, stream: MemoryStream, clock: FakeClock
) -> None:
    firmware = boot(board, stream)
    stream.take()
    board.place(1, conducts=False)
    run_for(firmware, clock, 2000)
    assert stream.take() == []
    host_sends(stream, messages.LAMPS, 3, messages.pack_lamps(1))
    firmware.step()
    (error,) = stream.take()
    assert messages.unpack_error(error.payload)[:3] == (messages.E_NOT_READY, messages.LAMPS, 3)
    assert board.lamps() == [False] * 4


def test_changes_are_sent_debounced_with_consecutive_sequence_numbers(
    board: VirtualBoard, stream: MemoryStream, clock: FakeClock
) -> None:
    firmware = boot(board, stream)
    hello(stream, heartbeat=10000)
    firmware.step()
    stream.take()
    board.place(12, conducts=True)
    run_for(firmware, clock, 10)
    assert snapshots(stream.take()) == []  # not yet: 15 ms
    run_for(firmware, clock, 10)
    board.place(13, conducts=False)
    run_for(firmware, clock, 30)
    snaps = snapshots(stream.take())
    assert [occupied(s) for s in snaps] == [{12: True}, {12: True, 13: False}]
    assert [s[0] for s in snaps] == [1, 2]
    assert all(s[1] & messages.F_CHANGED for s in snaps)


def test_heartbeat_snapshot_when_nothing_changes(
    board: VirtualBoard, stream: MemoryStream, clock: FakeClock
) -> None:
    firmware = boot(board, stream)
    hello(stream, heartbeat=100)
    firmware.step()
    stream.take()
    run_for(firmware, clock, 1000, step=5)
    snaps = snapshots(stream.take())
    assert 9 <= len(snaps) <= 11
    assert not any(s[1] & messages.F_CHANGED for s in snaps)


def test_lamps_follow_commands_and_are_acknowledged(
    board: VirtualBoard, stream: MemoryStream, clock: FakeClock
) -> None:
    firmware = boot(board, stream)
    hello(stream)
    firmware.step()
    stream.take()
    host_sends(stream, messages.LAMPS, 41, messages.pack_lamps(0b0101))
    firmware.step()
    (ack,) = stream.take()
    assert ack.type == messages.ACK and messages.unpack_ack(ack.payload) == (messages.LAMPS, 41)
    assert board.lamps() == [True, False, True, False]


def test_lamps_go_out_when_the_host_falls_silent(
    board: VirtualBoard, stream: MemoryStream, clock: FakeClock
) -> None:
    firmware = boot(board, stream)
    host_sends(stream, messages.HELLO, 0, messages.pack_hello(messages.PROTOCOL_VERSION, 500, 1000))
    host_sends(stream, messages.LAMPS, 1, messages.pack_lamps(0b1111))
    firmware.step()
    run_for(firmware, clock, 900, step=10)
    assert board.lamps() == [True] * 4
    run_for(firmware, clock, 200, step=10)
    assert board.lamps() == [False] * 4


def test_lamps_active_low_wiring(board: VirtualBoard, stream: MemoryStream, clock: FakeClock) -> None:
    board.cfg["lamps_active_high"] = False
    firmware = boot(board, stream, lamps_active_high=False)
    assert all(board.outputs[pin] == 1 for pin in config.BOARD["lamp_pins"])  # off = high
    hello(stream)
    host_sends(stream, messages.LAMPS, 1, messages.pack_lamps(0b0010))
    firmware.step()
    assert board.lamps() == [False, True, False, False]


def test_button_press_and_release(board: VirtualBoard, stream: MemoryStream, clock: FakeClock) -> None:
    firmware = boot(board, stream)
    hello(stream, heartbeat=10000)
    firmware.step()
    stream.take()
    board.button = True
    run_for(firmware, clock, 30)
    frames = stream.take()
    assert [f.type for f in frames] == [messages.BUTTON, messages.SNAPSHOT]
    assert messages.unpack_button(frames[0].payload) is True
    assert snapshots(frames)[0][1] & messages.F_BUTTON
    board.button = False
    run_for(firmware, clock, 30)
    frames = stream.take()
    assert messages.unpack_button(frames[0].payload) is False
    assert not snapshots(frames)[0][1] & messages.F_BUTTON


def test_snapshot_and_health_on_request(board: VirtualBoard, stream: MemoryStream, clock: FakeClock) -> None:
    board.place(2, conducts=False)
    firmware = boot(board, stream)
    hello(stream, heartbeat=10000)
    firmware.step()
    run_for(firmware, clock, 50)
    stream.take()
    host_sends(stream, messages.SNAPSHOT_REQUEST, 5)
    host_sends(stream, messages.HEALTH_REQUEST, 6)
    firmware.step()
    snap, health = stream.take()
    assert messages.unpack_snapshot(snap.payload)[1] & messages.F_REQUESTED
    assert occupied(messages.unpack_snapshot(snap.payload)) == {2: False}
    report = messages.unpack_health(health.payload)
    assert report["rx_frames"] == 3 and report["scans"] > 10 and report["uptime_ms"] >= 50


def test_version_mismatch_is_answered_and_nothing_streams(
    board: VirtualBoard, stream: MemoryStream, clock: FakeClock
) -> None:
    firmware = boot(board, stream)
    stream.take()
    hello(stream, version=messages.PROTOCOL_VERSION + 1)
    firmware.step()
    reply, error = stream.take()
    assert messages.unpack_hello_reply(reply.payload)[0] == messages.PROTOCOL_VERSION
    assert messages.unpack_error(error.payload)[0] == messages.E_VERSION_MISMATCH
    board.place(3, conducts=True)
    run_for(firmware, clock, 2000, step=10)
    assert stream.take() == []


def test_bad_frames_unknown_types_and_bad_payloads_get_errors(
    board: VirtualBoard, stream: MemoryStream, clock: FakeClock
) -> None:
    firmware = boot(board, stream)
    hello(stream, heartbeat=10000)
    firmware.step()
    stream.take()
    wire = bytearray(encode_frame(messages.LAMPS, 9, messages.pack_lamps(1)))
    wire[2] ^= 0x40
    stream.inbox += bytes(wire)
    host_sends(stream, 0x55, 10)
    host_sends(stream, messages.LAMPS, 11, b"\x01\x02")
    host_sends(stream, messages.SNAPSHOT, 12)  # a device message sent to the device
    firmware.step()
    codes = [messages.unpack_error(f.payload)[0] for f in stream.take() if f.type == messages.ERROR]
    assert sorted(codes) == sorted(
        [messages.E_UNKNOWN_TYPE, messages.E_BAD_PAYLOAD, messages.E_UNKNOWN_TYPE, messages.E_BAD_FRAME]
    )
    assert board.lamps() == [False] * 4
    # The link goes on: the next good command works.
    host_sends(stream, messages.LAMPS, 13, messages.pack_lamps(8))
    firmware.step()
    assert board.lamps() == [False, False, False, True]


def test_watchdog_is_armed_and_fed_every_turn(
    board: VirtualBoard, stream: MemoryStream, clock: FakeClock
) -> None:
    firmware = boot(board, stream)
    assert firmware.wdt is not None and firmware.wdt.timeout_ms == config.BOARD["watchdog_ms"]
    run_for(firmware, clock, 50)
    assert firmware.wdt.feeds == 50


def test_run_imports_the_machine_module(monkeypatch: pytest.MonkeyPatch, board: VirtualBoard) -> None:
    # app.run() with no arguments imports ``machine``, builds a UART stream and loops for ever.
    sent: list[bytes] = []

    class StopLoop(Exception):
        pass

    class Uart:
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            self.reads = 0

        def any(self) -> int:
            self.reads += 1
            if self.reads > 20:
                raise StopLoop
            return 0

        def read(self, n: int) -> bytes:
            return b""

        def write(self, data: bytes) -> None:
            sent.append(bytes(data))

    machine = make_machine(board)
    machine.UART = Uart  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "machine", machine)
    with pytest.raises(StopLoop):
        app.run(settings={"uart": 0})
    frames = framing.Decoder().feed(b"".join(sent))
    assert [f.type for f in frames] == [messages.HELLO_REPLY]


def test_bench_check_reports_pawns_button_and_cycles_lamps(
    board: VirtualBoard, monkeypatch: pytest.MonkeyPatch
) -> None:
    from firmware_bridge.firmware import benchcheck

    board.place(0, conducts=True)
    board.place(9, conducts=False)
    board.conduction_faults.add(20)
    board.button = True
    lit_while_waiting: list[list[bool]] = []
    monkeypatch.setattr(benchcheck, "sleep_ms", lambda ms: lit_while_waiting.append(board.lamps()))
    lines: list[str] = []
    found = benchcheck.check(make_machine(board), out=lines.append)
    assert found["pawns"] == {0: "attack", 9: "defense"} and found["button"] is True
    assert "mux 0: 11" + "." * 14 in lines
    assert "mux 1: ..1" + "." * 13 in lines
    assert "mux 2: " + "." * 9 + "1" + "." * 6 in lines
    assert "slot 20 conducts with no pawn: check its wiring" in lines
    assert lit_while_waiting == [[i == k for i in range(4)] for k in range(4)]
    assert board.lamps() == [False] * 4


def test_host_acks_and_errors_get_no_answer(
    board: VirtualBoard, stream: MemoryStream, clock: FakeClock
) -> None:
    firmware = boot(board, stream)
    stream.take()
    host_sends(stream, messages.ERROR, 1, messages.pack_error(messages.E_BAD_FRAME, 0, 0, ""))
    host_sends(stream, messages.ACK, 2, messages.pack_ack(messages.SNAPSHOT, 0))
    firmware.step()
    assert stream.take() == []  # even before the handshake: no error ping-pong


@pytest.mark.parametrize("held", [False, True])
def test_main_starts_the_firmware_unless_the_button_is_held(
    monkeypatch: pytest.MonkeyPatch, board: VirtualBoard, held: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    import pathlib
    import types

    calls: list[tuple[str, Any]] = []
    board.button = held
    micropython = types.ModuleType("micropython")
    micropython.kbd_intr = lambda code: calls.append(("kbd_intr", code))  # type: ignore[attr-defined]
    fake_app = types.ModuleType("app")
    fake_app.run = lambda machine: calls.append(("run", machine))  # type: ignore[attr-defined]
    machine = make_machine(board)
    for name, module in (("machine", machine), ("micropython", micropython), ("app", fake_app),
                         ("config", config)):
        monkeypatch.setitem(sys.modules, name, module)
    main = pathlib.Path(app.__file__).with_name("main.py")
    exec(compile(main.read_text(encoding="utf-8"), str(main), "exec"), {"__name__": "__main__"})
    if held:
        assert calls == [] and "REPL available" in capsys.readouterr().out
    else:
        assert calls == [("kbd_intr", -1), ("run", machine)]
