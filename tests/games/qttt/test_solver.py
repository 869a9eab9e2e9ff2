"""The solver against a plain minimax, and the opening book against the solver."""

from __future__ import annotations

import random
from functools import cache

import pytest

from games.qttt import QuantumTicTacToe
from games.qttt.book import load_book, opening_positions, settled_children
from games.qttt.rules import (
    DRAW,
    PAIR_CODE,
    PAIRS,
    SYMMETRIES,
    O,
    X,
    board,
    canonical,
    closes_cycle,
    collapse,
    components,
    free_squares,
    land,
    mover,
    settle,
    spooky_links,
)
from games.qttt.solver import (
    _TABLES_BY_FIRST,
    PerfectPlay,
    Solver,
    best_for,
    collapses,
    opening_classes,
)


@cache
def minimax(position: bytes, pending: bool = False) -> int:
    """The value by exhaustive search, straight from the rules functions."""
    if pending:
        squares = PAIRS[position[-1] - 9]
        collapses = [collapse(position, s) for s in squares]
        return best_for(mover(len(position) + 1), [minimax(p) for p in collapses])
    result = settle(position)
    if result is not None:
        return result
    free = free_squares(position)
    if len(free) == 1:
        last = settle(position + bytes(free))
        assert last is not None
        return last
    values = [
        minimax(position + bytes((PAIR_CODE[a][b],)), closes_cycle(position, a, b))
        for i, a in enumerate(free) for b in free[i + 1:]
    ]
    return best_for(mover(len(position) + 1), values)


def random_games(count: int, moves: int, seed: int) -> list[QuantumTicTacToe]:
    rng = random.Random(seed)
    games: list[QuantumTicTacToe] = []
    while len(games) < count:
        game = QuantumTicTacToe(["x", "o"], seed=0)
        while len(game.history) < moves and not game.is_over():
            game.push(rng.choice(game.legal_moves()))
        if not game.is_over():
            games.append(game)
    return games


SOLVERS = {
    "table+symmetry": lambda: Solver(),
    "table only": lambda: Solver(symmetry=False),
    "plain": lambda: Solver(transposition=False),
}


@pytest.mark.parametrize("config", SOLVERS)
@pytest.mark.parametrize("game", random_games(12, 7, seed=11), ids=lambda g: str(g.history))
def test_solver_agrees_with_minimax_on_deep_positions(config: str, game: QuantumTicTacToe) -> None:
    play = PerfectPlay(solver=SOLVERS[config]())
    analysis = play.analyse(game.position, pending=game.pending)
    assert analysis.value == minimax(game.position, game.pending)
    # The best move keeps the value.
    assert analysis.best is not None
    kind, squares = analysis.best
    after = game.play({"collapse": squares[0]} if kind == "collapse" else list(squares))
    if after.is_over():
        assert after.result == analysis.value
    else:
        assert minimax(after.position, after.pending) == analysis.value


def test_solver_finds_each_result_value() -> None:
    values = {minimax(g.position, g.pending) for g in random_games(40, 7, seed=11)}
    assert values == {X, O, DRAW}  # the comparison above covers all three results


def test_the_solver_counts_nodes_and_uses_its_table() -> None:
    game = random_games(1, 4, seed=5)[0]
    with_table, without = Solver(), Solver(transposition=False)
    assert with_table.value(game.position) == without.value(game.position)
    assert 0 < with_table.stats.nodes < without.stats.nodes
    assert with_table.table_size() > 0 and without.table_size() == 0


def settled_positions(count: int, seed: int) -> list[bytes]:
    """Settled, unfinished positions of random games, 1 to 8 moves in."""
    positions = []
    for moves in range(1, 9):
        positions += [g.position for g in random_games(count, moves, seed) if not g.pending]
    return positions


def test_collapses_of_a_component_are_those_of_each_square() -> None:
    """The solver works out a component's collapses by moving the new mark
    from square to square; each must be the collapse landing there directly."""
    checked = 0
    for position in settled_positions(12, seed=3):
        links, label, cells = spooky_links(position), components(position), board(position)
        free = free_squares(position)
        for root in free:
            group = [s for s in free if label[s] == label[root]]
            if len(group) < 2 or root != group[0]:
                continue
            found = list(collapses(position, links, cells, root))
            landed = [codes[-1] for codes, _ in found]
            assert sorted(landed) == group
            for codes, grid in found:
                assert codes == land(position, links, codes[-1])[0]
                assert grid == board(bytes(codes))
                pair = next(s for s in group if s != codes[-1])
                assert bytes(codes) == collapse(position + bytes((PAIR_CODE[codes[-1]][pair],)), codes[-1])
                checked += 1
    assert checked > 100


def test_the_table_key_is_the_canonical_position() -> None:
    """Keys are computed from the few symmetries that can give the smallest first byte."""
    positions = settled_positions(6, seed=8)
    positions += [bytes((s,)) + p[1:] for p in positions[:40] for s in (4, 0)]  # classical first marks
    for position in positions:
        key = min(position.translate(table) for table in _TABLES_BY_FIRST[position[0]])
        assert key == canonical(position)
    assert len(_TABLES_BY_FIRST[4]) == len(SYMMETRIES)  # the centre is fixed by every symmetry


def test_the_first_moves_fall_into_eight_classes() -> None:
    classes = opening_classes()
    assert len(classes) == 8 and sorted(m for c in classes for m in c) == sorted(PAIRS)
    for moves in classes:
        keys = {canonical(bytes((PAIR_CODE[a][b],))) for a, b in moves}
        assert len(keys) == 1
    assert [(0, 8), (2, 6)] in [list(c) for c in classes]  # opposite corners


def test_opening_positions_are_canonical_and_unfinished() -> None:
    layers = opening_positions(2)
    assert layers[0] == b"" and len(set(layers)) == len(layers)
    assert all(settle(p) is None for p in layers)
    # 36 first pairs, 8 up to symmetry: corners side by side, opposite corners,
    # corner-centre, corner-next edge, corner-far edge, opposite edges,
    # neighbouring edges, edge-centre.
    assert sum(len(p) == 1 for p in layers) == 8
    assert list(settled_children(bytes((9 + 0,)))) != []


BOOK = load_book()


def test_the_book_covers_the_opening() -> None:
    depths = {len(key) for key in BOOK}
    assert depths == set(range(max(depths) + 1)) and max(depths) >= 2
    assert set(opening_positions(max(depths))) == set(BOOK)  # every opening position, nothing else


def _book_value(position: bytes) -> int:
    result = settle(position)
    if result is not None:
        return result
    return BOOK[canonical(position)][0]


_INNER_LAYERS = sorted(k for k in BOOK if len(k) < max(map(len, BOOK)))


@pytest.mark.parametrize("position", [k for k in _INNER_LAYERS if len(k) <= 1]
                         + random.Random(4).sample([k for k in _INNER_LAYERS if len(k) > 1], 20))
def test_book_values_agree_with_the_book_one_move_on(position: bytes) -> None:
    """The root, the first positions and a sample of the next: their value is
    the best over the moves, each valued from the book's next layer
    (collapses chosen by the chooser)."""
    player = mover(len(position) + 1)
    free = free_squares(position)
    values = []
    for i, a in enumerate(free):
        for b in free[i + 1:]:
            child = position + bytes((PAIR_CODE[a][b],))
            if closes_cycle(position, a, b):
                values.append(best_for(1 - player, [_book_value(collapse(child, s)) for s in (a, b)]))
            else:
                values.append(_book_value(child))
    assert BOOK[position][0] == best_for(player, values)


DEEPEST_BOOK_LAYER = sorted(k for k in BOOK if len(k) == max(map(len, BOOK)))


@pytest.mark.parametrize("position", random.Random(2).sample(DEEPEST_BOOK_LAYER, 3))
def test_book_entries_agree_with_live_search(position: bytes) -> None:
    value, move = BOOK[position]
    play = PerfectPlay(solver=Solver())  # no book: a live search
    analysis = play.analyse(position)
    assert analysis.value == value and not analysis.from_book
    # The book's move keeps the value.
    child = position + (bytes(move) if len(move) == 1 else bytes((PAIR_CODE[move[0]][move[1]],)))
    if len(move) == 2 and closes_cycle(position, *move):
        chooser = 1 - mover(len(position) + 1)
        got = best_for(chooser, [play.value(collapse(child, s)) for s in move])
    else:
        got = play.value(child)
    assert got == value
