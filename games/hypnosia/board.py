"""Hypnosia board geometry, read from a data file and validated.

A board is a set of concentric circles (outermost first), each a closed loop
of squares given by each square's ``next`` square counter-clockwise (the only
way pawns move); bridges lead from a square of one circle to a square of the
next circle inward, and from the innermost circle to the centre; every colour
has an entry square on the outer circle and four start squares in a lane
before it (the first one step before the entry, the fourth four steps).

The shipped boards live in ``games/hypnosia/boards/``; the default one is
described in docs/hypnosia.md. Every problem of a file is reported at once.

The compiled :class:`Board` numbers the squares (the centre last) and keeps
flat tables so that move generation is a few list look-ups.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from games.datafiles import DataFiles
from games.hypnosia.exc import BoardError, UnknownBoardError

DEFAULT_BOARD: Final = "default"
CENTRE: Final = "centre"
PAWNS_PER_COLOUR: Final = 4
MAX_STEP: Final = 12
"""The longest move: the sum of two dice."""


@dataclass(frozen=True)
class Colour:
    """A player's colour: where its pawns start and where they enter the outer circle."""

    name: str
    entry: str
    start: tuple[str, ...]
    """Start squares; ``start[k]`` is pawn k+1's, k+1 steps before the entry."""


@dataclass(frozen=True)
class Board:
    """A validated board with its squares numbered for the rules engine."""

    name: str
    description: str
    circle_names: tuple[str, ...]
    circles: tuple[tuple[str, ...], ...]
    """Each circle's squares in counter-clockwise order, outermost circle first."""
    bridges: dict[str, str]
    colours: tuple[Colour, ...]
    squares: tuple[str, ...] = field(repr=False)
    """Every square's name by number; the centre is the last one."""
    index: dict[str, int] = field(repr=False)
    step: tuple[tuple[int, ...], ...] = field(repr=False)
    """``step[s][v]``: where a pawn on square ``s`` lands after ``v`` steps without crossing (-1: none)."""
    cross: tuple[tuple[int, ...], ...] = field(repr=False)
    """``cross[s][v]``: where it lands after crossing the bridge at ``s`` with ``v`` (-1: not possible)."""
    lane: tuple[int, ...] = field(repr=False)
    """Steps from a start square to its entry square (0 elsewhere)."""
    ring: tuple[int, ...] = field(repr=False)
    """The circle of each square (0 outermost), -1 for start squares, len(circles) for the centre."""

    def __deepcopy__(self, memo: dict[int, Any]) -> Board:
        return self  # immutable once validated: copies of a game share their board

    @property
    def centre(self) -> int:
        return len(self.squares) - 1

    @property
    def max_players(self) -> int:
        return len(self.colours)

    def colour(self, name: str) -> Colour:
        for colour in self.colours:
            if colour.name == name:
                return colour
        raise BoardError(f"there is no colour {name!r} on this board", source=self.name)

    def is_bridge(self, square: str) -> bool:
        return square in self.bridges

    def to_dict(self) -> dict[str, Any]:
        """The board in its file format (what :func:`parse_board` reads)."""
        return {
            "name": self.name,
            "description": self.description,
            "circles": [
                {"name": name, "next": {sq: circle[(i + 1) % len(circle)] for i, sq in enumerate(circle)}}
                for name, circle in zip(self.circle_names, self.circles, strict=True)
            ],
            "bridges": dict(self.bridges),
            "colours": [{"name": c.name, "entry": c.entry, "start": list(c.start)} for c in self.colours],
        }


def available_boards() -> list[str]:
    """Names of the boards shipped with the game."""
    return _BOARDS.names()


def load_board(name_or_path: str | Path = DEFAULT_BOARD) -> Board:
    """Load a shipped board by name, or a board file by path, and validate it."""
    return _BOARDS.load(name_or_path)


def parse_board(data: Any, *, source: str = "board") -> Board:
    """Build a :class:`Board` from its file format, reporting every problem found."""
    if not isinstance(data, dict):
        raise BoardError("the board must be a JSON object", source=source)
    problems: list[str] = []
    names, circles = _parse_circles(data.get("circles"), problems)
    on_circle = {sq: ring for ring, circle in enumerate(circles) for sq in circle}
    bridges = _parse_bridges(data.get("bridges"), on_circle, len(circles), problems)
    colours = _parse_colours(data.get("colours"), on_circle, problems)
    if problems:
        raise BoardError(problems, source=source)
    return _compile(
        str(data.get("name", source)), str(data.get("description", "")), names, circles, bridges, colours
    )


def _parse_circles(value: Any, problems: list[str]) -> tuple[tuple[str, ...], tuple[tuple[str, ...], ...]]:
    if not isinstance(value, list) or not value:
        problems.append('"circles" must be a non-empty list of {"name": ..., "next": {square: next square}}')
        return (), ()
    names: list[str] = []
    circles: list[tuple[str, ...]] = []
    seen: set[str] = set()
    for number, item in enumerate(value, 1):
        nexts = item.get("next") if isinstance(item, dict) else None
        name = str(item.get("name", f"circle {number}")) if isinstance(item, dict) else f"circle {number}"
        if not isinstance(nexts, dict) or len(nexts) < 2:
            problems.append(f'{name}: needs a "next" object with at least two squares')
            continue
        if not all(isinstance(k, str) and isinstance(v, str) for k, v in nexts.items()):
            problems.append(f"{name}: square names must be strings")
            continue
        for square in nexts:
            if square == CENTRE:
                problems.append(f"{name}: {CENTRE!r} names the centre and cannot be a square of a circle")
            elif square in seen:
                problems.append(f"{name}: square {square!r} already belongs to another circle")
            seen.add(square)
        loop = _follow(name, nexts, problems)
        if loop:
            names.append(name)
            circles.append(loop)
    return tuple(names), tuple(circles)


def _follow(name: str, nexts: dict[str, str], problems: list[str]) -> tuple[str, ...]:
    """The circle's squares in order, if following ``next`` makes one closed loop through all of them."""
    first = next(iter(nexts))
    loop = [first]
    square = nexts[first]
    while square != first:
        if square not in nexts:
            problems.append(
                f"{name} is not closed: the square after {loop[-1]!r} is {square!r}, "
                "which is not on this circle"
            )
            return ()
        if square in loop:
            problems.append(f"{name} is not closed: it loops back to {square!r} instead of {first!r}")
            return ()
        loop.append(square)
        square = nexts[square]
    if len(loop) != len(nexts):
        missed = sorted(set(nexts) - set(loop))
        problems.append(
            f"{name} is not one closed circle: {len(missed)} squares are off the loop "
            f"from {first!r} ({', '.join(missed[:4])}{'…' if len(missed) > 4 else ''})"
        )
        return ()
    return tuple(loop)


def _parse_bridges(
    value: Any, on_circle: dict[str, int], circles: int, problems: list[str]
) -> dict[str, str]:
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        problems.append('"bridges" must be an object {bridge square: square on the next circle inward}')
        return {}
    bridged: set[int] = set()
    for start, end in value.items():
        if start not in on_circle:
            problems.append(f"bridge {start!r}: not a square of any circle")
            continue
        ring = on_circle[start]
        inward = ring + 1
        end_ring = circles if end == CENTRE else on_circle.get(end)
        if end_ring is None:
            problems.append(f"bridge {start!r} leads to {end!r}, which is not a square of any circle")
        elif end_ring != inward:
            where = "the centre" if inward == circles else "the next circle inward"
            problems.append(f"bridge {start!r} must lead inward to {where}, not to {end!r}")
        else:
            bridged.add(ring)
    for ring in range(circles):
        if ring not in bridged:
            what = "the centre" if ring == circles - 1 else "the next circle"
            problems.append(f"circle {ring + 1} has no bridge to {what}, so the centre cannot be reached")
    return dict(value)


def _parse_colours(value: Any, on_circle: dict[str, int], problems: list[str]) -> tuple[Colour, ...]:
    if not isinstance(value, list) or len(value) < 2:
        problems.append('"colours" must list at least two {"name", "entry", "start": [4 squares]}')
        return ()
    colours: list[Colour] = []
    used: set[str] = set(on_circle) | {CENTRE}
    for number, item in enumerate(value, 1):
        if not isinstance(item, dict):
            problems.append(f"colour {number} must be an object")
            continue
        name = item.get("name")
        entry = item.get("entry")
        start = item.get("start")
        if not isinstance(name, str) or not name or any(c.name == name for c in colours):
            problems.append(f"colour {number} needs a name of its own, not {name!r}")
            continue
        if entry not in on_circle or on_circle[entry] != 0:
            problems.append(f"{name}: the entry {entry!r} must be a square of the outer circle")
        elif any(c.entry == entry for c in colours):
            problems.append(f"{name}: entry {entry!r} is already another colour's entry")
        if (
            not isinstance(start, list)
            or len(start) != PAWNS_PER_COLOUR
            or not all(isinstance(s, str) for s in start)
            or len(set(start)) != PAWNS_PER_COLOUR
        ):
            problems.append(f"{name}: needs {PAWNS_PER_COLOUR} distinct start squares, not {start!r}")
            continue
        for square in start:
            if square in used:
                problems.append(f"{name}: start square {square!r} is already used elsewhere on the board")
            used.add(square)
        colours.append(Colour(name, str(entry), tuple(start)))
    return tuple(colours)


def _compile(
    name: str,
    description: str,
    names: tuple[str, ...],
    circles: tuple[tuple[str, ...], ...],
    bridges: dict[str, str],
    colours: tuple[Colour, ...],
) -> Board:
    squares = [sq for circle in circles for sq in circle]
    squares += [sq for colour in colours for sq in colour.start]
    squares.append(CENTRE)
    index = {sq: i for i, sq in enumerate(squares)}
    centre = index[CENTRE]
    nxt = [-1] * len(squares)
    ring = [len(circles)] * len(squares)
    lane = [0] * len(squares)
    for r, circle in enumerate(circles):
        for i, sq in enumerate(circle):
            nxt[index[sq]] = index[circle[(i + 1) % len(circle)]]
            ring[index[sq]] = r
    for colour in colours:
        chain = [colour.entry, *colour.start]
        for k in range(1, len(chain)):
            nxt[index[chain[k]]] = index[chain[k - 1]]
            ring[index[chain[k]]] = -1
            lane[index[chain[k]]] = k

    def walk(square: int, steps: int) -> int:
        for _ in range(steps):
            square = nxt[square]
        return square

    step = []
    cross = []
    for s in range(len(squares)):
        if s == centre:
            step.append((-1,) * (MAX_STEP + 1))
            cross.append((-1,) * (MAX_STEP + 1))
            continue
        step.append(tuple(-1 if v == 0 or v < lane[s] else walk(s, v) for v in range(MAX_STEP + 1)))
        target = bridges.get(squares[s])
        if target is None:
            cross.append((-1,) * (MAX_STEP + 1))
        elif target == CENTRE:
            cross.append(tuple(centre if v == 1 else -1 for v in range(MAX_STEP + 1)))
        else:
            cross.append(tuple(-1 if v == 0 else walk(index[target], v - 1) for v in range(MAX_STEP + 1)))
    return Board(
        name=name,
        description=description,
        circles=circles,
        bridges=dict(bridges),
        colours=colours,
        squares=tuple(squares),
        index=index,
        step=tuple(step),
        cross=tuple(cross),
        lane=tuple(lane),
        ring=tuple(ring),
        circle_names=names,
    )


_BOARDS = DataFiles(
    "games.hypnosia",
    "boards",
    parse=lambda data, source: parse_board(data, source=source),
    error=BoardError,
    unknown=UnknownBoardError,
    what="board",
)
"""The board files: shipped ones in ``games/hypnosia/boards/`` (parsed once), or a builder's by path."""
