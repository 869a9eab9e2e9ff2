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
from collections.abc import Sequence
from dataclasses import dataclass

from games import arena
from games.frame import Outcome
from games.hop.ai import AI_LEVELS
from games.hop.game import Hop
from games.hop.rules import LEVELS


@dataclass
class Tally(arena.Tally):
    """Wins (shares of wins), games and turns per level."""

    turns: int = 0


def _count_turns(tally: Tally, seating: Sequence[str], game: Hop, outcome: Outcome) -> None:
    tally.turns += game.state.turns


ARENA = arena.Arena(
    name="|Hop>",
    game_class=Hop,
    ai_levels=AI_LEVELS,
    most=4,
    # Teams: a level's share is the fraction of its seats that won.
    share=arena.team_share,
    tally=Tally,
    record=_count_turns,
)
play_game = ARENA.play_game
match = ARENA.match


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


def _add_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--level", choices=LEVELS, default="bachelor", help="the game level")


def main(argv: Sequence[str] | None = None) -> int:
    return ARENA.main(
        argv, add_options=_add_options, options_of=lambda args: {"level": args.level}, report=report
    )


if __name__ == "__main__":
    raise SystemExit(main())
