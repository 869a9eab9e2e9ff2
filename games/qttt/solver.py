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
choice node of the chooser.

The transposition table is keyed by the canonical form of a position (the
smallest of its 8 symmetric images) and holds the proven answer. Positions
one move from the end are cheap to recompute and very numerous, so they are
not stored (``table_moves`` sets the cut-off).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final

from games.qttt.rules import (
    CODE_TABLES,
    DRAW,
    LINES,
    PAIR_CODE,
    PAIRS,
    SYMMETRIES,
    O,
    X,
    collapse,
    components,
    line_winner,
    settle,
)

_RANGE9: Final = tuple(range(9))
_LINES: Final = LINES


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
        the hot path of the empty-position solve.
        """
        stats = self.stats
        table = self._tables[target]
        use_table = self.transposition
        tables = CODE_TABLES if self.symmetry else CODE_TABLES[:1]
        table_moves = self.table_moves
        pairs = PAIRS
        pair_code = PAIR_CODE
        squares = _RANGE9
        lines = _LINES
        target_is_x = target == X
        winner_of = line_winner
        limit = self.node_limit or -1

        def outcome(cells: list[int]) -> int:
            """-1 when play goes on, else 1 if target won, 0 if not."""
            best_x = best_o = 10
            for a, b, c in lines:
                ka = cells[a]
                kb = cells[b]
                kc = cells[c]
                if ka and kb and kc and ka % 2 == kb % 2 == kc % 2:
                    top = ka if ka > kb else kb
                    if kc > top:
                        top = kc
                    if ka % 2:
                        if top < best_x:
                            best_x = top
                    elif top < best_o:
                        best_o = top
            if best_x == best_o:
                return 0 if all(cells) else -1
            return 1 if (best_x < best_o) == target_is_x else 0

        def search(position: bytes) -> bool:
            n = len(position) + 1
            key = b""
            if use_table and n <= table_moves:
                key = min([position.translate(t) for t in tables])
                known = table.get(key)
                if known is not None:
                    stats.table_hits += 1
                    return known
            stats.nodes += 1
            if stats.nodes == limit:
                raise SearchLimitReached(f"gave up after {limit} positions")
            cells = [0] * 9
            label = list(squares)
            links: list[list[tuple[int, int]]] = [[], [], [], [], [], [], [], [], []]
            for i, code in enumerate(position):
                if code < 9:
                    cells[code] = i + 1
                else:
                    a, b = pairs[code - 9]
                    links[a].append((i, b))
                    links[b].append((i, a))
                    la = label[a]
                    lb = label[b]
                    if la != lb:
                        label = [la if x == lb else x for x in label]
            free = [s for s in squares if not cells[s]]
            if len(free) == 1:  # X's ninth move: a classical mark in the last square
                cells[free[0]] = n
                answer = winner_of(cells) == target
                if key:
                    table[key] = answer
                return answer
            mover_is_target = (n % 2 == 1) == target_is_x
            # Pairs that close a cycle end in a collapse chosen by the other
            # player; settle them first, since a collapse often decides the game.
            pending: list[tuple[bytes | None, bytes | None]] = []
            opening: list[bytes] = []
            for j, a in enumerate(free):
                for b in free[j + 1:]:
                    if label[a] != label[b]:
                        opening.append(position + bytes((pair_code[a][b],)))
                        continue
                    # Both collapses of the new pair (a, b), mark ``last``.
                    children: list[bytes | None] = []
                    verdicts: list[int] = []
                    for square in (a, b):
                        codes = bytearray(position)
                        codes.append(square)
                        grid = cells[:]
                        grid[square] = n
                        todo = [square]
                        while todo:
                            here = todo.pop()
                            for i, there in links[here]:
                                if codes[i] >= 9:
                                    codes[i] = there
                                    grid[there] = i + 1
                                    todo.append(there)
                        verdict = outcome(grid)
                        verdicts.append(verdict)
                        children.append(bytes(codes) if verdict < 0 else None)
                    # The chooser is the player who did not close the cycle.
                    if mover_is_target:
                        if verdicts[0] == 1 and verdicts[1] == 1:
                            if key:
                                table[key] = True
                            return True
                        if verdicts[0] == 0 or verdicts[1] == 0:
                            continue  # the opponent chooses that collapse
                    else:
                        if verdicts[0] == 0 and verdicts[1] == 0:
                            if key:
                                table[key] = False
                            return False
                        if verdicts[0] == 1 or verdicts[1] == 1:
                            continue  # the target chooses that collapse
                    pending.append((children[0], children[1]))
            for first, second in pending:
                # Neither collapse is decided yet on the spot (or only one is,
                # in the chooser's disfavour): search the undecided ones.
                if mover_is_target:  # the opponent chooses: target needs both
                    answer = (first is None or search(first)) and (second is None or search(second))
                else:  # the target chooses: one good collapse is enough
                    answer = (first is not None and search(first)) or (second is not None and search(second))
                if answer == mover_is_target:
                    if key:
                        table[key] = answer
                    return answer
            for child in opening:
                if search(child) == mover_is_target:
                    if key:
                        table[key] = mover_is_target
                    return mover_is_target
            answer = not mover_is_target
            if key:
                table[key] = answer
            return answer

        return search


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
