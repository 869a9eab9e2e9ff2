"""Hypnosia benchmark: random playouts per second, search nodes per second, thinking time per decision.

    .venv/bin/python bench/hypnosia.py [--playouts 300] [--positions 30] [--games 4] [--only-thinking]

Side by side in the same run:

* playouts — random games to their end on the rules engine's position
  (:class:`games.hypnosia.rules.Position`, what the computer players search)
  against the baseline of the same games played through the games frame
  (JSON moves, ``legal_moves``/``push``, what the panel uses);
* search — the expectimax player's nodes (positions reached and evaluated)
  per second against the greedy player's, on the same seeded positions;
* thinking time — the CPU time of each expectimax decision in seeded games
  against greedy players (2 and 4 players): median, 95th percentile and worst,
  without a time budget (the fixed search, baseline) and with the default one
  (1 s on a Pi, i.e. 0.2 s of CPU here: games.budget), and how many
  decisions the budget cut.

Machine-independent counts (steps per playout, nodes per decision) are
printed with the rates: they only change when the rules or the search do.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.decisions import HEADER, Timed, row  # noqa: E402
from games.arena import play_out  # noqa: E402
from games.budget import Budget  # noqa: E402
from games.frame import CHANCE, Player  # noqa: E402
from games.hypnosia.ai import ExpectimaxPlayer, GreedyPlayer  # noqa: E402
from games.hypnosia.game import Hypnosia, program_roll  # noqa: E402
from games.hypnosia.rules import Phase, Position  # noqa: E402

PLAYERS = ["a", "b", "c", "d"]


def core_playout(seed: int) -> int:
    """A random game on the engine's position; returns the number of steps played."""
    game = Hypnosia.new(PLAYERS, seed=seed)
    position: Position = game.position
    rng = random.Random(seed)
    steps = 0
    while position.phase != Phase.OVER:
        if position.phase == Phase.MOVE:
            position.play(rng.choice(position.legal()))
            steps += 1
        else:
            position.roll(*program_roll(seed, position.rolls))
    return steps


def frame_playout(seed: int) -> int:
    """The same game through the frame's JSON moves."""
    game = Hypnosia.new(PLAYERS, seed=seed)
    rng = random.Random(seed)
    steps = 0
    while not game.is_over():
        moves = game.legal_moves()
        if game.to_act == CHANCE:
            game.push(moves[0])
        else:
            game.push(rng.choice(moves))
            steps += 1
    return steps


def playouts(count: int) -> None:
    results = {}
    for name, run in (("frame (baseline)", frame_playout), ("engine", core_playout)):
        start = time.perf_counter()
        steps = [run(seed) for seed in range(count)]
        elapsed = time.perf_counter() - start
        results[name] = (count / elapsed, steps)
    base_rate, base_steps = results["frame (baseline)"]
    core_rate, core_steps = results["engine"]
    assert base_steps == core_steps, "the engine and the frame must play the very same games"
    print(f"random playouts, {len(PLAYERS)} players, {count} seeded games")
    print(f"  steps per playout: mean {statistics.mean(core_steps):.1f}, max {max(core_steps)}")
    print(f"  frame (baseline) {base_rate:9.1f} playouts/s")
    print(f"  engine           {core_rate:9.1f} playouts/s   x{core_rate / base_rate:.2f}")


def sample_positions(count: int) -> list[Position]:
    """Positions where a pawn must move, taken from seeded greedy games of two players."""
    found: list[Position] = []
    seed = 0
    while len(found) < count:
        game = Hypnosia.new(PLAYERS[:2], seed=seed)
        rng = random.Random(seed)
        greedy = GreedyPlayer(rng)
        while not game.is_over() and len(found) < count:
            if game.to_act != CHANCE and len(game.position.legal()) > 1 and rng.random() < 0.1:
                found.append(game.position.copy())
            game.push(greedy.choose(game))
        seed += 1
    return found


def search(count: int) -> None:
    positions = sample_positions(count)
    print(f"search, {count} seeded two-player positions")
    rates = {}
    for name, player in (
        ("greedy (baseline)", GreedyPlayer(random.Random(0))),
        ("expectimax", ExpectimaxPlayer(random.Random(0))),
    ):
        start = time.perf_counter()
        for position in positions:
            before = player.stats.nodes
            player.pick(position)
            player.stats.by_decision.append(player.stats.nodes - before)
        elapsed = time.perf_counter() - start
        rates[name] = player.stats.nodes / elapsed
        per = player.stats.by_decision
        print(
            f"  {name:<18} {rates[name]:9.0f} nodes/s  {len(positions) / elapsed:7.2f} decisions/s  "
            f"nodes per decision: mean {statistics.mean(per):.0f}, max {max(per)}"
        )
    ratio = rates["expectimax"] / rates["greedy (baseline)"]
    print(f"  expectimax node rate x{ratio:.2f} of greedy's")


def thinking(games: int) -> None:
    """Expectimax's CPU time per decision in seeded games against greedy, fixed and anytime."""
    print(f"thinking time per expectimax decision (CPU of the searching thread), {games} seeded games each")
    print(HEADER)
    for name, budget in (("fixed (baseline)", None), ("anytime, 1 s on a Pi", Budget.pi_equivalent())):
        for seats in (2, 4):
            search = ExpectimaxPlayer(random.Random(seats), budget=budget)
            timed = Timed(search, lambda s=search: s.stats.nodes, lambda s=search: s.stats.cut)
            for seed in range(games):
                players: list[Player] = [GreedyPlayer(random.Random(seed * 7 + k)) for k in range(seats)]
                players[seed % seats] = timed
                play_out(Hypnosia.new(PLAYERS[:seats], seed=seed), players)
            print(row(f"{seats} players, {name}", timed))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--playouts", type=int, default=300)
    parser.add_argument("--positions", type=int, default=30)
    parser.add_argument("--games", type=int, default=4, help="seeded games per table size for thinking times")
    parser.add_argument("--only-thinking", action="store_true", help="skip the playout and search rates")
    args = parser.parse_args(argv)
    if args.only_thinking:
        thinking(args.games)
        return 0
    playouts(args.playouts)
    search(args.positions)
    thinking(args.games)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
