"""The firmware's main loop and protocol (firmware/app.py), under CPython and MicroPython.

Every test runs the loop by hand on a fake clock that starts 500 ms before
MicroPython's ticks wrap to 0, so the timings below all cross the wrap.
"""

# ruff: noqa: UP031 -- %-formatting is what every MicroPython build supports

from fake_machine import Board, make_machine
from firmware_harness import (
    TICKS_PERIOD,
    Clock,
    MemoryStream,
    app,
    boot,
    config,
    connect,
    error_codes,
    framing,
    hello,
    host_sends,
    messages,
    occupied,
    of_type,
    run_for,
    snapshots,
)


def test_boot_announces_itself_with_the_board_as_it_is() -> None:
    board, stream = Board(), MemoryStream()
    board.place(5, True)
    with Clock():
        firmware = boot(board, stream)
        (reply,) = stream.take()
        assert reply.type == messages.HELLO_REPLY
        version, slots, lamps, reason, cause, name = messages.unpack_hello_reply(reply.payload)
        assert (version, slots, lamps, reason) == (messages.PROTOCOL_VERSION, 80, 4, messages.R_BOOT)
        assert cause == 1  # machine.reset_cause(): power-on
        assert name == app.FIRMWARE
        # Settled before answering anything: the first snapshot already has the pawn.
        hello(stream)
        firmware.step()
        frames = stream.take()
        assert [f.type for f in frames] == [messages.HELLO_REPLY, messages.SNAPSHOT]
        assert occupied(snapshots(frames)[0]) == {5: True}


def test_a_flickering_contact_does_not_keep_the_board_from_starting() -> None:
    board, stream = Board(), MemoryStream()
    with Clock() as clock:
        # Pawns stand on multiplexer 0 whose kind changes at every scan (2 ms apart): never confirmed.
        wired = board.read
        mux0 = config.BOARD["signal_pins"][0]

        def flicker(pin: int) -> int:
            if pin != mux0:
                return wired(pin)
            conduction_channel = board.select_value() & 1
            return (clock.ms // 2) & 1 if conduction_channel else 0

        board.read = flicker
        start = clock.ms
        firmware = boot(board, stream)
        # The settle loop gave up after its limit, 10 x (15 + 3 x 2) ms, and announced itself.
        assert (clock.ms - start) % TICKS_PERIOD == 210
        assert firmware.debouncer.pending()
        assert [f.type for f in stream.take()] == [messages.HELLO_REPLY]


def test_nothing_is_streamed_before_the_handshake() -> None:
    board, stream = Board(), MemoryStream()
    with Clock() as clock:
        firmware = boot(board, stream)
        stream.take()
        board.place(1, False)
        run_for(firmware, clock, 600, step=3)  # longer than a heartbeat (500 ms)
        assert stream.take() == []
        host_sends(stream, messages.LAMPS, 3, messages.pack_lamps(1))
        firmware.step()
        (error,) = stream.take()
        assert messages.unpack_error(error.payload)[:3] == (messages.E_NOT_READY, messages.LAMPS, 3)
        assert board.lamps() == [False] * 4


def test_changes_are_sent_debounced_with_consecutive_sequence_numbers() -> None:
    board, stream = Board(), MemoryStream()
    with Clock() as clock:
        firmware = connect(board, stream)
        board.place(12, True)
        run_for(firmware, clock, 10)
        assert snapshots(stream.take()) == []  # not yet: 15 ms
        run_for(firmware, clock, 10)
        board.place(13, False)
        run_for(firmware, clock, 30)
        snaps = snapshots(stream.take())
        assert [occupied(s) for s in snaps] == [{12: True}, {12: True, 13: False}]
        assert [s[0] for s in snaps] == [1, 2]
        assert [s[1] & messages.F_CHANGED for s in snaps] == [messages.F_CHANGED] * 2
        board.lift(12)
        run_for(firmware, clock, 30)
        assert [occupied(s) for s in snapshots(stream.take())] == [{13: False}]


def test_frame_sequence_numbers_wrap_at_16_bits() -> None:
    board, stream = Board(), MemoryStream()
    with Clock():
        firmware = connect(board, stream)
        firmware.tx_seq = 0xFFFF
        firmware.snap_seq = 0xFFFF
        host_sends(stream, messages.SNAPSHOT_REQUEST, 1)
        host_sends(stream, messages.SNAPSHOT_REQUEST, 2)
        firmware.step()
        frames = stream.take()
        assert [f.seq for f in frames] == [0xFFFF, 0]
        assert [s[0] for s in snapshots(frames)] == [0xFFFF, 0]


def test_heartbeat_snapshot_when_nothing_changes() -> None:
    board, stream = Board(), MemoryStream()
    with Clock() as clock:
        firmware = connect(board, stream, heartbeat=100)
        run_for(firmware, clock, 1000, step=10)  # across the wrap: it comes 500 ms in
        snaps = snapshots(stream.take())
        assert len(snaps) == 10
        assert [s[1] & messages.F_CHANGED for s in snaps] == [0] * 10


def test_lamps_follow_commands_and_are_acknowledged() -> None:
    board, stream = Board(), MemoryStream()
    with Clock():
        firmware = connect(board, stream)
        host_sends(stream, messages.LAMPS, 41, messages.pack_lamps(0b0101))
        firmware.step()
        (ack,) = stream.take()
        assert ack.type == messages.ACK and messages.unpack_ack(ack.payload) == (messages.LAMPS, 41)
        assert board.lamps() == [True, False, True, False]
        host_sends(stream, messages.LAMPS, 42, messages.pack_lamps(0xFF))  # bits past the fourth lamp
        firmware.step()
        assert board.lamps() == [True] * 4 and firmware.lamps == 0b1111


def test_lamps_go_out_when_the_host_falls_silent_across_the_wrap() -> None:
    board, stream = Board(), MemoryStream()
    with Clock(before_wrap=400) as clock:
        firmware = boot(board, stream)
        hello(stream, host_timeout=1000)
        host_sends(stream, messages.LAMPS, 1, messages.pack_lamps(0b1111))
        firmware.step()
        run_for(firmware, clock, 990, step=10)
        assert clock.ms == 590  # past the wrap
        assert board.lamps() == [True] * 4
        run_for(firmware, clock, 10, step=10)
        assert board.lamps() == [False] * 4
        # A host that speaks again keeps them lit.
        host_sends(stream, messages.LAMPS, 2, messages.pack_lamps(0b0001))
        run_for(firmware, clock, 900, step=10)
        assert board.lamps() == [True, False, False, False]


def test_lamps_never_go_out_by_themselves_with_host_timeout_zero() -> None:
    board, stream = Board(), MemoryStream()
    with Clock() as clock:
        firmware = boot(board, stream)
        hello(stream, host_timeout=0)
        host_sends(stream, messages.LAMPS, 1, messages.pack_lamps(0b0100))
        firmware.step()
        run_for(firmware, clock, 10000, step=100)
        assert board.lamps() == [False, False, True, False]


def test_lamps_active_low_wiring() -> None:
    board, stream = Board({"lamps_active_high": False}), MemoryStream()
    with Clock():
        firmware = boot(board, stream, lamps_active_high=False)
        assert [board.outputs[pin] for pin in config.BOARD["lamp_pins"]] == [1] * 4  # off = high
        hello(stream)
        host_sends(stream, messages.LAMPS, 1, messages.pack_lamps(0b0010))
        firmware.step()
        assert board.lamps() == [False, True, False, False]


def test_button_press_and_release() -> None:
    board, stream = Board(), MemoryStream()
    with Clock() as clock:
        firmware = connect(board, stream)
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


def test_snapshot_and_health_on_request() -> None:
    board, stream = Board(), MemoryStream()
    board.place(2, False)
    with Clock() as clock:
        firmware = connect(board, stream)
        run_for(firmware, clock, 50)
        stream.take()
        host_sends(stream, messages.SNAPSHOT_REQUEST, 5)
        host_sends(stream, messages.HEALTH_REQUEST, 6)
        firmware.step()
        snap, health = stream.take()
        assert messages.unpack_snapshot(snap.payload)[1] & messages.F_REQUESTED
        assert occupied(messages.unpack_snapshot(snap.payload)) == {2: False}
        report = messages.unpack_health(health.payload)
        assert report["rx_frames"] == 3 and report["scans"] > 10
        assert report["uptime_ms"] >= 50 and report["reset_cause"] == 1 and report["lamps"] == 0


def test_uptime_is_right_after_the_ticks_wrapped_many_times() -> None:
    # ticks_ms() wraps every 2**30 ms (12.4 days) and ticks_diff() only tells half that: the firmware
    # adds up its turns instead. Eight turns of 2**28 ms is 24.9 days, two full wraps.
    board, stream = Board(), MemoryStream()
    with Clock() as clock:
        firmware = connect(board, stream)
        start = firmware.uptime_ms
        for _ in range(8):
            clock.advance(1 << 28)
            firmware.step()
        host_sends(stream, messages.HEALTH_REQUEST, 9)
        firmware.step()
        (health,) = of_type(messages.HEALTH, stream.take())
        assert messages.unpack_health(health.payload)["uptime_ms"] == start + 8 * (1 << 28)


def test_version_mismatch_is_answered_and_nothing_streams() -> None:
    board, stream = Board(), MemoryStream()
    with Clock() as clock:
        firmware = boot(board, stream)
        stream.take()
        hello(stream, version=messages.PROTOCOL_VERSION + 1)
        firmware.step()
        reply, error = stream.take()
        assert messages.unpack_hello_reply(reply.payload)[0] == messages.PROTOCOL_VERSION
        assert messages.unpack_error(error.payload)[0] == messages.E_VERSION_MISMATCH
        board.place(3, True)
        run_for(firmware, clock, 600, step=10)  # longer than a heartbeat (500 ms)
        assert stream.take() == []


def test_bad_frames_unknown_types_and_bad_payloads_get_errors() -> None:
    board, stream = Board(), MemoryStream()
    with Clock():
        firmware = connect(board, stream)
        wire = bytearray(framing.encode_frame(messages.LAMPS, 9, messages.pack_lamps(1)))
        wire[2] ^= 0x40
        stream.inbox.extend(wire)
        host_sends(stream, 0x55, 10)
        host_sends(stream, messages.LAMPS, 11, b"\x01\x02")
        host_sends(stream, messages.SNAPSHOT, 12)  # a device message sent to the device
        firmware.step()
        codes = error_codes(stream.take())
        assert sorted(codes) == sorted(
            [messages.E_UNKNOWN_TYPE, messages.E_BAD_PAYLOAD, messages.E_UNKNOWN_TYPE, messages.E_BAD_FRAME]
        )
        assert board.lamps() == [False] * 4
        # The link goes on: the next good command works.
        host_sends(stream, messages.LAMPS, 13, messages.pack_lamps(8))
        firmware.step()
        assert board.lamps() == [False, False, False, True]


def test_host_acks_and_errors_get_no_answer() -> None:
    board, stream = Board(), MemoryStream()
    with Clock():
        firmware = boot(board, stream)
        stream.take()
        host_sends(stream, messages.ERROR, 1, messages.pack_error(messages.E_BAD_FRAME, 0, 0, ""))
        host_sends(stream, messages.ACK, 2, messages.pack_ack(messages.SNAPSHOT, 0))
        firmware.step()
        assert stream.take() == []  # even before the handshake: no error ping-pong


def test_watchdog_is_armed_and_fed_every_turn() -> None:
    board, stream = Board(), MemoryStream()
    machine = make_machine(board)
    with Clock() as clock:
        firmware = boot(board, stream, machine=machine)
        (wdt,) = machine.watchdogs
        assert firmware.wdt is wdt and wdt.timeout_ms == config.BOARD["watchdog_ms"]
        run_for(firmware, clock, 50)
        assert wdt.feeds == 50
        assert boot(Board(), MemoryStream(), watchdog_ms=0).wdt is None


def test_a_smaller_board_and_the_devices_own_heartbeat() -> None:
    board, stream = Board({"slot_count": 64}), MemoryStream()
    with Clock() as clock:
        firmware = boot(board, stream, slot_count=64, heartbeat_ms=50)
        hello(stream, heartbeat=0)  # 0: keep the device's own heartbeat
        firmware.step()
        board.place(63, True)
        run_for(firmware, clock, 100, step=2)
        snaps = snapshots(stream.take())
        assert snaps[0][2] == 64 and occupied(snaps[-1]) == {63: True}
        assert firmware.heartbeat_ms == 50
