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

import argparse
import random
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field

from games.frame import Player
from games.hop.ai import AI_LEVELS
from games.hop.game import Hop
from games.hop.rules import LEVELS


@dataclass
class Tally:
    """Wins (shares of wins) and games per level."""

    games: int = 0
    wins: dict[str, float] = field(default_factory=dict)
    draws: int = 0
    turns: int = 0

    def rate(self, level: str) -> float:
        return self.wins.get(level, 0.0) / self.games if self.games else 0.0


def play_game(levels: Sequence[str], seed: int, *, options: dict[str, object] | None = None) -> Hop:
    """One game between the levels, seat ``k`` played by ``levels[k]``, to its end."""
    game = Hop.new([f"{level} {k + 1}" for k, level in enumerate(levels)], options=options, seed=seed)
    players: list[Player] = [AI_LEVELS[level](random.Random(seed * 7 + k)) for k, level in enumerate(levels)]
    while not game.is_over():
        actor = game.to_act
        assert actor is not None
        game.push(players[actor].choose(game))
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
        tally.turns += game.state.turns
        if outcome.draw:
            tally.draws += 1
        # A level's share: the fraction of its seats that won.
        for seat in outcome.winners:
            level = seating[seat]
            tally.wins[level] = tally.wins.get(level, 0.0) + 1 / seating.count(level)
        if progress:
            print(
                f"game {i + 1}: {', '.join(seating)} -> winners {[seating[s] for s in outcome.winners]}",
                file=sys.stderr,
                flush=True,
            )
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
    parser = argparse.ArgumentParser(description="Win rates of |Hop> computer levels over seeded games")
    parser.add_argument("levels", nargs="+", choices=sorted(AI_LEVELS), help="one level per seat (2-4)")
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0, help="seed of the first game")
    parser.add_argument("--level", choices=LEVELS, default="bachelor", help="the game level")
    parser.add_argument("--progress", action="store_true", help="print each game's result")
    args = parser.parse_args(argv)
    if not 2 <= len(args.levels) <= 4:
        parser.error("|Hop> is played by 2 to 4 players")
    options: dict[str, object] = {"level": args.level}
    tally = match(args.levels, args.games, first_seed=args.seed, options=options, progress=args.progress)
    print(report(args.levels, tally, options))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
