"""Seeded matches between |Hop> computer levels, to measure their win rates.

    .venv/bin/python -m games.hop.arena mcts greedy --games 100

Game ``i`` uses seed ``first_seed + i`` (the Hamiltonian cards and the
players' own tie-breaks) and rotates the seats by ``i``, so every level plays
every seat equally often. With four players, seats 0 and 2 play against
seats 1 and 3, so ``mcts greedy mcts greedy`` pits two teams. A win of a
team (or, with three players, of the two players whose electrode was not
reached) counts as a share for each winner.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from games import arena
from games.budget import PI_SLOWDOWN, add_slowdown_option, match_levels
from games.hop.ai import AI_LEVELS
from games.hop.game import Hop
from games.hop.rules import LEVELS


@dataclass
class Tally(arena.Tally):
    """Wins (shares of wins), games and turns per level."""

    turns: int = 0


MATCH_LEVELS = match_levels(AI_LEVELS)
"""The levels as matches play them: searching ones think their Pi seconds in CPU time here, or without
a budget as ``LEVEL-fixed`` (games.budget)."""


def play_game(levels: Sequence[str], seed: int, *, options: dict[str, object] | None = None) -> Hop:
    """One game between the levels, seat ``k`` played by ``levels[k]``, to its end."""
    return arena.play_game(Hop, MATCH_LEVELS, levels, seed, options=options)


def match(
    levels: Sequence[str],
    games: int,
    *,
    first_seed: int = 0,
    options: dict[str, object] | None = None,
    progress: bool = False,
    slowdown: float = PI_SLOWDOWN,
) -> Tally:
    tally = Tally()
    matched = match_levels(AI_LEVELS, slowdown=slowdown)
    played = arena.series(
        Hop, matched, levels, games, first_seed=first_seed, options=options, progress=progress
    )
    for seating, game, outcome in played:
        tally.turns += game.state.turns
        # Teams: a level's share is the fraction of its seats that won.
        tally.count(seating, outcome, arena.team_share)
    return tally


def report(levels: Sequence[str], tally: Tally, options: dict[str, object]) -> str:
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


def main(argv: Sequence[str] | None = None) -> int:
    parser = arena.parser("|Hop>", MATCH_LEVELS, most=4)
    add_slowdown_option(parser)
    parser.add_argument("--level", choices=LEVELS, default="bachelor", help="the game level")
    args = arena.parse(parser, argv, "|Hop>", most=4)
    options: dict[str, object] = {"level": args.level}
    tally = match(args.levels, args.games, first_seed=args.seed, options=options, progress=args.progress,
                  slowdown=args.slowdown)
    print(report(args.levels, tally, options))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
