"""The shared match runner: seat rotation, win shares, draws, the command line."""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pytest

from games import arena
from games.frame import DigitalGame, Outcome, RandomPlayer


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


class FirstMoverWins(DigitalGame):
    """One move and the game is over: whoever sits first wins, except that every fourth seed draws."""

    name = "first-mover-wins"

    def check_options(self, options: dict[str, Any]) -> dict[str, Any]:
        return options

    def _restart(self) -> None:
        self.done = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._restart()

    @property
    def to_act(self) -> int | None:
        return None if self.done else 0

    def legal_moves(self) -> list[str]:
        return [] if self.done else ["go"]

    def _apply(self, move: object) -> None:
        self.done = True

    def outcome(self) -> Outcome | None:
        if not self.done:
            return None
        return Outcome(End.DONE, winners=() if self.seed % 4 == 3 else (0,))

    def view(self, seat: int | None = None) -> dict[str, Any]:
        return {}


@dataclass
class Counted(arena.Tally):
    moves: int = 0


def _count_moves(tally: Counted, seating: Sequence[str], game: FirstMoverWins, outcome: Outcome) -> None:
    tally.moves += len(game.history)


ARENA = arena.Arena(
    name="First mover",
    game_class=FirstMoverWins,
    ai_levels={"a": RandomPlayer, "b": RandomPlayer},
    most=2,
    share=arena.tie_share,
    tally=Counted,
    record=_count_moves,
)


def test_an_arena_plays_its_series_and_counts_its_own_figures() -> None:
    tally = ARENA.match(["a", "b"], 4, first_seed=10)
    # Seat 0 wins seeds 10, 11 and 12; it is "a", "b", "a" as the seats rotate; seed 13 draws.
    assert tally.games == 4 and tally.draws == 1 and tally.wins == {"a": 2.0, "b": 1.0}
    assert tally.moves == 4
    assert ARENA.play_game(["b", "a"], 3).history == ["go"]


def test_an_arena_command_reads_the_games_options(capsys: pytest.CaptureFixture[str]) -> None:
    seen: list[dict[str, object]] = []

    def report(levels: Sequence[str], tally: Counted, options: dict[str, object]) -> str:
        seen.append(options)
        return f"{tally.games} games {' vs '.join(levels)} moves {tally.moves}"

    status = ARENA.main(
        ["a", "b", "--games", "3", "--fast"],
        add_options=lambda parser: parser.add_argument("--fast", action="store_true"),
        options_of=lambda args: {"fast": args.fast},
        report=report,
    )
    assert status == 0 and seen == [{"fast": True}]
    assert capsys.readouterr().out == "3 games a vs b moves 3\n"


def test_the_arena_command_runs_the_named_games_arena(capsys: pytest.CaptureFixture[str]) -> None:
    assert set(arena.ARENAS) == {"hop", "hypnosia"}
    assert arena.main(["hop", "greedy", "random", "--games", "2", "--level", "master"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("2 games, 2 players (level=master): greedy vs random\n")
    assert "mean turns per game" in out
    with pytest.raises(SystemExit):
        arena.main(["chess", "random", "random"])
    assert "invalid choice: 'chess'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        arena.main(["hypnosia", "random"])
    assert "python -m games.arena hypnosia" in capsys.readouterr().err


def test_an_arena_without_a_report_of_its_own_prints_its_wins(capsys: pytest.CaptureFixture[str]) -> None:
    plain = arena.Arena(name="First mover", game_class=FirstMoverWins, ai_levels={"a": RandomPlayer},
                        most=2, share=arena.tie_share, tally=arena.Tally)
    assert plain.main(["a", "a", "--games", "4"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "4 games, 2 players: a vs a", "  a           won    3.0 ( 75.0%)", "  draws 1",
    ]
