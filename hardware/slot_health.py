"""Slot health across games: each slot, the lamps and the scan watched, before a player meets a fault.

The self-test finds faults on one board when staff ask; at an event nobody asks
each board every hour. :class:`SlotHealth` watches what the scanner already
sees, game after game, the way a pinball machine's switch auditor flags a
switch never triggered in N games:

- a slot whose presence contact has not closed in :data:`GAMES_NO_PRESENCE`
  games (a bent or dirty contact: pawns are placed, the board sees none);
- a slot that held pawns in at least :data:`PRESENCE_GAMES` of the games since
  its conduction contact last closed, :data:`GAMES_NO_CONDUCTION` games or
  more ago (a weak conduction contact reads every attack pawn as a defense
  pawn: the game goes wrong without anyone seeing why);
- a slot whose contacts bounce: more than :data:`BOUNCES_PER_MOVE` raw changes
  per pawn move beyond the clean ones (presence, then conduction), averaged
  over its last :data:`RECENT_MOVES` moves at least :data:`MIN_MOVES` of them
  (the debounce hides them from the game, until it cannot);
- a slot whose contacts take longer than :data:`SLOW_SETTLE_MS` to settle
  after a pawn moves, on the same average;
- a slot that read conduction without presence (stuck or bent contact), a
  reference channel that read the wrong level, a lamp whose current feedback
  disagreed with its output, in one of the last :data:`GAMES_WATCHED` games;
- a scan loop that overran its period (twice the scan period between two
  turns) in more than :data:`OVERRUNS_PER_MILLE` ‰ of its turns in the last
  game (an overloaded Pi reads pawns late).

A game counts when it ends with at least :data:`MIN_MOVES` placements
(an abandoned set-up counts for nothing; what it saw is kept for the next
game). What a game shows is kept in memory while it runs and folded into the
counters when it ends, then written to the board's database
(:class:`store.slot_health.SlotHealthStore`): nothing about a running game is
ever written, shown or reported (contact bounce differs between pawn kinds).
"""

from __future__ import annotations

import logging
import sqlite3
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from games.hautetension.pawn import PawnKind
from hardware.events import BoardEvent, Fault, FaultKind, PawnLifted, PawnPlaced
from hardware.monitor import BoardMonitor
from store.slot_health import (
    BOARD_PART,
    BOUNCES,
    LAMP,
    NO_CONDUCTION,
    NO_PRESENCE,
    OVERRUNS,
    REFERENCE,
    SLOW_SETTLE,
    STUCK,
    Finding,
    SlotHealthStore,
    worst_first,
)

log = logging.getLogger(__name__)

GAMES_NO_CONDUCTION = 12
GAMES_NO_PRESENCE = 20
"""Longer than for conduction: a slot may stay empty a few games running (a corner); at about 40 % of the
slots used per game, twenty empty games in a row happen to a sound slot about once in 30,000 games."""
PRESENCE_GAMES = 4
"""With 3 defense pawns among 25 per player, four games of pawns without conduction happen to a sound slot
about once in 5,000 games (80 slots: about once in 60 boards' worth of 12 games)."""
GAMES_WATCHED = 12
MIN_MOVES = 4
BOUNCES_PER_MOVE = 2.0
SLOW_SETTLE_MS = 100.0
MIN_MOVES_MEASURED = 5
RECENT_MOVES = 50
OVERRUNS_PER_MILLE = 50
"""A turn late now and then is invisible (a lamp a few milliseconds late); one in twenty means the Pi is busy
with something else."""
CLEAN_CHANGES = 2
"""Raw changes of a clean move: presence, then conduction (one, when they change in the same scan)."""


@dataclass
class _Game:
    """What the current game has shown so far (in memory only)."""

    presence: set[str] = field(default_factory=set)
    conduction: set[str] = field(default_factory=set)
    stuck: set[str] = field(default_factory=set)
    references: set[str] = field(default_factory=set)
    lamp_faults: int = 0
    moves: Counter[str] = field(default_factory=Counter)
    bounces: Counter[str] = field(default_factory=Counter)
    settle_ms: dict[str, float] = field(default_factory=dict)
    turns: int = 0
    overruns: int = 0


class SlotHealth:
    """Counts what the scanner sees, game after game, and says what to check (see the module docstring).

    *monitor* (the ``gpio`` and ``sim`` backends') gives the raw changes behind each debounced move (the
    bounces and the settle time); without it (``serial``: the device debounces) those two go unmeasured.
    *store* keeps the counters across restarts (None: in memory only)."""

    def __init__(self, slots: Iterable[str], *, store: SlotHealthStore | None = None,
                 monitor: BoardMonitor | None = None) -> None:
        self.slots = tuple(slots)
        self.store = store
        self.monitor = monitor
        self.counters: dict[str, dict[str, Any]] = store.counters() if store is not None else {}
        self.game = _Game()
        self._raw_seen: dict[str, tuple[int, float]] = {}
        """Per slot: the monitor's raw change count, and the time, at its last debounced move."""
        self.findings: dict[str, list[Finding]] = self._judge()
        self.turns = 0
        self.overruns = 0
        """Loop turns, and those that overran, since the service started (the health report's)."""

    # -- what a game shows --------------------------------------------------------------------

    def saw(self, events: Iterable[BoardEvent]) -> None:
        """One scan's events."""
        game = self.game
        for event in events:
            if isinstance(event, PawnPlaced):
                game.presence.add(event.slot)
                if event.kind is PawnKind.ATTACK:
                    game.conduction.add(event.slot)
                self._moved(event.slot, event.at)
            elif isinstance(event, PawnLifted):
                self._moved(event.slot, event.at)
            elif isinstance(event, Fault):
                self._fault(event)

    def _fault(self, fault: Fault) -> None:
        if fault.kind is FaultKind.CONDUCTION_WITHOUT_PRESENCE and fault.slot:
            self.game.stuck.add(fault.slot)
        elif fault.kind is FaultKind.REFERENCE_MISMATCH:
            self.game.references.add(f"ref {fault.multiplexer}.{fault.channel}")
        elif fault.kind is FaultKind.LAMP_FEEDBACK:
            self.game.lamp_faults += 1

    def _moved(self, slot: str, at: float) -> None:
        """The raw changes behind a debounced move: beyond the clean ones they are bounces; from the first
        to the last, the settle time."""
        track = self.monitor.slots.get(slot) if self.monitor is not None else None
        if track is None:
            return
        total, since = self._raw_seen.get(slot, (track.flicker_total - CLEAN_CHANGES, float("-inf")))
        self._raw_seen[slot] = (track.flicker_total, at)
        changes = [t for t in track.changes if since < t <= at]
        game = self.game
        game.moves[slot] += 1
        game.bounces[slot] += max(0, track.flicker_total - total - CLEAN_CHANGES)
        if len(changes) > 1:
            game.settle_ms[slot] = game.settle_ms.get(slot, 0.0) + (changes[-1] - changes[0]) * 1e3

    def turned(self, period: float, scan_period: float) -> None:
        """One turn of the service loop, *period* seconds after the last."""
        self.game.turns += 1
        self.turns += 1
        if period > 2 * scan_period:
            self.game.overruns += 1
            self.overruns += 1

    # -- a game ends --------------------------------------------------------------------------

    def game_ended(self, moves: int) -> bool:
        """Fold the game in if it counts (and write the counters); whether it counted."""
        if moves < MIN_MOVES:
            return False
        self._fold()
        self.game = _Game()
        self.findings = self._judge()
        if self.store is not None:
            try:
                self.store.save(self.counters, self.findings)
            except sqlite3.Error as exc:  # counted in memory still, and written with the next game
                log.warning("slot health not written (%s): kept, and written when the next game ends", exc)
        return True

    def _fold(self) -> None:
        game = self.game
        board = self.counters.setdefault(BOARD_PART, {})
        board["games"] = board.get("games", 0) + 1
        for slot in self.slots:
            self._fold_slot(slot, self.counters.setdefault(slot, {}))
        references = board.setdefault("references", {})
        for part in set(references) | game.references:
            references[part] = 0 if part in game.references else references[part] + 1
        board["reference_faults"] = board.get("reference_faults", 0) + len(game.references)
        board["since_lamp"] = 0 if game.lamp_faults else _after(board.get("since_lamp"))
        board["lamp_faults"] = board.get("lamp_faults", 0) + game.lamp_faults
        board["turns"] = board.get("turns", 0) + game.turns
        board["overruns"] = board.get("overruns", 0) + game.overruns
        board["last_overruns_per_mille"] = round(1000 * game.overruns / game.turns) if game.turns else 0

    def _fold_slot(self, slot: str, c: dict[str, Any]) -> None:
        game = self.game
        c["since_presence"] = 0 if slot in game.presence else c.get("since_presence", 0) + 1
        if slot in game.conduction:
            c["since_conduction"], c["presence_games"] = 0, 0
        else:
            c["since_conduction"] = c.get("since_conduction", 0) + 1
            c["presence_games"] = c.get("presence_games", 0) + (slot in game.presence)
        c["since_stuck"] = 0 if slot in game.stuck else _after(c.get("since_stuck"))
        c["stuck_total"] = c.get("stuck_total", 0) + (slot in game.stuck)
        c["moves_total"] = c.get("moves_total", 0) + game.moves[slot]
        c["bounces_total"] = c.get("bounces_total", 0) + game.bounces[slot]
        moves = c.get("moves", 0) + game.moves[slot]
        bounces = c.get("bounces", 0) + game.bounces[slot]
        settle = c.get("settle_ms", 0.0) + game.settle_ms.get(slot, 0.0)
        if moves > RECENT_MOVES:  # the average of the recent moves: older ones weigh half at each fold
            moves, bounces, settle = moves // 2, bounces // 2, settle / 2
        c["moves"], c["bounces"], c["settle_ms"] = moves, bounces, round(settle, 3)

    # -- what to check ------------------------------------------------------------------------

    def _judge(self) -> dict[str, list[Finding]]:
        findings: dict[str, list[Finding]] = {}
        for part, c in self.counters.items():
            found = _board_findings(c) if part == BOARD_PART else _slot_findings(part, c)
            if found:
                findings[part] = found
        return findings

    def report(self) -> list[Finding]:
        """Every finding, the worst first."""
        return worst_first([f for found in self.findings.values() for f in found])


def _after(since: int | None) -> int | None:
    """Games since something was last seen, one game later (None: never seen)."""
    return None if since is None else since + 1


def _slot_findings(slot: str, c: Mapping[str, Any]) -> list[Finding]:
    found = []
    if c.get("since_presence", 0) >= GAMES_NO_PRESENCE:
        found.append(Finding(slot, NO_PRESENCE, c["since_presence"]))
    elif c.get("since_conduction", 0) >= GAMES_NO_CONDUCTION and c.get("presence_games", 0) >= PRESENCE_GAMES:
        found.append(Finding(slot, NO_CONDUCTION, c["since_conduction"]))
    since_stuck = c.get("since_stuck")
    if since_stuck is not None and since_stuck < GAMES_WATCHED:
        found.append(Finding(slot, STUCK, since_stuck + 1))
    moves = c.get("moves", 0)
    if moves >= MIN_MOVES_MEASURED:
        if c.get("bounces", 0) / moves > BOUNCES_PER_MOVE:
            found.append(Finding(slot, BOUNCES, round(10 * c["bounces"] / moves)))
        if c.get("settle_ms", 0.0) / moves > SLOW_SETTLE_MS:
            found.append(Finding(slot, SLOW_SETTLE, round(c["settle_ms"] / moves)))
    return found


def _board_findings(c: Mapping[str, Any]) -> list[Finding]:
    references = sorted((c.get("references") or {}).items())
    found = [Finding(part, REFERENCE, since + 1) for part, since in references if since < GAMES_WATCHED]
    since_lamp = c.get("since_lamp")
    if since_lamp is not None and since_lamp < GAMES_WATCHED:
        found.append(Finding("lamps", LAMP, since_lamp + 1))
    if c.get("last_overruns_per_mille", 0) > OVERRUNS_PER_MILLE:
        found.append(Finding("scan", OVERRUNS, c["last_overruns_per_mille"]))
    return found
