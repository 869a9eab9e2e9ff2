"""Perfect play: a yes/no search with a transposition table and symmetries.

The question asked of a position is always "can this player force a win?".
Its value under perfect play follows from at most two such questions (X wins;
otherwise O wins; otherwise a draw). A yes/no search cuts as soon as one move
answers it, which is much cheaper than computing exact values.

Positions are the byte strings of :mod:`games.qttt.rules`. A position here is
always *settled*: the next player places a pair (or X's last classical mark).
A pair that closes a cycle hands the collapse choice to the other player, who
then plays on from the settled position they chose; so the chooser picks the
collapse that is best for them, and the search treats the two collapses as a
choice node of the chooser. Where the new mark lands decides the whole
collapse, whatever the pair's other square: the k squares of a spooky
component give k collapses, shared by all its pairs (see :func:`collapses`).

The transposition table is keyed by the canonical form of a position (the
smallest of its 8 symmetric images) and holds the proven answer. Positions
one move from the end are cheap to recompute and very numerous, so they are
not stored (``table_moves`` sets the cut-off).

A node costs little: it is handed its classical marks, spooky components and
links by its parent instead of decoding its byte string, computes its key
from the symmetries that can give the smallest image (one, two or four of
them; all 8 only when the first mark is a classical centre), tries pairs in
the strongest squares first, and looks at lines only when a collapse can
complete one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Final

from games.qttt.rules import (
    CODE_TABLES,
    DRAW,
    LINES,
    PAIR_CODE,
    PAIRS,
    SYMMETRIES,
    Links,
    O,
    X,
    board,
    collapse,
    components,
    land,
    line_winner,
    settle,
    spooky_links,
)

_RANGE9: Final = tuple(range(9))
_STRONGEST_FIRST: Final = tuple(sorted(_RANGE9, key=lambda s: (-sum(s in line for line in LINES), s)))
"""The squares by the number of lines through them, most first: 4, the corners, the edges."""
_LINES: Final = LINES
_LINES_IN: Final = tuple(
    tuple(line for line in LINES if all(mask >> s & 1 for s in line)) for mask in range(512)
)
"""``_LINES_IN[mask]``: the lines whose three squares are all in the set of squares *mask*."""
_PAIR_BYTE: Final = tuple(tuple(bytes((code,)) if code >= 0 else b"" for code in row) for row in PAIR_CODE)
"""``_PAIR_BYTE[a][b]``: the one-byte string of the pair in squares a and b."""


def _tables_by_first() -> tuple[tuple[bytes, ...], ...]:
    """For each first byte, the symmetries' tables that give it the smallest image.

    The canonical key is the smallest of the 8 images, and images compare
    first byte first: only the symmetries that map the first byte to its
    smallest image can give the key: 1, 2 or 4 of them (8 for a classical
    centre), so a key costs one to four ``translate`` calls instead of 8
    (measured: 2-3 % of a solve, the same positions searched).
    """
    candidates = []
    for code in range(9 + len(PAIRS)):
        least = min(table[code] for table in CODE_TABLES)
        candidates.append(tuple(table for table in CODE_TABLES if table[code] == least))
    return tuple(candidates)


_TABLES_BY_FIRST: Final = _tables_by_first()
_IDENTITY_BY_FIRST: Final = tuple((CODE_TABLES[0],) for _ in _TABLES_BY_FIRST)


class SearchLimitReached(Exception):
    """The search visited more positions than its ``node_limit`` allows."""


@dataclass
class SearchStats:
    """Machine-independent counts of one search."""

    nodes: int = 0
    table_hits: int = 0


@dataclass
class Solver:
    """Answers "can this player force a win?" for settled positions.

    ``transposition`` and ``symmetry`` switch the transposition table and the
    symmetry reduction off (for the benchmark's side-by-side runs).
    """

    transposition: bool = True
    symmetry: bool = True
    table_moves: int = 8
    node_limit: int | None = None
    stats: SearchStats = field(default_factory=SearchStats)
    _tables: tuple[dict[bytes, bool], dict[bytes, bool]] = field(default_factory=lambda: ({}, {}))

    def table_size(self) -> int:
        return len(self._tables[0]) + len(self._tables[1])

    def clear(self) -> None:
        self._tables[0].clear()
        self._tables[1].clear()

    def wins(self, position: bytes, player: int) -> bool:
        """Whether ``player`` can force a win from the settled ``position``."""
        return self._searcher(player)(position)

    def value(self, position: bytes) -> int:
        """X, O or DRAW: the result of the settled position under perfect play."""
        result = settle(position)
        if result is not None:
            return result
        if self.wins(position, X):
            return X
        if self.wins(position, O):
            return O
        return DRAW

    def _searcher(self, target: int) -> Callable[[bytes], bool]:
        """Build the recursive search for one target player.

        Everything the inner loop touches is bound to a local name: this is
        the hot path of every solve.
        """
        stats = self.stats
        table = self._tables[target]
        use_table = self.transposition
        by_first = _TABLES_BY_FIRST if self.symmetry else _IDENTITY_BY_FIRST
        table_moves = self.table_moves
        pair_byte = _PAIR_BYTE
        squares = _RANGE9
        strongest = _STRONGEST_FIRST
        lines_in = _LINES_IN
        target_is_x = target == X
        winner_of = line_winner
        limit = self.node_limit or -1

        def outcome(cells: list[int], completed: tuple[tuple[int, int, int], ...], full: bool) -> int:
            """-1 when play goes on, else 1 if target won, 0 if not (*completed*: the full lines)."""
            best_x = best_o = 10
            for a, b, c in completed:
                ka = cells[a]
                kb = cells[b]
                kc = cells[c]
                if ka % 2 == kb % 2 == kc % 2:
                    top = ka if ka > kb else kb
                    if kc > top:
                        top = kc
                    if ka % 2:
                        if top < best_x:
                            best_x = top
                    elif top < best_o:
                        best_o = top
            if best_x == best_o:
                return 0 if full else -1
            return 1 if (best_x < best_o) == target_is_x else 0

        def search(position: bytes, cells: list[int], label: list[int], links: Links, pair: int = -1) -> bool:
            """Whether target wins from *position*.

            A node does not decode its position: it receives its classical
            marks, component labels and links from its parent, who knows them
            (the parent's own, after a collapse; the parent's with one more
            link, after a pair: then *pair* is 9a + b and the link is added
            here, after the table has had its chance). They are never changed
            in place: children share them.
            """
            key = b""
            if use_table and 0 < len(position) < table_moves:  # the empty position is asked once
                key = min([position.translate(t) for t in by_first[position[0]]])
                known = table.get(key)
                if known is not None:
                    stats.table_hits += 1
                    return known
            stats.nodes += 1
            if stats.nodes == limit:
                raise SearchLimitReached(f"gave up after {limit} positions")
            if pair >= 0:
                a, b = divmod(pair, 9)
                i = len(position) - 1
                la = label[a]
                lb = label[b]
                label = [la if x == lb else x for x in label]
                links = links[:]
                links[a] = [*links[a], (i, b)]
                links[b] = [*links[b], (i, a)]
            answer = expand(position, cells, label, links)
            if key:
                table[key] = answer
            return answer

        def expand(position: bytes, cells: list[int], label: list[int], links: Links) -> bool:
            n = len(position) + 1
            free = [s for s in squares if not cells[s]]
            if len(free) == 1:  # X's ninth move: a classical mark in the last square
                grid = cells[:]
                grid[free[0]] = n
                return winner_of(grid) == target
            # The answer the mover wants: "target wins" if the mover is target.
            mine = (n % 2 == 1) == target_is_x
            good = 1 if mine else 0
            # A pair inside a spooky component closes a cycle, and the other
            # player picks where its mark lands. Wherever mark n lands, on
            # square s, every mark of the component follows from s alone (each
            # lands on its end away from s): the collapse does not depend on
            # the pair's other square. So a component of k squares has k
            # collapses, not the k(k-1) of its pairs taken one by one, and the
            # mover wins with a cycle when two squares of one component both
            # collapse their way: the chooser gets no escape.
            components: dict[int, list[int]] = {}
            classical = 511
            for s in free:
                components.setdefault(label[s], []).append(s)
                classical ^= 1 << s
            waiting: list[tuple[int, list[tuple[bytes, list[int]]]]] = []
            for group in components.values():
                if len(group) < 2:
                    continue
                # The collapse makes every square of the component classical,
                # wherever mark n lands: the lines it completes (the position
                # had none) are known before any collapse is worked out, and
                # usually there are none and the grid is not full, so every
                # collapse plays on without looking at a single line.
                after = classical
                for s in group:
                    after |= 1 << s
                completed = lines_in[after]
                full = after == 511
                decides = bool(completed) or full
                wins = 0
                open_collapses: list[tuple[bytes, list[int]]] = []
                spare = len(group) - 2  # wrong-way collapses the mover can afford here
                for codes, grid in collapses(position, links, cells, group[0]):
                    verdict = outcome(grid, completed, full) if decides else -1
                    if verdict < 0:
                        open_collapses.append((bytes(codes), grid))
                    elif verdict == good:
                        wins += 1
                        if wins == 2:
                            return mine  # decided on the spot, before any recursion
                    elif spare:
                        spare -= 1
                    else:
                        break  # fewer than two squares can still collapse the mover's way
                else:
                    if wins + len(open_collapses) >= 2:
                        waiting.append((wins, open_collapses))
            for wins, open_collapses in waiting:
                left = len(open_collapses)
                for child, grid in open_collapses:
                    left -= 1
                    # The component's squares are classical now: its links
                    # are never walked again, and the other labels hold.
                    if search(child, grid, label, links) == mine:
                        wins += 1
                        if wins >= 2:
                            return mine
                    elif wins + left < 2:
                        break
            # Pairs in the strongest squares first (the centre is on four
            # lines, a corner on three, an edge on two): the search stops at
            # the first pair that answers, and these answer most often. This
            # order alone divides the positions searched for all 36 first
            # moves by 2.4, and for the best one by 5.4 (bench/qttt.py).
            strong = [s for s in strongest if not cells[s]]
            for j, a in enumerate(strong):
                la = label[a]
                row = pair_byte[a]
                for b in strong[j + 1 :]:
                    if label[b] != la and search(position + row[b], cells, label, links, 9 * a + b) == mine:
                        return mine
            return not mine

        def start(position: bytes) -> bool:
            return search(position, board(position), components(position), spooky_links(position))

        return start


def collapses(
    position: bytes, links: Links, cells: list[int], square: int
) -> Iterator[tuple[bytearray, list[int]]]:
    """Every collapse of the component of ``square`` when mark n lands in it.

    Yields, for each square of the component (``square`` first), the codes
    :func:`rules.land` gives for that square and the classical marks after
    it (``cells``: the position's). Mark n lands on ``square`` first, then
    moves across one spooky link at a time: moving it from u to its
    neighbour v across the mark of index i changes two entries only (i lands
    on u, n on v), so the k collapses cost one walk of the tree and k copies
    instead of k walks.
    """
    n = len(position) + 1
    # The walk is the rules' own (rules.land, which rules.collapse uses too):
    # writing it out here instead measured 1.6-3 % faster (CPU time, best of
    # 5, bench tasks "best opening" and "30 positions, 3 moves in"), within
    # the noise of the shared machine, so it is shared.
    codes, tree = land(position, links, square)
    grid = cells[:]
    grid[square] = n
    for there, _, i in tree:
        grid[there] = i + 1
    yield codes, grid
    states = {square: (codes, grid)}
    for there, here, i in tree:
        codes, grid = states[here]
        codes = codes[:]
        codes[i] = here
        codes[-1] = there
        grid = grid[:]
        grid[here] = i + 1
        grid[there] = n
        states[there] = (codes, grid)
        yield codes, grid


def best_for(player: int, values: list[int]) -> int:
    """The value ``player`` prefers among ``values`` (win, then draw, then loss)."""
    if player in values:
        return player
    if DRAW in values:
        return DRAW
    return values[0]


# -- analysis of any game position ---------------------------------------------

Book = dict[bytes, tuple[int, tuple[int, ...]]]
"""Canonical settled position -> (value, a best move in canonical squares)."""


@dataclass(frozen=True)
class Analysis:
    """The value of a position under perfect play and one best move."""

    value: int
    best: tuple[str, tuple[int, ...]] | None
    """``("pair", (a, b))``, ``("last", (a,))``, ``("collapse", (a,))``; None when over."""
    nodes: int
    from_book: bool


class PerfectPlay:
    """Values and best moves of game positions, from the opening book or a live search."""

    def __init__(self, *, book: Book | None = None, solver: Solver | None = None) -> None:
        self.book: Book = book if book is not None else {}
        self.solver = solver or Solver()

    def value(self, position: bytes) -> int:
        """The value of a settled position (book first)."""
        result = settle(position)
        if result is not None:
            return result
        entry = self.book.get(canonical_key(position))
        if entry is not None:
            return entry[0]
        return self.solver.value(position)

    def analyse(self, position: bytes, *, pending: bool = False) -> Analysis:
        """Value and a best move; ``pending``: the last pair waits for its collapse."""
        nodes_before = self.solver.stats.nodes
        if pending:
            value, square = self._best_collapse(position)
            return Analysis(value, ("collapse", (square,)), self.solver.stats.nodes - nodes_before, False)
        result = settle(position)
        if result is not None:
            return Analysis(result, None, 0, False)
        key, perm = canonical_with_symmetry(position)
        entry = self.book.get(key)
        if entry is not None:
            value, move = entry
            inverse = _inverse(perm)
            squares = tuple(inverse[s] for s in move)
            return Analysis(value, (_kind(squares), squares), 0, True)
        value, (kind, squares) = self._best_move(position)
        best = ("pair" if kind == "cycle" else kind, squares)
        return Analysis(value, best, self.solver.stats.nodes - nodes_before, False)

    def _best_collapse(self, position: bytes) -> tuple[int, int]:
        a, b = PAIRS[position[-1] - 9]
        chooser = X if (len(position) + 1) % 2 else O
        values = {s: self.value(collapse(position, s)) for s in (a, b)}
        best = best_for(chooser, list(values.values()))
        return best, next(s for s in (a, b) if values[s] == best)

    def _best_move(self, position: bytes) -> tuple[int, tuple[str, tuple[int, ...]]]:
        player = X if (len(position) + 1) % 2 else O
        value = self.value(position)
        moves = settled_moves(position)
        if value != player and value != DRAW:
            return value, moves[0]  # every move loses against perfect play
        opponent = 1 - player
        for move in moves:
            if value == player and self._forces(position, move, player):
                return value, move
            if value == DRAW and not self._forces(position, move, opponent):
                return value, move
        raise AssertionError(f"no move keeps the value of position {list(position)}")  # pragma: no cover

    def _forces(self, position: bytes, move: tuple[str, tuple[int, ...]], player: int) -> bool:
        """Whether ``player`` wins against any reply once ``move`` is played."""
        kind, squares = move
        if kind == "last":
            return settle(position + bytes(squares)) == player
        a, b = squares
        child = position + bytes((PAIR_CODE[a][b],))
        if kind == "pair":
            return self._wins(child, player)
        # The closing pair's mover is the other player's opponent; the other
        # player chooses the collapse, so ``player`` needs it when they choose
        # and needs both collapses otherwise.
        chooser = X if (len(child) + 1) % 2 else O
        results = [self._wins(collapse(child, s), player) for s in (a, b)]
        return any(results) if chooser == player else all(results)

    def _wins(self, position: bytes, player: int) -> bool:
        result = settle(position)
        if result is not None:
            return result == player
        entry = self.book.get(canonical_key(position))
        if entry is not None:
            return entry[0] == player
        return self.solver.wins(position, player)


def settled_moves(position: bytes) -> list[tuple[str, tuple[int, ...]]]:
    """The moves of a settled position; a pair that closes a cycle is a "cycle"."""
    cells = [0] * 9
    for i, code in enumerate(position):
        if code < 9:
            cells[code] = i + 1
    free = [s for s in _RANGE9 if not cells[s]]
    if len(free) == 1:
        return [("last", (free[0],))]
    label = components(position)
    moves: list[tuple[str, tuple[int, ...]]] = []
    for j, a in enumerate(free):
        for b in free[j + 1:]:
            moves.append(("cycle" if label[a] == label[b] else "pair", (a, b)))
    # Cycles first: they are the decisive moves, as in the search.
    moves.sort(key=lambda m: m[0] != "cycle")
    return moves


# -- the first move -------------------------------------------------------------


@dataclass(frozen=True)
class Opening:
    """First moves that are the same up to a symmetry of the square, and their value."""

    moves: tuple[tuple[int, int], ...]
    """The first pairs of this class, in square order; the first one is searched."""
    value: int
    """X, O or DRAW under perfect play once one of these pairs is placed."""
    nodes: int
    """Positions the search expanded to prove it."""


def opening_classes() -> list[tuple[tuple[int, int], ...]]:
    """The 36 first pairs, grouped up to symmetry (8 classes), in square order."""
    classes: dict[bytes, list[tuple[int, int]]] = {}
    for a, b in PAIRS:
        classes.setdefault(canonical_key(bytes((PAIR_CODE[a][b],))), []).append((a, b))
    return [tuple(moves) for moves in classes.values()]


def prove_openings(solver: Solver | None = None) -> Iterator[Opening]:
    """Prove the value of every first move by search, one class of symmetric pairs at a time.

    Symmetric positions have the same value, so each class is searched once,
    from its first pair; the classes share ``solver``'s transposition table
    (a fresh one by default: no opening book).
    """
    solver = solver or Solver()
    for moves in opening_classes():
        a, b = moves[0]
        before = solver.stats.nodes
        value = solver.value(bytes((PAIR_CODE[a][b],)))
        yield Opening(moves, value, solver.stats.nodes - before)


def canonical_key(position: bytes) -> bytes:
    return min([position.translate(t) for t in CODE_TABLES])


def canonical_with_symmetry(position: bytes) -> tuple[bytes, tuple[int, ...]]:
    """The canonical form and the square permutation that produces it."""
    images = [(position.translate(t), perm) for t, perm in zip(CODE_TABLES, SYMMETRIES, strict=True)]
    return min(images)


def _inverse(perm: tuple[int, ...]) -> tuple[int, ...]:
    inverse = [0] * 9
    for s, image in enumerate(perm):
        inverse[image] = s
    return tuple(inverse)


def _kind(squares: tuple[int, ...]) -> str:
    return "last" if len(squares) == 1 else "pair"
