"""The rules of Hypnosia over a small, copyable position.

The engine (:mod:`games.hypnosia.game`), the computer players and the
benchmark all work on :class:`Position`. Squares are the board's numbers
(:class:`~games.hypnosia.board.Board`); pawn ``p`` belongs to seat ``p // 4``
and is that colour's pawn number ``p % 4 + 1``. A move is a :class:`Step`:
which die (0, 1 or :data:`SUM`), which pawn, whether its whole stack moves,
whether it crosses the bridge it stands on.

Where the rules text is silent the choices are documented in docs/hypnosia.md;
the ones that shape the code:

* A turn is one or two steps: each die moves a pawn or stack, or one pawn or
  stack moves by the sum without stopping. The same pawn may take both dice
  (so it can stop on a bridge with the first die and cross with the second).
* A die that some pawn can use must be used, checked die by die: at the start
  of the turn the player plays any usable die (or the sum); then the other die
  must be played if any pawn can use it, else it is lost. When either die can
  be played but not both, the player chooses which one to keep (nothing forces
  the larger one: that would forbid a lone pawn from ever entering the centre,
  since a 1 that enters leaves the other die unusable).
* A seat with no pawn left on the board is skipped; the game ends when five
  pawns are in the centre, when no pawn is left on the board, or after
  ``max_turns`` turns. While pawns are left, some pawn can always move for
  some roll: a stack can always land somewhere (back on its own square after
  a lap of a circle of 12 squares or fewer, else on one of the 12 squares
  ahead, which its colour's other two pawns cannot all hold), and where no
  stack is left every single pawn can land somewhere; so "no pawn can move"
  means "no pawn left on the board".
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Final

from games.hypnosia.board import PAWNS_PER_COLOUR, Board

SUM: Final = 2
"""The die index of a step that moves by the sum of both dice."""
CAPTURED: Final = -2
"""The position of a captured pawn."""
CENTRE_POINTS: Final = (5, 4, 3, 2, 1)
"""Points of the pawns entering the centre, by order of arrival."""
CENTRE_PLACES: Final = len(CENTRE_POINTS)
MAX_STACK: Final = 2


class Phase(enum.IntEnum):
    OPENING = 0
    """Each player rolls for the first turn; the highest sum starts, ties roll again."""
    ROLL = 1
    MOVE = 2
    OVER = 3


class Termination(enum.Enum):
    """How a game of Hypnosia ended."""

    CENTRE_FULL = "centre_full"
    """Five pawns have reached the centre."""
    NO_PAWN_LEFT = "no_pawn_left"
    """Every pawn is in the centre or captured."""
    TURN_LIMIT = "turn_limit"
    """The game reached its turn limit (pawns may circle for ever)."""


class Problem(enum.Enum):
    """Why a step is not possible; the engine turns these into readable errors."""

    OFF_BOARD = "off_board"
    NOT_A_STACK = "not_a_stack"
    START_SHORT = "start_short"
    NOT_A_BRIDGE = "not_a_bridge"
    CENTRE_NEEDS_ONE = "centre_needs_one"
    STACK_MAY_NOT_CROSS = "stack_may_not_cross"
    STACK_TOO_HIGH = "stack_too_high"
    SINGLE_ON_STACK = "single_on_stack"


@dataclass(frozen=True, slots=True)
class Step:
    """One pawn (or stack) moved by one die or by the sum."""

    die: int
    pawn: int
    stack: bool = False
    cross: bool = False


ROLLS: Final[tuple[tuple[tuple[int, int], float], ...]] = tuple(
    ((a, b), (1 if a == b else 2) / 36) for a in range(1, 7) for b in range(a, 7)
)
"""The 21 distinct rolls of two dice and their probabilities."""


class Position:
    """A game of Hypnosia in progress: pawns, scores, dice and whose turn it is."""

    __slots__ = (
        "board",
        "colours",
        "seats",
        "pos",
        "occ",
        "captures",
        "arrivals",
        "phase",
        "seat",
        "dice",
        "used",
        "opening",
        "opening_rolls",
        "turns",
        "rolls",
        "max_turns",
        "stacks_cross",
        "termination",
        "lost",
        "_legal",
    )

    def __init__(
        self, board: Board, colours: tuple[int, ...], *, stacks_cross: bool = True, max_turns: int = 0
    ) -> None:
        self.board = board
        self.colours = colours
        """The board colour (index into ``board.colours``) of each seat, in the order of play."""
        self.seats = len(colours)
        self.pos: list[int] = []
        for c in colours:
            self.pos += [board.index[sq] for sq in board.colours[c].start]
        self.occ: list[tuple[int, ...]] = [()] * len(board.squares)
        for p, sq in enumerate(self.pos):
            self.occ[sq] = (p,)
        self.captures = [0] * self.seats
        """Per seat: pawns captured minus pawns lost."""
        self.arrivals: list[int] = []
        """Pawns in the centre, by order of arrival."""
        self.phase = Phase.OPENING
        self.seat = 0
        self.dice = (0, 0)
        self.used = [False, False]
        self.opening: list[int] = list(range(self.seats))
        """Seats still to roll in this round of the opening."""
        self.opening_rolls: list[list[tuple[int, int, int]]] = [[]]
        """Opening rounds: (seat, die, die) as rolled; a later round re-rolls the tied seats."""
        self.turns = 0
        self.rolls = 0
        """Chance events so far (the program's dice are drawn by this number)."""
        self.max_turns = max_turns
        self.stacks_cross = stacks_cross
        self.termination: Termination | None = None
        self.lost: list[int] = []
        """Values of the dice lost this turn (no pawn could use them)."""
        self._legal: list[Step] | None = None

    def copy(self) -> Position:
        new = Position.__new__(Position)
        new.board = self.board
        new.colours = self.colours
        new.seats = self.seats
        new.pos = self.pos[:]
        new.occ = self.occ[:]
        new.captures = self.captures[:]
        new.arrivals = self.arrivals[:]
        new.phase = self.phase
        new.seat = self.seat
        new.dice = self.dice
        new.used = self.used[:]
        new.opening = self.opening[:]
        new.opening_rolls = [r[:] for r in self.opening_rolls]
        new.turns = self.turns
        new.rolls = self.rolls
        new.max_turns = self.max_turns
        new.stacks_cross = self.stacks_cross
        new.termination = self.termination
        new.lost = self.lost[:]
        new._legal = self._legal
        return new

    # -- questions --------------------------------------------------------

    def owner(self, pawn: int) -> int:
        return pawn // PAWNS_PER_COLOUR

    def pawns_of(self, seat: int) -> range:
        return range(seat * PAWNS_PER_COLOUR, (seat + 1) * PAWNS_PER_COLOUR)

    def is_on_board(self, pawn: int) -> bool:
        return self.pos[pawn] >= 0 and self.pos[pawn] != self.board.centre

    def on_board(self, seat: int) -> int:
        return sum(1 for p in self.pawns_of(seat) if self.is_on_board(p))

    def in_centre(self, seat: int) -> int:
        return sum(1 for p in self.arrivals if self.owner(p) == seat)

    def captured(self, seat: int) -> int:
        return sum(1 for p in self.pawns_of(seat) if self.pos[p] == CAPTURED)

    def centre_points(self, seat: int) -> int:
        return sum(
            CENTRE_POINTS[rank]
            for rank, p in enumerate(self.arrivals[:CENTRE_PLACES])
            if self.owner(p) == seat
        )

    def score(self, seat: int) -> int:
        return self.centre_points(seat) + self.captures[seat]

    def best_arrival(self, seat: int) -> int | None:
        """The seat's best rank of arrival in the centre (0 first), None if none arrived."""
        return next((rank for rank, p in enumerate(self.arrivals) if self.owner(p) == seat), None)

    def winners(self) -> tuple[int, ...]:
        """The seats with the best score, ties broken by the best arrival in the centre."""
        scores = [self.score(s) for s in range(self.seats)]
        top = [s for s in range(self.seats) if scores[s] == max(scores)]
        ranks = {s: self.best_arrival(s) for s in top}
        arrived = [s for s in top if ranks[s] is not None]
        if arrived:
            return (min(arrived, key=lambda s: ranks[s] or 0),)
        return tuple(top)

    def value(self, step: Step) -> int:
        """The number of squares ``step`` moves."""
        return self.dice[0] + self.dice[1] if step.die == SUM else self.dice[step.die]

    # -- single steps -----------------------------------------------------

    def destination(
        self, pawn: int, value: int, *, stack: bool = False, cross: bool = False
    ) -> int | Problem:
        """Where the pawn (or its stack) lands after ``value`` squares, or why it cannot."""
        board = self.board
        square = self.pos[pawn]
        if square < 0 or square == board.centre:
            return Problem.OFF_BOARD
        here = self.occ[square]
        if stack and len(here) < MAX_STACK:
            return Problem.NOT_A_STACK
        if cross:
            if stack and not self.stacks_cross:
                return Problem.STACK_MAY_NOT_CROSS
            target = board.cross[square][value]
            if target < 0:
                if board.cross[square][1] < 0:
                    return Problem.NOT_A_BRIDGE
                return Problem.CENTRE_NEEDS_ONE
            if target == board.centre:
                return target
        else:
            target = board.step[square][value]
            if target < 0:
                return Problem.START_SHORT
        there = self.occ[target]
        if target == square:  # once round a small circle: the mover does not meet itself
            there = () if stack else tuple(p for p in there if p != pawn)
        if there:
            movers = len(here) if stack else 1
            if self.owner(there[0]) == self.owner(pawn):
                if len(there) + movers > MAX_STACK:
                    return Problem.STACK_TOO_HIGH
            elif len(there) > movers:
                return Problem.SINGLE_ON_STACK
        return target

    def steps(self, die: int, value: int) -> list[Step]:
        """Every possible step of the seat to move with one die (or the sum) of ``value``."""
        found = []
        crossing = self.board.cross
        for pawn in self.pawns_of(self.seat):
            square = self.pos[pawn]
            if square < 0 or square == self.board.centre:
                continue
            here = self.occ[square]
            units = (False, True) if len(here) == MAX_STACK and min(here) == pawn else (False,)
            bridge = crossing[square][1] >= 0
            for stack in units:
                if not isinstance(self.destination(pawn, value, stack=stack), Problem):
                    found.append(Step(die, pawn, stack, False))
                if bridge and not isinstance(self.destination(pawn, value, stack=stack, cross=True), Problem):
                    found.append(Step(die, pawn, stack, True))
        return found

    def legal(self) -> list[Step]:
        """The steps the seat to move may take now (empty unless the dice are rolled)."""
        if self.phase != Phase.MOVE:
            return []
        if self._legal is None:
            self._legal = self._compute_legal()
        return self._legal

    def _compute_legal(self) -> list[Step]:
        a, b = self.dice
        if self.used[0] or self.used[1]:
            die = 1 if self.used[0] else 0
            return self.steps(die, self.dice[die])
        return self.steps(0, a) + self.steps(1, b) + self.steps(SUM, a + b)

    # -- changes ----------------------------------------------------------

    def roll(self, a: int, b: int) -> None:
        """Apply a chance event: an opening roll, or the dice of the seat to move."""
        self.rolls += 1
        self._legal = None
        if self.phase == Phase.OPENING:
            self._opening_roll(a, b)
            return
        self.dice = (a, b)
        self.used = [False, False]
        self.lost = []
        self.phase = Phase.MOVE
        if not self.legal():
            self.lost = [a, b]
            self._end_turn()

    def _opening_roll(self, a: int, b: int) -> None:
        seat = self.opening.pop(0)
        self.opening_rolls[-1].append((seat, a, b))
        if self.opening:
            return
        sums = {s: x + y for s, x, y in self.opening_rolls[-1]}
        best = max(sums.values())
        tied = [s for s in sorted(sums) if sums[s] == best]
        if len(tied) == 1:
            self.seat = tied[0]
            self.phase = Phase.ROLL
        else:
            self.opening = tied
            self.opening_rolls.append([])

    def play(self, step: Step) -> None:
        """Apply a legal step (the caller checks legality) and pass the turn when it is over."""
        self._move(step)
        self._legal = None
        if self.termination is not None:
            return
        if step.die == SUM or all(self.used):
            self._end_turn()
        elif not self.legal():
            self.lost = [self.dice[1 - step.die]]
            self._end_turn()

    def _move(self, step: Step) -> None:
        if step.die == SUM:
            self.used = [True, True]
        else:
            self.used[step.die] = True
        value = self.value(step)
        target = self.destination(step.pawn, value, stack=step.stack, cross=step.cross)
        assert not isinstance(target, Problem), target
        source = self.pos[step.pawn]
        movers = self.occ[source] if step.stack else (step.pawn,)
        self.occ[source] = tuple(p for p in self.occ[source] if p not in movers)
        if target == self.board.centre:
            for p in movers:
                self.pos[p] = target
                self.arrivals.append(p)
            if len(self.arrivals) >= CENTRE_PLACES:
                self._finish(Termination.CENTRE_FULL)
            return
        there = self.occ[target]
        if there and self.owner(there[0]) != self.owner(step.pawn):
            for p in there:
                self.pos[p] = CAPTURED
            self.captures[self.owner(step.pawn)] += len(there)
            self.captures[self.owner(there[0])] -= len(there)
            there = ()
        for p in movers:
            self.pos[p] = target
        self.occ[target] = there + movers

    def _end_turn(self) -> None:
        self.turns += 1
        self.phase = Phase.ROLL
        self._legal = None
        waiting = [s for s in range(self.seats) if self.on_board(s)]
        if not waiting:
            self._finish(Termination.NO_PAWN_LEFT)
        elif self.max_turns and self.turns >= self.max_turns:
            self._finish(Termination.TURN_LIMIT)
        else:
            self.seat = min(waiting, key=lambda s: (s - self.seat - 1) % self.seats)

    def _finish(self, termination: Termination) -> None:
        self.termination = termination
        self.phase = Phase.OVER
        self._legal = None
