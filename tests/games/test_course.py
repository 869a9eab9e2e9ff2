"""The digital games' course, kept for their result screens: Hypnosia's scores and |Hop>'s energies
turn by turn, and the quantum tic-tac-toe entanglement at each collapse. Each is the game's own
state after each turn, whether the game is played, taken back or loaded again."""

from __future__ import annotations

import random

import pytest

from games.frame import DigitalGame
from games.hop.game import Hop
from games.hypnosia.game import Hypnosia
from games.qttt import QuantumTicTacToe
from games.qttt.game import cycle_marks


def play_randomly(game: DigitalGame, moves: int, seed: int = 1) -> None:
    rng = random.Random(seed)
    for _ in range(moves):
        if game.is_over():
            return
        game.push(rng.choice(game.legal_moves()))


# -- quantum tic-tac-toe ---------------------------------------------------------------------------


def test_a_collapse_records_the_marks_the_cycle_and_the_landing() -> None:
    game = QuantumTicTacToe(["X", "O"])
    for move in ([0, 1], [3, 4], [1, 2], [2, 0]):  # X1, O2 (apart), X3, O4 closes 0-1-2
        game.push(move)
    game.push({"collapse": 2})
    (record,) = game.view()["collapses"]
    assert record == {"move": 4, "square": 2, "marks": [[1, 0, 1], [2, 3, 4], [3, 1, 2], [4, 0, 2]],
                      "cycle": [1, 3, 4]}


def test_two_marks_on_the_same_squares_are_a_cycle() -> None:
    game = QuantumTicTacToe(["X", "O"])
    game.push([4, 8])
    game.push([8, 4])
    game.push({"collapse": 8})
    assert game.view()["collapses"][0]["cycle"] == [1, 2]


@pytest.mark.parametrize("seed", range(5))
def test_the_cycle_is_a_closed_path_of_marks(seed: int) -> None:
    """Every square of the recorded cycle is joined to the cycle's marks exactly twice."""
    game = QuantumTicTacToe(["X", "O"])
    play_randomly(game, 30, seed)
    for record in game.view()["collapses"]:
        marks = {m[0]: (m[1], m[2]) for m in record["marks"]}
        ends: dict[int, int] = {}
        for k in record["cycle"]:
            for square in marks[k]:
                ends[square] = ends.get(square, 0) + 1
        assert set(ends.values()) == {2}, record
        assert record["move"] in record["cycle"], "the closing pair is part of its cycle"
    taken_back = game.copy()
    if taken_back.history:
        taken_back.pop()
        taken_back.push(game.history[-1])
        assert taken_back.view()["collapses"] == game.view()["collapses"]


def test_cycle_marks_reads_a_position() -> None:
    from games.qttt import rules

    position = bytes(9 + rules.PAIRS.index(pair) for pair in ((0, 1), (1, 2), (0, 2)))
    assert cycle_marks(position) == [1, 2, 3]


# -- Hypnosia and |Hop> ------------------------------------------------------------------------------


def test_hypnosia_keeps_every_score_after_each_turn() -> None:
    game = Hypnosia(["A", "B", "C"], seed=4, options={"max_rounds": 4})
    rng = random.Random(2)
    while not game.is_over():
        game.push(rng.choice(game.legal_moves()))
    view = game.view()
    course = view["scores_by_turn"]
    assert course[0] == [0, 0, 0]
    assert course[-1] == [p["score"] for p in view["players"]]
    assert len(course) == view["turns"] + 1
    loaded = Hypnosia.from_json(game.to_json())
    assert loaded.view()["scores_by_turn"] == course, "a game loaded again has the same course"


def test_hop_keeps_every_energy_after_each_turn() -> None:
    options = {"level": "master", "field": "negative", "interaction": "repulsive", "max_rounds": 3}
    game = Hop(["A", "B"], seed=3, options=options)
    play_randomly(game, 400, seed=6)
    assert game.is_over()
    view = game.view()
    course = view["energy_by_turn"]
    assert course[0] == [p["energy"] for p in Hop(["A", "B"], seed=3, options=game.options).view()["players"]]
    assert course[-1] == [p["energy"] for p in view["players"]]
    assert len(course) == view["turns_played"] + 1
    again = game.copy()
    again.pop()  # the move that ended the last turn, and the game
    assert again.view()["energy_by_turn"] == course[:-1]
    assert Hop.from_json(game.to_json()).view()["energy_by_turn"] == course
