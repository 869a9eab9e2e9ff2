"""Quantum tic-tac-toe benchmark: random playouts and the perfect-play solver.

    .venv/bin/python bench/qttt.py [--playouts SECONDS] [--budget NODES] [--samples N] [--no-openings]

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
  says "unfinished"; its ratios are then bounds;
* before/after: the solver's previous search (``bench/qttt_previous.py``,
  commit bbf2b93) against today's, both with table and symmetry, on the same
  tasks: the best opening (the position after X's ``[0, 8]``), the empty
  position, ``--samples``
  random settled positions 3, 4 and 5 moves in (a fresh solver for each), and
  all 36 first moves (8 up to symmetry, one shared table, as
  ``hautetension qttt solve --openings``). The run fails unless both find the
  same values. The issue that set the goals compared with an external C++
  solver; it is not available here, so the reference is our own previous
  search.

Node counts do not depend on the machine; seconds do. Seconds are CPU time
of this process (``time.process_time``): other jobs on the shared machine
stretch wall-clock time by a varying factor; on an idle machine the two
agree. The load average is printed at the start and the end.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from qttt_previous import PreviousSolver  # noqa: E402

from games.qttt import QuantumTicTacToe, rules  # noqa: E402
from games.qttt.book import VALUE_NAMES, settled_children  # noqa: E402
from games.qttt.solver import SearchLimitReached, Solver, opening_classes  # noqa: E402

CONFIGS = {
    "no table (baseline)": {"transposition": False, "symmetry": False},
    "table, no symmetry": {"transposition": True, "symmetry": False},
    "table + symmetry": {"transposition": True, "symmetry": True},
}
TWO_MOVES = [[0, 1], [1, 2]]


def engine_playouts(seconds: float, rng: random.Random) -> tuple[int, float]:
    count, start = 0, time.process_time()
    while time.process_time() - start < seconds:
        game = QuantumTicTacToe(["x", "o"], seed=0)
        while not game.is_over():
            game.push(rng.choice(game.legal_moves()))
        count += 1
    return count, time.process_time() - start


def rules_playouts(seconds: float, rng: random.Random) -> tuple[int, float]:
    count, start = 0, time.process_time()
    while time.process_time() - start < seconds:
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
    return count, time.process_time() - start


def solve(position: bytes, config: dict[str, bool], budget: int) -> tuple[str, int, float]:
    solver = Solver(node_limit=budget or None, **config)
    start = time.process_time()
    try:
        value = VALUE_NAMES[solver.value(position)]
    except SearchLimitReached:
        value = "unfinished"
    return value, solver.stats.nodes, time.process_time() - start


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


Task = Callable[[type[Solver]], tuple[list[int], int]]
"""Solves something with a solver class; returns (the values found, positions searched)."""


def best_opening(solver_class: type[Solver]) -> tuple[list[int], int]:
    solver = solver_class()
    return [solver.value(bytes((rules.PAIR_CODE[0][8],)))], solver.stats.nodes


def empty_position(solver_class: type[Solver]) -> tuple[list[int], int]:
    solver = solver_class()
    return [solver.value(b"")], solver.stats.nodes


def all_openings(solver_class: type[Solver]) -> tuple[list[int], int]:
    solver = solver_class()
    values = [solver.value(bytes((rules.PAIR_CODE[a][b],))) for (a, b), *_ in opening_classes()]
    return values, solver.stats.nodes


def sample_positions(moves: int, count: int, rng: random.Random) -> list[bytes]:
    """Settled, unfinished positions ``moves`` moves in, each move drawn at random."""
    found: list[bytes] = []
    while len(found) < count:
        position = b""
        for _ in range(moves):
            children = list(settled_children(position))
            if not children:
                break
            position = rng.choice(children)
        if len(position) == moves and rules.settle(position) is None:
            found.append(position)
    return found


def mid_game(positions: list[bytes]) -> Task:
    def task(solver_class: type[Solver]) -> tuple[list[int], int]:
        values, nodes = [], 0
        for position in positions:
            solver = solver_class()
            values.append(solver.value(position))
            nodes += solver.stats.nodes
        return values, nodes

    return task


def before_after(tasks: dict[str, Task]) -> bool:
    """Run each task with the previous solver, then today's; False if their values differ."""
    print("\nbefore/after: previous search (bbf2b93) against today's, table + symmetry, same tasks")
    print(f"  {'task':<28} {'before pos.':>12} {'before s':>9} {'after pos.':>12} {'after s':>9} "
          f"{'fewer pos.':>11} {'faster':>8}")
    for name, task in tasks.items():
        start = time.process_time()
        before_values, before_nodes = task(PreviousSolver)
        before_seconds = time.process_time() - start
        start = time.process_time()
        values, nodes = task(Solver)
        seconds = time.process_time() - start
        if values != before_values:
            print(f"MISMATCH: {name}: the two searches found different values", file=sys.stderr)
            return False
        print(f"  {name:<28} {before_nodes:>12,} {before_seconds:>9.2f} {nodes:>12,} {seconds:>9.2f} "
              f"{before_nodes / nodes:>11.2f} {before_seconds / seconds:>8.2f}")
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--playouts", type=float, default=3.0, help="seconds per playout measure (default 3)")
    parser.add_argument("--budget", type=int, default=600_000,
                        help="positions after which a search of the empty position gives up (0: none)")
    parser.add_argument("--samples", type=int, default=30,
                        help="random positions 3, 4 and 5 moves in for before/after (default 30 each)")
    parser.add_argument("--openings", action=argparse.BooleanOptionalAction, default=True,
                        help="include all 36 first moves in before/after (about 40 s idle)")
    args = parser.parse_args(argv)
    print(f"load average {os.getloadavg()[0]:.2f}; times are CPU seconds")
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
    tasks: dict[str, Task] = {"best opening [0, 8]": best_opening, "empty position": empty_position}
    sampler = random.Random(3)
    for moves in (3, 4, 5):
        positions = sample_positions(moves, args.samples, sampler)
        tasks[f"{args.samples} positions, {moves} moves in"] = mid_game(positions)
    if args.openings:
        tasks["all 36 first moves (8 classes)"] = all_openings
    if not before_after(tasks):
        return 1
    print(f"load average {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
