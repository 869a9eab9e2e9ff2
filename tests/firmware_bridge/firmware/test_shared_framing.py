"""framing.py and messages.py, the files shared with the host, as the device runs them.

Under CPython this is the host's code too; under MicroPython it is the same
file computing its CRC with its own table (no ``binascii.crc_hqx`` there).
``test_firmware.py`` also compares the two ends byte for byte.
"""

# ruff: noqa: UP031 -- %-formatting is what every MicroPython build supports

from firmware_harness import Noise, framing, messages, raises

Frame = framing.Frame


def test_crc_matches_the_published_check_value() -> None:
    assert framing.crc16(b"123456789") == 0x29B1
    assert framing.crc16_py(b"123456789") == 0x29B1
    assert framing.crc16(b"") == 0xFFFF
    noise = Noise(7)
    for size in (1, 2, 255, 600):
        data = noise.bytes(size)
        assert framing.crc16_py(data) == framing.crc16(data)
        # Computed in two pieces, the CRC carries over.
        assert framing.crc16(data[size // 2 :], framing.crc16(data[: size // 2])) == framing.crc16(data)


def test_cobs_block_boundaries_and_no_zero_left() -> None:
    noise = Noise(11)
    for size in (0, 1, 253, 254, 255, 508, 509):
        for data in (b"\x00" * size, b"\x01" * size, noise.bytes(size)):
            encoded = framing.cobs_encode(data)
            assert b"\x00" not in encoded, size
            assert framing.cobs_decode(encoded) == data, size
            assert len(encoded) <= len(data) + len(data) // 254 + 1


def test_bad_cobs_is_refused() -> None:
    assert framing.cobs_decode(b"\x05\x01\x02") is None  # a block longer than what is left
    assert framing.cobs_decode(b"\x02\x00") is None  # a zero inside


def test_frames_round_trip() -> None:
    noise = Noise(5)
    cases = [(0, 0, b""), (0xFF, 0xFFFF, b"\x00" * framing.MAX_PAYLOAD), (0x82, 1, bytes(range(250)))]
    cases += [(noise.below(256), noise.below(0x10000), noise.bytes(noise.below(251))) for _ in range(40)]
    for kind, seq, payload in cases:
        wire = framing.encode_frame(kind, seq, payload)
        assert wire[-1:] == b"\x00" and wire.count(b"\x00") == 1
        assert len(wire) <= framing.MAX_ENCODED + 1
        assert framing.Decoder().feed(wire) == [Frame(kind, seq, payload)]


def test_a_frame_fed_one_byte_at_a_time() -> None:
    decoder = framing.Decoder()
    wire = framing.encode_frame(messages.SNAPSHOT, 300, bytes(range(25)))
    frames = []
    for i in range(len(wire)):
        frames += decoder.feed(wire[i : i + 1])
        assert decoder.pending == (i + 1 if i < len(wire) - 1 else 0)
    assert frames == [Frame(messages.SNAPSHOT, 300, bytes(range(25)))]


def test_every_single_bit_flip_is_caught() -> None:
    frame = Frame(messages.SNAPSHOT, 0x1234, bytes(range(1, 26)))
    wire = framing.encode_frame(frame.type, frame.seq, frame.payload)
    caught = 0
    for position in range(len(wire) - 1):
        for bit in range(8):
            damaged = bytearray(wire)
            damaged[position] ^= 1 << bit
            got = framing.Decoder().feed(b"\x00" + bytes(damaged) + b"\x00")
            assert all(f == frame for f in got), (position, bit, got)
            caught += not got
    assert caught == 8 * (len(wire) - 1)


def test_garbage_never_raises_and_yields_no_frame() -> None:
    # A chunk of garbage passes COBS, length and CRC about once in 65,536; this seed's 60 kB have none
    # (hypothesis checks the general rule on the host: test_framing.py).
    noise = Noise(3)
    decoder = framing.Decoder()
    frames = []
    for _ in range(200):
        frames += decoder.feed(noise.bytes(noise.below(600)))
        assert decoder.pending <= framing.MAX_ENCODED
    assert frames == [] and decoder.frames == 0
    assert decoder.bad_frames + decoder.oversize > 100


def test_truncated_frame_is_dropped_and_the_next_one_decoded() -> None:
    first = framing.encode_frame(1, 1, b"abcdef")
    second = framing.encode_frame(2, 2, b"xyz")
    decoder = framing.Decoder()
    assert decoder.feed(first[:5] + b"\x00" + second) == [Frame(2, 2, b"xyz")]
    assert decoder.bad_frames == 1
    # Shorter than a header and a CRC: dropped too.
    assert decoder.feed(b"\x03\x01\x01\x00") == [] and decoder.bad_frames == 2


def test_oversized_garbage_is_dropped_without_growing_the_buffer() -> None:
    decoder = framing.Decoder()
    assert decoder.feed(b"\x01" * (framing.MAX_ENCODED * 4)) == []
    assert decoder.pending <= framing.MAX_ENCODED
    assert decoder.oversize == 1
    assert decoder.feed(b"\x00" + framing.encode_frame(5, 6, b"ok")) == [Frame(5, 6, b"ok")]
    decoder.feed(b"\x01\x02")
    decoder.reset()  # the port was reopened: a partial frame is forgotten
    assert decoder.pending == 0


def test_empty_chunks_between_delimiters_are_not_errors() -> None:
    decoder = framing.Decoder()
    assert decoder.feed(b"\x00\x00\x00") == []
    assert decoder.bad_frames == 0


def test_unbuildable_frames_are_refused() -> None:
    cases = [(256, 0, b"", "one byte"), (1, 0x10000, b"", "16 bits"), (-1, 0, b"", "one byte"),
             (1, 0, b"x" * (framing.MAX_PAYLOAD + 1), "limit")]
    for kind, seq, payload, message in cases:
        error = raises(framing.FrameError, framing.encode_frame, kind, seq, payload)
        assert message in str(error), (kind, seq, str(error))
        assert isinstance(error, ValueError)


def test_an_80_slot_snapshot_fits_one_frame() -> None:
    payload = messages.pack_snapshot(1, 0, 80, bytes(10), bytes(10))
    assert len(payload) == 25
    assert len(framing.encode_frame(messages.SNAPSHOT, 0, payload)) <= 32


def test_bad_payloads_raise_payload_error() -> None:
    cases = [
        (messages.unpack_snapshot, b"\x00\x00"),
        (messages.unpack_snapshot, messages.pack_snapshot(0, 0, 80, bytes(10), bytes(10))[:-1]),
        (messages.unpack_snapshot, b"\x00\x00\x00\xff\xff"),
        (messages.unpack_lamps, b""),
        (messages.unpack_button, b"\x02"),
        (messages.unpack_ack, b"\x02"),
        (messages.unpack_error, b"\x01"),
        (messages.unpack_health, b"\x00" * 10),
        (messages.unpack_hello_reply, b"\x01\x50"),
    ]
    for unpack, payload in cases:
        assert isinstance(raises(messages.PayloadError, unpack, payload), ValueError)
    error = raises(messages.PayloadError, messages.pack_snapshot, 0, 0, 80, b"", b"")
    assert "bitmaps of 80 slots" in str(error)


def test_other_payloads_round_trip() -> None:
    assert messages.unpack_hello(messages.pack_hello(1, 500, 3000)) == (1, 500, 3000)
    assert messages.unpack_hello(b"\x07") == (7, 0, 0)  # a future host: its version is still read
    reply = messages.pack_hello_reply(1, 80, 4, messages.R_BOOT, 3, "fw 1.0")
    assert messages.unpack_hello_reply(reply) == (1, 80, 4, messages.R_BOOT, 3, "fw 1.0")
    assert messages.unpack_ack(messages.pack_ack(messages.LAMPS, 513)) == (messages.LAMPS, 513)
    assert messages.unpack_error(messages.pack_error(4, 1, 2, "v2")) == (4, 1, 2, "v2")
    assert messages.unpack_lamps(messages.pack_lamps(0b1010)) == 0b1010
    assert messages.unpack_button(messages.pack_button(True)) is True
    values = tuple(range(1, 9)) + (3, 5)
    health = messages.unpack_health(messages.pack_health(values))
    assert tuple(health[k] for k in messages.HEALTH_FIELDS) == values
    snapshot = messages.pack_snapshot(0xFFFF, 7, 9, b"\xff\x01", b"\x00\x01")
    assert messages.unpack_snapshot(snapshot) == (0xFFFF, 7, 9, b"\xff\x01", b"\x00\x01")
    # Text that is not UTF-8 is shown, not raised on: the device reports what it got.
    assert messages.unpack_error(b"\x01\x00\x00\x00\xff") == (1, 0, 0, repr(b"\xff"))
