"""The rules of quantum tic-tac-toe over a compact position encoding.

A position is a :class:`bytes` string with one byte per move played so far,
in move order (byte ``k - 1`` is move ``k``):

* a value ``0``-``8`` means the move's mark is *classical* in that square;
* a value ``9 + p`` means the mark is still *spooky*, a pair of marks in the
  two squares ``PAIRS[p]``.

Squares are numbered 0-8 row by row from the top left. X plays the odd moves,
O the even ones. Spooky pairs link their two squares; as every cycle is
collapsed as soon as it closes, the spooky links always form a forest, and a
new pair closes a cycle exactly when its two squares are already connected.

This encoding is what the game engine stores, what the solver searches and
what its transposition table keys on: symmetric positions are found by
translating the bytes through one table per symmetry of the square.
"""

from __future__ import annotations

from itertools import combinations
from typing import Final

X: Final = 0
O: Final = 1  # noqa: E741 - the players are called X and O
DRAW: Final = 2
"""Results: the seat of the winner (X or O), or DRAW."""

SQUARES: Final = tuple(range(9))
LINES: Final[tuple[tuple[int, int, int], ...]] = (
    (0, 1, 2), (3, 4, 5), (6, 7, 8),
    (0, 3, 6), (1, 4, 7), (2, 5, 8),
    (0, 4, 8), (2, 4, 6),
)
PAIRS: Final[tuple[tuple[int, int], ...]] = tuple(combinations(SQUARES, 2))
PAIR_CODE: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(9 + PAIRS.index((min(a, b), max(a, b))) if a != b else -1 for b in SQUARES) for a in SQUARES
)
"""``PAIR_CODE[a][b]``: the byte of a spooky pair in squares a and b."""
LAST_MOVE: Final = 9


def _symmetries() -> tuple[tuple[int, ...], ...]:
    def rotate(s: int) -> int:  # a quarter turn clockwise
        r, c = divmod(s, 3)
        return c * 3 + (2 - r)

    def mirror(s: int) -> int:
        r, c = divmod(s, 3)
        return r * 3 + (2 - c)

    perms = []
    perm = list(SQUARES)
    for _ in range(4):
        perms.append(tuple(perm))
        perms.append(tuple(mirror(s) for s in perm))
        perm = [rotate(s) for s in perm]
    return tuple(perms)


SYMMETRIES: Final = _symmetries()
"""The 8 symmetries of the square as square permutations (the identity first)."""


def _code_table(perm: tuple[int, ...]) -> bytes:
    table = bytearray(range(256))
    for s in SQUARES:
        table[s] = perm[s]
    for p, (a, b) in enumerate(PAIRS):
        table[9 + p] = PAIR_CODE[perm[a]][perm[b]]
    return bytes(table)


CODE_TABLES: Final = tuple(_code_table(perm) for perm in SYMMETRIES)
"""``bytes.translate`` tables mapping a position through each symmetry."""


def mover(move_number: int) -> int:
    """X plays the odd moves, O the even ones."""
    return X if move_number % 2 else O


def canonical(position: bytes) -> bytes:
    """The smallest of the 8 symmetric images of a position (a TT key)."""
    return min([position.translate(t) for t in CODE_TABLES])


def board(position: bytes) -> list[int]:
    """The classical marks: the move number in each square, 0 when none."""
    cells = [0] * 9
    for k, code in enumerate(position, 1):
        if code < 9:
            cells[code] = k
    return cells


def spooky(position: bytes) -> list[tuple[int, int, int]]:
    """The spooky pairs still on the board as ``(move, a, b)``."""
    return [(k, *PAIRS[code - 9]) for k, code in enumerate(position, 1) if code >= 9]


def free_squares(position: bytes) -> list[int]:
    """Squares without a classical mark (the only ones a pair may use)."""
    cells = board(position)
    return [s for s in SQUARES if not cells[s]]


def components(position: bytes) -> list[int]:
    """A label per square; two squares share it when spooky links join them."""
    label = list(SQUARES)
    for code in position:
        if code >= 9:
            a, b = PAIRS[code - 9]
            la, lb = label[a], label[b]
            if la != lb:
                label = [la if x == lb else x for x in label]
    return label


def closes_cycle(position: bytes, a: int, b: int) -> bool:
    """Whether a new pair in squares a and b would close a cycle."""
    label = components(position)
    return label[a] == label[b]


Links = list[list[tuple[int, int]]]
"""``links[s]``: ``(k - 1, other square)`` for every spooky mark of move k in square s."""


def spooky_links(position: bytes) -> Links:
    """The spooky marks of each square, with the square of their twin."""
    links: Links = [[] for _ in SQUARES]
    for i, code in enumerate(position):
        if code >= 9:
            a, b = PAIRS[code - 9]
            links[a].append((i, b))
            links[b].append((i, a))
    return links


def land(position: bytes, links: Links, square: int) -> tuple[bytearray, list[tuple[int, int, int]]]:
    """A new mark lands classically on ``square`` of the settled ``position``.

    Every spooky mark in ``square`` moves to its other square, pushing the
    marks it finds there, until every mark linked to ``square`` is classical;
    marks not linked stay spooky. ``links`` are the position's
    (:func:`spooky_links`). Returns the codes of the position with the new
    mark appended, and the tree the collapse walked: ``(square reached, the
    square it was reached from, index of the mark between them)``, each
    square after the one it was reached from.
    """
    codes = bytearray(position)
    codes.append(square)
    tree: list[tuple[int, int, int]] = []
    todo = [square]
    while todo:
        here = todo.pop()
        for i, there in links[here]:
            if codes[i] >= 9:
                codes[i] = there
                todo.append(there)
                tree.append((there, here, i))
    return codes, tree


def collapse(position: bytes, square: int) -> bytes:
    """Collapse the cycle closed by the last move, its mark landing on ``square``.

    The mark settles classically in ``square``; every other spooky mark there
    moves to its other square, pushing the marks it finds there, until every
    mark linked to the cycle is classical. Marks not linked stay spooky.
    """
    settled = position[:-1]
    codes, _ = land(settled, spooky_links(settled), square)
    return bytes(codes)


def earliest_lines(cells: list[int]) -> dict[int, tuple[tuple[int, int, int], int]]:
    """Each player's earliest completed line of classical marks: player → (its squares, the largest
    move number in it). A player without a line is left out."""
    best: dict[int, tuple[tuple[int, int, int], int]] = {}
    for a, b, c in LINES:
        ka, kb, kc = cells[a], cells[b], cells[c]
        if ka and kb and kc and ka % 2 == kb % 2 == kc % 2:
            player = X if ka % 2 else O
            latest = max(ka, kb, kc)
            if player not in best or latest < best[player][1]:
                best[player] = ((a, b, c), latest)
    return best


def line_winner(cells: list[int]) -> int | None:
    """The winner among completed lines of classical marks, or None.

    When both players have lines, the line completed earliest wins, measured
    by the largest move number in it; two lines of one player are one win.
    Move numbers of X are odd and those of O even, so there is never a tie.
    """
    # The search calls this at every settled position: a plain loop, no allocation beyond two ints
    # (earliest_lines says the same, with the squares, for the pages).
    best = [10, 10]
    for a, b, c in LINES:
        ka, kb, kc = cells[a], cells[b], cells[c]
        if ka and kb and kc and ka % 2 == kb % 2 == kc % 2:
            player = X if ka % 2 else O
            best[player] = min(best[player], max(ka, kb, kc))
    if best[X] == best[O]:  # both 10: no line
        return None
    return X if best[X] < best[O] else O


def settle(position: bytes) -> int | None:
    """The result once marks have settled: a line's winner, a draw, or None."""
    cells = board(position)
    winner = line_winner(cells)
    if winner is not None:
        return winner
    return DRAW if all(cells) else None
