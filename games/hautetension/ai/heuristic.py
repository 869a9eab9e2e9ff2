"""The heuristic player: threats, open rows and bluff reading, one placement deep.

Every free slot is scored for an attack pawn and for a defense pawn from what
the seat knows (:class:`~games.hautetension.ai.infoset.InformationSet`):

- *open rows*: a row is worth building when closing it would light an
  opponent's lamp (directly, or through a diagonal from a lit lamp), and
  dangerous when it would light the seat's own lamp;
- *threats*: the fuller a dangerous row and the likelier its pawns conduct,
  the more a defense pawn there is worth (the seat has only three);
- *bluff reading*: an opponent's pawn on a row to its owner's own lamp is
  probably a defense; a full row whose lamp stayed dark holds a defense.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from games.hautetension.ai.infoset import InformationSet
from games.hautetension.ai.sim import FREE, HANDICAP, ROW

CLOSE_WEIGHT = 100.0
"""Value of lighting one opponent's lamp for sure with this pawn."""
OWN_LAMP = -1.6
"""Value of one's own lamp lighting (worse than an opponent's is good)."""
OPPONENT_LAMP = 1.0
DIAGONAL_SHARE = 0.25
"""How much a row counts towards the lamps beyond an unlit lamp's diagonals."""
PRIOR_ATTACK = 0.9
PRIOR_ATTACK_ON_OWN_ROW = 0.55
DEFENSE_COST = (30.0, 14.0, 9.0, 6.0)
"""Cost of spending a defense pawn, by defense pawns left (0 .. 3)."""
PROGRESS = (0.0, 1.0, 4.0, 12.0, 40.0)
"""Value of a row's progress by pawns already in it (0 .. 4)."""


@dataclass(frozen=True)
class Candidate:
    score: float
    slot: int
    attack: bool


class Evaluator:
    """Row-by-row beliefs of one seat, and the score of each placement it may make."""

    def __init__(self, info: InformationSet) -> None:
        self.info = info
        board = info.board
        self.board = board
        sim = info.start()
        self.occ = [FREE] * len(board.slots)
        for slot in info.handicap:
            self.occ[slot] = HANDICAP
        self.p_attack = [1.0] * len(board.slots)
        for i, (slot, player) in enumerate(info.moves):
            self.occ[slot] = player
            if player == info.me:
                self.p_attack[slot] = 1.0 if info.mine[i] else 0.0
            else:
                on_own = any(sim.owner_node[player] in board.ends[r] for r in board.rows_of[slot])
                self.p_attack[slot] = PRIOR_ATTACK_ON_OWN_ROW if on_own else PRIOR_ATTACK
        self.lit = info.final_lit()
        self.owner_node = sim.owner_node
        self.lamp_value = self._lamp_values()
        self.dead = [False] * len(board.rows)
        self._read_dark_rows()
        self.row_value = [self._row_value(r) for r in range(len(board.rows))]

    def _lamp_values(self) -> list[float]:
        info = self.info
        values = [0.0] * (len(self.board.lamps) + 1)
        for seat, node in enumerate(self.owner_node):
            if info.out[seat]:
                continue
            values[node] = OWN_LAMP if seat == info.me else OPPONENT_LAMP
        return values

    def _is_lit(self, node: int) -> bool:
        return node == 0 or bool(self.lit >> node & 1)

    def _row_value(self, r: int) -> float:
        """What closing row ``r`` would be worth to the seat (lamps it lights or brings closer)."""
        a, b = self.board.ends[r]
        if self._is_lit(a) and self._is_lit(b):
            return 0.0
        if self._is_lit(a) or self._is_lit(b):
            lamp = b if self._is_lit(a) else a
            return self.lamp_value[lamp] + DIAGONAL_SHARE * self._beyond(lamp, r)
        return DIAGONAL_SHARE * (self.lamp_value[a] + self.lamp_value[b])

    def _beyond(self, lamp: int, via: int) -> float:
        total = 0.0
        for r, (a, b) in enumerate(self.board.ends):
            if r != via and lamp in (a, b) and 0 not in (a, b):
                other = b if a == lamp else a
                if not self._is_lit(other):
                    total += self.lamp_value[other]
        return total

    def _read_dark_rows(self) -> None:
        """Rows that hold a defense: a known one, or full rows whose lamp stayed dark."""
        board = self.board
        for r, slots in enumerate(board.rows):
            if any(self.p_attack[s] == 0.0 for s in slots if self.occ[s] != FREE):
                self.dead[r] = True
                continue
            if any(self.occ[s] == FREE for s in slots):
                continue
            a, b = board.ends[r]
            if self._is_lit(a) != self._is_lit(b):
                # Full, and it would have lit its dark end: one of its pawns is a defense.
                self.dead[r] = True
                unknown = [s for s in slots if 0.0 < self.p_attack[s] < 1.0]
                for s in unknown:
                    self.p_attack[s] = min(self.p_attack[s], 1.0 - 1.0 / len(unknown))

    def row_state(self, r: int) -> tuple[int, float]:
        """(pawns in the row, probability they all conduct)."""
        count = 0
        p = 1.0
        for s in self.board.rows[r]:
            if self.occ[s] != FREE:
                count += 1
                p *= self.p_attack[s]
        return count, p

    def score(self, slot: int, attack: bool) -> float:
        total = 0.0
        for r in self.board.rows_of[slot]:
            if self.dead[r]:
                continue
            value = self.row_value[r]
            if value == 0.0:
                continue
            count, p = self.row_state(r)
            if attack:
                if count == ROW - 1:
                    total += CLOSE_WEIGHT * p * value
                else:
                    total += PROGRESS[count] * p * value + 0.5 * value
            elif value < 0:
                # A defense kills the row: worth the threat it removes.
                threat = CLOSE_WEIGHT * p if count == ROW - 1 else PROGRESS[count] * p
                total += -value * threat
            else:
                total -= value * (PROGRESS[count] * p + 0.5)
        if not attack:
            total -= DEFENSE_COST[self.info.stock[1]]
        return total

    def candidates(self) -> list[Candidate]:
        """Every legal placement with its score, best first."""
        attack_left, defense_left = self.info.stock
        kinds = [k for k, left in ((True, attack_left), (False, defense_left)) if left]
        found = [
            Candidate(self.score(slot, kind), slot, kind)
            for slot in range(len(self.board.slots))
            if self.occ[slot] == FREE
            for kind in kinds
        ]
        found.sort(key=lambda c: -c.score)
        return found


class HeuristicPlayer:
    """Plays the best-scoring placement (ties broken at random)."""

    def __init__(self, rng: random.Random | None = None) -> None:
        self.rng = rng or random.Random()

    def choose_from(self, info: InformationSet) -> tuple[int, bool]:
        found = Evaluator(info).candidates()
        best = found[0].score
        ties = [c for c in found if c.score >= best - 1e-9]
        pick = self.rng.choice(ties)
        return pick.slot, pick.attack
