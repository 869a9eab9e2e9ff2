"""Computer players of Hypnosia: random, greedy and expectimax.

* ``random`` plays any legal move.
* ``greedy`` tries every way to play its whole turn (both dice) and keeps the
  one whose resulting position :func:`evaluate` likes best.
* ``expectimax`` takes the greedy player's best dozen turns and, for each,
  averages over the 21 rolls of the next player (the chance node) the
  position left by that player's best reply, adding at that leaf the captures
  its own next roll may offer (each enemy pawn in reach weighted by the chance
  of the dice that reach it). It keeps the turn with the best expectation, so
  it sees which of its pawns the next player can capture, and how likely,
  where greedy does not. It is anytime: the turns are searched in greedy's
  order, and when its time budget (games.budget) runs out it plays the best
  of the turns searched to the end (greedy's best when none is).

The evaluation counts the points already won (centre and captures) and how
close each pawn still on the board is to the centre, against the best
opponent. Everything works on :class:`~games.hypnosia.rules.Position`.
"""

from __future__ import annotations

import abc
import random
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final

from games.budget import Budget, Deadline, TimedLevel, deadline
from games.exc import GameOverError
from games.frame import DigitalGame, Move, PlayerFactory, RandomPlayer
from games.hypnosia.board import MAX_STEP, Board
from games.hypnosia.exc import NotationError
from games.hypnosia.game import Hypnosia
from games.hypnosia.rules import CENTRE_PLACES, CENTRE_POINTS, ROLLS, SUM, Phase, Position, Step

WIN: Final = 1000.0
STAKE: Final = 0.8
"""The share of the next centre place's points a pawn at the door of the centre is worth."""

_distances: dict[int, tuple[list[int], int]] = {}


def distances(board: Board) -> tuple[list[int], int]:
    """Each square's number of steps to the centre (crossing a bridge is one step), and the largest."""
    key = id(board)
    if key not in _distances:
        back: list[list[int]] = [[] for _ in board.squares]
        for s in range(len(board.squares)):
            for table in (board.step, board.cross):
                target = table[s][1]
                if target >= 0:
                    back[target].append(s)
        dist = [-1] * len(board.squares)
        dist[board.centre] = 0
        queue = deque([board.centre])
        while queue:
            s = queue.popleft()
            for t in back[s]:
                if dist[t] < 0:
                    dist[t] = dist[s] + 1
                    queue.append(t)
        for s, steps in enumerate(board.lane):
            if steps:  # a start square: its pawn needs ``steps`` to reach its entry square
                dist[s] = steps + dist[board.step[s][steps]]
        _distances[key] = (dist, max(dist))
    return _distances[key]


def worth(position: Position, seat: int) -> float:
    """Points won plus the promise of the pawns still on the board.

    The closest pawn is promised a share of the next centre place's points,
    the next one of the place after, and so on: a pawn for which no place is
    left promises nothing, so a player never prefers circling to entering.
    """
    dist, far = distances(position.board)
    centre = position.board.centre
    closeness = sorted(
        (
            (1.0 - dist[square] / (far + 1)) ** 2
            for square in (position.pos[p] for p in position.pawns_of(seat))
            if square >= 0 and square != centre
        ),
        reverse=True,
    )
    value = float(position.score(seat))
    for rank, close in enumerate(closeness, len(position.arrivals)):
        if rank >= CENTRE_PLACES:
            break
        value += STAKE * CENTRE_POINTS[rank] * close
    return value


def evaluate(position: Position, seat: int) -> float:
    """How good ``position`` is for ``seat``: its worth against the best opponent's.

    A finished game counts its final margin, plus a large bonus for a win: a
    player who cannot win any more then still prefers to finish with the
    smallest margin rather than circle for ever.
    """
    others = [s for s in range(position.seats) if s != seat]
    if position.termination is not None:
        margin = position.score(seat) - max(position.score(s) for s in others)
        winners = position.winners()
        return margin + (WIN / len(winners) if seat in winners else 0.0)
    return worth(position, seat) - max(worth(position, s) for s in others)


_reaches: dict[int, list[dict[int, int]]] = {}
_hit_chance: dict[int, float] = {}


def reaches(board: Board) -> list[dict[int, int]]:
    """``reaches(board)[s][t]``: the values 1-12 (as bits) that take a pawn from ``s`` to ``t``."""
    key = id(board)
    if key not in _reaches:
        table: list[dict[int, int]] = [{} for _ in board.squares]
        for s in range(len(board.squares)):
            for v in range(1, MAX_STEP + 1):
                for t in (board.step[s][v], board.cross[s][v]):
                    if t >= 0 and t != board.centre:
                        table[s][t] = table[s].get(t, 0) | 1 << v
        _reaches[key] = table
    return _reaches[key]


def hit_chance(values: int) -> float:
    """The chance that a roll offers one of ``values`` (bits 1-12) as a die or as the sum."""
    if values not in _hit_chance:
        _hit_chance[values] = sum(
            chance for (a, b), chance in ROLLS if values >> a & 1 or values >> b & 1 or values >> (a + b) & 1
        )
    return _hit_chance[values]


def threat(position: Position, attacker: int) -> float:
    """Enemy pawns ``attacker`` may capture on its next roll, each weighted by its chance."""
    table = reaches(position.board)
    units = [
        (square, len(position.occ[square]))
        for square in {position.pos[p] for p in position.pawns_of(attacker)}
        if square >= 0 and square != position.board.centre
    ]
    total = 0.0
    for target, here in enumerate(position.occ):
        if not here or position.owner(here[0]) == attacker or position.board.ring[target] < 0:
            continue
        values = 0
        for square, size in units:
            if size >= len(here):
                values |= table[square].get(target, 0)
        if values:
            total += hit_chance(values) * len(here)
    return total


def _canonical(position: Position, steps: list[Step]) -> list[Step]:
    """One step per distinct effect (pawns of a stack and equal dice are interchangeable)."""
    seen: set[tuple[int, int, bool, bool]] = set()
    kept = []
    for step in steps:
        key = (position.value(step) * 3 + (step.die == SUM), position.pos[step.pawn], step.stack, step.cross)
        if key not in seen:
            seen.add(key)
            kept.append(step)
    return kept


def turns(position: Position) -> list[tuple[Step, Position]]:
    """Every distinct way to play the rest of the turn: (first step, position after the turn)."""
    found: dict[tuple[tuple[int, ...], int], tuple[Step, Position]] = {}
    for first in _canonical(position, position.legal()):
        after = position.copy()
        after.play(first)
        if after.phase == Phase.MOVE:
            for second in _canonical(after, after.legal()):
                end = after.copy()
                end.play(second)
                found.setdefault((tuple(end.pos), len(end.arrivals)), (first, end))
        else:
            found.setdefault((tuple(after.pos), len(after.arrivals)), (first, after))
    return list(found.values())


@dataclass
class Stats:
    """Machine-independent counts of a player's work (for the benchmark)."""

    decisions: int = 0
    nodes: int = 0
    """Positions reached and evaluated."""
    by_decision: list[int] = field(default_factory=list)
    cut: int = 0
    """Decisions whose search the time budget stopped before the work cap."""


def _hypnosia(game: DigitalGame) -> Hypnosia:
    if not isinstance(game, Hypnosia):
        raise NotationError(f"a Hypnosia player cannot play {game.name}")
    return game


class _TurnPlayer(abc.ABC):
    """Shared by the searching players: rolls the program's dice, picks a step otherwise."""

    def __init__(self, rng: random.Random | None = None) -> None:
        self.rng = rng or random.Random()
        self.stats = Stats()

    def choose(self, game: DigitalGame) -> Move:
        hypnosia = _hypnosia(game)
        position = hypnosia.position
        if position.phase != Phase.MOVE:
            return RandomPlayer(self.rng).choose(game)  # a roll: the only legal one, or any real dice
        steps = position.legal()
        if not steps:
            raise GameOverError("the game is over")
        nodes = self.stats.nodes
        step = self.pick(position) if len(steps) > 1 else steps[0]
        self.stats.decisions += 1
        self.stats.by_decision.append(self.stats.nodes - nodes)
        return hypnosia.step_to_move(step)

    @abc.abstractmethod
    def pick(self, position: Position) -> Step:
        """The step to play in *position*, which has more than one."""

    def _best(self, options: list[tuple[Step, Position]], score: Callable[[Position], float]) -> Step:
        scored = [(score(after), self.rng.random(), first) for first, after in options]
        return _top(scored)


def _top(scored: list[tuple[float, float, Step]]) -> Step:
    """The step of the best (value, tie-break) pair."""
    return max(scored, key=lambda item: (item[0], item[1]))[2]


class GreedyPlayer(_TurnPlayer):
    """Plays the whole turn that leaves the best-looking position."""

    def pick(self, position: Position) -> Step:
        me = position.seat
        options = turns(position)
        self.stats.nodes += len(options)
        return self._best(options, lambda after: evaluate(after, me))


class ExpectimaxPlayer(_TurnPlayer):
    """Searches its turn, the dice of the next player (chance) and that player's best reply.

    ``width`` turns at most (greedy's best), within ``budget`` (None: no time limit).
    """

    def __init__(
        self,
        rng: random.Random | None = None,
        *,
        width: int = 12,
        threats: float = 2.0,
        budget: Budget | None = None,
    ) -> None:
        super().__init__(rng)
        self.width = width
        self.threats = threats
        self.budget = budget

    def pick(self, position: Position) -> Step:
        until = deadline(self.budget)
        me = position.seat
        options = turns(position)
        self.stats.nodes += len(options)
        ranked = sorted(options, key=lambda o: evaluate(o[1], me), reverse=True)[: self.width]
        # Anytime: greedy's order is the best guess, so the turns searched first are the likeliest best,
        # and a turn counts only once its expectation is complete (a partial average would mislead).
        scored: list[tuple[float, float, Step]] = []
        for first, after in ranked:
            value = self.expectation(after, me, until)
            if value is None:
                self.stats.cut += 1
                break
            scored.append((value, self.rng.random(), first))
        return _top(scored) if scored else ranked[0][0]

    def expectation(self, position: Position, me: int, until: Deadline | None = None) -> float | None:
        """The average, over the next roll, of the position after the next player's best turn.

        None when ``until`` passes before every roll is searched.
        """
        if position.phase != Phase.ROLL:
            return evaluate(position, me)
        total = 0.0
        for (a, b), chance in ROLLS:
            if until is not None and until.passed():
                return None
            rolled = position.copy()
            rolled.roll(a, b)
            if rolled.phase != Phase.MOVE:
                total += chance * evaluate(rolled, me)
                continue
            mover = rolled.seat
            replies = turns(rolled)
            self.stats.nodes += len(replies)
            best = max(replies, key=lambda o: evaluate(o[1], mover))[1]
            total += chance * self.leaf(best, me)
        return total

    def leaf(self, position: Position, me: int) -> float:
        """The evaluation, plus the captures the next roll may offer ``me`` (a cheap last chance node)."""
        value = evaluate(position, me)
        if self.threats and position.termination is None:
            value += self.threats * threat(position, me)
        return value


AI_LEVELS: dict[str, PlayerFactory] = {
    "random": RandomPlayer,
    "greedy": GreedyPlayer,
    "expectimax": TimedLevel(lambda rng, budget: ExpectimaxPlayer(rng, budget=budget)),
}
