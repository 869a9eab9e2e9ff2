"""Seeded matches between computer levels of a digital game, to measure win rates.

    .venv/bin/python -m games.arena hop mcts greedy --games 100 [--level master]
    .venv/bin/python -m games.arena hypnosia expectimax greedy --games 200 [--variant]

Each game's entry in :data:`ARENAS` is an :class:`Arena` -- its game, its
levels, how a shared win is split, what else it counts, its own command-line
options and its report; this module plays the series and reads the command
line. Game ``i`` uses seed ``first_seed + i`` (the game's chance and the
players' own tie-breaks) and rotates the seats by ``i``, so every level plays
every seat equally often.

|Hop>: with four players, seats 0 and 2 play against seats 1 and 3, so
``mcts greedy mcts greedy`` pits two teams; a win of a team (or, with three
players, of the two players whose electrode was not reached) counts as a
share for each winner. Hypnosia: a shared win (a tie the rules cannot break)
counts as a share.

Digital Haute-Tension's matches, which seat lineups and report confidence
intervals, are ``games.hautetension.ai.arena``.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from games.budget import PI_SLOWDOWN, add_slowdown_option, match_levels
from games.frame import CHANCE, DigitalGame, Outcome, Player, PlayerFactory
from games.hop import ai as hop_ai
from games.hop.game import Hop
from games.hop.rules import LEVELS as HOP_LEVELS
from games.hypnosia import ai as hypnosia_ai
from games.hypnosia.game import Hypnosia

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


def parser(
    game: str, levels: Iterable[str], *, most: int, prog: str | None = None
) -> argparse.ArgumentParser:
    """The arena command line: one level per seat, --games and --seed; the game adds its options.

    ``prog`` names the command in its usage (the game's arena: ``python -m games.arena hop``)."""
    parser = argparse.ArgumentParser(
        prog=prog, description=f"Win rates of {game} computer levels over seeded games"
    )
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


def _no_options(parser: argparse.ArgumentParser) -> None:
    """A game played with its default options."""


def _default_options(args: argparse.Namespace) -> dict[str, object]:
    return {}


def wins_and_draws(levels: Sequence[str], tally: Tally, options: dict[str, object]) -> str:
    """The plain report: each level's wins and rate, and the draws."""
    lines = [f"{tally.games} games, {len(levels)} players: {' vs '.join(levels)}"]
    for level in dict.fromkeys(levels):
        lines.append(f"  {level:<11} won {tally.wins.get(level, 0.0):6.1f} ({100 * tally.rate(level):5.1f}%)")
    lines.append(f"  draws {tally.draws}")
    return "\n".join(lines)


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
    add_options: Callable[[argparse.ArgumentParser], None] = _no_options
    """Adds the game's own options to the command line."""
    options_of: Callable[[argparse.Namespace], dict[str, object]] = _default_options
    """The game's options from the parsed command line."""
    report: Callable[[Sequence[str], T, dict[str, object]], str] = wins_and_draws
    """The table printed after the match: (levels, tally, options) -> text."""

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
        prog: str | None = None,
        add_options: Callable[[argparse.ArgumentParser], None] | None = None,
        options_of: Callable[[argparse.Namespace], dict[str, object]] | None = None,
        report: Callable[[Sequence[str], T, dict[str, object]], str] | None = None,
    ) -> int:
        """The arena command: levels, --games, --seed, the game's own options, then the report.

        ``add_options``, ``options_of`` and ``report`` stand in for the arena's own."""
        command = parser(self.name, match_levels(self.ai_levels), most=self.most, prog=prog)
        add_slowdown_option(command)
        (add_options or self.add_options)(command)
        args = parse(command, argv, self.name, most=self.most)
        options = (options_of or self.options_of)(args)
        tally = self.match(
            args.levels,
            args.games,
            first_seed=args.seed,
            options=options,
            progress=args.progress,
            slowdown=args.slowdown,
        )
        print((report or self.report)(args.levels, tally, options))
        return 0


# -- |Hop> ----------------------------------------------------------------------------------------


@dataclass
class HopTally(Tally):
    """Wins (shares of wins), games and turns per level."""

    turns: int = 0


def _count_turns(tally: HopTally, seating: Sequence[str], game: Hop, outcome: Outcome) -> None:
    tally.turns += game.state.turns


def hop_report(levels: Sequence[str], tally: HopTally, options: dict[str, object]) -> str:
    lines = [
        f"{tally.games} games, {len(levels)} players ({', '.join(f'{k}={v}' for k, v in options.items())}): "
        f"{' vs '.join(levels)}"
    ]
    for level in dict.fromkeys(levels):
        lines.append(
            f"  {level:<7} won {tally.wins.get(level, 0.0):6.1f} games ({100 * tally.rate(level):5.1f}%)"
        )
    lines.append(f"  draws {tally.draws}; mean turns per game {tally.turns / max(1, tally.games):.1f}")
    return "\n".join(lines)


def _hop_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--level", choices=HOP_LEVELS, default="bachelor", help="the game level")


HOP = Arena(
    name="|Hop>",
    game_class=Hop,
    ai_levels=hop_ai.AI_LEVELS,
    most=4,
    # Teams: a level's share is the fraction of its seats that won.
    share=team_share,
    tally=HopTally,
    record=_count_turns,
    add_options=_hop_options,
    options_of=lambda args: {"level": args.level},
    report=hop_report,
)


# -- Hypnosia -------------------------------------------------------------------------------------


@dataclass
class HypnosiaTally(Tally):
    """Wins (shares of wins), points, games and endings per level."""

    points: dict[str, float] = field(default_factory=dict)
    terminations: dict[str, int] = field(default_factory=dict)


def _count_points(tally: HypnosiaTally, seating: Sequence[str], game: Hypnosia, outcome: Outcome) -> None:
    name = outcome.termination.value
    tally.terminations[name] = tally.terminations.get(name, 0) + 1
    for seat, score in enumerate(outcome.scores or ()):
        tally.points[seating[seat]] = tally.points.get(seating[seat], 0.0) + score


def hypnosia_report(levels: Sequence[str], tally: HypnosiaTally, options: dict[str, object]) -> str:
    lines = [f"{tally.games} games, {len(levels)} players: {' vs '.join(levels)}"]
    for level in dict.fromkeys(levels):
        share = levels.count(level)
        lines.append(
            f"  {level:<11} wins {tally.wins.get(level, 0.0):6.1f}  ({100 * tally.rate(level) / share:5.1f}%"
            f" per seat)  mean points {tally.points.get(level, 0.0) / tally.games / share:5.2f}"
        )
    lines.append(
        f"  draws {tally.draws}; endings: "
        + ", ".join(f"{k} {v}" for k, v in sorted(tally.terminations.items()))
    )
    return "\n".join(lines)


def _hypnosia_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--variant", action="store_true", help="stacks may not cross bridges")


HYPNOSIA = Arena(
    name="Hypnosia",
    game_class=Hypnosia,
    ai_levels=hypnosia_ai.AI_LEVELS,
    most=6,
    # A shared win (a tie the rules cannot break) is split between its winners.
    share=tie_share,
    tally=HypnosiaTally,
    record=_count_points,
    add_options=_hypnosia_options,
    options_of=lambda args: {"stacks_cross": not args.variant},
    report=hypnosia_report,
)


ARENAS: dict[str, Arena[Any, Any]] = {HOP.game_class.name: HOP, HYPNOSIA.game_class.name: HYPNOSIA}
"""The arena of each game, by the game's name."""


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m games.arena GAME LEVEL LEVEL … [options]``: the game's arena command."""
    args = list(sys.argv[1:] if argv is None else argv)
    command = argparse.ArgumentParser(
        prog="python -m games.arena", description="Win rates of a game's computer levels over seeded games"
    )
    command.add_argument("game", choices=sorted(ARENAS))
    command.add_argument("rest", nargs=argparse.REMAINDER, help="its levels and options (GAME --help)")
    game = command.parse_args(args[:1]).game
    return ARENAS[game].main(args[1:], prog=f"{command.prog} {game}")


if __name__ == "__main__":
    raise SystemExit(main())
