"""Debounce and pawn events, end to end through the real scanner on the virtual board."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.hautetension.pawn import PawnKind
from hardware.events import Fault, PawnLifted, PawnPlaced
from hardware.settings import DebounceSettings, HardwareSettings, Signal

pytestmark = pytest.mark.pin_paths("gpiozero", "lgpio-group", "sim-group")


def pawn_events(events: list[Any]) -> list[Any]:
    return [e for e in events if isinstance(e, (PawnPlaced, PawnLifted))]


def test_attack_and_defense_placements(rig: Any) -> None:
    rig.virtual.place("a9", PawnKind.ATTACK)
    rig.virtual.place("e1", PawnKind.DEFENSE)
    events = rig.run(0.05)
    assert [(e.slot, e.kind) for e in events] == [("a9", PawnKind.ATTACK), ("e1", PawnKind.DEFENSE)]
    assert all(isinstance(e, PawnPlaced) for e in events)
    assert dict(rig.board.snapshot()) == {"a9": PawnKind.ATTACK, "e1": PawnKind.DEFENSE}
    rig.virtual.lift("a9")
    events = rig.run(0.05)
    assert events == [PawnLifted("a9", PawnKind.ATTACK, events[0].at)]
    assert dict(rig.board.snapshot()) == {"e1": PawnKind.DEFENSE}


def test_default_debounce_is_three_scans_and_15_ms(rig: Any) -> None:
    # 5 ms scans: seen at scans 1, 2, 3 (10 ms apart) is not yet 15 ms; scan 4 confirms.
    rig.virtual.place("c5", PawnKind.ATTACK)
    assert rig.scans(3) == []
    events = rig.scans(1)
    assert [e.slot for e in events] == ["c5"]


def test_fast_scans_wait_for_the_minimum_time(make_rig: Any) -> None:
    r = make_rig(HardwareSettings(scan_period=0.001))
    r.virtual.place("c5", PawnKind.ATTACK)
    confirmed_at = next(n for n in range(1, 40) if r.scans(1))
    step = 0.001 + 16 * 10e-6  # scan period + the 16 settle waits of one scan
    # the first sighting is scan 1: confirmed at the first scan at least 15 ms later
    assert (confirmed_at - 1) * step >= 0.015 > (confirmed_at - 2) * step
    assert confirmed_at > 3


def test_slow_scans_wait_for_three_scans(make_rig: Any) -> None:
    r = make_rig(HardwareSettings(scan_period=0.020))
    r.virtual.place("c5", PawnKind.ATTACK)
    assert r.scans(2) == []
    assert [e.slot for e in r.scans(1)] == ["c5"]


def test_configured_debounce(make_rig: Any) -> None:
    r = make_rig(HardwareSettings(debounce=DebounceSettings(scans=6, min_seconds=0.0)))
    r.virtual.place("c5", PawnKind.DEFENSE)
    assert r.scans(5) == []
    assert len(r.scans(1)) == 1


def test_a_glitch_shorter_than_the_debounce_is_ignored(rig: Any) -> None:
    rig.virtual.place("b2", PawnKind.ATTACK)
    rig.scans(2)
    rig.virtual.lift("b2")
    assert rig.run(0.2) == []
    assert dict(rig.board.snapshot()) == {}


def test_bouncing_contacts_give_one_event(make_rig: Any) -> None:
    r = make_rig(bounce_seconds=0.008, seed=3)
    r.virtual.place("g3", PawnKind.ATTACK)
    events = r.run(0.1)
    assert [(type(e), e.slot, e.kind) for e in events] == [(PawnPlaced, "g3", PawnKind.ATTACK)]
    r.virtual.lift("g3")
    events = r.run(0.1)
    assert [(type(e), e.slot) for e in events] == [(PawnLifted, "g3")]
    # the bounce was really seen by the scanner (and counted), yet produced no extra event
    assert r.board.health()["flicker"]["g3"] > 2


# make_rig builds a fresh board for each example, so sharing the factory fixture is safe.
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(0, 2**16), st.floats(0.0, 0.012))
def test_bounce_never_leaks_a_wrong_kind(make_rig: Any, seed: int, bounce: float) -> None:
    r = make_rig(bounce_seconds=bounce, seed=seed)
    r.virtual.place("d7", PawnKind.ATTACK)
    r.virtual.place("f4", PawnKind.DEFENSE)
    events = r.run(0.08)
    assert sorted((e.slot, e.kind) for e in events) == [("d7", PawnKind.ATTACK), ("f4", PawnKind.DEFENSE)]
    r.board.close()


def test_presence_closing_before_conduction_is_not_a_defense_pawn(rig: Any) -> None:
    rig.virtual.close_contact("h8", Signal.PRESENCE)
    rig.scans(2)
    rig.virtual.close_contact("h8", Signal.CONDUCTION)
    events = rig.run(0.05)
    assert [(e.slot, e.kind) for e in events] == [("h8", PawnKind.ATTACK)]


def test_swapping_a_pawn_faster_than_the_debounce(rig: Any) -> None:
    rig.virtual.place("a1", PawnKind.ATTACK)
    rig.run(0.05)
    rig.virtual.lift("a1")
    rig.virtual.place("a1", PawnKind.DEFENSE)
    events = rig.run(0.05)
    assert [(type(e), e.kind) for e in events] == [
        (PawnLifted, PawnKind.ATTACK), (PawnPlaced, PawnKind.DEFENSE)]


def test_event_time_is_when_the_change_was_confirmed(rig: Any) -> None:
    rig.virtual.place("i5", PawnKind.DEFENSE)
    placed_at = rig.clock.now()
    (event,) = rig.run(0.05)
    assert 0.015 <= event.at - placed_at <= 0.025


def test_pawns_already_standing_at_start_are_reported(make_rig: Any, pinwheel: Any) -> None:
    r = make_rig()
    for slot in ("a9", "b9"):
        r.virtual.place(slot, PawnKind.ATTACK)
    events = r.run(0.05)
    assert sorted(e.slot for e in events) == ["a9", "b9"]
    assert not [e for e in events if isinstance(e, Fault)]


@pytest.mark.parametrize("count", [1, 40, 80])
def test_many_pawns(rig: Any, pinwheel: Any, count: int) -> None:
    for i, slot in enumerate(pinwheel.slots[:count]):
        rig.virtual.place(slot, PawnKind.ATTACK if i % 3 else PawnKind.DEFENSE)
        rig.scans(1)  # one pawn at a time, as hands place them
    rig.run(0.05)
    assert dict(rig.board.snapshot()) == rig.virtual.pawns
    assert not rig.board.is_faulted()


def test_shared_signal_board_end_to_end(make_rig: Any) -> None:
    shared = HardwareSettings(signal_gpios=(), shared_signal_gpio=4,
                              enable_gpios=(17, 18, 27, 22, 23, 24, 10, 9, 25, 7))
    r = make_rig(shared)
    for slot, kind in (("a9", PawnKind.ATTACK), ("e1", PawnKind.DEFENSE), ("i1", PawnKind.ATTACK)):
        r.virtual.place(slot, kind)
    events = r.run(0.05)
    assert sorted((e.slot, e.kind) for e in events) == [
        ("a9", PawnKind.ATTACK), ("e1", PawnKind.DEFENSE), ("i1", PawnKind.ATTACK)]
    assert r.board.health()["gpio_ops_per_scan"] == 330


def test_bank_read_board_end_to_end(make_rig: Any) -> None:
    r = make_rig(bank_read=True)
    r.virtual.place("f2", PawnKind.ATTACK)
    events = r.run(0.05)
    assert [(e.slot, e.kind) for e in events] == [("f2", PawnKind.ATTACK)]
    health = r.board.health()
    assert (health["gpio_ops_per_scan"], health["bank_read"]) == (32, "virtual read_bank")


def test_flicker_counts_cover_the_last_minute(rig: Any) -> None:
    rig.virtual.place("c1", PawnKind.DEFENSE)
    rig.run(0.05)
    assert rig.board.health()["flicker"] == {"c1": 1}
    rig.clock.advance(61.0)
    rig.scans(1)
    assert rig.board.health()["flicker"] == {}


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.floats(0.001, 0.02)), min_size=1, max_size=60),
       st.integers(1, 5), st.floats(0.0, 0.03))
def test_debounced_value_changes_only_after_a_long_enough_run(
        samples: list[tuple[int, float]], scans: int, min_seconds: float) -> None:
    from hardware.monitor import Debounced

    rule = DebounceSettings(scans=scans, min_seconds=min_seconds)
    value = Debounced(0)
    now = 0.0
    history: list[tuple[float, int]] = []
    for raw, gap in samples:
        now += gap
        history.append((now, raw))
        before = value.stable
        changed = value.update(raw, now, rule)
        assert changed == (value.stable != before)
        run = 0
        for _, seen in reversed(history):
            if seen != raw:
                break
            run += 1
        if raw != before and run >= scans and now - history[-run][0] >= min_seconds:
            assert changed  # long enough: it must have changed by now
        if changed:
            # the new value was read on the last `scans` scans at least, spanning min_seconds
            run = 0
            for _, seen in reversed(history):
                if seen != raw:
                    break
                run += 1
            first_seen = history[-run][0]
            assert run >= scans
            assert now - first_seen >= min_seconds
            assert value.stable == raw
