"""The shared match runner: seat rotation, win shares, draws, the command line."""

from __future__ import annotations

import enum

import pytest

from games import arena
from games.frame import Outcome


class End(enum.Enum):
    DONE = "done"


def test_seats_rotate_by_the_game_number() -> None:
    levels = ["a", "b", "c"]
    assert [arena.seating(levels, i) for i in range(4)] == [
        ["a", "b", "c"], ["b", "c", "a"], ["c", "a", "b"], ["a", "b", "c"],
    ]


def test_team_shares_count_the_fraction_of_a_levels_seats() -> None:
    seating = ["mcts", "greedy", "mcts", "greedy"]
    tally = arena.Tally()
    tally.count(seating, Outcome(End.DONE, winners=(0, 2)), arena.team_share)
    tally.count(seating, Outcome(End.DONE, winners=(1,)), arena.team_share)
    assert tally.wins == {"mcts": 1.0, "greedy": 0.5}
    assert tally.games == 2 and tally.draws == 0
    assert tally.rate("mcts") == 0.5 and tally.rate("random") == 0.0


def test_tie_shares_split_a_shared_win_and_draws_are_counted() -> None:
    seating = ["greedy", "random", "random"]
    tally = arena.Tally()
    tally.count(seating, Outcome(End.DONE, winners=(0, 1)), arena.tie_share)
    tally.count(seating, Outcome(End.DONE), arena.tie_share)
    assert tally.wins == {"greedy": 0.5, "random": 0.5}
    assert tally.games == 2 and tally.draws == 1


def test_the_command_line_checks_the_number_of_seats(capsys: pytest.CaptureFixture[str]) -> None:
    parser = arena.parser("Some game", ["greedy", "random"], most=3)
    args = arena.parse(parser, ["greedy", "random", "--games", "2", "--progress"], "Some game", most=3)
    assert (args.levels, args.games, args.seed, args.progress) == (["greedy", "random"], 2, 0, True)
    parser = arena.parser("Some game", ["greedy", "random"], most=3)
    with pytest.raises(SystemExit):
        arena.parse(parser, ["greedy"] * 4, "Some game", most=3)
    assert "Some game is played by 2 to 3 players" in capsys.readouterr().err
