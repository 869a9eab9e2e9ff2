"""The host driver and the firmware talking over real pseudo-terminals, faults included."""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from firmware_bridge import messages
from firmware_bridge.simulator import WDT_RESET, LineNoise, SimulatedDevice
from games.hautetension.pawn import PawnKind
from hardware.backend import BoardBackend
from hardware.backends.serial import SerialBackend
from hardware.events import (
    BoardEvent,
    ButtonLongPress,
    ButtonPressed,
    ButtonReleased,
    Fault,
    FaultCleared,
    FaultKind,
    PawnLifted,
    PawnPlaced,
)

Collect = Callable[..., list[BoardEvent]]
Opener = Callable[..., SerialBackend]

A, D = PawnKind.ATTACK, PawnKind.DEFENSE


def of(kind: type, events: list[BoardEvent]) -> list[Any]:
    return [e for e in events if isinstance(e, kind)]


def has(event_type: type, **fields: Any) -> Callable[[list[BoardEvent]], bool]:
    def check(events: list[BoardEvent]) -> bool:
        return any(
            isinstance(e, event_type) and all(getattr(e, k) == v for k, v in fields.items()) for e in events
        )

    return check


def wait_for(predicate: Callable[[], bool], seconds: float = 2.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.005)
    return predicate()


def settled(device: SimulatedDevice, *slots: int) -> None:
    """Wait until the device's debounce has confirmed what stands in *slots*."""

    def confirmed() -> bool:
        firmware = device.firmware
        return firmware is not None and all(
            firmware.debouncer.stable[s] == (1 | 2 * device.board.pawns[s]) for s in slots
        )

    assert wait_for(confirmed)


# --------------------------------------------------------------------------- the normal case


def test_pawns_already_on_the_board_are_reported_first(
    device: SimulatedDevice, open_backend: Opener, pinwheel: Any
) -> None:
    device.board.place(0, conducts=True)
    device.board.place(79, conducts=False)
    settled(device, 0, 79)
    backend = open_backend(device.port)
    assert isinstance(backend, BoardBackend)
    assert backend.name == "serial" and not backend.is_faulted()
    events = backend.poll()
    assert sorted((e.slot, e.kind) for e in of(PawnPlaced, events)) == [("a9", A), ("i1", D)]
    assert backend.snapshot() == {"a9": A, "i1": D}


def test_placements_lifts_and_lamps_go_both_ways(
    device: SimulatedDevice, open_backend: Opener, collect: Collect, pinwheel: Any
) -> None:
    backend = open_backend(device.port)
    backend.poll()
    device.board.place(pinwheel.slots.index("e9"), conducts=True)
    events = collect(backend, 1.0, until=has(PawnPlaced, slot="e9"))
    assert [(e.slot, e.kind) for e in of(PawnPlaced, events)] == [("e9", A)]
    device.board.lift(pinwheel.slots.index("e9"))
    events = collect(backend, 1.0, until=has(PawnLifted, slot="e9"))
    assert [(e.slot, e.kind) for e in of(PawnLifted, events)] == [("e9", A)]
    assert backend.snapshot() == {}

    backend.set_lamps(frozenset({"E", "W"}))
    collect(backend, 1.0, until=lambda _: device.board.lamps() == [False, True, False, True])
    assert device.board.lamps() == [False, True, False, True]
    backend.lamps_safe()
    collect(backend, 1.0, until=lambda _: not any(device.board.lamps()))
    assert device.board.lamps() == [False] * 4
    with pytest.raises(ValueError, match="no lamp 'X'"):
        backend.set_lamps(frozenset({"X"}))


def test_button_press_long_press_and_release(
    device: SimulatedDevice, open_backend: Opener, collect: Collect
) -> None:
    backend = open_backend(device.port)
    backend.poll()
    device.board.button = True
    events = collect(backend, 2.0, until=has(ButtonLongPress))
    assert [type(e) for e in events] == [ButtonPressed, ButtonLongPress]
    assert events[1].at - events[0].at >= 0.2
    device.board.button = False
    events = collect(backend, 1.0, until=has(ButtonReleased))
    (released,) = of(ButtonReleased, events)
    assert released.held_for >= 0.2


def test_conduction_without_a_pawn_is_a_fault(
    device: SimulatedDevice, open_backend: Opener, collect: Collect
) -> None:
    backend = open_backend(device.port)
    backend.poll()
    device.board.conduction_faults.add(10)
    events = collect(backend, 1.0, until=has(Fault))
    (fault,) = of(Fault, events)
    assert fault.kind is FaultKind.CONDUCTION_WITHOUT_PRESENCE and fault.slot == "b8"
    assert not fault.scanner_faulted and of(PawnPlaced, events) == []
    device.board.conduction_faults.clear()
    events = collect(backend, 1.0, until=has(FaultCleared))
    cleared = [(e.kind, e.slot) for e in of(FaultCleared, events)]
    assert cleared == [(FaultKind.CONDUCTION_WITHOUT_PRESENCE, "b8")]


def test_health_reports_the_link_and_the_device(
    device: SimulatedDevice, open_backend: Opener, collect: Collect
) -> None:
    backend = open_backend(device.port, health_interval_s=0.1)
    collect(backend, 1.0, until=lambda _: backend.health()["link"]["device"].get("scans", 0) > 0)
    report = backend.health()
    assert report["backend"] == "serial" and report["faulted"] is False
    assert report["link"]["state"] == "connected"
    assert report["link"]["firmware"].startswith("hautetension-scanner")
    assert report["link"]["device"]["scans"] > 0
    assert "presence" not in str(report) and "conduction" not in str(report)


def test_close_puts_the_lamps_out(device: SimulatedDevice, open_backend: Opener, collect: Collect) -> None:
    backend = open_backend(device.port)
    backend.set_lamps(frozenset({"N"}))
    collect(backend, 1.0, until=lambda _: device.board.lamps()[0])
    backend.close()
    assert wait_for(lambda: not any(device.board.lamps()))


# --------------------------------------------------------------------------- a pulled cable, a reset


def test_cable_pulled_mid_stream_then_plugged_back(
    device: SimulatedDevice, open_backend: Opener, collect: Collect, pinwheel: Any
) -> None:
    backend = open_backend(device.port)
    backend.poll()
    backend.set_lamps(frozenset({"S"}))
    for slot in range(3):
        device.board.place(slot, conducts=True)
    collect(backend, 1.0, until=lambda ev: len(of(PawnPlaced, ev)) == 3)

    device.unplug()
    events = collect(backend, 1.0, until=has(Fault))
    (fault,) = of(Fault, events)
    assert fault.kind is FaultKind.DISCONNECTED and fault.scanner_faulted
    assert "board disconnected" in fault.message
    assert backend.is_faulted()
    # While unplugged: retries with backoff, no further events, and pawns move.
    assert collect(backend, 0.3) == []
    device.board.lift(1)
    device.board.place(40, conducts=False)

    device.plug_in()
    events = collect(backend, 2.0, until=has(PawnPlaced, slot=pinwheel.slots[40]))
    assert isinstance(events[0], FaultCleared) and events[0].kind is FaultKind.DISCONNECTED
    assert [(e.slot, e.kind) for e in of(PawnLifted, events)] == [(pinwheel.slots[1], A)]
    assert [(e.slot, e.kind) for e in of(PawnPlaced, events)] == [(pinwheel.slots[40], D)]
    assert not backend.is_faulted()
    # The lamps asked for before the pull are lit again.
    collect(backend, 1.0, until=lambda _: device.board.lamps()[2])
    assert device.board.lamps() == [False, False, True, False]
    assert backend.health()["link"]["disconnects"] == 1


def test_device_missing_at_start_is_a_fault_until_it_appears(
    port_link: Path, open_backend: Opener, collect: Collect
) -> None:
    backend = open_backend(port_link, wait=0.1)
    events = collect(backend, 0.5, until=has(Fault))
    (fault,) = of(Fault, events)
    assert fault.kind is FaultKind.DISCONNECTED and "cannot open" in fault.message
    with SimulatedDevice(link=port_link) as dev:
        dev.board.place(3, conducts=False)
        events = collect(backend, 2.0, until=has(PawnPlaced))
    assert isinstance(events[0], FaultCleared)
    assert [(e.slot, e.kind) for e in of(PawnPlaced, events)] == [("d9", D)]


def test_device_reset_is_a_short_disconnection_and_lamps_come_back(
    device: SimulatedDevice, open_backend: Opener, collect: Collect
) -> None:
    backend = open_backend(device.port)
    backend.poll()
    backend.set_lamps(frozenset({"N", "E"}))
    collect(backend, 1.0, until=lambda _: device.board.lamps()[:2] == [True, True])
    device.reset()
    events = collect(backend, 2.0, until=has(FaultCleared))
    assert [type(e) for e in events] == [Fault, FaultCleared]
    assert "restarted" in events[0].message and events[0].scanner_faulted
    collect(backend, 1.0, until=lambda _: device.board.lamps()[:2] == [True, True])
    assert device.board.lamps() == [True, True, False, False]
    assert device.boots == 2


def test_silent_device_times_out_and_its_lamps_are_put_out(
    device: SimulatedDevice, open_backend: Opener, collect: Collect
) -> None:
    backend = open_backend(device.port)
    backend.set_lamps(frozenset({"W"}))
    collect(backend, 1.0, until=lambda _: device.board.lamps()[3])
    device.muted = True  # still running and listening, but nothing reaches the host
    started = time.monotonic()
    events = collect(backend, 2.0, until=has(Fault))
    (fault,) = of(Fault, events)
    assert fault.kind is FaultKind.DISCONNECTED and "silent" in fault.message
    assert time.monotonic() - started >= 0.35
    # The host told the device to go safe before letting go (sooner than the device's own timeout).
    assert wait_for(lambda: not any(device.board.lamps()), 0.5)
    device.muted = False
    events = collect(backend, 2.0, until=has(FaultCleared))
    assert of(FaultCleared, events)


def test_hung_firmware_is_rebooted_by_the_watchdog(
    open_backend: Opener, collect: Collect, port_link: Path
) -> None:
    with SimulatedDevice(link=port_link, settings={"watchdog_ms": 300}) as dev:
        dev.board.place(5, conducts=True)
        settled(dev, 5)
        backend = open_backend(dev.port)
        backend.poll()
        dev.hung = True
        events = collect(backend, 3.0, until=has(FaultCleared))
        assert [type(e) for e in events] == [Fault, FaultCleared]
        assert dev.reset_cause == WDT_RESET and dev.boots == 2
        assert backend.snapshot() == {"f9": A}  # nothing moved: no pawn events after the reboot


def test_slow_device_still_works(open_backend: Opener, collect: Collect, port_link: Path) -> None:
    # A main loop twenty times slower than usual (one turn every 20 ms): late, but no fault.
    with SimulatedDevice(link=port_link, step_delay=0.02) as dev:
        backend = open_backend(dev.port)
        backend.poll()
        dev.board.place(2, conducts=False)
        events = collect(backend, 2.0, until=has(PawnPlaced))
        assert [(e.slot, e.kind) for e in of(PawnPlaced, events)] == [("c9", D)]
        assert of(Fault, events + collect(backend, 0.5)) == []


# --------------------------------------------------------------------------- noise on the line


def test_line_noise_loses_nothing_that_lasts(
    device: SimulatedDevice, open_backend: Opener, collect: Collect, pinwheel: Any
) -> None:
    backend = open_backend(device.port, timeout_ms=600, error_threshold=1000)
    backend.poll()
    device.noise = LineNoise(flip=0.002, insert=0.002, drop=0.002, seed=7)
    expected = {}
    for i, slot in enumerate((4, 17, 33, 51, 68)):
        device.board.place(slot, conducts=i % 2 == 0)
        expected[pinwheel.slots[slot]] = A if i % 2 == 0 else D
        collect(backend, 0.15)
    backend.set_lamps(frozenset({"N", "S"}))
    events = collect(backend, 3.0, until=lambda _: backend.snapshot() == expected)
    assert backend.snapshot() == expected
    collect(backend, 3.0, until=lambda _: device.board.lamps() == [True, False, True, False])
    assert device.board.lamps() == [True, False, True, False]
    assert device.noise.damaged > 0
    assert backend.health()["link"]["bad_frames"] > 0
    assert of(Fault, events) == []  # damaged frames are dropped, the link stays up


def test_heavy_noise_is_reported_as_link_trouble_and_cleared(
    device: SimulatedDevice, open_backend: Opener, collect: Collect
) -> None:
    backend = open_backend(device.port, timeout_ms=1500)
    backend.poll()
    device.noise = LineNoise(flip=0.02, seed=3)
    events = collect(backend, 3.0, until=has(Fault))
    (fault,) = of(Fault, events)
    assert fault.kind is FaultKind.LINK_ERROR and not fault.scanner_faulted
    device.noise = LineNoise()
    events = collect(backend, 3.0, until=has(FaultCleared, kind=FaultKind.LINK_ERROR))
    assert of(FaultCleared, events)


def test_garbage_and_truncated_frames_do_not_stop_the_link(
    scripted: Any, open_backend: Opener, collect: Collect
) -> None:
    backend = open_backend(scripted.port, wait=0)
    collect(backend, 1.0, also=scripted.answer_hello, until=lambda _: backend.link.connected)
    scripted.write(b"\x13\x37 line noise \xff\xfe")
    scripted.snapshot(0, {1: True})
    scripted.write(b"\x05\x82\x01\x00\x00")  # a frame cut short
    scripted.write(b"\x00")
    scripted.send(messages.SNAPSHOT, b"\x01\x00")  # good CRC, payload too short
    scripted.snapshot(1, {1: True, 2: False})
    events = collect(backend, 1.0, until=has(PawnPlaced, slot="c9"))
    # b9's own snapshot had noise glued to its start and was lost; the next one carries it too.
    assert [(e.slot, e.kind) for e in of(PawnPlaced, events)] == [("b9", A), ("c9", D)]
    assert backend.snapshot() == {"b9": A, "c9": D}
    assert backend.link.connected and of(Fault, events) == []
    assert backend.health()["link"]["bad_frames"] == 3


def test_lost_snapshots_are_noticed_and_a_full_one_asked_for(
    scripted: Any, open_backend: Opener, collect: Collect
) -> None:
    backend = open_backend(scripted.port, wait=0)
    collect(backend, 1.0, also=scripted.answer_hello, until=lambda _: backend.link.connected)
    scripted.snapshot(10, {})
    scripted.snapshot(11, {7: True})
    collect(backend, 0.2)
    scripted.read()
    scripted.snapshot(14, {7: True, 8: True})
    events = collect(backend, 0.5, until=has(PawnPlaced, slot="i9"))
    assert [e.slot for e in of(PawnPlaced, events)] == ["i9"]
    assert backend.health()["link"]["lost_snapshots"] == 2
    assert messages.SNAPSHOT_REQUEST in [f.type for f in scripted.read()]


def test_handshake_never_answered(scripted: Any, open_backend: Opener, collect: Collect) -> None:
    backend = open_backend(scripted.port, wait=0)
    events = collect(backend, 1.0, until=has(Fault))
    (fault,) = of(Fault, events)
    assert fault.kind is FaultKind.DISCONNECTED and "handshake" in fault.message
    # It keeps trying: more HELLOs arrive with backoff.
    collect(backend, 0.5)
    assert sum(f.type == messages.HELLO for f in scripted.read()) >= 2


def test_unanswered_lamp_command_is_sent_again(scripted: Any, open_backend: Opener, collect: Collect) -> None:
    backend = open_backend(scripted.port, wait=0)
    collect(backend, 1.0, also=scripted.answer_hello, until=lambda _: backend.link.connected)
    scripted.read()
    heartbeat = itertools.count()

    def alive() -> None:  # snapshots but never an ACK: the device is there, the command is unanswered
        scripted.snapshot(next(heartbeat), {})

    backend.set_lamps(frozenset({"E"}))
    # However slow the machine, wait for the resends themselves (every ack_ms: 100 ms), not for a time.
    collect(backend, 10.0, also=alive, until=lambda _: backend.health()["link"]["resends"] >= 3)
    resends = backend.health()["link"]["resends"]
    # The host writes only inside poll(): what the device has read now is everything it was sent.
    lamps = [f for f in scripted.read() if f.type == messages.LAMPS]
    assert resends >= 3 and len(lamps) == 1 + resends  # the command, then each resend of it
    assert [messages.unpack_lamps(f.payload) for f in lamps] == [0b0010] * len(lamps)
    assert len({f.seq for f in lamps}) == len(lamps)  # each a frame of its own
    assert backend.link.connected and backend.health()["link"]["disconnects"] == 0


# --------------------------------------------------------------------------- incompatible devices


def test_version_mismatch_is_a_link_fault(open_backend: Opener, collect: Collect, port_link: Path) -> None:
    with SimulatedDevice(link=port_link, version=messages.PROTOCOL_VERSION + 1) as dev:
        dev.board.place(1, conducts=True)
        backend = open_backend(dev.port)
        events = backend.poll() + collect(backend, 0.3)
    (fault,) = of(Fault, events)
    assert fault.kind is FaultKind.LINK_ERROR and fault.scanner_faulted
    assert f"protocol v{messages.PROTOCOL_VERSION + 1}" in fault.message
    assert of(PawnPlaced, events) == [] and backend.is_faulted()


def test_device_scanning_another_board_size_is_refused(
    open_backend: Opener, collect: Collect, port_link: Path
) -> None:
    with SimulatedDevice(link=port_link, settings={"slot_count": 64}) as dev:
        backend = open_backend(dev.port)
        events = backend.poll() + collect(backend, 0.2)
    (fault,) = of(Fault, events)
    assert fault.kind is FaultKind.LINK_ERROR and "64 slots" in fault.message


def test_a_line_full_of_noise_is_not_a_live_device(
    scripted: Any, open_backend: Opener, collect: Collect
) -> None:
    # Bytes keep coming (a wrong baud rate, a bad cable) but no frame checks out: that is a silent device.
    backend = open_backend(scripted.port, wait=0)
    collect(backend, 1.0, also=scripted.answer_hello, until=lambda _: backend.link.connected)
    noise = bytes(range(1, 200))
    disconnected = has(Fault, kind=FaultKind.DISCONNECTED)
    events = collect(backend, 2.0, also=lambda: scripted.write(noise), until=disconnected)
    faults = of(Fault, events)
    assert faults[-1].kind is FaultKind.DISCONNECTED and "silent" in faults[-1].message
