"""Quantum tic-tac-toe benchmark: random playouts and the perfect-play solver.

    .venv/bin/python bench/qttt.py [--playouts SECONDS] [--budget NODES]

Prints, side by side in one run:

* random playouts per second, through the game engine (the frame's
  push/legal_moves, history kept) and straight over the compact rules
  functions;
* the solver without a transposition table (the baseline of the ratios),
  with the table but no symmetry reduction, and with both, on a position two
  moves in that every configuration finishes, then on the empty position:
  positions searched, seconds, positions per second, and how many times
  fewer positions and less time than the baseline. On the empty position a
  configuration stops after ``--budget`` positions (``0``: no limit) and
  says "unfinished"; its ratios are then bounds.

Node counts do not depend on the machine; seconds do.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.qttt import QuantumTicTacToe, rules  # noqa: E402
from games.qttt.book import VALUE_NAMES  # noqa: E402
from games.qttt.solver import SearchLimitReached, Solver  # noqa: E402

CONFIGS = {
    "no table (baseline)": {"transposition": False, "symmetry": False},
    "table, no symmetry": {"transposition": True, "symmetry": False},
    "table + symmetry": {"transposition": True, "symmetry": True},
}
TWO_MOVES = [[0, 1], [1, 2]]


def engine_playouts(seconds: float, rng: random.Random) -> tuple[int, float]:
    count, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        game = QuantumTicTacToe(["x", "o"], seed=0)
        while not game.is_over():
            game.push(rng.choice(game.legal_moves()))
        count += 1
    return count, time.perf_counter() - start


def rules_playouts(seconds: float, rng: random.Random) -> tuple[int, float]:
    count, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        position = b""
        while True:
            free = rules.free_squares(position)
            if len(free) == 1:
                position += bytes(free)
            else:
                a, b = rng.sample(free, 2)
                closing = rules.closes_cycle(position, a, b)
                position += bytes((rules.PAIR_CODE[a][b],))
                if closing:
                    position = rules.collapse(position, rng.choice((a, b)))
            if rules.settle(position) is not None:
                break
        count += 1
    return count, time.perf_counter() - start


def solve(position: bytes, config: dict[str, bool], budget: int) -> tuple[str, int, float]:
    solver = Solver(node_limit=budget or None, **config)
    start = time.perf_counter()
    try:
        value = VALUE_NAMES[solver.value(position)]
    except SearchLimitReached:
        value = "unfinished"
    return value, solver.stats.nodes, time.perf_counter() - start


def solver_table(title: str, position: bytes, budget: int) -> None:
    print(f"\n{title}")
    print(f"  {'configuration':<20} {'value':>10} {'positions':>12} {'seconds':>9} {'pos/s':>9} "
          f"{'fewer pos.':>11} {'faster':>8}")
    base: tuple[int, float, bool] | None = None
    for name, config in CONFIGS.items():
        value, nodes, seconds = solve(position, config, budget)
        unfinished = value == "unfinished"
        if base is None:
            base = (nodes, seconds, unfinished)
        # An unfinished baseline makes the ratios lower bounds; an unfinished
        # configuration after a finished baseline makes them upper bounds.
        bound = ">=" if base[2] and not unfinished else ("<=" if unfinished and not base[2] else "")
        if base[2] and unfinished:
            bound = "?"
        print(f"  {name:<20} {value:>10} {nodes:>12,} {seconds:>9.2f} {nodes / seconds:>9,.0f} "
              f"{bound + format(base[0] / nodes, '.1f'):>11} {bound + format(base[1] / seconds, '.1f'):>8}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--playouts", type=float, default=3.0, help="seconds per playout measure (default 3)")
    parser.add_argument("--budget", type=int, default=600_000,
                        help="positions after which a search of the empty position gives up (0: none)")
    args = parser.parse_args(argv)
    rng = random.Random(1)
    print("random playouts")
    engine = engine_playouts(args.playouts, rng)
    fast = rules_playouts(args.playouts, rng)
    print(f"  engine (frame push/legal_moves): {engine[0] / engine[1]:>9,.0f} games/s")
    print(f"  compact rules functions:         {fast[0] / fast[1]:>9,.0f} games/s "
          f"(x{(fast[0] / fast[1]) / (engine[0] / engine[1]):.1f})")
    game = QuantumTicTacToe(["x", "o"], seed=0)
    for move in TWO_MOVES:
        game.push(move)
    solver_table(f"solver, position after {TWO_MOVES}", game.position, 0)
    budget = f"gives up after {args.budget:,} positions" if args.budget else "no budget"
    solver_table(f"solver, empty position ({budget})", b"", args.budget)
    return 0


if __name__ == "__main__":
    sys.exit(main())
