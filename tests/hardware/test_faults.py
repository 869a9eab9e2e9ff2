"""Fault detection end to end: contacts, flicker, references, dead multiplexers, a pulled cable."""

from __future__ import annotations

from typing import Any

import pytest

from games.hautetension.pawn import PawnKind
from hardware.events import Fault, FaultCleared, FaultKind, PawnLifted, PawnPlaced
from hardware.settings import DebounceSettings, HardwareSettings, ReferenceChannel, Signal

pytestmark = pytest.mark.pin_paths("gpiozero", "lgpio-group", "sim-group")

ELEVEN = (4, 17, 18, 27, 22, 23, 24, 10, 9, 25, 8)


def faults(events: list[Any], kind: FaultKind | None = None) -> list[Fault]:
    return [e for e in events if isinstance(e, Fault) and (kind is None or e.kind is kind)]


def cleared(events: list[Any]) -> list[FaultCleared]:
    return [e for e in events if isinstance(e, FaultCleared)]


def test_conduction_without_presence(rig: Any) -> None:
    rig.virtual.close_contact("d4", Signal.CONDUCTION)
    events = rig.run(0.05)
    (fault,) = faults(events, FaultKind.CONDUCTION_WITHOUT_PRESENCE)
    assert fault.slot == "d4"
    assert (fault.multiplexer, fault.channel) == (5, 15)  # d4 is slot 47: channel 95
    assert "d4" in fault.message and not fault.scanner_faulted
    assert dict(rig.board.snapshot()) == {}
    assert not [e for e in events if isinstance(e, (PawnPlaced, PawnLifted))]
    rig.virtual.close_contact("d4", Signal.CONDUCTION, False)
    events = rig.run(0.05)
    assert [(e.kind, e.slot) for e in cleared(events)] == [(FaultKind.CONDUCTION_WITHOUT_PRESENCE, "d4")]
    assert rig.board.health()["faults"] == []


def test_a_stuck_conduction_channel_under_a_pawn(rig: Any) -> None:
    rig.virtual.place("a9", PawnKind.DEFENSE)
    rig.run(0.05)
    rig.virtual.stick(0, 1, False)  # a9's conduction channel shorted to ground: reads "conducts"
    events = rig.run(0.05)
    assert [(type(e), e.kind) for e in events] == [
        (PawnLifted, PawnKind.DEFENSE), (PawnPlaced, PawnKind.ATTACK)]
    rig.virtual.lift("a9")
    events = rig.run(0.05)
    assert [f.slot for f in faults(events, FaultKind.CONDUCTION_WITHOUT_PRESENCE)] == ["a9"]


def test_a_noisy_slot_flickers_without_pawn_events(make_rig: Any) -> None:
    # slow scans keep the simulated minute cheap
    r = make_rig(HardwareSettings(scan_period=0.05, debounce=DebounceSettings(flicker_per_minute=20)), seed=7)
    r.virtual.make_noisy("f6", 0.2)
    events = r.run(2.0)
    assert not [e for e in events if isinstance(e, (PawnPlaced, PawnLifted))]
    (fault,) = faults(events, FaultKind.FLICKER)
    assert fault.slot == "f6" and "limit 20" in fault.message
    assert r.board.health()["flicker"]["f6"] > 20
    r.virtual.quiet("f6")
    events = r.run(61.0)
    assert [(e.kind, e.slot) for e in cleared(events)] == [(FaultKind.FLICKER, "f6")]


def test_a_slot_placed_and_lifted_a_few_times_does_not_flicker(rig: Any) -> None:
    for _ in range(5):
        rig.virtual.place("b5", PawnKind.ATTACK)
        rig.run(0.1)
        rig.virtual.lift("b5")
        rig.run(0.1)
    assert rig.board.health()["faults"] == []
    assert rig.board.health()["flicker"]["b5"] == 10


def with_references() -> HardwareSettings:
    return HardwareSettings(signal_gpios=ELEVEN, references=(
        ReferenceChannel(10, 14, True), ReferenceChannel(10, 15, False),
        ReferenceChannel(10, 0, False),
    ))


def test_reference_with_the_wrong_level(make_rig: Any) -> None:
    r = make_rig(with_references())
    assert r.run(0.1) == []
    r.virtual.stick(10, 15, True)
    events = r.run(0.05)
    (fault,) = faults(events)
    assert fault.kind is FaultKind.REFERENCE_MISMATCH
    assert (fault.multiplexer, fault.channel) == (10, 15)
    assert fault.message == "reference multiplexer 10 channel 15 reads high, expected low"
    status = {(s["multiplexer"], s["channel"]): s["ok"] for s in r.board.health()["references"]}
    assert status == {(10, 14): True, (10, 15): False, (10, 0): True}
    r.virtual.unstick(10, 15)
    assert [e.kind for e in cleared(r.run(0.05))] == [FaultKind.REFERENCE_MISMATCH]


def test_dead_multiplexer_seen_through_its_references_on_an_empty_board(make_rig: Any) -> None:
    settings = HardwareSettings(
        signal_gpios=ELEVEN,
        slot_overrides={},
        references=(ReferenceChannel(10, 15, False),),
    )
    r = make_rig(settings)
    r.run(0.05)
    r.virtual.kill_multiplexer(10)
    events = r.run(0.05)
    dead = faults(events, FaultKind.DEAD_MULTIPLEXER)
    assert [f.multiplexer for f in dead] == [10] and dead[0].scanner_faulted
    assert r.board.is_faulted()
    r.virtual.revive_multiplexer(10)
    events = r.run(0.05)
    assert FaultKind.DEAD_MULTIPLEXER in [e.kind for e in cleared(events)]
    assert not r.board.is_faulted()


def test_dead_multiplexer_under_pawns_freezes_its_slots_and_puts_lamps_safe(rig: Any) -> None:
    for slot in ("a9", "b9", "c9", "d9"):  # multiplexer 0
        rig.virtual.place(slot, PawnKind.ATTACK)
        rig.scans(1)
    rig.run(0.05)
    rig.board.set_lamps(frozenset({"W"}))
    assert rig.virtual.lit_lamps() == {"W"}
    rig.virtual.kill_multiplexer(0)
    events = rig.run(0.1)
    assert not [e for e in events if isinstance(e, PawnLifted)]  # the pawns were not lifted
    (fault,) = faults(events)
    assert fault.kind is FaultKind.DEAD_MULTIPLEXER and fault.multiplexer == 0
    assert "4 of its slots changed at once" in fault.message
    assert rig.board.is_faulted()
    assert rig.virtual.lit_lamps() == frozenset()
    assert set(rig.board.snapshot()) == {"a9", "b9", "c9", "d9"}
    rig.virtual.revive_multiplexer(0)
    events = rig.run(0.1)
    assert [e.kind for e in cleared(events)] == [FaultKind.DEAD_MULTIPLEXER]
    assert not [e for e in events if isinstance(e, (PawnLifted, PawnPlaced))]
    assert rig.virtual.lit_lamps() == {"W"}  # the circuit's lamps come back


def test_pulled_cable(rig: Any, pinwheel: Any) -> None:
    for i, slot in enumerate(pinwheel.slots):
        if i % 2 == 0:
            rig.virtual.place(slot, PawnKind.DEFENSE)
            rig.scans(1)
    rig.run(0.05)
    rig.virtual.pull_cable()
    events = rig.run(0.1)
    assert sorted(f.multiplexer for f in faults(events)) == list(range(10))
    assert not [e for e in events if isinstance(e, PawnLifted)]
    assert rig.board.is_faulted()
    assert len(rig.board.health()["faults"]) == 10


def test_one_pawn_lifted_is_not_a_dead_multiplexer(rig: Any) -> None:
    rig.virtual.place("a9", PawnKind.ATTACK)
    rig.run(0.05)
    rig.virtual.lift("a9")
    events = rig.run(0.05)
    assert [type(e) for e in events] == [PawnLifted]
