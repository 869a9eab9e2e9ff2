"""Seeded matches between Hypnosia computer levels, to measure their win rates.

    .venv/bin/python -m games.hypnosia.arena expectimax greedy --games 200

Game ``i`` uses seed ``first_seed + i`` (dice and the players' own tie-breaks)
and rotates the seats by ``i``, so every level plays every seat equally
often. A shared win (a tie the rules cannot break) counts as a share.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass, field

from games import arena
from games.frame import Outcome
from games.hypnosia.ai import AI_LEVELS
from games.hypnosia.game import Hypnosia


@dataclass
class Tally(arena.Tally):
    """Wins (shares of wins), points, games and endings per level."""

    points: dict[str, float] = field(default_factory=dict)
    terminations: dict[str, int] = field(default_factory=dict)


def _count_points(tally: Tally, seating: Sequence[str], game: Hypnosia, outcome: Outcome) -> None:
    name = outcome.termination.value
    tally.terminations[name] = tally.terminations.get(name, 0) + 1
    for seat, score in enumerate(outcome.scores or ()):
        tally.points[seating[seat]] = tally.points.get(seating[seat], 0.0) + score


ARENA = arena.Arena(
    name="Hypnosia",
    game_class=Hypnosia,
    ai_levels=AI_LEVELS,
    most=6,
    # A shared win (a tie the rules cannot break) is split between its winners.
    share=arena.tie_share,
    tally=Tally,
    record=_count_points,
)
play_game = ARENA.play_game
match = ARENA.match


def report(levels: Sequence[str], tally: Tally, options: dict[str, object]) -> str:
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


def _add_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--variant", action="store_true", help="stacks may not cross bridges")


def main(argv: Sequence[str] | None = None) -> int:
    return ARENA.main(
        argv,
        add_options=_add_options,
        options_of=lambda args: {"stacks_cross": not args.variant},
        report=report,
    )


if __name__ == "__main__":
    raise SystemExit(main())
