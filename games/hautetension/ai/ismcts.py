"""Information-set Monte Carlo tree search (single observer).

Each iteration imagines one *determinisation* of the hidden pawns, consistent
with everything the searching seat has seen
(:meth:`~games.hautetension.ai.infoset.InformationSet.determinise`), picks one
of the seat's own placements by UCB1 (the same placements exist in every
determinisation, since only opponents' kinds are hidden), and plays the game
out with a fast tactical policy: light an opponent's lamp when a row is one
attack pawn from closing, block such a row to one's own lamp with a defense
pawn, otherwise build rows towards opponents' lamps. The placement visited most
is played. The tree is cut at the seat's own placement: deeper, the rollout
policy plays, which keeps a move within a fixed, small budget. The search is
anytime: it stops at its number of iterations or at its time budget
(games.budget), whichever comes first, with the placement visited most so far
(the heuristic's best when no playout ran).

The candidate placements are the heuristic player's best few (progressive
pruning): scoring all 160 placements by simulation would spread a Raspberry
Pi's budget too thin.
"""

from __future__ import annotations

import math
import random

from games.budget import Budget, deadline
from games.hautetension.ai.heuristic import Evaluator
from games.hautetension.ai.infoset import InformationSet
from games.hautetension.ai.sim import Sim

ITERATIONS = 1000
"""Default playouts per move at most (about 0.15 s on the development machine's core, so 0.5-1.2 s
on a Raspberry Pi; the time budget stops the long ones)."""
CANDIDATES = 10
DEFENSE_CANDIDATES = 3
DETERMINISATIONS = 24
EXPLORATION = 0.5
SAMPLED_SLOTS = 3
BLOCK_PROBABILITY = 1.0
"""How often a rollout player blocks a row one pawn from lighting its lamp (it cannot be sure)."""


def row_signs(sim: Sim) -> list[list[int]]:
    """Per seat and row: +1 if closing it heads for an opponent's lamp, -1 for one's own, 0 else."""
    signs = []
    for seat in range(sim.n):
        own = sim.owner_node[seat]
        others = {sim.owner_node[p] for p in range(sim.n) if p != seat}
        row = []
        for a, b in sim.board.ends:
            if own in (a, b):
                row.append(-1)
            elif a in others or b in others:
                row.append(1)
            else:
                row.append(0)
        signs.append(row)
    return signs


def policy_move(sim: Sim, signs: list[list[int]], rng: random.Random) -> tuple[int, bool]:
    """The rollout policy's placement for the seat to move (it knows every kind)."""
    me = sim.to_move
    attack_left, defense_left = sim.stock[me]
    block = -1
    if sim.hot:
        best, best_count = -1, 0
        for r, s in sim.hot.items():
            lit = sim.would_light(r)
            if not lit:
                continue
            owners = sim.owners(lit)
            if me in owners:
                block = s
            elif len(owners) > best_count:
                best, best_count = s, len(owners)
        if best >= 0 and attack_left:
            return best, True
        if block >= 0 and defense_left and rng.random() < BLOCK_PROBABILITY:
            return block, False
    mine = signs[me]
    free = sim.free
    rows_of = sim.board.rows_of
    row_att, row_occ = sim.row_att, sim.row_occ
    pick, pick_score, guard = -1, -1e9, -1
    for _ in range(SAMPLED_SLOTS):
        s = free[int(rng.random() * len(free))]
        if s == block:
            continue
        score = 0
        for r in rows_of[s]:
            if row_att[r] != row_occ[r]:
                continue  # a defense already kills this row
            sign = mine[r]
            score += sign * (row_att[r] + 1)
            if sign < 0 and row_att[r] >= 3:
                guard = s
        if score > pick_score:
            pick, pick_score = s, score
    if guard >= 0 and defense_left:
        return guard, False
    if pick < 0:
        pick = free[int(rng.random() * len(free))]
    if not attack_left:
        return pick, False
    return pick, True


def rollout(sim: Sim, signs: list[list[int]], rng: random.Random) -> None:
    while not sim.over:
        slot, attack = policy_move(sim, signs, rng)
        sim.push(slot, attack)


class ISMCTSPlayer:
    """Searches ``iterations`` determinised playouts per move within ``budget`` (None: no time limit).

    Seeded, so reproducible whenever the budget does not stop it.
    """

    def __init__(
        self,
        rng: random.Random | None = None,
        *,
        iterations: int = ITERATIONS,
        candidates: int = CANDIDATES,
        determinisations: int = DETERMINISATIONS,
        exploration: float = EXPLORATION,
        defense_candidates: int = DEFENSE_CANDIDATES,
        budget: Budget | None = None,
    ) -> None:
        self.defense_candidates = defense_candidates
        self.budget = budget
        self.rng = rng or random.Random()
        self.iterations = iterations
        self.candidates = candidates
        self.determinisations = determinisations
        self.exploration = exploration
        self.last_iterations = 0
        """Playouts run for the last move (for the benchmark), and what they cost:"""
        self.last_placements = 0
        """placements played in those playouts (the root placement included);"""
        self.last_determinisations = (0, 0)
        """(determinisations drawn, of which reproduce every observation)."""
        self.searched = 0
        """Playouts run over every move so far."""
        self.cut = 0
        """Moves whose search the time budget stopped before its number of iterations."""

    def choose_from(self, info: InformationSet) -> tuple[int, bool]:
        moves, visits, wins = self.search(info)
        if not any(visits):
            return moves[0]  # no time to search (or nothing to search): the heuristic's best
        best = max(range(len(moves)), key=lambda k: (visits[k], wins[k]))
        return moves[best]

    def search(
        self, info: InformationSet, *, also: tuple[int, bool] | None = None
    ) -> tuple[list[tuple[int, bool]], list[int], list[float]]:
        """The candidate placements (and *also*, when it is not one: the replay's analysis estimates
        the move actually played), with each one's playouts and summed rewards in [0, 1]."""
        until = deadline(self.budget)
        rng = self.rng
        found = Evaluator(info).candidates()
        attacks = [c for c in found if c.attack][: self.candidates]
        defenses = [c for c in found if not c.attack][: self.defense_candidates]
        keep = {id(c) for c in attacks + defenses}
        moves = [(c.slot, c.attack) for c in found if id(c) in keep]
        if also is not None and also not in moves:
            moves.append(also)
        self.last_iterations = 0
        if (len(moves) == 1 and also is None) or self.iterations <= 0:
            return moves, [0] * len(moves), [0.0] * len(moves)
        drawn = [info.determinise(rng)]
        while len(drawn) < min(self.determinisations, self.iterations) and not until.passed():
            drawn.append(info.determinise(rng))
        pool = [sim for sim, _consistent in drawn]
        self.last_determinisations = (len(drawn), sum(1 for _sim, consistent in drawn if consistent))
        placements = 0
        signs = row_signs(pool[0])
        me = info.me
        visits = [0] * len(moves)
        wins = [0.0] * len(moves)
        done = 0
        for it in range(self.iterations):
            if until.passed():
                self.cut += 1
                break
            k = self._select(visits, wins, it)
            sim = pool[it % len(pool)].copy()
            sim.to_move = me
            start = sim.moves
            sim.push(*moves[k])
            rollout(sim, signs, rng)
            placements += sim.moves - start
            visits[k] += 1
            wins[k] += sim.rewards()[me]
            done += 1
        self.last_iterations = done
        self.searched += done
        self.last_placements = placements
        return moves, visits, wins

    def _select(self, visits: list[int], wins: list[float], total: int) -> int:
        for k, n in enumerate(visits):
            if n == 0:
                return k
        log_total = math.log(total)
        c = self.exploration
        return max(
            range(len(visits)), key=lambda k: wins[k] / visits[k] + c * math.sqrt(log_total / visits[k])
        )
