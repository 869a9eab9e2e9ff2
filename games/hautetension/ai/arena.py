"""Matches between computer levels: win rates over many seeded games.

    .venv/bin/python -m games.hautetension.ai.arena --players 2 --games 200
    .venv/bin/python -m games.hautetension.ai.arena --lineup ismcts ismcts-fixed --games 100

Each game seats one level per seat; the seatings cycle through every
arrangement of the levels (every level plays every position, and moves first,
equally often) and the first player is seat 0. In 2-player games the three
pairings are played in turn; in 3-player games one of each level; in 4-player
games ISMCTS, heuristic, random and a second heuristic; ``--lineup`` seats
the levels given instead, cycling through their distinct orders. ISMCTS thinks
the CPU time here that its default budget buys on a Pi (games.budget: 1 s there,
0.2 s here); ``ismcts-fixed`` is the same search without a budget (its 1000
iterations always). A level's *win share*
is 1 for a win, 1/k for a k-way tie, 0 for a loss; the table gives its mean
with a 95 % confidence interval (normal approximation), and mean tournament
points.
"""

from __future__ import annotations

import argparse
import itertools
import math
import random
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from games.budget import FIXED, PI_SECONDS, Budget, add_slowdown_option
from games.hautetension.ai import HeuristicPlayer, InformationSet, ISMCTSPlayer, RandomPlayer, Searcher
from games.hautetension.digital import DigitalHauteTension

LEVELS = ("ismcts", "heuristic", "random")
MATCH_LEVELS = (*LEVELS, "ismcts" + FIXED)


def make(level: str, rng: random.Random, iterations: int, budget: Budget | None = None) -> Searcher:
    """A level's searcher; ``ismcts`` thinks within ``budget``, ``ismcts-fixed`` without one."""
    if level == "ismcts":
        return ISMCTSPlayer(rng, iterations=iterations, budget=budget)
    if level == "ismcts" + FIXED:
        return ISMCTSPlayer(rng, iterations=iterations)
    if level == "heuristic":
        return HeuristicPlayer(rng)
    return RandomPlayer(rng)


@dataclass
class Tally:
    games: int = 0
    share: float = 0.0
    share_sq: float = 0.0
    points: float = 0.0
    wins: int = 0
    ties: int = 0
    seconds: float = 0.0
    moves: int = 0

    def add(self, share: float, points: float) -> None:
        self.games += 1
        self.share += share
        self.share_sq += share * share
        self.points += points
        self.wins += share == 1.0
        self.ties += 0.0 < share < 1.0

    def mean(self) -> float:
        return self.share / self.games if self.games else 0.0

    def interval(self) -> float:
        if self.games < 2:
            return float("nan")
        mean = self.mean()
        var = max(self.share_sq / self.games - mean * mean, 0.0) * self.games / (self.games - 1)
        return 1.96 * math.sqrt(var / self.games)


@dataclass
class Match:
    tallies: dict[str, Tally] = field(default_factory=lambda: {level: Tally() for level in MATCH_LEVELS})
    pair: dict[tuple[str, str], list[float]] = field(default_factory=dict)
    games: int = 0


def lineups(players: int, levels: Sequence[str] | None = None) -> list[tuple[str, ...]]:
    """The seatings a match cycles through: every distinct order of ``levels`` if given."""
    if levels is not None:
        return sorted(set(itertools.permutations(levels)))
    if players == 2:
        pairs = [("ismcts", "heuristic"), ("ismcts", "random"), ("heuristic", "random")]
        return [p for a, b in pairs for p in ((a, b), (b, a))]
    if players == 3:
        return list(itertools.permutations(LEVELS))
    base = ("ismcts", "heuristic", "random", "heuristic")
    return sorted(set(itertools.permutations(base)))


def play_game(
    lineup: Sequence[str], seed: int, iterations: int, match: Match, budget: Budget | None = None
) -> None:
    game = DigitalHauteTension(
        [f"{level}-{i}" for i, level in enumerate(lineup)], options={"first": 0}, seed=seed
    )
    rng = random.Random(seed)
    searchers = [make(level, random.Random(rng.getrandbits(64)), iterations, budget) for level in lineup]
    while not game.is_over():
        seat = game.to_act
        assert seat is not None
        started = time.process_time()
        slot, attack = searchers[seat].choose_from(InformationSet.from_view(game.view(seat)))
        tally = match.tallies[lineup[seat]]
        tally.seconds += time.process_time() - started
        tally.moves += 1
        game.push({"slot": game.layout.slots[slot], "pawn": "attack" if attack else "defense"})
    outcome = game.outcome()
    assert outcome is not None and outcome.scores is not None
    winners = outcome.winners
    for seat, level in enumerate(lineup):
        share = 1.0 / len(winners) if seat in winners else 0.0
        match.tallies[level].add(share, outcome.scores[seat])
        if len(lineup) == 2:
            match.pair.setdefault((level, lineup[1 - seat]), []).append(share)
    match.games += 1


def run(
    players: int,
    games: int,
    seed: int,
    iterations: int,
    progress: Callable[[str], None],
    *,
    budget: Budget | None = None,
    levels: Sequence[str] | None = None,
) -> Match:
    """``games`` games; ``budget`` is ISMCTS's (None: none, as ``ismcts-fixed``), ``levels`` the lineup."""
    match = Match()
    arrangements = lineups(players, levels)
    for number in range(games):
        lineup = arrangements[number % len(arrangements)]
        play_game(lineup, seed + number, iterations, match, budget)
        if (number + 1) % 10 == 0:
            shares = ", ".join(f"{level} {t.mean():.2f}" for level, t in match.tallies.items() if t.games)
            progress(f"{number + 1}/{games} games; win shares so far: {shares}")
    return match


def report(players: int, match: Match, iterations: int, budget: Budget | None = None) -> str:
    thinking = "" if budget is None else f", at most {budget.seconds:g} s of CPU"
    lines = [
        f"### {players} players: {match.games} games (ISMCTS {iterations} iterations per move{thinking})",
        "",
        "| level | games | wins | ties | win share (95 % CI) | mean points | CPU s per move |",
        "|---|---|---|---|---|---|---|",
    ]
    for level in MATCH_LEVELS:
        t = match.tallies[level]
        if not t.games:
            continue
        per_move = t.seconds / t.moves if t.moves else 0.0
        lines.append(
            f"| {level} | {t.games} | {t.wins} | {t.ties} | {t.mean():.3f} ± {t.interval():.3f} "
            f"| {t.points / t.games:.2f} | {per_move:.4f} |"
        )
    if match.pair:
        lines += ["", "| level | against | games | win share (95 % CI) |", "|---|---|---|---|"]
        for (level, other), shares in sorted(match.pair.items()):
            t = Tally()
            for s in shares:
                t.add(s, 0.0)
            lines.append(f"| {level} | {other} | {t.games} | {t.mean():.3f} ± {t.interval():.3f} |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--players", type=int, choices=(2, 3, 4), default=2)
    parser.add_argument("--games", type=int, default=60)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--iterations", type=int, default=ISMCTSPlayer(None).iterations)
    parser.add_argument("--lineup", nargs="+", choices=MATCH_LEVELS, help="the levels seated (2-4)")
    add_slowdown_option(parser)
    args = parser.parse_args(argv)
    if args.lineup is not None:
        if not 2 <= len(args.lineup) <= 4:
            parser.error("a lineup seats 2 to 4 levels")
        args.players = len(args.lineup)
    budget = Budget.pi_equivalent(PI_SECONDS, slowdown=args.slowdown)
    match = run(
        args.players,
        args.games,
        args.seed,
        args.iterations,
        lambda m: print(m, file=sys.stderr),
        budget=budget,
        levels=args.lineup,
    )
    print(report(args.players, match, args.iterations, budget))
    return 0


if __name__ == "__main__":
    sys.exit(main())
