"""The wiring wizard's logic (:mod:`hardware.wiring.learner`) on synthetic raw levels: what it learns, and
every mistake it explains."""

from __future__ import annotations

import random
from collections.abc import Collection, Mapping

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hardware.settings import ChannelRef, HardwareSettings, SlotWiring
from hardware.wiring.learner import LearnTiming, Problem, ProblemKind, Progress, Task, WiringLearner

TIMING = LearnTiming(hold=0.1, patience=2.0, bounce_window=0.5, bounce_limit=4)
SLOTS = ("a9", "b9", "c9", "d9", "e9", "f9")
PERIOD = 0.005


def ref(multiplexer: int, channel: int) -> ChannelRef:
    return ChannelRef(multiplexer, channel)


# Six slots on one 16-channel multiplexer, nothing where the computed map would put it, and c9's two
# contacts crossed (its presence on the higher channel). Channels 12-15 are free.
SCRAMBLED = {
    "a9": SlotWiring(ref(0, 7), ref(0, 2)),
    "b9": SlotWiring(ref(0, 11), ref(0, 0)),
    "c9": SlotWiring(ref(0, 9), ref(0, 4)),
    "d9": SlotWiring(ref(0, 1), ref(0, 10)),
    "e9": SlotWiring(ref(0, 5), ref(0, 8)),
    "f9": SlotWiring(ref(0, 3), ref(0, 6)),
}


Contacts = tuple[ChannelRef | None, ChannelRef | None]
"""A slot's presence and conduction channels (None: the contact reaches no channel)."""


class Bench:
    """A board's contacts as raw levels fed to a learner every 5 ms, with hands to move pawns."""

    def __init__(self, physical: Mapping[str, SlotWiring | Contacts] = SCRAMBLED,
                 *, multiplexers: int = 1, channels: int = 16, active_high: bool = False,
                 progress: Progress | None = None, references: Collection[ChannelRef] = (),
                 tied: Mapping[ChannelRef, bool] | None = None, slots: tuple[str, ...] = SLOTS) -> None:
        self.physical = {slot: (w.presence, w.conduction) if isinstance(w, SlotWiring) else w
                         for slot, w in physical.items()}
        self.count, self.channels, self.active = multiplexers * channels, channels, active_high
        self.learner = WiringLearner(slots, multiplexers=multiplexers, channels=channels,
                                     active_high=active_high, timing=TIMING, references=references,
                                     progress=progress, names={ref(0, 0): "a9 presence"})
        self.now = 0.0
        self.pawns: dict[str, str] = {}
        self.tied = dict(tied or {})
        """Channels tied to a level (True: closed), whatever the pawns."""
        self.noisy: set[ChannelRef] = set()
        self.rng = random.Random(7)
        self.log: list[str] = []

    def levels(self) -> list[bool]:
        closed: set[ChannelRef] = set()
        for slot, kind in self.pawns.items():
            presence, conduction = self.physical[slot]
            closed |= {presence} if presence else set()
            closed |= {conduction} if conduction and kind == "attack" else set()
        closed |= {r for r, on in self.tied.items() if on}
        closed -= {r for r, on in self.tied.items() if not on}
        levels = []
        for index in range(self.count):
            is_closed = ChannelRef(*divmod(index, self.channels)) in closed
            if ChannelRef(*divmod(index, self.channels)) in self.noisy and self.rng.random() < 0.5:
                is_closed = not is_closed
            levels.append(is_closed == self.active)
        return levels

    def run(self, seconds: float = 0.25) -> None:
        for _ in range(round(seconds / PERIOD)):
            self.now += PERIOD
            self.log += [n.message for n in self.learner.feed(self.levels(), self.now)]

    def place(self, slot: str, kind: str = "defense") -> None:
        assert slot not in self.pawns
        self.pawns[slot] = kind
        self.run()

    def lift(self, slot: str) -> None:
        del self.pawns[slot]
        self.run()

    def fill(self, slot: str, *, lift: bool = True) -> None:
        """What the builder is asked for one slot: a defense pawn, then an attack pawn (then lift it)."""
        assert self.learner.slot == slot and self.learner.task is Task.DEFENSE, self.learner.view()
        self.place(slot, "defense")
        assert self.learner.task is Task.ATTACK, self.learner.view()
        self.lift(slot)
        self.place(slot, "attack")
        assert slot in self.learner.progress.learned, self.learner.view()
        if lift:
            self.lift(slot)

    def problem(self) -> Problem:
        problems = self.learner.problems
        assert problems, self.learner.view()
        return problems[0]


def start(bench: Bench) -> Bench:
    bench.run()
    assert bench.learner.task is Task.DEFENSE and bench.learner.slot == SLOTS[0], bench.learner.view()
    return bench


def test_learns_a_scrambled_map_with_a_slot_whose_contacts_are_crossed() -> None:
    bench = start(Bench())
    assert bench.learner.instruction == "Place a defense pawn on a9."
    for slot in SLOTS:
        bench.fill(slot)
    assert bench.learner.task is Task.DONE and bench.learner.is_complete()
    result = bench.learner.result()
    assert result.slots == SCRAMBLED
    assert result.free == (ref(0, 12), ref(0, 13), ref(0, 14), ref(0, 15))
    assert result.closed_on_empty == () and result.bounced == {}
    assert not bench.learner.problems
    assert "a9 presence: multiplexer 0 channel 7" in bench.log
    assert "c9 conduction: multiplexer 0 channel 4" in bench.log


def test_the_next_slot_is_asked_for_as_soon_as_one_is_learned_and_the_pawn_lifted_later() -> None:
    bench = start(Bench())
    bench.fill("a9", lift=False)
    assert bench.learner.slot == "b9" and bench.learner.leftover == "a9"
    assert bench.learner.instruction == "Lift the pawn from a9, then place a defense pawn on b9."
    assert not bench.learner.problems  # only the pawn on a9 stands: waiting for it to be lifted
    bench.lift("a9")
    assert bench.learner.leftover is None and bench.learner.instruction == "Place a defense pawn on b9."


def test_a_pawn_left_on_the_previous_slot() -> None:
    bench = start(Bench())
    bench.fill("a9", lift=False)
    bench.place("b9", "defense")
    problem = bench.problem()
    assert problem.kind is ProblemKind.PAWN_LEFT and problem.others == ("a9",)
    assert problem.message.startswith("The pawn on a9 is still there: lift it")
    assert bench.learner.task is Task.DEFENSE and "b9" not in bench.learner.progress.learned
    bench.lift("a9")
    assert bench.learner.task is Task.ATTACK and bench.learner.presence == SCRAMBLED["b9"].presence
    assert not bench.learner.problems


def test_a_slot_skipped_is_found_at_the_next_slot_and_redone() -> None:
    bench = start(Bench())
    bench.fill("a9")
    # Asked for b9, the builder fills c9: the learner cannot know yet, and learns b9 from c9's contacts.
    bench.place("c9", "defense")
    bench.lift("c9")
    bench.place("c9", "attack")
    bench.lift("c9")
    assert bench.learner.progress.learned["b9"] == SCRAMBLED["c9"]
    # Asked for c9, the pawn closes exactly what was learned for b9.
    bench.place("c9", "defense")
    problem = bench.problem()
    assert problem.kind is ProblemKind.SLOT_SKIPPED and problem.others == ("b9",)
    assert "was b9 skipped?" in problem.message and "redo b9" in problem.message
    bench.learner.redo("b9", bench.now)
    assert bench.learner.slot == "b9" and "b9" not in bench.learner.progress.learned
    bench.run()
    # The pawn still on c9 closed before b9 was asked for again: it cannot be taken for b9's.
    assert bench.problem().kind is ProblemKind.STILL_CLOSED
    bench.lift("c9")
    assert not bench.learner.problems
    bench.fill("b9")
    assert bench.learner.slot == "c9"  # back to the order
    for slot in SLOTS[2:]:
        bench.fill(slot)
    assert bench.learner.result().slots == SCRAMBLED


def test_two_slots_on_one_channel() -> None:
    wired = dict(SCRAMBLED)
    wired["b9"] = SlotWiring(ref(0, 11), SCRAMBLED["a9"].conduction)  # b9's conduction bridged onto a9's
    bench = start(Bench(wired))
    bench.fill("a9")
    bench.place("b9", "defense")
    bench.lift("b9")
    bench.place("b9", "attack")
    problem = bench.problem()
    assert problem.kind is ProblemKind.SHARED_CHANNEL
    assert problem.channels == (ref(0, 2),) and problem.others == ("a9",)
    assert "a9 conduction" in problem.message and "two slots are wired to one channel" in problem.message
    assert "b9" not in bench.learner.progress.learned


def test_a_defense_pawn_on_a_channel_learned_as_another_slots_conduction() -> None:
    wired = dict(SCRAMBLED)
    wired["b9"] = SlotWiring(SCRAMBLED["a9"].conduction, ref(0, 0))
    bench = start(Bench(wired))
    bench.fill("a9")
    bench.place("b9", "defense")
    assert bench.problem().kind is ProblemKind.SHARED_CHANNEL


def test_a_contact_that_never_closes() -> None:
    bench = start(Bench({**SCRAMBLED, "a9": (None, ref(0, 2))}))
    bench.place("a9", "defense")
    assert not bench.learner.problems
    bench.run(TIMING.patience)
    problem = bench.problem()
    assert problem.kind is ProblemKind.NO_CHANGE and problem.slot == "a9"
    assert "presence contact reaches no channel" in problem.message


def test_an_attack_pawn_that_closes_nothing_more_than_a_defense_pawn() -> None:
    bench = start(Bench({**SCRAMBLED, "a9": (ref(0, 7), None)}))
    bench.place("a9", "defense")
    bench.lift("a9")
    bench.place("a9", "attack")
    bench.run(TIMING.patience)
    problem = bench.problem()
    assert problem.kind is ProblemKind.NO_CHANGE
    assert "conduction contact reaches no channel" in problem.message


def test_the_no_change_hint_goes_once_a_channel_closes() -> None:
    bench = start(Bench())
    bench.run(TIMING.patience + 0.1)
    assert bench.problem().kind is ProblemKind.NO_CHANGE
    bench.place("a9", "defense")
    assert bench.learner.task is Task.ATTACK and not bench.learner.problems


def test_an_attack_pawn_where_a_defense_pawn_was_asked_for() -> None:
    bench = start(Bench())
    bench.place("a9", "attack")
    problem = bench.problem()
    assert problem.kind is ProblemKind.TOO_MANY and "Is it an attack pawn?" in problem.message
    assert set(problem.channels) == {SCRAMBLED["a9"].presence, SCRAMBLED["a9"].conduction}
    bench.lift("a9")
    bench.fill("a9")


def test_two_pawns_at_once() -> None:
    bench = start(Bench())
    bench.pawns.update({"a9": "defense", "d9": "attack"})
    bench.run()
    problem = bench.problem()
    assert problem.kind is ProblemKind.TOO_MANY and "second pawn" in problem.message


def test_an_attack_pawn_that_does_not_close_the_presence_learned_for_its_slot() -> None:
    bench = start(Bench())
    bench.place("a9", "defense")
    bench.lift("a9")
    bench.place("e9", "attack")  # on the wrong slot
    problem = bench.problem()
    assert problem.kind is ProblemKind.PRESENCE_OPEN and problem.others == ("a9",)
    assert "not a9's presence channel (multiplexer 0 channel 7" in problem.message


def test_a_pawn_on_an_already_learned_slot_at_the_attack_step() -> None:
    bench = start(Bench())
    bench.fill("a9")
    bench.place("b9", "defense")
    bench.lift("b9")
    bench.place("a9", "attack")
    problem = bench.problem()
    assert problem.kind is ProblemKind.SLOT_SKIPPED and problem.others == ("a9",)


def test_pawns_on_two_learned_slots() -> None:
    bench = start(Bench())
    bench.fill("a9")
    bench.fill("b9")
    bench.pawns.update({"a9": "attack", "b9": "defense"})
    bench.run()
    problem = bench.problem()
    assert problem.kind is ProblemKind.PAWN_LEFT and problem.others == ("a9", "b9")


def test_a_bouncing_contact_is_reported_and_remembered() -> None:
    bench = start(Bench())
    bench.noisy.add(SCRAMBLED["a9"].presence)  # type: ignore[arg-type]
    bench.pawns["a9"] = "defense"
    bench.run(0.3)
    bouncing = [p for p in bench.learner.problems if p.kind is ProblemKind.BOUNCING]
    assert bouncing and bouncing[0].channels == (SCRAMBLED["a9"].presence,)
    assert "(the slot you are filling, a9) bounces" in bouncing[0].message and bouncing[0].count > 4
    bench.noisy.clear()
    bench.run(TIMING.bounce_window + 0.1)
    assert not [p for p in bench.learner.problems if p.kind is ProblemKind.BOUNCING]
    assert bench.learner.task is Task.ATTACK  # it settled: learned, and remembered as bouncy
    bench.lift("a9")
    bench.place("a9", "attack")
    bench.lift("a9")
    for slot in SLOTS[1:]:
        bench.fill(slot)
    result = bench.learner.result()
    assert result.slots == SCRAMBLED
    assert [s.value for s in result.bounced["a9"]] == ["presence"]


def test_channels_closed_on_the_empty_board_are_reported_and_may_be_left_out() -> None:
    stuck = ref(0, 14)
    bench = Bench(tied={stuck: True, ref(0, 0): True})
    bench.run()
    problem = bench.problem()
    assert bench.learner.task is Task.CLEAR and problem.kind is ProblemKind.CLOSED_ON_EMPTY
    assert problem.channels == (ref(0, 0), stuck)
    assert "multiplexer 0 channel 0 (a9 presence in the current map)" in problem.message
    del bench.tied[ref(0, 0)]  # it was a pawn: lifted
    bench.run()
    assert bench.problem().channels == (stuck,)
    assert bench.learner.accept_closed(bench.now) == [stuck]
    bench.run()
    assert bench.learner.task is Task.DEFENSE and not bench.learner.problems
    for slot in SLOTS:
        bench.fill(slot)
    result = bench.learner.result()
    assert result.closed_on_empty == (stuck,) and stuck not in result.free


def test_accept_closed_is_refused_when_there_is_nothing_to_leave_out_or_the_board_is_being_learned() -> None:
    bench = Bench(tied={ref(0, 14): True})
    with pytest.raises(ValueError, match="nothing to leave out"):
        bench.learner.accept_closed(0.0)
    bench = start(Bench())
    with pytest.raises(ValueError, match="only while the board is being cleared"):
        bench.learner.accept_closed(bench.now)


def test_reference_channels_are_never_judged() -> None:
    reference = ref(0, 15)
    bench = start(Bench(tied={reference: True}, references=[reference]))
    for slot in SLOTS:
        bench.fill(slot)
    assert reference not in bench.learner.result().free


def test_a_board_whose_contacts_read_high() -> None:
    bench = start(Bench(active_high=True))
    for slot in SLOTS:
        bench.fill(slot)
    assert bench.learner.result().slots == SCRAMBLED


def test_resumes_from_its_saved_progress_after_clearing_the_board() -> None:
    bench = start(Bench())
    bench.fill("a9")
    bench.fill("b9", lift=False)
    saved = bench.learner.progress.to_json()
    resumed = Bench(progress=Progress.from_json(saved))
    resumed.pawns = {"b9": "attack"}  # the pawn left standing when the session stopped
    resumed.run()
    assert resumed.learner.task is Task.CLEAR and resumed.problem().kind is ProblemKind.CLOSED_ON_EMPTY
    resumed.lift("b9")
    assert resumed.learner.task is Task.DEFENSE and resumed.learner.slot == "c9"
    for slot in SLOTS[2:]:
        resumed.fill(slot)
    assert resumed.learner.result().slots == SCRAMBLED


def test_redo_during_clearing_and_once_done() -> None:
    bench = start(Bench())
    for slot in SLOTS:
        bench.fill(slot)
    bench.learner.redo("d9", bench.now)
    assert bench.learner.task is Task.DEFENSE and bench.learner.slot == "d9"
    with pytest.raises(ValueError, match="no slot 'z1'"):
        bench.learner.redo("z1", bench.now)
    resumed = Bench(progress=Progress.from_json(bench.learner.progress.to_json()))
    resumed.learner.redo("a9", 0.0)
    resumed.run()
    assert resumed.learner.slot == "a9"  # the last asked for comes first
    resumed.fill("a9")
    assert resumed.learner.slot == "d9"
    resumed.fill("d9")
    assert resumed.learner.task is Task.DONE and resumed.learner.result().slots == SCRAMBLED


def test_the_result_names_the_slots_still_to_learn() -> None:
    bench = start(Bench())
    bench.fill("a9")
    with pytest.raises(ValueError, match="5 slot\\(s\\) still to learn: b9, c9, d9, e9, f9"):
        bench.learner.result()


def test_the_view_is_what_the_page_draws() -> None:
    bench = start(Bench())
    bench.fill("a9", lift=False)
    view = bench.learner.view()
    assert view["task"] == "defense" and view["slot"] == "b9" and view["leftover"] == "a9"
    assert view["learned"] == {"a9": {"presence": [0, 7], "conduction": [0, 2]}}
    assert view["closed"] == [[0, 2], [0, 7]] and view["count"] == 1 and view["total"] == 6
    assert view["complete"] is False and view["problems"] == []


def test_saved_progress_must_fit_the_board_and_the_layout() -> None:
    progress = Progress(multiplexers=2, channels=16)
    with pytest.raises(ValueError, match="2 multiplexers × 16 channels, the board now has 1 × 16"):
        Bench(progress=progress)
    progress = Progress(1, 16, learned={"z1": SlotWiring(ref(0, 0), ref(0, 1))})
    with pytest.raises(ValueError, match="slots this layout does not have \\(z1\\)"):
        Bench(progress=progress)
    with pytest.raises(ValueError, match="not a wiring wizard's progress"):
        Progress.from_json({"multiplexers": 1})
    with pytest.raises(ValueError, match="not a wiring wizard's progress"):
        Progress.from_json({**progress.to_json(), "seen": [[0]]})


def test_the_scanner_must_give_every_channel() -> None:
    with pytest.raises(ValueError, match="must read every channel"):
        Bench().learner.feed([True] * 8, 0.0)


def test_for_board_names_the_channels_of_the_current_map() -> None:
    settings = HardwareSettings()
    from games.hautetension.layout import load_layout

    layout = load_layout()
    learner = WiringLearner.for_board(settings, layout.slots, settings.slot_map(layout))
    assert learner.multiplexers == 10 and learner.channels == 16 and learner.active is False
    assert learner.names[ref(0, 0)] == "a9 presence" and learner.names[ref(9, 15)] == "i1 conduction"


@settings(max_examples=15, deadline=None)
@given(st.randoms(use_true_random=False), st.integers(min_value=1, max_value=2))
def test_any_permutation_of_the_channels_is_learned(rng: random.Random, multiplexers: int) -> None:
    slots = SLOTS[: 3 + 3 * (multiplexers - 1)]
    channels = [ref(m, c) for m in range(multiplexers) for c in range(8)]
    rng.shuffle(channels)
    physical = {slot: SlotWiring(channels[2 * i], channels[2 * i + 1]) for i, slot in enumerate(slots)}
    bench = Bench(physical, multiplexers=multiplexers, channels=8, slots=slots)
    bench.run()
    for slot in slots:
        bench.fill(slot)
    result = bench.learner.result()
    assert result.slots == physical
    assert set(result.free) == set(channels[2 * len(slots):])
