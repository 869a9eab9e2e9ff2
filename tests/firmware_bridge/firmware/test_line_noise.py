"""Garbage, truncated and oversized frames reaching the firmware, under CPython and MicroPython."""

# ruff: noqa: UP031 -- %-formatting is what every MicroPython build supports

from fake_machine import Board
from firmware_harness import (
    Clock,
    MemoryStream,
    Noise,
    connect,
    error_codes,
    framing,
    host_sends,
    messages,
    of_type,
    run_for,
)


def lamps_frame(seq: int, mask: int) -> bytes:
    return framing.encode_frame(messages.LAMPS, seq, messages.pack_lamps(mask))


def acked(frames: list) -> list:
    return [messages.unpack_ack(f.payload)[1] for f in of_type(messages.ACK, frames)]


def test_garbage_between_commands_loses_no_command() -> None:
    board, stream = Board(), MemoryStream()
    noise = Noise()
    with Clock() as clock:
        firmware = connect(board, stream)
        sent = []
        frames = []
        for seq in range(100):
            # Garbage (zeros included), then the delimiter a sender puts before a frame, then a lamp
            # command split across two reads at a random point.
            stream.inbox.extend(noise.bytes(noise.below(60)) + b"\x00")
            wire = lamps_frame(seq, seq & 0xF)
            cut = noise.below(len(wire))
            stream.inbox.extend(wire[:cut])
            run_for(firmware, clock, 1)
            stream.inbox.extend(wire[cut:])
            run_for(firmware, clock, 1)
            sent.append(seq)
            frames += stream.take()
            assert firmware.lamps == seq & 0xF
        # Every command was obeyed and acknowledged, in order, whatever came before it.
        assert acked(frames) == sent
        # The damage was noticed and told, at most once per 100 ms (200 ms of loop here).
        damaged = firmware.decoder.bad_frames + firmware.decoder.oversize
        assert damaged > 30
        reported = error_codes(frames).count(messages.E_BAD_FRAME)
        assert 1 <= reported <= 3, reported


def test_a_truncated_frame_is_dropped_and_the_next_one_obeyed() -> None:
    board, stream = Board(), MemoryStream()
    with Clock() as clock:
        firmware = connect(board, stream)
        stream.inbox.extend(lamps_frame(1, 0b0001)[:4] + b"\x00")
        stream.inbox.extend(lamps_frame(2, 0b0010))
        firmware.step()
        frames = stream.take()
        assert error_codes(frames) == [messages.E_BAD_FRAME]
        assert acked(frames) == [2] and board.lamps() == [False, True, False, False]
        # Cut short and glued to the next frame with no delimiter between: one damaged chunk, both lost.
        run_for(firmware, clock, 100)
        stream.inbox.extend(lamps_frame(3, 0b0100)[:3] + lamps_frame(4, 0b1000))
        stream.inbox.extend(lamps_frame(5, 0b1100))
        firmware.step()
        frames = stream.take()
        assert error_codes(frames) == [messages.E_BAD_FRAME] and acked(frames) == [5]
        assert firmware.decoder.bad_frames == 2


def test_oversized_garbage_is_dropped_without_growing_the_buffer() -> None:
    board, stream = Board(), MemoryStream()
    with Clock() as clock:
        firmware = connect(board, stream)
        for _ in range(10):
            stream.inbox.extend(b"\x01" * 200)  # 2,000 bytes and no delimiter: not a frame
            run_for(firmware, clock, 1)
            assert firmware.decoder.pending <= framing.MAX_ENCODED
        assert firmware.decoder.oversize == 1
        assert error_codes(stream.take()) == [messages.E_BAD_FRAME]
        stream.inbox.extend(b"\x00" + lamps_frame(7, 0b1001))
        run_for(firmware, clock, 1)
        assert acked(stream.take()) == [7] and board.lamps() == [True, False, False, True]


def test_every_single_bit_flip_of_a_command_is_caught() -> None:
    board, stream = Board(), MemoryStream()
    with Clock() as clock:
        firmware = connect(board, stream)
        wire = lamps_frame(3, 0b0110)
        flips = 0
        for position in range(len(wire) - 1):
            for bit in range(8):
                damaged = bytearray(wire)
                damaged[position] ^= 1 << bit
                stream.inbox.extend(b"\x00" + bytes(damaged) + b"\x00")
                run_for(firmware, clock, 100, step=100)
                assert board.lamps() == [False] * 4, (position, bit)
                assert error_codes(stream.take()) == [messages.E_BAD_FRAME], (position, bit)
                flips += 1
        assert flips == 8 * (len(wire) - 1)


def test_bad_frame_reports_are_rate_limited_across_the_wrap() -> None:
    board, stream = Board(), MemoryStream()
    with Clock(before_wrap=60) as clock:
        firmware = connect(board, stream)
        reports = []
        for _ in range(5):  # a damaged frame every 50 ms, from 60 ms before the wrap
            stream.inbox.extend(b"\x05\x01\x02\x00")
            firmware.step()
            reports.append(error_codes(stream.take()).count(messages.E_BAD_FRAME))
            run_for(firmware, clock, 50, step=10)
        assert reports == [1, 0, 1, 0, 1]


def test_damage_after_days_of_quiet_is_still_reported() -> None:
    # The rate limit must not keep a timestamp that grows old: after ticks_diff's half period
    # (2**29 ms, 6.2 days) an old one would look like it lay in the future.
    board, stream = Board(), MemoryStream()
    with Clock() as clock:
        firmware = connect(board, stream)
        stream.inbox.extend(b"\x05\x01\x02\x00")
        firmware.step()
        assert error_codes(stream.take()) == [messages.E_BAD_FRAME]
        for _ in range(3):
            clock.advance(1 << 28)
            host_sends(stream, messages.LAMPS, 1, messages.pack_lamps(0))  # the host keeps talking
            firmware.step()
        stream.take()
        stream.inbox.extend(b"\x05\x01\x02\x00")
        firmware.step()
        assert error_codes(stream.take()) == [messages.E_BAD_FRAME]
