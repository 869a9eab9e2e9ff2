"""The health self-test on the virtual board, with injected faults."""

from __future__ import annotations

import json
from typing import Any

import pytest

from games.hautetension.pawn import PawnKind
from hardware.events import FaultKind
from hardware.selftest import run_selftest
from hardware.settings import HardwareSettings, LampWiring, ReferenceChannel, Signal

pytestmark = pytest.mark.pin_paths("gpiozero", "lgpio-group", "sim-group")

FEEDBACK = {"N": LampWiring(12, feedback_gpio=7), "E": LampWiring(16, feedback_gpio=8),
            "S": LampWiring(20, feedback_gpio=11), "W": LampWiring(21, feedback_gpio=14)}
ELEVEN = (4, 17, 18, 27, 22, 23, 24, 10, 9, 25, 15)


def full_settings() -> HardwareSettings:
    return HardwareSettings(signal_gpios=ELEVEN, lamps=FEEDBACK,
                            references=(ReferenceChannel(10, 0, True), ReferenceChannel(10, 1, False)))


def checks(report: Any) -> dict[str, bool]:
    return {c.name: c.ok for c in report.checks}


def test_a_healthy_board_passes(make_rig: Any) -> None:
    r = make_rig(full_settings())
    r.virtual.place("c3", PawnKind.ATTACK)
    r.run(0.05)
    report = run_selftest(r.board)
    assert report.is_ok(), report.lines()
    assert checks(report) == {"references": True, "stability": True, "multiplexers": True, "contacts": True,
                              "lamps": True, "faults": True}
    assert report.lines()[0] == "self-test PASSED on the sim board (6 checks, 0 failed)"
    assert json.loads(json.dumps(report.to_dict()))["ok"] is True
    assert not [c for c in report.checks if c.warning]


def test_missing_optional_parts_are_warnings(rig: Any) -> None:
    report = run_selftest(rig.board)
    assert report.is_ok()
    assert {c.name for c in report.checks if c.warning} == {"references", "lamps"}


def test_wrong_reference(make_rig: Any) -> None:
    r = make_rig(full_settings())
    r.virtual.stick(10, 0, False)
    report = run_selftest(r.board)
    assert not report.is_ok()
    assert "FAIL references: multiplexer 10 channel 0 reads low, expected high" in report.lines()
    assert [f.kind for f in report.faults] == [FaultKind.REFERENCE_MISMATCH]


def test_dead_multiplexer_with_references(make_rig: Any) -> None:
    r = make_rig(full_settings())
    r.virtual.kill_multiplexer(10)
    report = run_selftest(r.board)
    assert checks(report)["references"] is False
    assert checks(report)["multiplexers"] is False


def test_unstable_channel(make_rig: Any) -> None:
    r = make_rig(seed=1)
    r.virtual.make_noisy("g7", 0.5)
    report = run_selftest(r.board)
    stability = next(c for c in report.checks if c.name == "stability")
    assert not stability.ok
    assert "g7" in stability.message and "(multiplexer" in stability.message


def test_conduction_without_presence(rig: Any) -> None:
    rig.virtual.close_contact("e4", Signal.CONDUCTION)
    report = run_selftest(rig.board)
    assert "FAIL contacts: conduction without presence in e4" in report.lines()


def test_blown_lamp(make_rig: Any) -> None:
    r = make_rig(full_settings())
    r.virtual.blow_lamp("E")
    report = run_selftest(r.board)
    assert not report.is_ok()
    assert "FAIL lamp E: lamp E draws no current when on (bulb, fuse or driver)" in report.lines()
    assert [f.kind for f in report.faults] == [FaultKind.LAMP_FEEDBACK]


def test_shorted_lamp(make_rig: Any) -> None:
    r = make_rig(full_settings())
    r.virtual.short_lamp("W")
    report = run_selftest(r.board)
    assert [c.line() for c in report.checks if not c.ok] == [
        "FAIL lamp W: lamp W draws current when off (stuck relay or shorted driver)"]


def test_lamps_return_to_their_state_after_the_test(make_rig: Any) -> None:
    r = make_rig(full_settings())
    r.board.set_lamps(frozenset({"S"}))
    run_selftest(r.board)
    assert r.virtual.lit_lamps() == {"S"}
    status = r.board.health()["lamp_feedback"]
    assert status == {"N": {"on": False, "current": False}, "E": {"on": False, "current": False},
                      "S": {"on": True, "current": True}, "W": {"on": False, "current": False}}


def test_active_faults_fail_the_test(make_rig: Any) -> None:
    r = make_rig()
    r.virtual.close_contact("a1", Signal.CONDUCTION)
    r.run(0.05)
    r.virtual.close_contact("a1", Signal.CONDUCTION, False)  # gone now, but the fault is not cleared yet
    report = run_selftest(r.board)
    assert checks(report)["faults"] is False


class LinkBackend:
    """A backend without pins (like the serial link), reporting through health()."""

    name = "serial"

    def __init__(self, faults: list[dict[str, Any]], faulted: bool) -> None:
        self._faults, self._faulted = faults, faulted

    def health(self) -> dict[str, Any]:
        return {"backend": "serial", "faults": self._faults}

    def is_faulted(self) -> bool:
        return self._faulted


def test_backend_without_pins_is_judged_by_its_health() -> None:
    assert run_selftest(LinkBackend([], False)).is_ok()
    report = run_selftest(LinkBackend([{"kind": "disconnected", "message": "link down"}], True))
    assert not report.is_ok()
    assert "FAIL faults: link down" in report.lines()


def test_lamp_current_is_watched_during_play(make_rig: Any) -> None:
    r = make_rig(full_settings())
    r.board.set_lamps(frozenset({"N"}))
    assert r.run(0.5) == []
    r.virtual.blow_lamp("N")
    events = r.run(0.5)
    assert [(e.kind, e.message) for e in events] == [
        (FaultKind.LAMP_FEEDBACK, "lamp N is on but draws no current (bulb, fuse or driver)")]
    assert not r.board.is_faulted()  # the readings are still good
    r.board.set_lamps(frozenset())  # off and no current: behaves again
    events = r.run(0.5)
    assert [e.kind for e in events] == [FaultKind.LAMP_FEEDBACK]
    assert type(events[0]).__name__ == "FaultCleared"
    r.virtual.short_lamp("E")
    events = r.run(0.5)
    assert [e.message for e in events] == ["lamp E is off but draws current (stuck relay or shorted driver)"]


def test_switching_lamps_is_not_a_feedback_fault(make_rig: Any) -> None:
    r = make_rig(full_settings())
    for n in range(40):
        r.board.set_lamps(frozenset({"N", "E", "S", "W"}) if n % 2 else frozenset())
        assert r.scans(3) == []
