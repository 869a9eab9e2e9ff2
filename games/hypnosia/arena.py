"""Seeded matches between Hypnosia computer levels, to measure their win rates.

    .venv/bin/python -m games.hypnosia.arena expectimax greedy --games 200

Game ``i`` uses seed ``first_seed + i`` (dice and the players' own tie-breaks)
and rotates the seats by ``i``, so every level plays every seat equally
often. A shared win (a tie the rules cannot break) counts as a share.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from games import arena
from games.budget import PI_SLOWDOWN, add_slowdown_option, match_levels
from games.hypnosia.ai import AI_LEVELS
from games.hypnosia.game import Hypnosia


@dataclass
class Tally(arena.Tally):
    """Wins (shares of wins), points, games and endings per level."""

    points: dict[str, float] = field(default_factory=dict)
    terminations: dict[str, int] = field(default_factory=dict)


MATCH_LEVELS = match_levels(AI_LEVELS)
"""The levels as matches play them: searching ones think their Pi seconds in CPU time here, or without
a budget as ``LEVEL-fixed`` (games.budget)."""


def play_game(levels: Sequence[str], seed: int, *, options: dict[str, object] | None = None) -> Hypnosia:
    """One game between the levels, seat ``k`` played by ``levels[k]``, to its end."""
    return arena.play_game(Hypnosia, MATCH_LEVELS, levels, seed, options=options)


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
        Hypnosia, matched, levels, games, first_seed=first_seed, options=options, progress=progress
    )
    for seating, _game, outcome in played:
        name = outcome.termination.value
        tally.terminations[name] = tally.terminations.get(name, 0) + 1
        # A shared win (a tie the rules cannot break) is split between its winners.
        tally.count(seating, outcome, arena.tie_share)
        for seat, score in enumerate(outcome.scores or ()):
            tally.points[seating[seat]] = tally.points.get(seating[seat], 0.0) + score
    return tally


def report(levels: Sequence[str], tally: Tally) -> str:
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


def main(argv: Sequence[str] | None = None) -> int:
    parser = arena.parser("Hypnosia", MATCH_LEVELS, most=6)
    add_slowdown_option(parser)
    parser.add_argument("--variant", action="store_true", help="stacks may not cross bridges")
    args = arena.parse(parser, argv, "Hypnosia", most=6)
    options: dict[str, object] = {"stacks_cross": not args.variant}
    tally = match(args.levels, args.games, first_seed=args.seed, options=options, progress=args.progress,
                  slowdown=args.slowdown)
    print(report(args.levels, tally))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
