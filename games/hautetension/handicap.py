"""Handicap pawns: attack pawns placed before play on a strong player's direct rows.

The tournament rules put one attack pawn on one, two or three of the rows
that lead straight from the battery to a lamp. Where exactly is not said; the
choice here is the same for every lamp of a symmetric layout, so a handicap
weighs the same whoever carries it:

- rows: the straight rows of that lamp nearest to the lamp first (distance from
  the lamp to the middle of the row; ties by row id), one pawn per row;
- slot in a row: a slot on that row only if there is one (so the pawn helps no
  diagonal and no other lamp), the one nearest to the lamp; ties by slot name.

On pinwheel-80, a handicap of 1 on W puts a pawn on a6; on N, on f9.
"""

from __future__ import annotations

from collections.abc import Mapping

from games.exc import SetupError
from games.hautetension.layout import Layout, Row

MAX_HANDICAP = 3


def _distance2(a: tuple[float, float], b: tuple[float, float]) -> float:
    return (a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2


def _row_middle(layout: Layout, row: Row) -> tuple[float, float]:
    points = [layout.slot_positions[s] for s in row.slots]
    return (sum(p[0] for p in points) / len(points), sum(p[1] for p in points) / len(points))


def handicap_slots(
    layout: Layout, lamp: str, count: int, *, taken: frozenset[str] = frozenset()
) -> tuple[str, ...]:
    """The slots that *count* handicap pawns on *lamp* occupy (see the module docstring)."""
    if lamp not in layout.lamp_positions:
        raise SetupError(
            f"handicap names lamp {lamp!r}, but this board's lamps are {', '.join(layout.lamps)}"
        )
    if not 1 <= count <= MAX_HANDICAP:
        raise SetupError(f"a handicap is 1 to {MAX_HANDICAP} attack pawns, not {count}")
    lamp_at = layout.lamp_positions[lamp]
    rows = sorted(
        layout.straight_rows_of(lamp), key=lambda r: (_distance2(_row_middle(layout, r), lamp_at), r.id)
    )
    chosen: list[str] = []
    for row in rows:
        if len(chosen) == count:
            break
        free = [s for s in row.slots if s not in taken and s not in chosen]
        if not free:
            continue
        chosen.append(
            min(
                free,
                key=lambda s: (len(layout.rows_of_slot[s]), _distance2(layout.slot_positions[s], lamp_at), s),
            )
        )
    if len(chosen) < count:
        raise SetupError(
            f"lamp {lamp} has only {len(chosen)} direct row(s) free for handicap pawns, not {count}"
        )
    return tuple(chosen)


def handicap_plan(layout: Layout, handicap: Mapping[str, int]) -> dict[str, tuple[str, ...]]:
    """Slots of every handicap pawn, lamp by lamp (lamps in layout order)."""
    unknown = sorted(set(handicap) - set(layout.lamps))
    if unknown:
        raise SetupError(f"handicap names unknown lamp(s) {', '.join(unknown)}")
    plan: dict[str, tuple[str, ...]] = {}
    taken: frozenset[str] = frozenset()
    for lamp in layout.lamps:
        if lamp in handicap:
            plan[lamp] = handicap_slots(layout, lamp, handicap[lamp], taken=taken)
            taken |= set(plan[lamp])
    return plan
