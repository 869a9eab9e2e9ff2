"""Seeded matches between Hypnosia computer levels, to measure their win rates.

    .venv/bin/python -m games.hypnosia.arena expectimax greedy --games 200

Game ``i`` uses seed ``first_seed + i`` (dice and the players' own tie-breaks)
and rotates the seats by ``i``, so every level plays every seat equally
often. A shared win (a tie the rules cannot break) counts as a share.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field

from games.frame import CHANCE, Player
from games.hypnosia.ai import AI_LEVELS
from games.hypnosia.game import Hypnosia


@dataclass
class Tally:
    """Wins (shares of wins) and games per level."""

    games: int = 0
    wins: dict[str, float] = field(default_factory=dict)
    points: dict[str, float] = field(default_factory=dict)
    draws: int = 0
    terminations: dict[str, int] = field(default_factory=dict)

    def rate(self, level: str) -> float:
        return self.wins.get(level, 0.0) / self.games if self.games else 0.0


def play_game(levels: Sequence[str], seed: int, *, options: dict[str, object] | None = None) -> Hypnosia:
    """One game between the levels, seat ``k`` played by ``levels[k]``, to its end."""
    game = Hypnosia.new([f"{level} {k + 1}" for k, level in enumerate(levels)], options=options, seed=seed)
    players: list[Player] = [AI_LEVELS[level](random.Random(seed * 7 + k)) for k, level in enumerate(levels)]
    while not game.is_over():
        actor = game.to_act
        player = players[0] if actor is None or actor == CHANCE else players[actor]
        game.push(player.choose(game))
    return game


def match(
    levels: Sequence[str],
    games: int,
    *,
    first_seed: int = 0,
    options: dict[str, object] | None = None,
    progress: bool = False,
) -> Tally:
    tally = Tally()
    for i in range(games):
        shift = i % len(levels)
        seating = list(levels[shift:]) + list(levels[:shift])
        game = play_game(seating, first_seed + i, options=options)
        outcome = game.outcome()
        assert outcome is not None
        tally.games += 1
        name = outcome.termination.value
        tally.terminations[name] = tally.terminations.get(name, 0) + 1
        if outcome.draw:
            tally.draws += 1
        for seat in outcome.winners:
            tally.wins[seating[seat]] = tally.wins.get(seating[seat], 0.0) + 1 / len(outcome.winners)
        for seat, score in enumerate(outcome.scores or ()):
            tally.points[seating[seat]] = tally.points.get(seating[seat], 0.0) + score
        if progress:
            print(
                f"game {i + 1}: {', '.join(seating)} -> winners {[seating[s] for s in outcome.winners]}",
                file=sys.stderr,
                flush=True,
            )
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
    parser = argparse.ArgumentParser(description="Win rates of Hypnosia computer levels over seeded games")
    parser.add_argument("levels", nargs="+", choices=sorted(AI_LEVELS), help="one level per seat (2-6)")
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0, help="seed of the first game")
    parser.add_argument("--variant", action="store_true", help="stacks may not cross bridges")
    parser.add_argument("--progress", action="store_true", help="print each game's result")
    args = parser.parse_args(argv)
    if not 2 <= len(args.levels) <= 6:
        parser.error("Hypnosia is played by 2 to 6 players")
    options: dict[str, object] = {"stacks_cross": not args.variant}
    tally = match(args.levels, args.games, first_seed=args.seed, options=options, progress=args.progress)
    print(report(args.levels, tally))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
