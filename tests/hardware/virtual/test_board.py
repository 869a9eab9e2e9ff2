"""The virtual board over a long run: what its pins remember stays bounded (bench/soak.py found it grew)."""

from __future__ import annotations

from typing import Any

from hardware.virtual.board import STATES_KEPT, VirtualBoard


def _history_lengths(board: VirtualBoard) -> dict[str, int]:
    return {str(info.name): len(pin.states) for info, pin in board.factory.pins.items()}


def test_every_pin_keeps_a_bounded_history_however_long_the_board_runs(make_rig: Any) -> None:
    # One pin per call (the select lines as gpiozero pins; a group write keeps no history at all):
    # 40 scans change the lowest select line 320 times; lamps and button change 100 times each.
    rig = make_rig(groups=False)
    rig.scans(40)
    for n in range(100):
        rig.board.set_lamps(frozenset({"N"} if n % 2 else set()))
        (rig.virtual.press_button if n % 2 else rig.virtual.release_button)()
    lengths = _history_lengths(rig.virtual)
    select, lamp, button = rig.virtual.select_pins[0], rig.virtual.lamp_pins["N"], rig.virtual.button_pin
    # Each of them changed far more often than it remembers, and remembers exactly that many.
    assert [len(pin.states) for pin in (select, lamp, button)] == [STATES_KEPT] * 3
    assert max(lengths.values()) == STATES_KEPT


def test_the_history_kept_is_the_latest_one(rig: Any) -> None:
    lamp = rig.virtual.lamp_pins["E"]
    lamp.clear_states()
    for n in range(STATES_KEPT * 2):
        rig.board.set_lamps(frozenset({"E"} if n % 2 == 0 else set()))
    # gpiozero's own check still reads it: the last change left the lamp off.
    states = [s.state for s in lamp.states]
    assert states[-1] is False and states[-2] is True
    lamp.assert_states(states)
