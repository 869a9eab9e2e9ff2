"""The wiring wizard's logic: learning which channels a board's slots are wired to.

A board builder whose wiring differs from the computed map would write 80
per-slot overrides by hand. :class:`WiringLearner` learns them instead, from
nothing but the scanner's raw levels (every channel of every multiplexer, one
list per scan, index ``multiplexer * channels + channel``):

1. **Clear the board.** No channel may read closed (the active level) except
   the declared reference channels. One that stays closed is a pawn left on
   the board, a contact stuck closed, or a spare channel tied to the active
   level; the builder may leave such channels out (:meth:`~WiringLearner.accept_closed`).
2. **For each slot in reading order, a defense pawn, then an attack pawn.** A
   defense pawn closes only the presence contact: the one channel that closes
   is the slot's presence channel. An attack pawn closes both: the one channel
   that closes besides the presence channel is the conduction channel. So the
   two are told apart whatever the wiring, a slot's contacts crossed included.
   The pawn is then lifted and the next slot's task begins.

Only a settled state counts: each channel is debounced as the board monitor
debounces a slot (``[hardware.debounce]``), and the set of closed channels must
then stay the same for :attr:`LearnTiming.hold` before it is judged, so a pawn
pushed in at an angle (conduction closing before presence) is never misread.
A channel can only be learned if it closed after the current task began:
a pawn that was already standing cannot be mistaken for the one asked for.

What the builder can get wrong, and what the learner says (:class:`ProblemKind`):
a pawn left on the previous slot; a slot skipped (a pawn closes exactly the
channels already learned for another slot: it stands on that slot, or that
slot was learned from this one's contacts); two slots on one channel (a
pawn closes a channel learned for another slot, with others); a channel that
never changes (nothing closes for :attr:`LearnTiming.patience`: a broken
contact or wire); more channels than the pawn closes (an attack pawn where a
defense pawn was asked, a second pawn, a short); an attack pawn that does not
close the presence contact learned for its slot; a bouncing contact; channels
closed on the empty board. Any learned slot can be learned again
(:meth:`~WiringLearner.redo`).

The learner keeps its progress in a :class:`Progress` (learned slots, the
channels left out, the channels that ever closed, the worst bounce of each)
that the caller stores durably and gives back to resume after an interruption;
every resumption starts with a cleared board. It does no I/O and reads no
clock: the caller feeds it the levels and the time.
"""

from __future__ import annotations

import enum
from collections import deque
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from hardware.monitor import Debounced
from hardware.settings import ChannelRef, DebounceSettings, HardwareSettings, Signal, SlotWiring


class Task(enum.Enum):
    """What the builder is asked to do."""

    CLEAR = "clear"
    """Lift every pawn: the learner checks that no channel reads closed."""
    DEFENSE = "defense"
    """Place a defense pawn on the slot: its presence channel closes."""
    ATTACK = "attack"
    """Replace it with an attack pawn: its conduction channel closes too."""
    DONE = "done"
    """Every slot is learned."""


class ProblemKind(enum.StrEnum):
    """Every mistake or fault the learner explains (the page translates them by kind)."""

    CLOSED_ON_EMPTY = "closed-on-empty-board"
    PAWN_LEFT = "pawn-left"
    STILL_CLOSED = "still-closed"
    SLOT_SKIPPED = "slot-skipped"
    SHARED_CHANNEL = "shared-channel"
    NO_CHANGE = "no-change"
    TOO_MANY = "too-many-channels"
    PRESENCE_OPEN = "presence-open"
    BOUNCING = "bouncing"


@dataclass(frozen=True)
class LearnTiming:
    """How long the learner waits before it judges, and what counts as bouncing."""

    hold: float = 0.5
    """The closed channels must stay the same this long (after their debounce) to be judged."""
    patience: float = 30.0
    """Nothing closing this long after a task began is reported (a contact that never closes)."""
    bounce_window: float = 1.0
    bounce_limit: int = 6
    """More raw changes than this on one channel within :attr:`bounce_window` is a bouncing contact."""


@dataclass(frozen=True)
class Problem:
    """Something the builder must look at, in words, with what it is about."""

    kind: ProblemKind
    message: str
    slot: str | None = None
    """The slot being learned when the problem was seen."""
    channels: tuple[ChannelRef, ...] = ()
    others: tuple[str, ...] = ()
    """Other slots involved (the slot a pawn really stands on, the slot to redo)."""
    count: int = 0
    """How many (raw changes of a bouncing contact, seconds without a change)."""

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind.value, "message": self.message, "slot": self.slot,
                "channels": [[c.multiplexer, c.channel] for c in self.channels],
                "others": list(self.others), "count": self.count}


@dataclass(frozen=True)
class Notice:
    """One line of the wizard's log: a channel learned, a slot done, a problem seen."""

    kind: str
    """``learned``, ``slot``, ``problem``, ``task``, ``redo``, ``accepted``, ``done``."""
    message: str


@dataclass
class Progress:
    """What survives an interruption; JSON-able through :meth:`to_json` / :meth:`from_json`."""

    multiplexers: int
    channels: int
    learned: dict[str, SlotWiring] = field(default_factory=dict)
    ignored: set[ChannelRef] = field(default_factory=set)
    """Channels closed on the empty board that the builder chose to leave out."""
    seen: set[ChannelRef] = field(default_factory=set)
    """Channels that closed at least once (the others are free for reference channels)."""
    bounces: dict[ChannelRef, int] = field(default_factory=dict)
    """The most raw changes seen within one bounce window, per channel that bounced."""
    redo: str | None = None
    """A slot the builder asked to learn again, before the next slot in order."""

    def to_json(self) -> dict[str, Any]:
        return {
            "multiplexers": self.multiplexers,
            "channels": self.channels,
            "learned": {slot: {"presence": _pair(w.presence), "conduction": _pair(w.conduction)}
                        for slot, w in self.learned.items()},
            "ignored": sorted(_pair(c) for c in self.ignored),
            "seen": sorted(_pair(c) for c in self.seen),
            "bounces": [[*_pair(c), n] for c, n in sorted(self.bounces.items())],
            "redo": self.redo,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Progress:
        """The progress :meth:`to_json` wrote; ``ValueError`` if *data* is not that."""
        try:
            return cls(
                multiplexers=int(data["multiplexers"]),
                channels=int(data["channels"]),
                learned={str(slot): SlotWiring(_ref(w["presence"]), _ref(w["conduction"]))
                         for slot, w in data["learned"].items()},
                ignored={_ref(c) for c in data["ignored"]},
                seen={_ref(c) for c in data["seen"]},
                bounces={ChannelRef(int(m), int(c)): int(n) for m, c, n in data["bounces"]},
                redo=None if data.get("redo") is None else str(data["redo"]),
            )
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise ValueError(f"not a wiring wizard's progress ({type(exc).__name__}: {exc})") from None


def _pair(ref: ChannelRef | None) -> list[int]:
    assert ref is not None, "a learned slot has both channels"
    return [ref.multiplexer, ref.channel]


def _ref(value: Any) -> ChannelRef:
    multiplexer, channel = value
    return ChannelRef(int(multiplexer), int(channel))


@dataclass(frozen=True)
class LearnedWiring:
    """The result: every slot's two channels, and what the builder should know about the rest."""

    slots: dict[str, SlotWiring]
    free: tuple[ChannelRef, ...]
    """Channels that never closed and are not references: candidates for reference channels."""
    closed_on_empty: tuple[ChannelRef, ...]
    """Channels left out because they read closed on the empty board (tied to the active level?)."""
    bounced: dict[str, tuple[Signal, ...]]
    """Slots whose contact bounced while it was learned (worth cleaning)."""


def describe(ref: ChannelRef) -> str:
    return f"multiplexer {ref.multiplexer} channel {ref.channel}"


class WiringLearner:
    """Learns the slot map from raw channel levels; see the module docstring.

    *slots* are learned in that order (the layout's reading order). *names*
    says what the current configuration wires to a channel (``"a9 presence"``),
    only for the messages. *references* are never judged: they are tied to a
    level on purpose. *progress* resumes an interrupted session.
    """

    def __init__(
        self,
        slots: Sequence[str],
        *,
        multiplexers: int,
        channels: int,
        active_high: bool,
        debounce: DebounceSettings | None = None,
        timing: LearnTiming | None = None,
        references: Collection[ChannelRef] = (),
        names: Mapping[ChannelRef, str] | None = None,
        progress: Progress | None = None,
    ) -> None:
        self.slots = tuple(slots)
        self.multiplexers = multiplexers
        self.channels = channels
        self.active = active_high
        self.rule = debounce or DebounceSettings()
        self.timing = timing or LearnTiming()
        self.references = frozenset(references)
        self.names = dict(names or {})
        if progress is not None and (progress.multiplexers, progress.channels) != (multiplexers, channels):
            raise ValueError(
                f"the saved progress is for {progress.multiplexers} multiplexers × {progress.channels} "
                f"channels, the board now has {multiplexers} × {channels}: start the wizard over")
        unknown = sorted(set(progress.learned) - set(self.slots)) if progress else []
        if unknown:
            raise ValueError(f"the saved progress has slots this layout does not have ({', '.join(unknown)}):"
                             " start the wizard over")
        self.progress = progress or Progress(multiplexers, channels)
        self._owner: dict[ChannelRef, tuple[str, Signal]] = {}
        for slot, wiring in self.progress.learned.items():
            self._own(slot, wiring)
        count = multiplexers * channels
        self._refs = [ChannelRef(*divmod(i, channels)) for i in range(count)]
        self._settled = [Debounced(int(not active_high)) for _ in range(count)]
        self._raw: list[bool] = [not active_high] * count
        self._busy: set[int] = set()
        self._changes: dict[int, deque[float]] = {}
        self.closed: frozenset[ChannelRef] = frozenset()
        """The channels that read closed now (settled), references left out."""
        self._closed_at: dict[ChannelRef, float] = {}
        self._changed_at: float | None = None
        self._judged: frozenset[ChannelRef] | None = None
        self.task = Task.CLEAR
        self.slot: str | None = None
        self.presence: ChannelRef | None = None
        """The presence channel just learned for :attr:`slot` (the attack pawn's task)."""
        self.leftover: str | None = None
        """The slot whose pawn the builder should lift (the slot learned just before)."""
        self._task_since: float | None = None
        self._problem: Problem | None = None
        self._waiting: Problem | None = None
        self._bouncing: dict[ChannelRef, int] = {}
        self._notices: list[Notice] = []

    @classmethod
    def for_board(cls, settings: HardwareSettings, slots: Sequence[str], current: Mapping[str, SlotWiring], *,
                  timing: LearnTiming | None = None, progress: Progress | None = None) -> WiringLearner:
        """A learner for the board *settings* describe; *current* is its configured map (for messages)."""
        names = {ref: f"{slot} {signal.value}" for slot, w in current.items() for signal in Signal
                 if (ref := w.channel_of(signal)) is not None}
        return cls(slots, multiplexers=settings.multiplexers, channels=settings.channels_per_multiplexer,
                   active_high=settings.active_high, debounce=settings.debounce, timing=timing,
                   references=[r.ref for r in settings.references], names=names, progress=progress)

    # ------------------------------------------------------------------ feeding

    def feed(self, levels: Sequence[bool], now: float) -> list[Notice]:
        """One scan's raw levels (True = high) at time *now*; the notices it gave."""
        if len(levels) < len(self._raw):
            raise ValueError(f"{len(levels)} levels for {len(self._raw)} channels: "
                             "the scanner must read every channel")
        if self._task_since is None:
            self._task_since = now
        raw = self._raw
        if list(levels[:len(raw)]) != raw:  # one compare skips the channels on a quiet board
            for index, level in enumerate(levels[:len(raw)]):
                if level != raw[index]:
                    raw[index] = bool(level)
                    self._busy.add(index)
                    self._changes.setdefault(index, deque()).append(now)
        settled = False
        for index in sorted(self._busy):
            debounced = self._settled[index]
            if debounced.update(int(raw[index]), now, self.rule):
                settled = True
                self._channel_settled(self._refs[index], bool(debounced.stable) == self.active, now)
            if raw[index] == bool(debounced.stable):
                self._busy.discard(index)
        if settled:
            self.closed = frozenset(self._closed_at)
            self._changed_at = now
        self._check_bounce(now)
        if self._changed_at is None:
            self._changed_at = now
        if now - self._changed_at >= self.timing.hold and self.closed != self._judged:
            self._judged = self.closed
            self._judge(now)
        self._check_patience(now)
        notices, self._notices = self._notices, []
        return notices

    def _channel_settled(self, ref: ChannelRef, closed: bool, now: float) -> None:
        if ref in self.references:
            return
        if closed:
            self._closed_at[ref] = now
            self.progress.seen.add(ref)
        else:
            self._closed_at.pop(ref, None)

    def _check_bounce(self, now: float) -> None:
        window, limit = self.timing.bounce_window, self.timing.bounce_limit
        bouncing: dict[ChannelRef, int] = {}
        for index, times in list(self._changes.items()):
            while times and now - times[0] > window:
                times.popleft()
            if not times:
                del self._changes[index]
                continue
            ref = self._refs[index]
            if len(times) > limit and ref not in self.references:
                bouncing[ref] = len(times)
                self.progress.bounces[ref] = max(len(times), self.progress.bounces.get(ref, 0))
        if bouncing.keys() != self._bouncing.keys():
            for ref in bouncing.keys() - self._bouncing.keys():
                self._note("problem", self._bounce_problem(ref, bouncing[ref]).message)
        self._bouncing = bouncing

    def _check_patience(self, now: float) -> None:
        if self._task_since is None or self.task in (Task.CLEAR, Task.DONE):
            return
        if not self._is_waiting_state():
            self._waiting = None
            return
        waited = now - self._task_since
        if self._waiting is not None or waited < self.timing.patience:
            return
        slot = self.slot
        if self.task is Task.DEFENSE:
            message = (f"Nothing has closed for {waited:.0f} s. Is the defense pawn on {slot}? If it is, "
                       f"{slot}'s presence contact reaches no channel: check its contact and its wire "
                       "to the multiplexer (a broken wire, a dry joint, a channel that never changes).")
        else:
            message = (f"The pawn on {slot} has closed nothing more than a defense pawn for {waited:.0f} s. "
                       f"Is it an attack pawn? If it is, {slot}'s conduction contact reaches no channel: "
                       "check its contact and its wire (or a bridge onto the presence channel).")
        self._waiting = Problem(ProblemKind.NO_CHANGE, message, slot, count=round(waited))
        self._note("problem", message)

    def _is_waiting_state(self) -> bool:
        """Whether the board reads as it did when the task began (nothing new closed)."""
        since = self._task_since
        return not any(since is not None and at >= since and ref not in self.progress.ignored
                       and ref != self.presence for ref, at in self._closed_at.items())

    # ------------------------------------------------------------------ judging

    def _judge(self, now: float) -> None:
        closed = self.closed - self.progress.ignored
        if self.task is Task.CLEAR:
            self._judge_clear(closed, now)
            return
        if self.task is Task.DONE:
            if self.leftover and not closed & self._channels_of(self.leftover):
                self.leftover = None
            self._problem = None
            return
        if self.leftover is not None:
            left = closed & self._channels_of(self.leftover)
            if not left:
                self.leftover = None
            elif closed <= self._channels_of(self.leftover):
                self._problem = None  # waiting for the builder to lift it
                return
            else:
                self._set_problem(Problem(
                    ProblemKind.PAWN_LEFT,
                    f"The pawn on {self.leftover} is still there: lift it, then {self._asked()}.",
                    self.slot, tuple(sorted(left)), (self.leftover,)))
                return
        expected = {self.presence} if self.presence is not None else set()
        owned = {ref: self._owner[ref] for ref in closed - expected if ref in self._owner}
        if owned:
            self._judge_owned(closed - expected, owned, with_presence=bool(expected & closed))
            return
        new = closed - expected
        stale = sorted(ref for ref in new if self._closed_at.get(ref, now) < (self._task_since or now))
        if stale:
            self._set_problem(Problem(
                ProblemKind.STILL_CLOSED,
                f"{_channels(stale, self.names)} closed before you were asked to {self._asked()}: "
                "a pawn still stands somewhere. Lift it first.",
                self.slot, tuple(stale)))
            return
        if self.task is Task.DEFENSE:
            self._judge_defense(sorted(new), now)
        else:
            self._judge_attack(closed, sorted(new), now)

    def _judge_clear(self, closed: frozenset[ChannelRef], now: float) -> None:
        if not closed:
            self._problem = None
            self._note("task", "The board is empty.")
            self._next_slot(now)
            return
        self._set_problem(Problem(
            ProblemKind.CLOSED_ON_EMPTY,
            f"{_channels(sorted(closed), self.names)} {'reads' if len(closed) == 1 else 'read'} closed on a "
            "board that should be empty: lift any pawn still standing. A channel that stays closed is a "
            "contact stuck closed, or a spare channel tied to the active level: fix it, or leave it out.",
            None, tuple(sorted(closed))))

    def _judge_owned(self, closed: frozenset[ChannelRef] | set[ChannelRef],
                     owned: Mapping[ChannelRef, tuple[str, Signal]], *, with_presence: bool) -> None:
        """Closed channels already learned for other slots: a pawn on them, or two slots on one channel."""
        slot = self.slot
        others = tuple(sorted({owner for owner, _ in owned.values()}, key=self.slots.index))
        unowned = [ref for ref in closed if ref not in owned]
        # Exactly other slots' pawns (presence, and conduction or not), nothing else: they stand there.
        # With this slot's presence closed too, it is this pawn's conduction that closed them.
        pawns = not with_presence and all(self.progress.learned[o].presence in closed for o in others)
        if not unowned and pawns and len(others) > 1:
            self._set_problem(Problem(
                ProblemKind.PAWN_LEFT,
                f"Pawns stand on {', '.join(others)} (their channels are closed): lift them, "
                f"then {self._asked()}.",
                slot, tuple(sorted(closed)), others))
            return
        if not unowned and pawns:
            other = others[0]
            self._set_problem(Problem(
                ProblemKind.SLOT_SKIPPED,
                f"The pawn closed the channels learned for {other}. If it stands on {other}, move it to "
                f"{slot}. If it does stand on {slot}, {other} was learned from {slot}'s contacts (was "
                f"{other} skipped?): redo {other}. If neither, {slot} and {other} are wired to the same "
                "channels: check their wires.",
                slot, tuple(sorted(closed)), others))
            return
        taken = sorted(owned)
        what = ", ".join(f"{describe(ref)} ({owned[ref][0]} {owned[ref][1].value})" for ref in taken)
        self._set_problem(Problem(
            ProblemKind.SHARED_CHANNEL,
            f"The pawn on {slot} closed {what}, already learned for {', '.join(others)}. If a pawn stands "
            f"there too, lift it. If not, two slots are wired to one channel (a solder bridge, or a wire on "
            f"the wrong pin): check the wires of {slot} and {', '.join(others)}, then redo "
            f"{', '.join(others)}.",
            slot, tuple(taken), others))

    def _judge_defense(self, new: list[ChannelRef], now: float) -> None:
        slot = self.slot
        assert slot is not None
        if not new:
            self._problem = None
            return
        if len(new) == 1:
            self.presence = new[0]
            self._note("learned", f"{slot} presence: {describe(new[0])}{self._was(new[0])}")
            self._start(Task.ATTACK, now)
            return
        reason = ("Is it an attack pawn? Put a defense pawn there: it closes the presence contact only."
                  if len(new) == 2
                  else "One pawn closes one or two: is a second pawn on the board, or a short?")
        self._set_problem(Problem(
            ProblemKind.TOO_MANY,
            f"{len(new)} channels closed at once ({_channels(new, self.names)}). {reason}",
            slot, tuple(new)))

    def _judge_attack(self, closed: frozenset[ChannelRef], new: list[ChannelRef], now: float) -> None:
        slot, presence = self.slot, self.presence
        assert slot is not None and presence is not None
        if presence not in closed:
            if not new:
                self._problem = None  # the defense pawn is out, the attack pawn not in yet
                return
            self._set_problem(Problem(
                ProblemKind.PRESENCE_OPEN,
                f"{_channels(new, self.names)} closed, but not {slot}'s presence channel "
                f"({describe(presence)}, learned with the defense pawn). Is the attack pawn on {slot}? "
                "If it is, its presence contact does not close with an attack pawn: check the contact, "
                f"then redo {slot}.",
                slot, tuple(new), (slot,)))
            return
        if not new:
            self._problem = None
            return
        if len(new) > 1:
            self._set_problem(Problem(
                ProblemKind.TOO_MANY,
                f"{len(new)} more channels closed with the attack pawn ({_channels(new, self.names)}); "
                "it closes one: is a second pawn on the board, or a short?",
                slot, tuple(new)))
            return
        wiring = SlotWiring(presence=presence, conduction=new[0])
        self.progress.learned[slot] = wiring
        self._own(slot, wiring)
        if self.progress.redo == slot:
            self.progress.redo = None
        self._note("learned", f"{slot} conduction: {describe(new[0])}{self._was(new[0])}")
        self._note("slot", f"{slot} learned ({len(self.progress.learned)}/{len(self.slots)})")
        self.leftover = slot
        self._next_slot(now)

    # ------------------------------------------------------------------ tasks

    def _next_slot(self, now: float) -> None:
        self.presence = None
        redo = self.progress.redo
        todo = [s for s in self.slots if s not in self.progress.learned]
        if redo is not None and redo in todo:
            todo.remove(redo)
            todo.insert(0, redo)
        if not todo:
            self.slot = None
            self._start(Task.DONE, now)
            self._note("done", f"Every slot is learned ({len(self.slots)}).")
            return
        self.slot = todo[0]
        self._start(Task.DEFENSE, now)

    def _start(self, task: Task, now: float) -> None:
        self.task = task
        self._task_since = now
        self._problem = self._waiting = None
        # The new task looks at the same board with new eyes.
        self._judged = None
        if task is not Task.DONE:
            self._note("task", self.instruction)

    def redo(self, slot: str, now: float) -> None:
        """Forget what was learned for *slot* and learn it next (``ValueError`` for an unknown slot)."""
        if slot not in self.slots:
            raise ValueError(f"there is no slot {slot!r} to redo")
        for ref in self._channels_of(slot):
            self._owner.pop(ref, None)
        self.progress.learned.pop(slot, None)
        self.progress.redo = slot
        if self.leftover == slot:
            self.leftover = None
        self._note("redo", f"{slot} will be learned again")
        if self.task is not Task.CLEAR:
            self._next_slot(now)

    def accept_closed(self, now: float) -> list[ChannelRef]:
        """Leave out the channels that read closed on the empty board (only while clearing the board)."""
        if self.task is not Task.CLEAR:
            raise ValueError("channels can be left out only while the board is being cleared")
        accepted = sorted(self.closed - self.progress.ignored)
        if not accepted:
            raise ValueError("no channel reads closed: there is nothing to leave out")
        self.progress.ignored.update(accepted)
        self._note("accepted", f"left out: {_channels(accepted, self.names)}")
        self._judged = None
        return accepted

    # ------------------------------------------------------------------ what the builder sees

    @property
    def instruction(self) -> str:
        if self.task is Task.CLEAR:
            return "Clear the board: lift every pawn."
        if self.task is Task.DONE:
            if self.leftover:
                return f"Every slot is learned. Lift the pawn from {self.leftover}."
            return "Every slot is learned."
        asked = self._asked()
        if self.leftover:
            return f"Lift the pawn from {self.leftover}, then {asked}."
        return asked[0].upper() + asked[1:] + "."

    def _asked(self) -> str:
        if self.task is Task.ATTACK:
            return f"replace the defense pawn on {self.slot} with an attack pawn"
        if self.task is Task.CLEAR:
            return "clear the board"
        return f"place a defense pawn on {self.slot}"

    @property
    def problems(self) -> list[Problem]:
        problems = [p for p in (self._problem, self._waiting) if p is not None]
        problems += [self._bounce_problem(ref, n) for ref, n in sorted(self._bouncing.items())]
        return problems

    def _bounce_problem(self, ref: ChannelRef, count: int) -> Problem:
        owner = self._owner.get(ref)
        what = (f" ({owner[0]} {owner[1].value})" if owner
                else f" (the slot you are filling, {self.slot})" if self.slot else self._was(ref))
        return Problem(
            ProblemKind.BOUNCING,
            f"{describe(ref)}{what} bounces: {count} changes within {self.timing.bounce_window:g} s. "
            "The contact is loose or dirty: clean or bend it, and redo its slot if it was learned "
            "while bouncing.",
            self.slot, (ref,), (owner[0],) if owner else (), count)

    def is_complete(self) -> bool:
        return len(self.progress.learned) == len(self.slots)

    def view(self) -> dict[str, Any]:
        """The wizard as a person sees it (JSON-able): the task, the problems, what is learned."""
        return {
            "task": self.task.value,
            "slot": self.slot,
            "leftover": self.leftover,
            "instruction": self.instruction,
            "presence": None if self.presence is None else _pair(self.presence),
            "problems": [p.to_dict() for p in self.problems],
            "learned": self.progress.to_json()["learned"],
            "redo": self.progress.redo,
            "closed": sorted(_pair(c) for c in self.closed),
            "ignored": sorted(_pair(c) for c in self.progress.ignored),
            "count": len(self.progress.learned),
            "total": len(self.slots),
            "complete": self.is_complete(),
        }

    def result(self) -> LearnedWiring:
        """The learned map; ``ValueError`` naming the slots still to learn if it is not complete."""
        missing = [s for s in self.slots if s not in self.progress.learned]
        if missing:
            shown = ", ".join(missing[:8]) + (f" and {len(missing) - 8} more" if len(missing) > 8 else "")
            raise ValueError(f"{len(missing)} slot(s) still to learn: {shown}")
        used = set(self._owner) | self.references | self.progress.ignored
        free = tuple(ref for ref in self._refs if ref not in used and ref not in self.progress.seen)
        limit = self.timing.bounce_limit
        bounced: dict[str, tuple[Signal, ...]] = {}
        for slot, wiring in self.progress.learned.items():
            signals = tuple(s for s in Signal if (ref := wiring.channel_of(s)) is not None
                            and self.progress.bounces.get(ref, 0) > limit)
            if signals:
                bounced[slot] = signals
        return LearnedWiring(
            slots={slot: self.progress.learned[slot] for slot in self.slots},
            free=free,
            closed_on_empty=tuple(sorted(self.progress.ignored)),
            bounced=bounced,
        )

    # ------------------------------------------------------------------ helpers

    def _own(self, slot: str, wiring: SlotWiring) -> None:
        for signal in Signal:
            ref = wiring.channel_of(signal)
            if ref is not None:
                self._owner[ref] = (slot, signal)

    def _channels_of(self, slot: str) -> frozenset[ChannelRef]:
        wiring = self.progress.learned.get(slot)
        if wiring is None:
            return frozenset()
        return frozenset(ref for ref in (wiring.presence, wiring.conduction) if ref is not None)

    def _set_problem(self, problem: Problem) -> None:
        if problem != self._problem:
            self._note("problem", problem.message)
        self._problem = problem

    def _note(self, kind: str, message: str) -> None:
        self._notices.append(Notice(kind, message))

    def _was(self, ref: ChannelRef) -> str:
        name = self.names.get(ref)
        return f" (the current map has {name} there)" if name else ""


def _channels(refs: Iterable[ChannelRef], names: Mapping[ChannelRef, str]) -> str:
    parts = [describe(ref) + (f" ({names[ref]} in the current map)" if ref in names else "") for ref in refs]
    return ", ".join(parts)
