"""The rules of quantum tic-tac-toe, from hand-worked positions."""

from __future__ import annotations

import pytest

from games.exc import GameOverError, IllegalMoveError
from games.frame import Move
from games.qttt import QuantumTicTacToe, Termination
from games.qttt import exc as qexc
from games.qttt.rules import O, X

# Moves 1-8 link the squares 0-1-3-2-4-6-5-7-8 in a path, then move 9 [8, 0]
# closes a cycle through every square. With mark 9 collapsing onto 0, mark k
# lands on the k-th square of the path: X gets row 0 (marks 1, 3, 9: the
# line ends at move 9) and O row 1 (marks 2, 4, 6: ends at move 6).
BOTH_LINES_O_FIRST: list[Move] = [[0, 1], [1, 3], [3, 2], [2, 4], [4, 6], [6, 5], [5, 7], [7, 8], [8, 0]]
# Same idea along 0-1-4-2-5-3-7-6-8: with mark 9 on 0, X holds 0, 1, 2, 3, 6,
# two lines (row 0 and column 0) in one collapse; with mark 9 on 8, X holds
# 0, 4, 5, 7, 8 (diagonal 0-4-8). O has no line either way.
X_TWO_LINES: list[Move] = [[0, 1], [1, 4], [4, 2], [2, 5], [5, 3], [3, 7], [7, 6], [6, 8], [8, 0]]


def game_after(moves: list[Move]) -> QuantumTicTacToe:
    game = QuantumTicTacToe(["xavier", "olga"], seed=7)
    for move in moves:
        game.push(move)
    return game


def classical(game: QuantumTicTacToe) -> dict[int, int]:
    """Square -> move number of its classical mark."""
    squares = game.view()["squares"]
    return {s: cell["classical"]["move"] for s, cell in enumerate(squares) if cell["classical"]}


def spooky_moves(game: QuantumTicTacToe, square: int) -> list[int]:
    return [mark["move"] for mark in game.view()["squares"][square]["spooky"]]


def test_a_pair_puts_two_numbered_spooky_marks() -> None:
    game = game_after([[0, 4]])
    assert spooky_moves(game, 0) == [1] and spooky_moves(game, 4) == [1]
    assert game.view()["squares"][0]["spooky"][0] == {"move": 1, "symbol": "X", "other": 4}
    assert game.to_act == O and game.move_number == 2
    game.push([4, 8])
    assert spooky_moves(game, 4) == [1, 2]  # one square holds several spooky marks
    assert classical(game) == {}


def test_two_marks_in_the_same_two_squares_close_a_cycle_and_the_other_player_chooses() -> None:
    game = game_after([[0, 1], [1, 0]])  # O closed the cycle
    assert game.is_collapse_pending()
    assert game.to_act == X
    assert game.legal_moves() == [{"collapse": 0}, {"collapse": 1}]
    game.push({"collapse": 0})
    assert classical(game) == {0: 2, 1: 1}  # O's mark 2 on 0 pushes X's mark 1 to 1
    # The chooser then plays their own move: X places mark 3.
    assert game.to_act == X and game.move_number == 3
    game.push([2, 3])
    assert spooky_moves(game, 2) == [3]


def test_marks_not_linked_to_the_cycle_stay_spooky() -> None:
    game = game_after([[0, 1], [5, 8], [0, 1]])  # X closes: O chooses
    assert game.to_act == O
    game.push({"collapse": 1})
    assert classical(game) == {1: 3, 0: 1}
    assert spooky_moves(game, 5) == [2] and spooky_moves(game, 8) == [2]
    assert game.to_act == O and game.move_number == 4


@pytest.mark.parametrize(
    ("choice", "expected"),
    [
        (0, {0: 4, 1: 1, 2: 2, 5: 3}),  # 4 on 0, 1 pushed to 1, then 2 to 2 and 3 down its branch to 5
        (2, {2: 4, 1: 2, 0: 1, 5: 3}),  # 4 on 2, 2 pushed to 1, then 1 to 0 and 3 to 5
    ],
)
def test_the_collapse_cascades_through_every_linked_mark(choice: int, expected: dict[int, int]) -> None:
    game = game_after([[0, 1], [1, 2], [1, 5], [0, 2]])  # cycle 0-1-2 with a branch 1-5
    game.push({"collapse": choice})
    assert classical(game) == expected
    assert all(not cell["spooky"] for cell in game.view()["squares"])


def test_simultaneous_lines_the_smaller_largest_move_number_wins() -> None:
    game = game_after(BOTH_LINES_O_FIRST)
    assert game.is_collapse_pending() and game.to_act == O  # X closed the cycle
    game.push({"collapse": 0})
    assert classical(game) == {0: 9, 1: 1, 3: 2, 2: 3, 4: 4, 6: 5, 5: 6, 7: 7, 8: 8}
    outcome = game.outcome()
    assert outcome is not None and outcome.termination is Termination.LINE
    assert outcome.winners == (O,)  # O's row ends at move 6, X's at move 9
    assert game.to_act is None and game.legal_moves() == []


def test_the_view_gives_each_players_earliest_line_once_the_game_is_over() -> None:
    """What a page says why the winner won: both lines, each with its largest move number."""
    game = game_after(BOTH_LINES_O_FIRST)
    assert game.view()["lines"] == []  # not over yet
    game.push({"collapse": 0})
    assert game.view()["lines"] == [
        {"symbol": "X", "squares": [0, 1, 2], "latest": 9},
        {"symbol": "O", "squares": [3, 4, 5], "latest": 6},
    ]
    assert game.view()["winner"] == "O"


def test_simultaneous_lines_from_a_worked_game() -> None:
    # Cycle 5-6-3-7 closed by O's mark 6; X puts it on 7. X gets the middle
    # row (marks 5, 1, 3: ends at 5), O the bottom row (2, 6, 4: ends at 6).
    game = game_after([[4, 7], [3, 6], [5, 6], [4, 8], [3, 7], [5, 7], {"collapse": 7}])
    assert classical(game) == {3: 5, 4: 1, 5: 3, 6: 2, 7: 6, 8: 4}
    assert game.outcome() is not None and game.outcome().winners == (X,)  # type: ignore[union-attr]


@pytest.mark.parametrize(("choice", "lines"), [(0, 2), (8, 1)])
def test_two_lines_of_one_player_make_one_win(choice: int, lines: int) -> None:
    game = game_after([*X_TWO_LINES, {"collapse": choice}])
    cells = classical(game)
    assert len(cells) == 9
    x_squares = {s for s, k in cells.items() if k % 2}
    full = [line for line in ((0, 1, 2), (0, 3, 6), (0, 4, 8)) if set(line) <= x_squares]
    assert len(full) == lines
    outcome = game.outcome()
    assert outcome is not None and outcome.winners == (X,) and outcome.scores is None


def test_ninth_pair_always_closes_a_cycle_and_fills_the_grid() -> None:
    game = game_after(X_TWO_LINES[:8])
    assert all(len(move) == 2 for move in game.legal_moves())
    for move in game.legal_moves():
        after = game.play(move)
        assert after.is_collapse_pending()
        after.push(after.legal_moves()[0])
        assert len(classical(after)) == 9 and after.is_over()


LAST_SQUARE_GAME: list[Move] = [
    [0, 2], [3, 7], [1, 2], [0, 4], [3, 4], [4, 8], [3, 5], [3, 5], {"collapse": 5},
]


def test_x_ninth_move_is_classical_in_the_last_square_and_can_win() -> None:
    game = game_after(LAST_SQUARE_GAME)
    assert classical(game) == {5: 8, 3: 7, 7: 2, 4: 5, 0: 4, 8: 6, 2: 1, 1: 3}
    assert not game.is_over() and game.to_act == X
    assert game.legal_moves() == [[6]]
    with pytest.raises(qexc.LastSquareError, match="only square 6 is left"):
        game.play([6, 5])
    game.push([6])
    assert game.outcome() is not None and game.outcome().winners == (X,)  # type: ignore[union-attr]


def test_full_grid_without_line_is_a_draw() -> None:
    game = game_after([[0, 4], [0, 8], [3, 4], [1, 2], [2, 4], [6, 8], [5, 6], [0, 4], {"collapse": 4}, [7]])
    assert len(classical(game)) == 9
    outcome = game.outcome()
    assert outcome is not None and outcome.draw and outcome.termination is Termination.FULL_GRID
    assert game.view()["winner"] is None


def test_only_classical_marks_count() -> None:
    game = game_after([[0, 3], [5, 8], [1, 4], [6, 7], [2, 5]])  # X spooky along row 0, no cycle
    assert not game.is_over() and classical(game) == {}


@pytest.mark.parametrize(
    ("moves", "move", "error", "reason"),
    [
        ([], [0, 0], qexc.SameSquareError, "two different squares"),
        ([], [0, 9], qexc.NotationError, "not a square"),
        ([], [True, 1], qexc.NotationError, "not a square"),
        ([], "e4", qexc.NotationError, "not a move"),
        ([], [0, 1, 2], qexc.NotationError, "not a move"),
        ([], {"collapse": 0}, qexc.NoCollapseError, "no cycle"),
        ([], {"collapse": 0, "x": 1}, qexc.NotationError, "collapse choice"),
        ([], [4], qexc.LastSquareError, "ninth move"),
        ([[0, 1], [0, 1]], [2, 3], qexc.CollapseFirstError, "choose where it collapses"),
        ([[0, 1], [0, 1]], {"collapse": 2}, qexc.CollapseSquareError, "squares 0 and 1"),
        ([[0, 1], [0, 1], {"collapse": 0}], [0, 2], qexc.SquareTakenError, "classical O of move 2"),
    ],
)
def test_illegal_moves_raise_a_specific_readable_error(
    moves: list[Move], move: Move, error: type[IllegalMoveError], reason: str
) -> None:
    game = game_after(moves)
    before = game.to_json()
    with pytest.raises(error, match=reason):
        game.push(move)
    assert game.to_json() == before  # nothing lost
    assert not game.is_legal(move)


def test_no_move_after_the_end() -> None:
    game = game_after([*BOTH_LINES_O_FIRST, {"collapse": 0}])
    with pytest.raises(GameOverError):
        game.push([1, 2])


def test_history_replays_and_pop_takes_back() -> None:
    game = game_after([[0, 1], [1, 0], {"collapse": 1}, [2, 3]])
    saved = game.to_json()
    assert saved["moves"] == [[0, 1], [1, 0], {"collapse": 1}, [2, 3]]
    again = QuantumTicTacToe.from_json(saved)
    assert again.position == game.position and again.view() == game.view()
    assert game.pop() == [2, 3]
    assert game.pop() == {"collapse": 1}
    assert game.is_collapse_pending() and game.legal_moves() == [{"collapse": 0}, {"collapse": 1}]


def test_history_records_moves_in_json_notation() -> None:
    game = QuantumTicTacToe(["x", "o"], seed=0)
    game.push((4, 0))
    game.push([0, 4])
    game.push({"collapse": 4})
    assert game.history == [[4, 0], [0, 4], {"collapse": 4}]
    assert QuantumTicTacToe.from_json(game.to_json()).position == game.position


def test_play_leaves_the_game_unchanged() -> None:
    game = game_after([[0, 1]])
    after = game.play([1, 2])
    assert game.history == [[0, 1]] and after.history == [[0, 1], [1, 2]]


def test_every_seat_sees_the_same_board() -> None:
    game = game_after([[0, 1], [1, 0]])
    views = [game.view(seat) for seat in (0, 1, None)]
    assert all({k: v for k, v in view.items() if k != "seat"} ==
               {k: v for k, v in views[0].items() if k != "seat"} for view in views)
    assert views[0]["collapse"] == {"move": 2, "squares": [0, 1]}
    assert views[0]["to_act_symbol"] == "X"
