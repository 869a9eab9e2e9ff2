"""The host driver's rules, with a stand-in port and a fake clock (no waiting)."""

from __future__ import annotations

from typing import Any

import pytest
import serial
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_bridge import framing, messages
from firmware_bridge.exc import LinkClosedError, LinkConfigError
from firmware_bridge.host import BoardLink, LinkDown, LinkSettings, LinkTrouble, LinkUp, Snapshot

SETTINGS = LinkSettings(port="fake", health_interval=0)


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class FakePort:
    """What pyserial's Serial offers the driver: read, in_waiting, write, close."""

    def __init__(self) -> None:
        self.incoming = bytearray()
        self.written = framing.Decoder()
        self.frames: list[framing.Frame] = []
        self.closed = False
        self.broken = False

    @property
    def in_waiting(self) -> int:
        if self.broken:
            raise serial.SerialException("device disconnected")
        return len(self.incoming)

    def read(self, size: int) -> bytes:
        data, self.incoming = bytes(self.incoming[:size]), self.incoming[size:]
        return data

    def write(self, data: bytes) -> int:
        if self.broken:
            raise serial.SerialException("write failed")
        self.frames.extend(self.written.feed(data))
        return len(data)

    def close(self) -> None:
        self.closed = True

    def device_sends(self, kind: int, payload: bytes, seq: int = 0) -> None:
        self.incoming += framing.encode_frame(kind, seq, payload)

    def sent(self, kind: int) -> list[framing.Frame]:
        return [f for f in self.frames if f.type == kind]


class Opener:
    def __init__(self) -> None:
        self.ports: list[FakePort] = []
        self.attempts: list[float] = []
        self.fail = False
        self.clock: Clock | None = None

    def __call__(self, url: str, **options: Any) -> FakePort:
        assert options["timeout"] == 0
        if self.clock is not None:
            self.attempts.append(self.clock.now)
        if self.fail:
            raise serial.SerialException(f"could not open port {url}: No such file or directory")
        self.ports.append(FakePort())
        return self.ports[-1]


def make_link(settings: LinkSettings = SETTINGS) -> tuple[BoardLink, Opener, Clock]:
    clock = Clock()
    opener = Opener()
    opener.clock = clock
    return BoardLink(settings, slot_count=80, lamp_count=4, open_port=opener, clock=clock), opener, clock


def connect(link: BoardLink, opener: Opener) -> FakePort:
    link.poll()
    port = opener.ports[-1]
    assert port.sent(messages.HELLO)
    port.device_sends(messages.HELLO_REPLY, messages.pack_hello_reply(1, 80, 4, 0, 1, "fake"))
    events = link.poll()
    assert [type(e) for e in events] == [LinkUp]
    return port


def snapshot_payload(seq: int, presence: int = 0, conduction: int = 0, flags: int = 0) -> bytes:
    return messages.pack_snapshot(
        seq, flags, 80, presence.to_bytes(10, "little"), conduction.to_bytes(10, "little")
    )


def test_hello_carries_version_and_timings() -> None:
    link, opener, _ = make_link()
    link.poll()
    (hello,) = opener.ports[0].sent(messages.HELLO)
    assert messages.unpack_hello(hello.payload) == (messages.PROTOCOL_VERSION, 500, 3000)


def test_reconnect_backoff_doubles_up_to_the_maximum_and_reports_once() -> None:
    link, opener, clock = make_link()
    opener.fail = True
    downs = []
    for _ in range(2000):
        downs += link.poll()
        clock.now += 0.01
    gaps = [round(b - a, 2) for a, b in zip(opener.attempts, opener.attempts[1:], strict=False)]
    assert gaps[:6] == [0.25, 0.5, 1.0, 2.0, 4.0, 5.0]
    assert len(downs) == 1 and isinstance(downs[0], LinkDown) and "cannot open fake" in downs[0].reason
    opener.fail = False
    clock.now += 5
    port = connect(link, opener)
    assert not port.closed and link.connected
    # After a good connection, the backoff starts again from the minimum.
    port.broken = True
    assert isinstance(link.poll()[0], LinkDown)
    opener.fail = True
    start = len(opener.attempts)
    for _ in range(100):
        link.poll()
        clock.now += 0.01
    assert opener.attempts[start + 1] - opener.attempts[start] == pytest.approx(0.5, abs=0.02)


def test_keepalive_resend_and_acknowledgement() -> None:
    link, opener, clock = make_link()
    port = connect(link, opener)
    link.set_lamps(0b1001)
    (lamps,) = [f for f in port.sent(messages.LAMPS) if messages.unpack_lamps(f.payload) == 0b1001]
    clock.now += 0.3  # past ack_timeout: sent again
    port.device_sends(messages.SNAPSHOT, snapshot_payload(0))
    link.poll()
    assert len([f for f in port.sent(messages.LAMPS) if f.payload == lamps.payload]) == 2
    last = port.sent(messages.LAMPS)[-1]
    port.device_sends(messages.ACK, messages.pack_ack(messages.LAMPS, last.seq))
    link.poll()
    before = len(port.sent(messages.LAMPS))
    clock.now += 0.3
    port.device_sends(messages.SNAPSHOT, snapshot_payload(1))
    link.poll()
    assert len(port.sent(messages.LAMPS)) == before  # acknowledged, and not yet keepalive time
    clock.now += 0.3
    port.device_sends(messages.SNAPSHOT, snapshot_payload(2))
    link.poll()
    assert len(port.sent(messages.LAMPS)) == before + 1  # the keepalive (heartbeat 0.5 s)


def test_snapshot_bitmaps_and_button_flag() -> None:
    link, opener, _ = make_link()
    port = connect(link, opener)
    port.device_sends(messages.SNAPSHOT, snapshot_payload(0, 0b1011 << 70, 0b0001 << 70, messages.F_BUTTON))
    (snap,) = link.poll()
    assert isinstance(snap, Snapshot)
    assert snap.presence == 0b1011 << 70 and snap.conduction == 1 << 70 and snap.button


def test_snapshot_of_another_size_is_a_bad_frame_not_a_crash() -> None:
    link, opener, _ = make_link()
    port = connect(link, opener)
    port.device_sends(messages.SNAPSHOT, messages.pack_snapshot(0, 0, 64, bytes(8), bytes(8)))
    assert link.poll() == []
    assert link.health()["bad_frames"] == 1 and link.connected
    assert port.sent(messages.SNAPSHOT_REQUEST)


def test_device_errors_make_the_host_resend_or_shake_hands_again() -> None:
    link, opener, _ = make_link()
    port = connect(link, opener)
    link.set_lamps(1)
    n = len(port.sent(messages.LAMPS))
    port.device_sends(messages.ERROR, messages.pack_error(messages.E_BAD_FRAME, 0, 0, "crc"))
    link.poll()
    assert len(port.sent(messages.LAMPS)) == n + 1
    hellos = len(port.sent(messages.HELLO))
    port.device_sends(messages.ERROR, messages.pack_error(messages.E_NOT_READY, messages.LAMPS, 3, ""))
    link.poll()
    assert len(port.sent(messages.HELLO)) == hellos + 1
    assert link.health()["device_errors"] == 2


def test_write_failure_outside_poll_is_reported_by_the_next_poll() -> None:
    link, opener, _ = make_link()
    port = connect(link, opener)
    port.broken = True
    link.set_lamps(2)  # must not raise
    (down,) = link.poll()
    assert isinstance(down, LinkDown) and "cannot write" in down.reason
    assert port.closed and not link.connected


@settings(max_examples=100, deadline=None)
@given(st.lists(st.binary(min_size=1, max_size=300), min_size=1, max_size=6))
def test_no_byte_stream_stops_the_link(chunks: list[bytes]) -> None:
    link, opener, clock = make_link(LinkSettings(port="fake", health_interval=0, error_threshold=10_000))
    port = connect(link, opener)
    for chunk in chunks:
        port.incoming += chunk
        for event in link.poll():
            assert not isinstance(event, LinkDown | LinkTrouble)
        clock.now += 0.01
    # Whatever came before, a delimiter and a good frame still get through.
    port.incoming += b"\x00" + framing.encode_frame(messages.SNAPSHOT, 1, snapshot_payload(9, 1, 1))
    events = link.poll()
    assert link.connected
    assert any(isinstance(e, Snapshot) and e.seq == 9 and e.presence == 1 for e in events)


def test_closed_link_refuses_polls_and_put_lamps_out_on_close() -> None:
    link, opener, _ = make_link()
    port = connect(link, opener)
    link.set_lamps(0b1111)
    link.close()
    assert messages.unpack_lamps(port.sent(messages.LAMPS)[-1].payload) == 0
    assert port.closed
    with pytest.raises(LinkClosedError):
        link.poll()


def test_more_slots_than_the_protocol_carries_is_refused() -> None:
    with pytest.raises(LinkConfigError, match="at most 512 slots"):
        BoardLink(SETTINGS, slot_count=600, lamp_count=4)
