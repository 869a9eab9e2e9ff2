"""The computer players of quantum tic-tac-toe."""

from __future__ import annotations

import random

import pytest

from games.frame import AI_LEVELS, GAMES, RandomPlayer, ai_player, game_class
from games.qttt import QuantumTicTacToe
from games.qttt.ai import HeuristicPlayer, PerfectPlayer
from games.qttt.rules import X


def test_the_game_and_its_levels_are_registered() -> None:
    assert game_class("qttt") is QuantumTicTacToe and GAMES["qttt"] is QuantumTicTacToe
    assert set(AI_LEVELS["qttt"]) == {"random", "heuristic", "perfect"}
    assert isinstance(ai_player("qttt", "perfect"), PerfectPlayer)
    assert isinstance(ai_player("qttt", "heuristic", rng=random.Random(1)), HeuristicPlayer)


@pytest.mark.parametrize("seed", range(3))
def test_perfect_x_beats_random_o(seed: int) -> None:
    # The book says X wins the empty position; a perfect X must then win every game.
    from games.qttt.book import load_book

    if load_book()[b""][0] != X:
        pytest.fail("this test assumes the solved value of the empty position, X")
    game = QuantumTicTacToe(["perfect", "random"], seed=seed)
    players = [PerfectPlayer(), RandomPlayer(random.Random(seed))]
    while not game.is_over():
        seat = game.to_act
        assert seat is not None
        game.push(players[seat].choose(game))
    outcome = game.outcome()
    assert outcome is not None and outcome.winners == (X,)


def test_heuristic_takes_a_winning_collapse() -> None:
    # O chooses the collapse of the 9-square cycle: mark 9 on 0 wins for O.
    game = QuantumTicTacToe(["x", "o"], seed=0)
    for move in [[0, 1], [1, 3], [3, 2], [2, 4], [4, 6], [6, 5], [5, 7], [7, 8], [8, 0]]:
        game.push(move)
    for seed in range(5):
        assert HeuristicPlayer(random.Random(seed)).choose(game) == {"collapse": 0}


def test_heuristic_plays_legal_moves_to_the_end() -> None:
    game = QuantumTicTacToe(["h", "r"], seed=4)
    players = [HeuristicPlayer(random.Random(4), depth=1), RandomPlayer(random.Random(4))]
    while not game.is_over():
        seat = game.to_act
        assert seat is not None
        move = players[seat].choose(game)
        assert move in game.legal_moves()
        game.push(move)
    assert game.outcome() is not None


def test_perfect_player_answers_a_pending_collapse() -> None:
    game = QuantumTicTacToe(["x", "o"], seed=0)
    for move in [[0, 1], [1, 3], [3, 2], [2, 4], [4, 6], [6, 5], [5, 7], [7, 8], [8, 0]]:
        game.push(move)
    assert PerfectPlayer().choose(game) == {"collapse": 0}


def test_perfect_against_perfect_ends_with_the_solved_value() -> None:
    from games.qttt.book import load_book

    game = QuantumTicTacToe(["x", "o"], seed=0)
    players = [PerfectPlayer(), PerfectPlayer()]
    while not game.is_over():
        seat = game.to_act
        assert seat is not None
        game.push(players[seat].choose(game))
    assert game.result == load_book()[b""][0]


def test_perfect_x_beats_the_heuristic() -> None:
    game = QuantumTicTacToe(["x", "o"], seed=0)
    players = [PerfectPlayer(), HeuristicPlayer(random.Random(2))]
    while not game.is_over():
        seat = game.to_act
        assert seat is not None
        game.push(players[seat].choose(game))
    assert game.result == X
