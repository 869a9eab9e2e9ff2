"""Lamps, lamp test, safe state and the push-button, through the real backend on mock pins."""

from __future__ import annotations

from typing import Any

import pytest

from games.hautetension.circuit import evaluate
from games.hautetension.pawn import PawnKind
from hardware.events import ButtonLongPress, ButtonPressed, ButtonReleased, PawnPlaced
from hardware.settings import HardwareSettings, LampWiring

pytestmark = pytest.mark.pin_paths("gpiozero", "lgpio-group", "sim-group")

ALL = {"N", "E", "S", "W"}


def test_set_lamps_drives_the_pins(rig: Any) -> None:
    rig.board.set_lamps(frozenset({"N", "S"}))
    assert rig.virtual.lit_lamps() == {"N", "S"}
    assert rig.virtual.lamp_pins["N"].state is True
    assert rig.virtual.lamp_pins["E"].state is False
    rig.board.set_lamps(frozenset())
    assert rig.virtual.lit_lamps() == frozenset()


def test_active_low_lamps(make_rig: Any) -> None:
    lamps = {"N": LampWiring(12, active_high=False), "E": LampWiring(16), "S": LampWiring(20),
             "W": LampWiring(21, active_high=False)}
    r = make_rig(HardwareSettings(lamps=lamps))
    assert r.virtual.lamp_pins["N"].state is True  # off = high for an active-low driver
    r.board.set_lamps(frozenset({"N"}))
    assert r.virtual.lamp_pins["N"].state is False
    assert r.virtual.lit_lamps() == {"N"}


def test_unknown_lamp_is_refused(rig: Any) -> None:
    with pytest.raises(ValueError, match="no lamp named X"):
        rig.board.set_lamps(frozenset({"X"}))


def test_lamp_pins_change_only_when_needed(rig: Any) -> None:
    rig.board.set_lamps(frozenset({"W"}))
    before = rig.board.lamps.writes
    for _ in range(5):
        rig.board.set_lamps(frozenset({"W"}))
    assert rig.board.lamps.writes == before


def test_lamp_test_while_the_button_is_held(rig: Any) -> None:
    rig.board.set_lamps(frozenset({"E"}))
    rig.virtual.press_button()
    events = rig.run(0.03)
    assert [type(e) for e in events] == [ButtonPressed]
    assert rig.virtual.lit_lamps() == ALL
    rig.board.set_lamps(frozenset())  # the circuit changes meanwhile: the test still holds
    assert rig.virtual.lit_lamps() == ALL
    rig.virtual.release_button()
    events = rig.run(0.03)
    assert [type(e) for e in events] == [ButtonReleased]
    assert events[0].held_for == pytest.approx(0.03, abs=0.011)
    assert rig.virtual.lit_lamps() == frozenset()


def test_a_button_tap_shorter_than_the_debounce_does_nothing(rig: Any) -> None:
    rig.virtual.press_button()
    rig.scans(1)
    rig.virtual.release_button()
    assert rig.run(0.05) == []
    assert rig.virtual.lit_lamps() == frozenset()


def test_long_press_runs_the_selftest(make_rig: Any) -> None:
    r = make_rig(HardwareSettings(long_press_seconds=1.0))
    r.virtual.press_button()
    events = r.run(0.9)
    assert [type(e) for e in events] == [ButtonPressed]
    events = r.run(0.2)
    assert [type(e) for e in events] == [ButtonLongPress]
    report = r.board.health()["selftest"]
    assert report["ok"] is True and report["backend"] == "sim"
    assert r.virtual.lit_lamps() == ALL  # still the lamp test
    assert r.run(2.0) == []  # one long press, one self-test
    r.virtual.release_button()
    (released,) = r.run(0.05)
    assert isinstance(released, ButtonReleased) and released.held_for > 3.0


def test_lamps_go_safe_on_a_scanner_fault_but_lamp_test_still_works(rig: Any) -> None:
    for slot in ("a9", "b9", "c9"):
        rig.virtual.place(slot, PawnKind.ATTACK)
        rig.scans(1)
    rig.run(0.05)
    rig.board.set_lamps(frozenset({"N"}))
    rig.virtual.kill_multiplexer(0)
    rig.run(0.05)
    assert rig.board.is_faulted() and rig.virtual.lit_lamps() == frozenset()
    rig.board.set_lamps(frozenset({"N"}))  # the service keeps asking: still safe
    assert rig.virtual.lit_lamps() == frozenset()
    rig.virtual.press_button()
    rig.run(0.05)
    assert rig.virtual.lit_lamps() == ALL


def test_lamps_safe_and_close_turn_everything_off(rig: Any) -> None:
    rig.board.set_lamps(frozenset(ALL))
    rig.board.lamps_safe()
    assert rig.virtual.lit_lamps() == frozenset()
    rig.board.set_lamps(frozenset({"S"}))
    rig.board.close()
    assert rig.virtual.lit_lamps() == frozenset()
    with pytest.raises(RuntimeError, match="closed"):
        rig.board.poll()
    rig.board.close()  # twice is fine


def test_slot_change_to_lamp_end_to_end(rig: Any, pinwheel: Any) -> None:
    """Pawns placed on the virtual board light the lamp of the row they close."""
    row = pinwheel.straight_rows_of("W")[0]
    attack: set[str] = set()
    for slot in row.slots:
        rig.virtual.place(slot, PawnKind.ATTACK)
        for event in rig.run(0.03):
            assert isinstance(event, PawnPlaced)
            attack.add(event.slot)
        rig.board.set_lamps(evaluate(pinwheel, attack).lit)
    assert rig.virtual.lit_lamps() == {"W"}


def test_lamps_go_off_when_the_process_exits(rig: Any) -> None:
    from hardware.backends.gpio import _lamps_off_at_exit

    rig.board.set_lamps(frozenset({"N", "E"}))
    _lamps_off_at_exit()  # what atexit runs
    assert rig.virtual.lit_lamps() == frozenset()
    with pytest.raises(RuntimeError):
        rig.board.poll()
