"""|Hop> boards as data: site cards and electrodes joined by straight lines.

A board file (``games/hop/boards/*.json``) names its nodes and lists the
straight lines they sit on; two nodes are adjacent when they follow each
other on a line. Lines are what the straight movements (quantum Newton's
cradle, quantum tunnel) follow, so any layout the rules invite -- square,
triangle, hexagon -- is written the same way (a hexagonal layout simply has
lines in three directions). Electrodes take the place of a site card: an
electrode is a node of the lines like any site, listed in the order of play
with its colour. Every problem of a file is reported at once.

The compiled :class:`Board` numbers the nodes and keeps, for every node, its
*rays*: the nodes met going away from it along each of its lines, nearest
first, so that move generation is list walking.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from games.datafiles import DataFiles
from games.hop.exc import BoardError, UnknownBoardError

DEFAULT_BOARDS: Final[dict[int, str]] = {2: "square-5x5-2", 3: "square-5x5-3", 4: "square-6x6-4"}
"""The board each player count uses unless told otherwise (DESIGN §5)."""


@dataclass(frozen=True)
class Board:
    """A validated board with its nodes numbered for the rules engine."""

    name: str
    description: str
    nodes: tuple[str, ...]
    """Every node's name by number (sites and electrodes)."""
    positions: tuple[tuple[float, float], ...]
    """Where each node is drawn (x to the right, y upward, one unit per card)."""
    lines: tuple[tuple[int, ...], ...]
    colours: tuple[str, ...]
    """The electrodes' colours, in the order of play (seat k plays colour k)."""
    electrodes: tuple[int, ...]
    """The node of each colour's electrode."""
    teams: tuple[int, ...]
    """The team of each colour (every colour its own team unless the board pairs them)."""
    index: dict[str, int] = field(repr=False)
    electrode_at: tuple[int, ...] = field(repr=False)
    """For each node, the colour whose electrode it is, or -1 for a site."""
    rays: tuple[tuple[tuple[int, ...], ...], ...] = field(repr=False)
    """For each node, the nodes met going away from it along each line, nearest first."""
    neighbours: tuple[tuple[int, ...], ...] = field(repr=False)
    memo: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    """Tables computed from the board by its users (e.g. the players' distances)."""

    @property
    def seats(self) -> int:
        return len(self.colours)

    @property
    def sites(self) -> tuple[int, ...]:
        return tuple(n for n in range(len(self.nodes)) if self.electrode_at[n] < 0)

    def is_electrode(self, node: int) -> bool:
        return self.electrode_at[node] >= 0

    # -- growing: a site card added beside the board (the impurity effect) --------

    @property
    def is_grid(self) -> bool:
        """Square cards: whole-number positions, every line a row or column of touching cards."""
        if "grid" not in self.memo:
            whole = all(x == int(x) and y == int(y) for x, y in self.positions)
            touching = all(
                abs(self.positions[a][0] - self.positions[b][0])
                + abs(self.positions[a][1] - self.positions[b][1])
                == 1
                for line in self.lines
                for a, b in zip(line, line[1:], strict=False)
            )
            self.memo["grid"] = whole and touching
        grid: bool = self.memo["grid"]
        return grid

    def node_at(self, x: int, y: int) -> int | None:
        """The node drawn at (x, y), if any."""
        if "at" not in self.memo:
            self.memo["at"] = {(int(px), int(py)): n for n, (px, py) in enumerate(self.positions)}
        at: dict[tuple[int, int], int] = self.memo["at"]
        return at.get((x, y))

    def free_positions_beside_sites(self, removed: Collection[int] = ()) -> list[tuple[int, int]]:
        """Grid positions holding no card, next to a site card on the board (not one in ``removed``)."""
        if not self.is_grid:
            return []
        free = set()
        for node in self.sites:
            if node in removed:
                continue
            x, y = (int(v) for v in self.positions[node])
            for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                if self.node_at(x + dx, y + dy) is None and square_name(x + dx, y + dy) not in self.index:
                    free.add((x + dx, y + dy))
        return sorted(free)

    def with_card(self, x: int, y: int) -> Board:
        """This board with a site card added at grid position (x, y): its rows and columns go on.

        The new node comes last, so every node keeps its number (electrons,
        tokens and removed cards stay where they are). Boards are immutable:
        the same card in the same place gives the same board, shared.
        """
        key = f"with {x},{y}"
        if key not in self.memo:
            self.memo[key] = self._grown(x, y)
        grown: Board = self.memo[key]
        return grown

    def _grown(self, x: int, y: int) -> Board:
        if not self.is_grid:
            raise BoardError("only a board of square cards in rows and columns can grow", source=self.name)
        taken = self.node_at(x, y)
        if taken is not None:
            raise BoardError(f"position ({x}, {y}) already holds {self.nodes[taken]}", source=self.name)
        name = square_name(x, y)
        if name in self.index:
            raise BoardError(f"a card at ({x}, {y}) would be named {name}, like another", source=self.name)
        data = self.to_dict()
        data["name"] = f"{self.name} + {name}"
        data["nodes"][name] = [x, y]
        lines: list[list[str]] = data["lines"]
        for dx, dy in ((1, 0), (0, 1)):
            before = self.node_at(x - dx, y - dy)
            after = self.node_at(x + dx, y + dy)
            ending = self._line_end(lines, before, (dx, dy), last=True)
            starting = self._line_end(lines, after, (dx, dy), last=False)
            joined = (ending or ([] if before is None else [self.nodes[before]])) + [name]
            joined += starting or ([] if after is None else [self.nodes[after]])
            if len(joined) < 2:
                continue
            # The joined line takes the place of the first line it continues (or comes last).
            where = min(
                (k for k, line in enumerate(lines) if line is ending or line is starting), default=len(lines)
            )
            lines[:] = [line for line in lines if line is not ending and line is not starting]
            lines.insert(where, joined)
        return compile_board(data, source=data["name"])

    def _line_end(
        self, lines: list[list[str]], node: int | None, step: tuple[int, int], *, last: bool
    ) -> list[str] | None:
        """The line (names) ending at ``node`` going ``step`` (last=True) or starting there going on;
        reversed if it is written the other way round."""
        if node is None:
            return None
        name = self.nodes[node]
        for line in lines:
            if len(line) < 2 or name not in (line[0], line[-1]):
                continue
            a, b = self.index[line[0]], self.index[line[1]]
            forward = (
                int(self.positions[b][0] - self.positions[a][0]),
                int(self.positions[b][1] - self.positions[a][1]),
            )
            if forward not in (step, (-step[0], -step[1])):
                continue
            ordered = line if forward == step else line[::-1]
            if (ordered[-1] if last else ordered[0]) == name:
                if ordered is not line:
                    line[:] = ordered
                return line
        return None

    def to_dict(self) -> dict[str, Any]:
        """The board as the panel draws it."""
        return {
            "name": self.name,
            "description": self.description,
            "nodes": {name: list(self.positions[n]) for n, name in enumerate(self.nodes)},
            "lines": [[self.nodes[n] for n in line] for line in self.lines],
            "electrodes": [
                {"colour": colour, "node": self.nodes[node], "team": self.teams[k]}
                for k, (colour, node) in enumerate(zip(self.colours, self.electrodes, strict=True))
            ],
        }


def square_name(x: int, y: int) -> str:
    """A square board's name for grid position (x, y), chess-style: ``a1`` at (0, 0), ``c3`` at (2, 2).

    Beyond the edges the names go on: column ``f`` right of ``e``, rows ``6``
    above ``5``; column ``z`` left of ``a`` (then ``y``…) and row ``0`` below
    ``1`` (then ``-1``…).
    """
    return "abcdefghijklmnopqrstuvwxyz"[x % 26] + str(y + 1)


def board_names() -> list[str]:
    """Names of the boards shipped with the game."""
    return _BOARDS.names()


def load_board(name_or_path: str | Path) -> Board:
    """A shipped board by name, or a board file by path; BoardError lists every problem."""
    # Boards are immutable: every game shares the shipped ones.
    return _BOARDS.load(name_or_path)


def compile_board(data: Any, *, source: str = "board") -> Board:
    """Check a board description and number it; every problem is reported at once."""
    if not isinstance(data, dict):
        raise BoardError("a board is a JSON object with nodes, lines and electrodes", source=source)
    problems: list[str] = []
    nodes_raw = data.get("nodes")
    if not isinstance(nodes_raw, dict) or not nodes_raw:
        raise BoardError('"nodes" maps each node name to its [x, y] position', source=source)
    names = [str(n) for n in nodes_raw]
    index = {name: k for k, name in enumerate(names)}
    positions: list[tuple[float, float]] = []
    for name, pos in nodes_raw.items():
        if not (isinstance(pos, list) and len(pos) == 2 and all(isinstance(v, int | float) for v in pos)):
            problems.append(f"node {name!r} needs a position [x, y]")
            pos = [0, 0]
        positions.append((float(pos[0]), float(pos[1])))
    lines = _lines(data.get("lines"), index, problems)
    colours, electrodes, teams = _electrodes(data, index, problems)
    if problems:
        raise BoardError(problems, source=source)
    electrode_at = [-1] * len(names)
    for colour, node in enumerate(electrodes):
        electrode_at[node] = colour
    rays: list[list[tuple[int, ...]]] = [[] for _ in names]
    for line in lines:
        for k, node in enumerate(line):
            if k + 1 < len(line):
                rays[node].append(tuple(line[k + 1 :]))
            if k > 0:
                rays[node].append(tuple(reversed(line[:k])))
    neighbours = [tuple(ray[0] for ray in node_rays) for node_rays in rays]
    _check_shape(names, neighbours, electrodes, electrode_at, problems)
    if problems:
        raise BoardError(problems, source=source)
    return Board(
        name=str(data.get("name", source)),
        description=str(data.get("description", "")),
        nodes=tuple(names),
        positions=tuple(positions),
        lines=tuple(tuple(line) for line in lines),
        colours=tuple(colours),
        electrodes=tuple(electrodes),
        teams=tuple(teams),
        index=index,
        electrode_at=tuple(electrode_at),
        rays=tuple(tuple(r) for r in rays),
        neighbours=tuple(neighbours),
    )


def _lines(raw: Any, index: dict[str, int], problems: list[str]) -> list[list[int]]:
    if not isinstance(raw, list) or not raw:
        problems.append('"lines" lists the straight lines of nodes, e.g. ["a1", "b1", "c1"]')
        return []
    lines: list[list[int]] = []
    pairs: set[frozenset[int]] = set()
    for k, line in enumerate(raw):
        if not isinstance(line, list) or len(line) < 2:
            problems.append(f"line {k + 1} must list at least two nodes")
            continue
        unknown = [n for n in line if n not in index]
        if unknown:
            problems.append(f"line {k + 1} names unknown nodes {unknown}")
            continue
        numbers = [index[n] for n in line]
        if len(set(numbers)) != len(numbers):
            problems.append(f"line {k + 1} passes twice through the same node")
            continue
        for a, b in zip(numbers, numbers[1:], strict=False):
            pair = frozenset((a, b))
            if pair in pairs:
                problems.append(
                    f"nodes {line[numbers.index(a)]} and {line[numbers.index(b)]} are joined by two lines"
                )
            pairs.add(pair)
        lines.append(numbers)
    return lines


def _electrodes(
    data: dict[str, Any], index: dict[str, int], problems: list[str]
) -> tuple[list[str], list[int], list[int]]:
    raw = data.get("electrodes")
    if not isinstance(raw, list) or not 2 <= len(raw) <= 4:
        problems.append('"electrodes" lists 2 to 4 electrodes {"colour", "node"} in the order of play')
        return [], [], []
    colours: list[str] = []
    electrodes: list[int] = []
    teams: list[int] = []
    for k, item in enumerate(raw):
        if (
            not isinstance(item, dict)
            or not isinstance(item.get("colour"), str)
            or item.get("node") not in index
        ):
            problems.append(f"electrode {k + 1} needs a colour and the node it takes the place of")
            continue
        if item["colour"] in colours:
            problems.append(f"two electrodes are {item['colour']}")
        if index[item["node"]] in electrodes:
            problems.append(f"two electrodes take the place of node {item['node']}")
        team = item.get("team", k)
        if not isinstance(team, int) or isinstance(team, bool) or not 0 <= team < len(raw):
            problems.append(f"electrode {item['colour']}'s team must be a number from 0 to {len(raw) - 1}")
            team = k
        colours.append(item["colour"])
        electrodes.append(index[item["node"]])
        teams.append(team)
    if len(set(teams)) < 2:
        problems.append("a board needs at least two teams")
    return colours, electrodes, teams


def _check_shape(
    names: list[str],
    neighbours: list[tuple[int, ...]],
    electrodes: list[int],
    electrode_at: list[int],
    problems: list[str],
) -> None:
    """Every node is on a line, and every site and electrode is reachable from every electrode."""
    lonely = [names[n] for n, near in enumerate(neighbours) if not near]
    if lonely:
        problems.append(f"nodes {lonely} are on no line")
    start = electrodes[0]
    seen = {start}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        if node != start and electrode_at[node] >= 0:
            continue  # electrons never pass through an electrode
        for other in neighbours[node]:
            if other not in seen:
                seen.add(other)
                queue.append(other)
    cut_off = [names[n] for n in range(len(names)) if n not in seen]
    if cut_off:
        problems.append(f"nodes {cut_off} cannot be reached from electrode {names[start]}")


def square_board(
    size: int, corners: list[tuple[str, str]], *, teams: list[int] | None = None, name: str, description: str
) -> dict[str, Any]:
    """The description of a square grid of ``size``×``size`` cards (columns a…, rows 1…).

    ``corners`` gives (colour, node) of each electrode in the order of play.
    Used to write the shipped square boards; other shapes are written by hand.
    """
    columns = "abcdefghij"[:size]
    nodes = {f"{c}{r + 1}": [x, r] for x, c in enumerate(columns) for r in range(size)}
    rows = [[f"{c}{r + 1}" for c in columns] for r in range(size)]
    cols = [[f"{c}{r + 1}" for r in range(size)] for c in columns]
    electrodes = [
        {"colour": colour, "node": node, **({"team": teams[k]} if teams else {})}
        for k, (colour, node) in enumerate(corners)
    ]
    return {
        "name": name,
        "description": description,
        "nodes": nodes,
        "lines": rows + cols,
        "electrodes": electrodes,
    }


_BOARDS = DataFiles(
    "games.hop",
    "boards",
    parse=lambda data, source: compile_board(data, source=source),
    error=BoardError,
    unknown=UnknownBoardError,
    what="board",
)
"""The board files: shipped ones in ``games/hop/boards/`` (parsed once), or a builder's by path."""
