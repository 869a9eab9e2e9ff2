"""Properties of random games: marks are conserved, collapses leave no cycle,
every finished game has exactly one result."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from games.qttt import QuantumTicTacToe
from games.qttt.rules import LINES, O, X


def marks_by_move(game: QuantumTicTacToe) -> dict[int, list[tuple[str, int]]]:
    found: dict[int, list[tuple[str, int]]] = {}
    for s, cell in enumerate(game.view()["squares"]):
        if cell["classical"]:
            found.setdefault(cell["classical"]["move"], []).append(("classical", s))
        for mark in cell["spooky"]:
            found.setdefault(mark["move"], []).append(("spooky", s))
    return found


def spooky_cycles(game: QuantumTicTacToe) -> int:
    """How many spooky links close a cycle (union-find over the pairs)."""
    parent = list(range(9))

    def root(s: int) -> int:
        while parent[s] != s:
            s = parent[s]
        return s

    cycles = 0
    for where in marks_by_move(game).values():
        if where[0][0] == "spooky":
            a, b = root(where[0][1]), root(where[1][1])
            if a == b:
                cycles += 1
            else:
                parent[a] = b
    return cycles


def lines_of(game: QuantumTicTacToe) -> dict[int, int]:
    """Player -> smallest largest move number among their classical lines."""
    cells = [c["classical"]["move"] if c["classical"] else 0 for c in game.view()["squares"]]
    best: dict[int, int] = {}
    for line in LINES:
        moves = [cells[s] for s in line]
        if all(moves) and len({k % 2 for k in moves}) == 1:
            player = X if moves[0] % 2 else O
            best[player] = min(best.get(player, 10), max(moves))
    return best


@settings(max_examples=80, deadline=None)
@given(st.data())
def test_random_games_keep_the_invariants(data: st.DataObject) -> None:
    game = QuantumTicTacToe(["x", "o"], seed=1)
    while not game.is_over():
        moves = game.legal_moves()
        assert moves, "an unfinished game always has a legal move"
        game.push(data.draw(st.sampled_from(moves)))
        marks = marks_by_move(game)
        # Every mark placed is on the board exactly once: one classical square
        # or two spooky squares, never both.
        assert sorted(marks) == list(range(1, len(game.position) + 1))
        for where in marks.values():
            kinds = {kind for kind, _ in where}
            assert (kinds == {"classical"} and len(where) == 1) or (kinds == {"spooky"} and len(where) == 2)
        # A cycle exists only while its collapse waits, and never outlives it.
        assert spooky_cycles(game) == (1 if game.is_collapse_pending() else 0)
        if not game.is_over():
            assert not lines_of(game), "a line ends the game at once"
    outcome = game.outcome()
    assert outcome is not None and game.to_act is None and game.legal_moves() == []
    lines = lines_of(game)
    if lines:
        assert outcome.winners == (min(lines, key=lines.__getitem__),)
    else:
        assert outcome.draw and all(c["classical"] for c in game.view()["squares"])
    assert QuantumTicTacToe.from_json(game.to_json()).outcome() == outcome


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_symmetries_commute_with_the_rules(data: st.DataObject) -> None:
    """A position and its mirror images play alike: same canonical key, same
    collapses and results (what lets the solver share table entries)."""
    from games.qttt.rules import CODE_TABLES, SYMMETRIES, canonical, collapse, settle

    game = QuantumTicTacToe(["x", "o"], seed=1)
    while not game.is_over():
        game.push(data.draw(st.sampled_from(game.legal_moves())))
        for table, perm in zip(CODE_TABLES, SYMMETRIES, strict=True):
            image = game.position.translate(table)
            assert canonical(image) == canonical(game.position)
            assert settle(image) == (None if game.pending else settle(game.position))
            squares = game.pending_squares()
            if squares is not None:
                for s in squares:
                    assert collapse(image, perm[s]) == collapse(game.position, s).translate(table)
    assert len({perm for perm in SYMMETRIES}) == 8
