"""Text drawing of a layout, for the terminal: slots, lamps, battery and rows."""

from __future__ import annotations

from collections.abc import Collection, Mapping

from games.hautetension.layout import BATTERY, Layout, RowKind


def draw_grid(
    layout: Layout, *, highlight: Collection[str] = (), labels: Mapping[str, str] | None = None
) -> str:
    """The board as a grid of slot names, with the lamps and the battery in place.

    Slots and lamps in *highlight* are drawn in brackets; *labels* replaces slot
    names with other text (see :func:`draw_wiring`).
    """
    labels = labels or {}
    cells: dict[tuple[int, int], str] = {layout.battery: BATTERY}
    cells.update({pos: labels.get(slot, slot) for slot, pos in layout.slot_positions.items()})
    cells.update({pos: lamp for lamp, pos in layout.lamp_positions.items()})
    width = max(len(label) for label in cells.values()) + 2
    rows = [pos[0] for pos in cells]
    columns = [pos[1] for pos in cells]
    lines = []
    for r in range(min(rows), max(rows) + 1):
        line = ""
        for c in range(min(columns), max(columns) + 1):
            label = cells.get((r, c), "")
            if label in highlight:
                label = f"[{label}]"
            elif label in layout.lamp_positions:
                label = f"({label})"
            line += label.center(width)
        lines.append(line.rstrip())
    return "\n".join(lines)


def draw_wiring(layout: Layout) -> str:
    """The grid again, each slot showing the straight row it is on, plus one * per diagonal."""
    labels = {}
    for slot in layout.slots:
        rows = [layout.rows[i] for i in layout.rows_of_slot[slot]]
        straight = [r.id for r in rows if r.kind is RowKind.STRAIGHT]
        diagonals = sum(1 for r in rows if r.kind is RowKind.DIAGONAL)
        labels[slot] = ("/".join(straight) or "-") + "*" * diagonals
    return draw_grid(layout, labels=labels)


def describe_rows(layout: Layout) -> str:
    """One line per row: its id, kind, the two nodes it joins and its five slots."""
    id_width = max(len(row.id) for row in layout.rows)
    lines = []
    for row in layout.rows:
        a, b = row.ends
        ends = f"battery - {b}" if row.kind is RowKind.STRAIGHT else f"{a} - {b}"
        lines.append(f"  {row.id:<{id_width}}  {row.kind.value:<8}  {ends:<12}  {' '.join(row.slots)}")
    return "\n".join(lines)


def describe_layout(layout: Layout, *, highlight: Collection[str] = ()) -> str:
    """Everything ``hautetension layout show`` prints."""
    straight = sum(1 for row in layout.rows if row.kind is RowKind.STRAIGHT)
    shared = [slot for slot in layout.slots if len(layout.rows_of_slot[slot]) > 2]
    parts = [
        f"{layout.name}: {len(layout.slots)} slots, lamps {', '.join(layout.lamps)}, "
        f"{straight} straight rows (battery to lamp), "
        f"{len(layout.rows) - straight} diagonal rows (lamp to lamp)",
        layout.description,
        "",
        draw_grid(layout, highlight=highlight),
        "",
        "Wiring (the straight row of each slot; * for each diagonal through it):",
        draw_wiring(layout),
        "",
        "Rows:",
        describe_rows(layout),
    ]
    if shared:
        parts.append(f"Slots on more than two rows: {' '.join(shared)}")
    return "\n".join(parts)
