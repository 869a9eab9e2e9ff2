"""What a learned wiring becomes in the configuration file, and the advice on the free channels."""

from __future__ import annotations

import tomllib

from games.hautetension.layout import Layout
from hardware.settings import ChannelRef, HardwareSettings, ReferenceChannel, SlotWiring
from hardware.wiring.config import changed_slots, reference_advice, slot_overrides, updated_text
from hardware.wiring.learner import LearnedWiring


def moved(layout: Layout, settings: HardwareSettings) -> dict[str, SlotWiring]:
    """The computed map with a9 and b9 swapped and i1's contacts crossed."""
    wiring = settings.slot_map(layout)
    wiring["a9"], wiring["b9"] = wiring["b9"], wiring["a9"]
    wiring["i1"] = SlotWiring(wiring["i1"].conduction, wiring["i1"].presence)
    return wiring


def test_only_the_slots_the_computed_map_does_not_give_are_written(pinwheel: Layout) -> None:
    settings = HardwareSettings()
    learned = moved(pinwheel, settings)
    assert list(slot_overrides(learned, settings, pinwheel)) == ["a9", "b9", "i1"]
    text = updated_text('[hardware]\nwiring = "sequential"\n', learned, settings, pinwheel, note="n")
    assert text is not None
    slots = tomllib.loads(text)["hardware"]["slots"]
    assert slots == {"a9": {"presence": [0, 2], "conduction": [0, 3]},
                     "b9": {"presence": [0, 0], "conduction": [0, 1]},
                     "i1": {"presence": [9, 15], "conduction": [9, 14]}}
    assert "a9 = { presence = [0, 2], conduction = [0, 3] }\n" in text  # one line per slot, aligned
    # Overrides already in the file that the learned map no longer needs go away with the old table.
    by_hand = text.replace("n\n", "n\nc9 = { presence = [0, 4] }\n")
    again = updated_text(by_hand, learned, HardwareSettings(slot_overrides={"c9": {}}), pinwheel, note="")
    assert again is not None and "c9" not in tomllib.loads(again)["hardware"]["slots"]


def test_without_a_computed_map_every_slot_is_written(pinwheel: Layout) -> None:
    settings = HardwareSettings(wiring="none", slot_overrides={})
    learned = moved(pinwheel, HardwareSettings())
    assert len(slot_overrides(learned, settings, pinwheel)) == 80


def test_a_map_the_file_already_gives_writes_nothing(pinwheel: Layout) -> None:
    settings = HardwareSettings()
    assert updated_text("", settings.slot_map(pinwheel), settings, pinwheel, note="n") is None


def test_changed_slots_says_what_moves(pinwheel: Layout) -> None:
    lines = changed_slots(moved(pinwheel, HardwareSettings()), HardwareSettings(), pinwheel)
    assert lines[0] == "a9 presence: multiplexer 0 channel 0 → multiplexer 0 channel 2"
    assert "i1 conduction: multiplexer 9 channel 15 → multiplexer 9 channel 14" in lines and len(lines) == 6


def test_reference_advice(pinwheel: Layout) -> None:
    settings = HardwareSettings(signal_gpios=(4, 17, 18, 27, 22, 23, 24, 10, 9, 25, 11),
                                references=(ReferenceChannel(10, 15, False),))
    result = LearnedWiring(slots={}, free=(ChannelRef(10, 3), ChannelRef(10, 4), ChannelRef(2, 0)),
                           closed_on_empty=(ChannelRef(5, 5),), bounced={})
    lines = reference_advice(result, settings)
    assert lines[0] == ('multiplexer 2: channel(s) 0 free; tie channel 0 to low and add '
                        '[[hardware.references]] multiplexer = 2, channel = 0, level = "low"')
    assert lines[1] == "multiplexer 10: channel(s) 3, 4 free (it has a reference already)"
    assert lines[2].startswith("multiplexer 5 channel 5 read closed on the empty board and was left out")
    none = LearnedWiring(slots={}, free=(), closed_on_empty=(), bounced={})
    assert reference_advice(none, HardwareSettings()) == [
        "every channel is used by a slot or a reference: none is free for a reference channel"]
