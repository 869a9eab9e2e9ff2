"""Board layouts: which slots make up which rows, and where each row leads.

A layout is data (a JSON file) so that a board builder can describe their own
wiring. The shipped layouts live in ``games/hautetension/layouts/``; the
default is ``pinwheel-80`` (DESIGN §3).

Every layout is validated when loaded, and every problem is reported at once
with a sentence a board builder understands.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from games.datafiles import DataFiles
from games.exc import LayoutError, UnknownLayoutError, UnknownSlotError

DEFAULT_LAYOUT = "pinwheel-80"
ROW_LENGTH = 5
BATTERY = "+"
"""The battery's node name in the circuit graph."""


class RowKind(enum.Enum):
    """A straight row links the battery to one lamp; a diagonal links two lamps."""

    STRAIGHT = "straight"
    DIAGONAL = "diagonal"


@dataclass(frozen=True)
class Row:
    """Five slots wired in series between two nodes of the circuit."""

    id: str
    kind: RowKind
    lamps: tuple[str, ...]
    slots: tuple[str, ...]

    @property
    def ends(self) -> tuple[str, str]:
        """The two circuit nodes this row joins when it is closed."""
        if self.kind is RowKind.STRAIGHT:
            return (BATTERY, self.lamps[0])
        return (self.lamps[0], self.lamps[1])


@dataclass(frozen=True)
class Layout:
    """A validated board: slots, lamps and rows.

    Positions are (row, column) on the drawing grid; lamps and the battery may
    sit outside the grid of slots (pinwheel-80 draws its lamps one cell beyond
    each edge).
    """

    name: str
    description: str
    grid: tuple[int, int]
    battery: tuple[int, int]
    lamp_positions: Mapping[str, tuple[int, int]]
    slot_positions: Mapping[str, tuple[int, int]]
    rows: tuple[Row, ...]
    rows_of_slot: Mapping[str, tuple[int, ...]] = field(repr=False)

    @cached_property
    def slots(self) -> tuple[str, ...]:
        """Slot names in reading order (top row first, left to right)."""
        return tuple(self.slot_positions)

    @cached_property
    def slot_index(self) -> Mapping[str, int]:
        """Slot name → its place in :attr:`slots` (reading order)."""
        return {slot: index for index, slot in enumerate(self.slots)}

    @cached_property
    def rows_by_id(self) -> Mapping[str, Row]:
        return {row.id: row for row in self.rows}

    @cached_property
    def lamps(self) -> tuple[str, ...]:
        return tuple(self.lamp_positions)

    def check_slot(self, slot: str) -> str:
        """Return *slot* if the board has it, else raise :class:`UnknownSlotError`."""
        if slot not in self.slot_positions:
            raise UnknownSlotError(slot)
        return slot

    def straight_rows_of(self, lamp: str) -> tuple[Row, ...]:
        """The rows that link the battery directly to *lamp* (where handicap pawns go)."""
        return tuple(r for r in self.rows if r.kind is RowKind.STRAIGHT and r.lamps[0] == lamp)

    def to_dict(self) -> dict[str, Any]:
        """The layout in its file format (what :func:`parse_layout` reads)."""
        return {
            "name": self.name,
            "description": self.description,
            "grid": {"rows": self.grid[0], "columns": self.grid[1]},
            "battery": list(self.battery),
            "lamps": {lamp: list(pos) for lamp, pos in self.lamp_positions.items()},
            "slots": {slot: list(pos) for slot, pos in self.slot_positions.items()},
            "rows": [
                {"id": r.id, "kind": r.kind.value, "lamps": list(r.lamps), "slots": list(r.slots)}
                for r in self.rows
            ],
        }


def available_layouts() -> list[str]:
    """Names of the layouts shipped with the package."""
    return _LAYOUTS.names()


def load_layout(name_or_path: str | Path = DEFAULT_LAYOUT) -> Layout:
    """Load a shipped layout by name, or a layout file by path, and validate it."""
    return _LAYOUTS.load(name_or_path)


def parse_layout(data: Any, *, source: str = "layout") -> Layout:
    """Build a :class:`Layout` from its file format, reporting every problem found."""
    problems: list[str] = []
    if not isinstance(data, dict):
        raise LayoutError("the layout must be a JSON object", source=source)
    slot_positions = _parse_positions(data.get("slots"), "slot", problems)
    lamp_positions = _parse_positions(data.get("lamps"), "lamp", problems)
    battery = _parse_point(data.get("battery", [0, 0]), "battery", problems)
    if not problems:  # a malformed position would show up as a false clash
        _check_positions(slot_positions, lamp_positions, battery if "battery" in data else None, problems)
    if len(lamp_positions) < 2:
        problems.append("a board needs at least two lamps")
    if BATTERY in lamp_positions:
        problems.append(f"{BATTERY!r} is the battery and cannot name a lamp")
    rows = _parse_rows(data.get("rows"), slot_positions, lamp_positions, problems)
    grid = _parse_grid(data.get("grid", {}), problems)
    _check_lamps_wired(lamp_positions, data.get("rows"), problems)
    if problems:
        raise LayoutError(problems, source=source)
    rows_of_slot: dict[str, list[int]] = {slot: [] for slot in slot_positions}
    for index, row in enumerate(rows):
        for slot in row.slots:
            rows_of_slot[slot].append(index)
    return Layout(
        name=str(data.get("name", source)),
        description=str(data.get("description", "")),
        grid=grid,
        battery=battery,
        lamp_positions=lamp_positions,
        slot_positions=dict(sorted(slot_positions.items(), key=lambda item: item[1])),
        rows=tuple(rows),
        rows_of_slot={slot: tuple(ids) for slot, ids in rows_of_slot.items()},
    )


def _parse_grid(value: Any, problems: list[str]) -> tuple[int, int]:
    """The drawing grid's size (used to draw the board, not to wire it)."""
    if not isinstance(value, dict):
        problems.append(f'"grid" must be an object {{"rows": R, "columns": C}}, not {value!r}')
        return (0, 0)
    size = (value.get("rows", 0), value.get("columns", 0))
    if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in size):
        problems.append(f'"grid" rows and columns must be whole numbers, not {size[0]!r} and {size[1]!r}')
        return (0, 0)
    return (size[0], size[1])


def _check_positions(
    slots: Mapping[str, tuple[int, int]],
    lamps: Mapping[str, tuple[int, int]],
    battery: tuple[int, int] | None,
    problems: list[str],
) -> None:
    """Two things drawn in the same cell mean a typing mistake in the file."""
    where: dict[tuple[int, int], str] = {battery: "the battery"} if battery is not None else {}
    for what, positions in (("slot", slots), ("lamp", lamps)):
        for name, pos in positions.items():
            if pos in where:
                problems.append(f"{what} {name} is drawn at {list(pos)}, where {where[pos]} already is")
            else:
                where[pos] = f"{what} {name}"


def _check_lamps_wired(lamps: Mapping[str, tuple[int, int]], raw_rows: Any, problems: list[str]) -> None:
    items = [item for item in raw_rows if isinstance(item, dict)] if isinstance(raw_rows, list) else []
    wired = {lamp for item in items for lamp in _names(item.get("lamps"))}
    for lamp in lamps:
        if lamp not in wired:
            problems.append(f"lamp {lamp} is wired to no row, so it could never light")
    if items and not any(item.get("kind") == RowKind.STRAIGHT.value for item in items):
        problems.append("no straight row links a lamp to the battery, so no lamp could ever light")


def _parse_point(value: Any, what: str, problems: list[str]) -> tuple[int, int]:
    if (
        isinstance(value, list)
        and len(value) == 2
        and all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    ):
        return (value[0], value[1])
    problems.append(f"{what} position must be [row, column] integers, not {value!r}")
    return (0, 0)


def _parse_positions(value: Any, what: str, problems: list[str]) -> dict[str, tuple[int, int]]:
    if not isinstance(value, dict) or not value:
        problems.append(f'"{what}s" must be a non-empty object mapping each {what} name to [row, column]')
        return {}
    return {str(name): _parse_point(pos, f"{what} {name!r}", problems) for name, pos in value.items()}


def _parse_rows(
    value: Any,
    slots: Mapping[str, tuple[int, int]],
    lamps: Mapping[str, tuple[int, int]],
    problems: list[str],
) -> list[Row]:
    if not isinstance(value, list) or not value:
        problems.append('"rows" must be a non-empty list')
        return []
    rows: list[Row] = []
    seen_ids: set[str] = set()
    for number, item in enumerate(value, start=1):
        row = _parse_row(number, item, slots, lamps, problems)
        if row is None:
            continue
        if row.id in seen_ids:
            problems.append(f"row {row.id!r} is defined twice")
        seen_ids.add(row.id)
        rows.append(row)
    # A slot named only by a malformed row is already reported through that row.
    mentioned = {s for item in value if isinstance(item, dict) for s in _names(item.get("slots"))}
    unused = sorted(set(slots) - mentioned)
    if unused:
        problems.append(f"slot(s) {', '.join(unused)} belong to no row")
    return rows


def _names(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _parse_row(
    number: int,
    item: Any,
    slots: Mapping[str, tuple[int, int]],
    lamps: Mapping[str, tuple[int, int]],
    problems: list[str],
) -> Row | None:
    if not isinstance(item, dict):
        problems.append(f"row #{number} must be an object")
        return None
    row_id = str(item.get("id", f"#{number}"))
    label = f"row {row_id}"
    try:
        kind = RowKind(item.get("kind"))
    except ValueError:
        problems.append(f'{label}: "kind" must be "straight" or "diagonal", not {item.get("kind")!r}')
        return None
    row_slots = item.get("slots")
    row_lamps = item.get("lamps")
    if not isinstance(row_slots, list) or not all(isinstance(s, str) for s in row_slots):
        problems.append(f"{label}: \"slots\" must be a list of slot names")
        return None
    if not isinstance(row_lamps, list) or not all(isinstance(s, str) for s in row_lamps):
        problems.append(f"{label}: \"lamps\" must be a list of lamp names")
        return None
    start = len(problems)
    if len(row_slots) != ROW_LENGTH:
        problems.append(f"{label} has {len(row_slots)} slots; every row has exactly {ROW_LENGTH}")
    for slot in sorted({s for s in row_slots if row_slots.count(s) > 1}):
        problems.append(f"{label} lists slot {slot} more than once")
    for slot in row_slots:
        if slot not in slots:
            problems.append(f"{label} names unknown slot {slot!r}")
    for lamp in row_lamps:
        if lamp not in lamps:
            problems.append(f"{label} names unknown lamp {lamp!r}")
    if kind is RowKind.STRAIGHT and len(row_lamps) != 1:
        problems.append(
            f"{label} is straight, so it links the battery to exactly one lamp (it names {len(row_lamps)})"
        )
    if kind is RowKind.DIAGONAL:
        if len(row_lamps) != 2:
            problems.append(f"{label} is diagonal, so it links exactly two lamps (it names {len(row_lamps)})")
        elif row_lamps[0] == row_lamps[1]:
            problems.append(f"{label} is diagonal but joins lamp {row_lamps[0]} to itself")
    if len(problems) > start:
        return None
    return Row(id=row_id, kind=kind, lamps=tuple(row_lamps), slots=tuple(row_slots))


def slot_name(row: int, column: int) -> str:
    """Chess-style name of a grid cell: columns a–i left to right, rows 9–1 top to bottom."""
    return "abcdefghi"[column] + str(9 - row)


_LAYOUTS = DataFiles(
    "games.hautetension",
    "layouts",
    parse=lambda data, source: parse_layout(data, source=source),
    error=LayoutError,
    unknown=UnknownLayoutError,
    what="layout",
)
"""The layout files: shipped ones in ``games/hautetension/layouts/`` (parsed once), or a builder's by path."""
