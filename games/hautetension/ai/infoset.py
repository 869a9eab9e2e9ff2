"""What one seat knows, and determinisations that agree with it.

An :class:`InformationSet` is built from a seat's *player view* (never from
the game itself): the public history (who placed a pawn where), the lamps and
when they lit, the handicap pawns (always attack), and that seat's own pawns'
kinds and stock. Opponents' kinds are unknown.

A *determinisation* fills in those unknown kinds so that the imagined board
agrees with everything the seat has seen: each opponent used at most 3 defense
pawns (and at least as many as their placements beyond 22), and replaying the
history with those kinds lights exactly the lamps that lit, at the placements
where they lit (an unlit lamp means no straight row to it is all attack, and
no all-attack diagonal joins it to a lit lamp). Samples are drawn by rejection
and, when rejection keeps failing late in a game, repaired one pawn at a time
towards the evidence (constraint-guided).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from games.hautetension.ai.sim import ROW, Board, Sim, board_of
from games.hautetension.handicap import handicap_plan
from games.hautetension.layout import load_layout
from games.hautetension.pawn import ATTACK_PAWNS, DEFENSE_PAWNS

REJECTION_TRIES = 12
REPAIR_STEPS = 40
REPAIR_RESTARTS = 4
DEFENSE_PRIOR = 0.1
"""Prior odds that an opponent's pawn is a defense (times its bluff weight)."""


@dataclass
class InformationSet:
    """One seat's knowledge of a game in progress."""

    board: Board
    me: int
    lamps: tuple[str, ...]
    """Each seat's lamp."""
    first: int
    handicap: tuple[int, ...]
    moves: tuple[tuple[int, int], ...]
    """(slot, player) of every placement, in order."""
    mine: dict[int, bool]
    """Move index -> attack? for this seat's own placements."""
    stock: tuple[int, int]
    lit_at: dict[int, int | None]
    """Lamp node -> number of the placement that lit it (0: before play; None: lit, time unknown)."""
    to_move: int | None
    out: tuple[bool, ...]
    _defense_weight: list[float] = field(default_factory=list, repr=False)
    _full: frozenset[int] | None = field(default=None, repr=False)

    @classmethod
    def from_view(cls, view: Mapping[str, Any]) -> InformationSet:
        """Read a player view (``Game.player_view`` or the digital game's ``view(seat)``)."""
        layout = load_layout(view["layout"])
        board = board_of(layout)
        you = view["you"]
        me = int(you["seat"])
        lamps = tuple(seat["lamp"] for seat in view["seats"])
        moves = tuple((board.index[m["slot"]], int(m["player"])) for m in view["moves"])
        first = moves[0][1] if moves else int(view["to_move"] if view["to_move"] is not None else 0)
        plan = handicap_plan(layout, dict(view.get("handicap") or {}))
        handicap = tuple(board.index[slot] for slots in plan.values() for slot in slots)
        own = you["pawns"]
        mine = {
            i: own[board.slots[slot]] == "attack" for i, (slot, player) in enumerate(moves) if player == me
        }
        node = {lamp: i + 1 for i, lamp in enumerate(board.lamps)}
        lit_at: dict[int, int | None] = {node[lamp]: None for lamp in view["lit"]}
        for e in view.get("eliminations", []):
            lit_at[node[e["lamp"]]] = int(e["move"])
        for lamp, move in (view.get("lit_at") or {}).items():
            lit_at[node[lamp]] = int(move)
        stock = (int(you["stock"]["attack"]), int(you["stock"]["defense"]))
        out = tuple(bool(seat["eliminated"]) for seat in view["seats"])
        to_move = view["to_move"]
        info = cls(board, me, lamps, first, handicap, moves, mine, stock, lit_at, to_move, out)
        info._defense_weight = info._bluff_weights()
        return info

    # -- what the seat can read off the board -------------------------------

    def unknown_moves(self) -> dict[int, list[int]]:
        """Per opponent, the indices of their placements (kinds unknown)."""
        per: dict[int, list[int]] = {}
        for i, (_slot, player) in enumerate(self.moves):
            if player != self.me:
                per.setdefault(player, []).append(i)
        return per

    def _bluff_weights(self) -> list[float]:
        """Prior odds that each placement is a defense pawn.

        A pawn on a row leading to its owner's own lamp is likely a defense (players
        guard their lamp); one on a row leading to someone else's lamp is likely attack.
        """
        node_of = {lamp: i + 1 for i, lamp in enumerate(self.board.lamps)}
        weights = []
        for slot, player in self.moves:
            own = node_of[self.lamps[player]]
            on_own = any(own in self.board.ends[r] for r in self.board.rows_of[slot])
            weights.append(3.0 if on_own else 1.0)
        return weights

    def expected_lit(self, after: int) -> tuple[int, int]:
        """(mask of lamps whose lighting time is known, which of them are lit after placement ``after``)."""
        known = lit = 0
        for lamp, move in self.lit_at.items():
            if move is not None:
                known |= 1 << lamp
                if move <= after:
                    lit |= 1 << lamp
        return known, lit

    def final_lit(self) -> int:
        mask = 0
        for lamp in self.lit_at:
            mask |= 1 << lamp
        return mask

    # -- determinisations ----------------------------------------------------

    def start(self) -> Sim:
        sim = Sim(self.board, self.lamps, self.first)
        for slot in self.handicap:
            sim.place_handicap(slot)
        return sim

    def replay(self, kinds: Sequence[bool]) -> tuple[Sim, int]:
        """Play the history with these kinds; returns the position and the first placement
        (1-based) where the lamps disagree with what was seen, or 0 if none does."""
        sim = self.start()
        known_all = self.final_lit()
        if sim.lit & ~known_all:
            return sim, 1
        for i, (slot, player) in enumerate(self.moves):
            sim.to_move = player
            sim.push(slot, kinds[i])
            known, expected = self.expected_lit(i + 1)
            if sim.lit & known != expected or sim.lit & ~known_all:
                return sim, i + 1
        if sim.lit != known_all:
            return sim, len(self.moves)
        return sim, 0

    def sample_kinds(self, rng: random.Random) -> list[bool]:
        """Opponents' kinds drawn from the prior, within their stock limits.

        Each pawn is a defense with a small probability (larger on a row to its
        owner's own lamp); the count is then brought within what the stock allows.
        """
        kinds = [True] * len(self.moves)
        for i, attack in self.mine.items():
            kinds[i] = attack
        for indices in self.unknown_moves().values():
            placed = len(indices)
            low, high = max(0, placed - ATTACK_PAWNS), min(DEFENSE_PAWNS, placed)
            defenses = [i for i in indices if rng.random() < DEFENSE_PRIOR * self._defense_weight[i]]
            while len(defenses) > high:
                defenses.pop(rng.randrange(len(defenses)))
            if len(defenses) < low:
                rest = [i for i in indices if i not in defenses]
                defenses += _weighted_sample(
                    rest, [self._defense_weight[i] for i in rest], low - len(defenses), rng
                )
            for i in defenses:
                kinds[i] = False
        return kinds

    def determinise(self, rng: random.Random) -> tuple[Sim, bool]:
        """A position consistent with this seat's knowledge; the flag says whether
        every observation is reproduced (False only if every repair gave up)."""
        best: tuple[int, list[bool], Sim] | None = None
        for _ in range(REJECTION_TRIES):
            kinds = self.sample_kinds(rng)
            sim, bad = self.replay(kinds)
            if not bad:
                return sim, True
            if best is None or bad > best[0]:
                best = (bad, kinds, sim)
        assert best is not None
        for restart in range(REPAIR_RESTARTS):
            # The sample that agreed longest first, then fresh ones: a repair can go round in circles.
            kinds = best[1][:] if restart == 0 else self.sample_kinds(rng)
            sim, bad = self.replay(kinds)
            for _ in range(REPAIR_STEPS):
                if not bad or not self._repair(kinds, bad, rng):
                    break
                sim, bad = self.replay(kinds)
            if not bad:
                return sim, True
            if bad > best[0]:
                best = (bad, kinds, sim)
        return best[2], False

    def _repair(self, kinds: list[bool], bad: int, rng: random.Random) -> bool:
        """Flip one unknown pawn towards the evidence at placement ``bad``; False if none can be."""
        slot = self.moves[bad - 1][0] if self.moves else self.handicap[0]
        # The position right after the faulty placement decides what is wrong.
        at, _ = self.replay_until(kinds, bad)
        known, expected = self.expected_lit(bad)
        wrong = at.lit & ~(expected | (self.final_lit() & ~known))
        too_many = bool(wrong)
        index_of = {s: i for i, (s, _p) in enumerate(self.moves)}
        full = [r for r in range(len(self.board.rows)) if at.row_occ[r] == ROW]
        through = set(self.board.rows_of[slot])
        # A lamp lit too early: a closed row through this pawn, or a closed diagonal that
        # carried the current on to it. A lamp that failed to light: a full row through this pawn.
        if too_many:
            tiers = [
                [
                    r
                    for r in full
                    if at.row_att[r] == ROW
                    and (r in through or any(wrong >> end & 1 for end in self.board.ends[r]))
                ]
            ]
        else:
            # The pawn closed a row through it, or the current went on through a diagonal
            # that some defense in the sample keeps open.
            missing = expected & ~at.lit
            reached = at.lit | 1  # the battery's node is 0
            open_rows = [r for r in full if at.row_att[r] < ROW]
            bridges = [
                r
                for r in open_rows
                if any(
                    reached >> a & 1 and missing >> b & 1
                    for a, b in (self.board.ends[r], self.board.ends[r][::-1])
                )
            ]
            tiers = [[r for r in full if r in through], bridges, open_rows]
        candidates: list[int] = []
        for rows in tiers:
            for r in rows:
                for s in self.board.rows[r]:
                    i = index_of.get(s)
                    if i is None or i in self.mine or kinds[i] != too_many or i >= bad:
                        continue
                    candidates.append(i)
            if candidates:
                break
        if not candidates:
            return False
        i = rng.choice(candidates)
        self._flip(kinds, i, rng, bad)
        return True

    def replay_until(self, kinds: Sequence[bool], count: int) -> tuple[Sim, int]:
        sim = self.start()
        for i, (slot, player) in enumerate(self.moves[:count]):
            sim.to_move = player
            sim.push(slot, kinds[i])
        return sim, count

    def _flip(self, kinds: list[bool], i: int, rng: random.Random, bad: int) -> None:
        """Flip placement ``i``'s kind, keeping its owner's defense count within the stock.

        The kind given back goes, when possible, to a pawn in no full row: such a pawn
        never closed anything, so the lamps' history does not depend on it.
        """
        player = self.moves[i][1]
        own = [j for j, (_s, p) in enumerate(self.moves) if p == player]
        kinds[i] = not kinds[i]
        defenses = [j for j in own if not kinds[j] and j != i]
        attacks = [j for j in own if kinds[j] and j != i]
        if len(defenses) + (not kinds[i]) > DEFENSE_PAWNS:
            kinds[self._harmless(defenses, rng, bad)] = True
        elif len(attacks) + kinds[i] > ATTACK_PAWNS:
            kinds[self._harmless(attacks, rng, bad)] = False

    def _harmless(self, indices: list[int], rng: random.Random, bad: int) -> int:
        full = self._full_rows()
        free = [j for j in indices if not any(r in full for r in self.board.rows_of[self.moves[j][0]])]
        later = [j for j in indices if j >= bad]
        return rng.choice(free or later or indices)

    def _full_rows(self) -> frozenset[int]:
        if self._full is None:
            taken = {slot for slot, _p in self.moves} | set(self.handicap)
            self._full = frozenset(
                r for r, slots in enumerate(self.board.rows) if all(s in taken for s in slots)
            )
        return self._full


def _weighted_sample(
    items: Sequence[int], weights: Sequence[float], count: int, rng: random.Random
) -> list[int]:
    pool = list(items)
    w = list(weights)
    chosen: list[int] = []
    for _ in range(count):
        total = sum(w)
        x = rng.random() * total
        for k, weight in enumerate(w):
            x -= weight
            if x <= 0 or k == len(w) - 1:
                chosen.append(pool.pop(k))
                w.pop(k)
                break
    return chosen
