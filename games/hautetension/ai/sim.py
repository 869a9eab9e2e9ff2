"""A fast, fully-known Haute-Tension position for searching ahead.

The computer players search thousands of imagined continuations per move;
:class:`~games.hautetension.game.Game` keeps records (placements, views,
errors) they do not need. :class:`Sim` plays the same rules on integer slots,
rows and lamps: a placement updates the counters of the rows through its slot
and searches lamp connectivity only when a row closes. Every pawn's kind is
known to a ``Sim``: the players only ever build one from a *determinisation*
(opponents' kinds sampled to agree with what they have seen).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from games.hautetension.layout import BATTERY, Layout
from games.hautetension.outcome import BONUS_POINTS, NEVER_LIT_POINTS, RANK_POINTS
from games.hautetension.pawn import ATTACK_PAWNS, DEFENSE_PAWNS

FREE = -1
HANDICAP = -2
ROW = 5
WIN_WEIGHT = 0.8
"""Share of a playout's reward that is winning; the rest is tournament points."""


@dataclass(frozen=True)
class Board:
    """A layout as integers: slots and rows by index, circuit nodes 0 (battery) and 1.. (lamps)."""

    layout: Layout
    slots: tuple[str, ...]
    index: dict[str, int]
    lamps: tuple[str, ...]
    rows: tuple[tuple[int, ...], ...]
    ends: tuple[tuple[int, int], ...]
    rows_of: tuple[tuple[int, ...], ...]

    @classmethod
    def of(cls, layout: Layout) -> Board:
        slots = tuple(layout.slots)
        index = {slot: i for i, slot in enumerate(slots)}
        lamps = tuple(layout.lamps)
        node = {BATTERY: 0} | {lamp: i + 1 for i, lamp in enumerate(lamps)}
        rows = tuple(tuple(index[s] for s in row.slots) for row in layout.rows)
        ends = tuple((node[row.ends[0]], node[row.ends[1]]) for row in layout.rows)
        rows_of = tuple(tuple(layout.rows_of_slot[slot]) for slot in slots)
        return cls(layout, slots, index, lamps, rows, ends, rows_of)

    def lit_mask(self, closed: Sequence[int]) -> int:
        """Bitmask of lamps (bit i for node i) connected to the battery by closed rows."""
        reached = 1
        grew = True
        while grew:
            grew = False
            for r in closed:
                a, b = self.ends[r]
                ra, rb = reached >> a & 1, reached >> b & 1
                if ra != rb:
                    reached |= 1 << a | 1 << b
                    grew = True
        return reached & ~1


_BOARDS: dict[int, Board] = {}


def board_of(layout: Layout) -> Board:
    """The integer board of a layout (cached: layouts are immutable)."""
    board = _BOARDS.get(id(layout))
    if board is None or board.layout is not layout:
        board = _BOARDS[id(layout)] = Board.of(layout)
    return board


class Sim:
    """A position with every kind known; ``push`` plays the rules of :class:`Game`."""

    __slots__ = (
        "board",
        "n",
        "owner_node",
        "node_owner",
        "occ",
        "att",
        "row_att",
        "row_occ",
        "closed",
        "lit",
        "out",
        "stock",
        "to_move",
        "over",
        "winners",
        "ranks",
        "bonus",
        "lit_before",
        "free",
        "free_pos",
        "hot",
        "moves",
    )

    def __init__(self, board: Board, lamps_of_seats: Sequence[str], first: int) -> None:
        self.board = board
        self.n = len(lamps_of_seats)
        self.owner_node = [board.lamps.index(lamp) + 1 for lamp in lamps_of_seats]
        self.node_owner = [-1] * (len(board.lamps) + 1)
        for seat, node in enumerate(self.owner_node):
            self.node_owner[node] = seat
        self.occ = [FREE] * len(board.slots)
        self.att = [False] * len(board.slots)
        self.row_att = [0] * len(board.rows)
        self.row_occ = [0] * len(board.rows)
        self.closed: list[int] = []
        self.lit = 0
        self.out = [False] * self.n
        self.stock = [[ATTACK_PAWNS, DEFENSE_PAWNS] for _ in range(self.n)]
        self.to_move = first
        self.over = False
        self.winners: tuple[int, ...] = ()
        self.ranks = [NEVER_LIT_POINTS] * self.n
        self.bonus = [0] * self.n
        self.lit_before = 0
        self.free = list(range(len(board.slots)))
        self.free_pos = list(range(len(board.slots)))
        self.hot: dict[int, int] = {}
        """Rows whose four pawns are all attack and whose fifth slot is free: row -> that slot."""
        self.moves = 0

    def copy(self) -> Sim:
        clone = Sim.__new__(Sim)
        clone.board = self.board
        clone.n = self.n
        clone.owner_node = self.owner_node
        clone.node_owner = self.node_owner
        clone.occ = self.occ[:]
        clone.att = self.att[:]
        clone.row_att = self.row_att[:]
        clone.row_occ = self.row_occ[:]
        clone.closed = self.closed[:]
        clone.lit = self.lit
        clone.out = self.out[:]
        clone.stock = [s[:] for s in self.stock]
        clone.to_move = self.to_move
        clone.over = self.over
        clone.winners = self.winners
        clone.ranks = self.ranks[:]
        clone.bonus = self.bonus[:]
        clone.lit_before = self.lit_before
        clone.free = self.free[:]
        clone.free_pos = self.free_pos[:]
        clone.hot = dict(self.hot)
        clone.moves = self.moves
        return clone

    # -- placing -------------------------------------------------------------

    def place_handicap(self, slot: int) -> None:
        """A handicap pawn (attack, nobody's) before play."""
        self._put(slot, HANDICAP, True)
        if self.row_closed_any(slot):
            self.lit = self.board.lit_mask(self.closed)

    def row_closed_any(self, slot: int) -> bool:
        return any(self.row_att[r] == ROW for r in self.board.rows_of[slot])

    def push(self, slot: int, attack: bool) -> int:
        """The player to move places a pawn; returns the bitmask of lamps it lit."""
        mover = self.to_move
        self.stock[mover][0 if attack else 1] -= 1
        self._put(slot, mover, attack)
        self.moves += 1
        newly = 0
        if attack and self.row_closed_any(slot):
            lit = self.board.lit_mask(self.closed)
            newly = lit & ~self.lit
            self.lit = lit
            if newly:
                self._eliminate(newly, mover)
        self._settle(mover)
        return newly

    def _put(self, slot: int, owner: int, attack: bool) -> None:
        self.occ[slot] = owner
        self.att[slot] = attack
        # Remove from the free list in O(1): swap with the last.
        pos = self.free_pos[slot]
        last = self.free[-1]
        self.free[pos] = last
        self.free_pos[last] = pos
        self.free.pop()
        row_att, row_occ, hot = self.row_att, self.row_occ, self.hot
        for r in self.board.rows_of[slot]:
            row_occ[r] += 1
            if attack:
                row_att[r] += 1
                if row_att[r] == ROW:
                    self.closed.append(r)
                    hot.pop(r, None)
                elif row_att[r] == ROW - 1 and row_occ[r] == ROW - 1:
                    hot[r] = next(s for s in self.board.rows[r] if self.occ[s] == FREE)
            else:
                hot.pop(r, None)

    def _eliminate(self, newly: int, mover: int) -> None:
        out = [self.node_owner[node] for node in range(1, len(self.node_owner)) if newly >> node & 1]
        players = [p for p in out if p >= 0 and not self.out[p]]
        if not players:
            return
        rank = self.lit_before + 1
        for p in players:
            self.out[p] = True
            self.ranks[p] = RANK_POINTS.get(rank, RANK_POINTS[3])
        self.lit_before += len(players)
        opponents = sum(1 for p in players if p != mover)
        self.bonus[mover] += BONUS_POINTS.get(min(opponents, 3), 0)
        if all(self.out):
            self.over = True
            self.winners = tuple(players)

    def _settle(self, mover: int) -> None:
        if self.over:
            return
        remaining = [p for p in range(self.n) if not self.out[p]]
        lamps_unlit = len(self.board.lamps) - bin(self.lit).count("1")
        if len(remaining) == 1 or lamps_unlit < 2 or not self.free:
            self.over = True
            self.winners = tuple(remaining)
            return
        n = self.n
        for step in range(1, n + 1):
            p = (mover + step) % n
            if not self.out[p] and (self.stock[p][0] or self.stock[p][1]):
                self.to_move = p
                return
        self.over = True
        self.winners = tuple(remaining)

    # -- reading -------------------------------------------------------------

    def would_light(self, row: int) -> int:
        """Lamps (bitmask) that closing ``row`` would light now."""
        return self.board.lit_mask([*self.closed, row]) & ~self.lit

    def owners(self, mask: int) -> list[int]:
        """Players still in whose lamps are in ``mask``."""
        return [p for p in range(self.n) if mask >> self.owner_node[p] & 1 and not self.out[p]]

    def points(self) -> list[int]:
        return [r + b for r, b in zip(self.ranks, self.bonus, strict=True)]

    def rewards(self) -> list[float]:
        """Each seat's result in [0, 1]: mostly its share of the win, a little its points."""
        share = 1.0 / len(self.winners) if self.winners else 0.0
        points = self.points()
        return [
            WIN_WEIGHT * (share if p in self.winners else 0.0) + (1 - WIN_WEIGHT) * min(points[p], 12) / 12
            for p in range(self.n)
        ]
