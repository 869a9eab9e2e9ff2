"""Circuit evaluation: which rows are closed and which lamps are lit.

A row is *closed* when all five of its slots hold attack pawns. The closed rows
are edges of a graph whose nodes are the battery and the lamps; a lamp is lit
exactly when it is connected to the battery in that graph, so lit lamps
propagate along closed diagonals, in chains. While the test button is held,
every lamp is lit (DESIGN §3).

:func:`evaluate` computes everything from scratch; :class:`Circuit` keeps a
count of attack pawns per row and updates it one placement at a time, which is
what the board service and the computer players use.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass

from games.exc import UnknownSlotError
from games.hautetension.layout import BATTERY, ROW_LENGTH, Layout

_NO_LAMPS: frozenset[str] = frozenset()


@dataclass(frozen=True)
class CircuitState:
    """The result of an evaluation."""

    closed_rows: frozenset[str]
    """Ids of the rows whose five slots all hold attack pawns."""
    lit: frozenset[str]
    """Names of the lamps that are lit."""

    def to_dict(self) -> dict[str, list[str]]:
        return {"lit": sorted(self.lit), "closed_rows": sorted(self.closed_rows)}


def lit_lamps(layout: Layout, closed_row_ids: Iterable[str], *, button: bool = False) -> frozenset[str]:
    """Lamps connected to the battery through the closed rows (all lamps if *button*)."""
    if button:
        return frozenset(layout.lamps)
    by_id = layout.rows_by_id
    neighbours: dict[str, set[str]] = {}
    for row_id in closed_row_ids:
        a, b = by_id[row_id].ends
        neighbours.setdefault(a, set()).add(b)
        neighbours.setdefault(b, set()).add(a)
    reached = {BATTERY}
    frontier = [BATTERY]
    while frontier:
        node = frontier.pop()
        for other in neighbours.get(node, ()):
            if other not in reached:
                reached.add(other)
                frontier.append(other)
    return frozenset(reached - {BATTERY})


def lamp_paths(layout: Layout, closed_row_ids: Iterable[str]) -> dict[str, tuple[str, ...]]:
    """Why each lit lamp is lit: the closed rows of a shortest path from the battery to it.

    Secret while a game runs (closed rows tell which pawns conduct): the replay shows it only once
    every player has agreed to reveal their pawns. Ties between paths of one length go to the rows
    listed first in the layout, so the answer is the same every time."""
    by_id = layout.rows_by_id
    closed = [row.id for row in layout.rows if row.id in set(closed_row_ids)]
    neighbours: dict[str, list[tuple[str, str]]] = {}
    for row_id in closed:
        a, b = by_id[row_id].ends
        neighbours.setdefault(a, []).append((b, row_id))
        neighbours.setdefault(b, []).append((a, row_id))
    path: dict[str, tuple[str, ...]] = {BATTERY: ()}
    frontier = [BATTERY]
    while frontier:
        following: list[str] = []
        for node in frontier:
            for other, row_id in neighbours.get(node, ()):
                if other not in path:
                    path[other] = (*path[node], row_id)
                    following.append(other)
        frontier = following
    return {lamp: rows for lamp, rows in path.items() if lamp != BATTERY}


def evaluate(layout: Layout, attack: Collection[str], *, button: bool = False) -> CircuitState:
    """Evaluate the whole board from the set of slots holding attack pawns."""
    attack_set = {layout.check_slot(slot) for slot in attack}
    closed = frozenset(row.id for row in layout.rows if all(s in attack_set for s in row.slots))
    return CircuitState(closed_rows=closed, lit=lit_lamps(layout, closed, button=button))


class Circuit:
    """Incremental evaluation of one board, one pawn at a time.

    Only attack pawns matter to the wires: a defense pawn (or an empty slot)
    keeps its rows open. ``add_attack`` and ``remove_attack`` touch only the
    rows through that slot, and recompute lamp connectivity only when the set
    of closed rows changes.
    """

    def __init__(self, layout: Layout, attack: Iterable[str] = ()) -> None:
        self.layout = layout
        self._rows_of_slot = layout.rows_of_slot
        self._rows = layout.rows
        self._count = [0] * len(layout.rows)
        self._attack: set[str] = set()
        self._closed: set[str] = set()
        self._lit: frozenset[str] = frozenset()
        for slot in attack:
            self.add_attack(slot)

    @property
    def attack(self) -> frozenset[str]:
        return frozenset(self._attack)

    @property
    def closed_rows(self) -> frozenset[str]:
        return frozenset(self._closed)

    @property
    def lit(self) -> frozenset[str]:
        return self._lit

    def state(self, *, button: bool = False) -> CircuitState:
        lit = frozenset(self.layout.lamps) if button else self._lit
        return CircuitState(closed_rows=frozenset(self._closed), lit=lit)

    def add_attack(self, slot: str) -> frozenset[str]:
        """An attack pawn is now in *slot*; return the lamps this newly lit."""
        # Called on every attack pawn of every game: the slot check and the
        # row lookup are one dict access, and the usual answer (nothing lit)
        # is a shared empty set.
        rows = self._rows_of_slot.get(slot)
        if rows is None:
            raise UnknownSlotError(slot)
        attack = self._attack
        if slot in attack:
            return _NO_LAMPS
        attack.add(slot)
        count = self._count
        newly_closed = False
        for index in rows:
            pawns = count[index] + 1
            count[index] = pawns
            if pawns == ROW_LENGTH:
                self._closed.add(self._rows[index].id)
                newly_closed = True
        if not newly_closed:
            return _NO_LAMPS
        before = self._lit
        self._lit = lit_lamps(self.layout, self._closed)
        return self._lit - before

    def remove_attack(self, slot: str) -> frozenset[str]:
        """The attack pawn in *slot* was lifted; return the lamps this put out."""
        self.layout.check_slot(slot)
        if slot not in self._attack:
            return frozenset()
        self._attack.discard(slot)
        opened = False
        for index in self.layout.rows_of_slot[slot]:
            if self._count[index] == ROW_LENGTH:
                self._closed.discard(self._rows[index].id)
                opened = True
            self._count[index] -= 1
        if not opened:
            return frozenset()
        before = self._lit
        self._lit = lit_lamps(self.layout, self._closed)
        return before - self._lit

    def copy(self) -> Circuit:
        clone = Circuit.__new__(Circuit)
        clone.layout = self.layout
        clone._rows_of_slot = self._rows_of_slot
        clone._rows = self._rows
        clone._count = list(self._count)
        clone._attack = set(self._attack)
        clone._closed = set(self._closed)
        clone._lit = self._lit
        return clone
