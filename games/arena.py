"""Seeded matches between computer levels of a digital game, to measure win rates.

A game's own arena (``games.hop.arena``, ``games.hypnosia.arena``) declares
an :class:`Arena` -- its game, its levels, how a shared win is split, what
else it counts -- and prints its table; this module plays the series and
reads the command line. Game ``i`` uses seed ``first_seed + i`` and rotates
the seats by ``i``, so every level plays every seat equally often.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from games.budget import PI_SLOWDOWN, add_slowdown_option, match_levels
from games.frame import CHANCE, DigitalGame, Outcome, Player, PlayerFactory

G = TypeVar("G", bound=DigitalGame)

#: How much of a win a winning seat earns its level: (seating, outcome, seat) -> share.
ShareRule = Callable[[Sequence[str], Outcome, int], float]


def team_share(seating: Sequence[str], outcome: Outcome, seat: int) -> float:
    """A level's share is the fraction of its seats that won (teams of one level)."""
    return 1 / seating.count(seating[seat])


def tie_share(seating: Sequence[str], outcome: Outcome, seat: int) -> float:
    """The winners of a shared win split it evenly."""
    return 1 / len(outcome.winners)


@dataclass
class Tally:
    """Wins (shares of wins), draws and games per level."""

    games: int = 0
    wins: dict[str, float] = field(default_factory=dict)
    draws: int = 0

    def rate(self, level: str) -> float:
        return self.wins.get(level, 0.0) / self.games if self.games else 0.0

    def count(self, seating: Sequence[str], outcome: Outcome, share: ShareRule) -> None:
        """Adds one finished game."""
        self.games += 1
        if outcome.draw:
            self.draws += 1
        for seat in outcome.winners:
            level = seating[seat]
            self.wins[level] = self.wins.get(level, 0.0) + share(seating, outcome, seat)


T = TypeVar("T", bound=Tally)


def play_out(game: G, players: Sequence[Player]) -> G:
    """Plays ``game`` to its end, seat ``k`` by ``players[k]``; chance moves by ``players[0]``."""
    while not game.is_over():
        actor = game.to_act
        player = players[0] if actor is None or actor == CHANCE else players[actor]
        game.push(player.choose(game))
    return game


def seating(levels: Sequence[str], number: int) -> list[str]:
    """The levels in their seats for game ``number``: rotated by ``number``."""
    shift = number % len(levels)
    return list(levels[shift:]) + list(levels[:shift])


def play_game(
    game_class: type[G],
    ai_levels: Mapping[str, PlayerFactory],
    levels: Sequence[str],
    seed: int,
    *,
    options: Mapping[str, object] | None = None,
) -> G:
    """One game between the levels, seat ``k`` played by ``levels[k]``, to its end.

    The game and each player's own tie-breaks are seeded from ``seed``.
    """
    game = game_class.new([f"{level} {k + 1}" for k, level in enumerate(levels)], options=options, seed=seed)
    players = [ai_levels[level](random.Random(seed * 7 + k)) for k, level in enumerate(levels)]
    return play_out(game, players)


def series(
    game_class: type[G],
    ai_levels: Mapping[str, PlayerFactory],
    levels: Sequence[str],
    games: int,
    *,
    first_seed: int = 0,
    options: Mapping[str, object] | None = None,
    progress: bool = False,
) -> Iterator[tuple[list[str], G, Outcome]]:
    """Plays ``games`` seeded games in rotated seats; yields each seating, game and outcome."""
    for i in range(games):
        seats = seating(levels, i)
        game = play_game(game_class, ai_levels, seats, first_seed + i, options=options)
        outcome = game.outcome()
        assert outcome is not None
        yield seats, game, outcome
        if progress:
            print(
                f"game {i + 1}: {', '.join(seats)} -> winners {[seats[s] for s in outcome.winners]}",
                file=sys.stderr,
                flush=True,
            )


def parser(game: str, levels: Iterable[str], *, most: int) -> argparse.ArgumentParser:
    """The arena command line: one level per seat, --games and --seed; the game adds its options."""
    parser = argparse.ArgumentParser(description=f"Win rates of {game} computer levels over seeded games")
    parser.add_argument("levels", nargs="+", choices=sorted(levels), help=f"one level per seat (2-{most})")
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0, help="seed of the first game")
    return parser


def parse(
    parser: argparse.ArgumentParser, argv: Sequence[str] | None, game: str, *, most: int
) -> argparse.Namespace:
    """Adds --progress (after the game's own options), parses, and checks the number of seats."""
    parser.add_argument("--progress", action="store_true", help="print each game's result")
    args = parser.parse_args(argv)
    if not 2 <= len(args.levels) <= most:
        parser.error(f"{game} is played by 2 to {most} players")
    return args


def _nothing_more(tally: Tally, seating: Sequence[str], game: DigitalGame, outcome: Outcome) -> None:
    """An arena that counts only wins and draws."""


@dataclass(frozen=True)
class Arena(Generic[G, T]):
    """One game's matches: its class and computer levels, how a shared win is split, and its tally.

    ``record(tally, seating, game, outcome)`` adds the game's own figures
    (turns, points, endings) to the tally after each game.
    """

    name: str
    game_class: type[G]
    ai_levels: Mapping[str, PlayerFactory]
    most: int
    """The most seats a game has."""
    share: ShareRule
    tally: Callable[[], T]
    record: Callable[[T, Sequence[str], G, Outcome], None] = _nothing_more

    def play_game(
        self,
        levels: Sequence[str],
        seed: int,
        *,
        options: Mapping[str, object] | None = None,
        slowdown: float = PI_SLOWDOWN,
    ) -> G:
        """One game between the levels, seat ``k`` played by ``levels[k]``, to its end.

        Searching levels think their Pi seconds in CPU time (games.budget.match_levels)."""
        matched = match_levels(self.ai_levels, slowdown=slowdown)
        return play_game(self.game_class, matched, levels, seed, options=options)

    def match(
        self,
        levels: Sequence[str],
        games: int,
        *,
        first_seed: int = 0,
        options: Mapping[str, object] | None = None,
        progress: bool = False,
        slowdown: float = PI_SLOWDOWN,
    ) -> T:
        """``games`` seeded games in rotated seats, counted in a new tally.

        Searching levels think their Pi seconds in CPU time of this machine, so the machine's load
        changes neither the search nor the results; ``LEVEL-fixed`` plays one without a budget."""
        tally = self.tally()
        played = series(
            self.game_class,
            match_levels(self.ai_levels, slowdown=slowdown),
            levels,
            games,
            first_seed=first_seed,
            options=options,
            progress=progress,
        )
        for seats, game, outcome in played:
            tally.count(seats, outcome, self.share)
            self.record(tally, seats, game, outcome)
        return tally

    def main(
        self,
        argv: Sequence[str] | None,
        *,
        add_options: Callable[[argparse.ArgumentParser], None],
        options_of: Callable[[argparse.Namespace], dict[str, object]],
        report: Callable[[Sequence[str], T, dict[str, object]], str],
    ) -> int:
        """The arena command: levels, --games, --seed, the game's own options, then the report."""
        command = parser(self.name, match_levels(self.ai_levels), most=self.most)
        add_slowdown_option(command)
        add_options(command)
        args = parse(command, argv, self.name, most=self.most)
        options = options_of(args)
        tally = self.match(
            args.levels,
            args.games,
            first_seed=args.seed,
            options=options,
            progress=args.progress,
            slowdown=args.slowdown,
        )
        print(report(args.levels, tally, options))
        return 0
