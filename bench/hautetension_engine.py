"""Benchmark of the Haute-Tension rules engine.

    .venv/bin/python bench/hautetension_engine.py [--games N] [--sequences N] [--seed S]

Reports, in one run:
- random full-game playouts per second (2, 3 and 4 players, random slots and kinds);
- circuit evaluations per second after each placement, incremental
  (``Circuit.add_attack``) against full re-evaluation (``evaluate``) on the very
  same placement sequences, with the ratio between them;
- counts that do not depend on the machine: placements per game, row counters
  touched per placement, lamp-connectivity searches per placement.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.hautetension import (  # noqa: E402
    ATTACK_PAWNS,
    DEFENSE_PAWNS,
    Circuit,
    Game,
    Layout,
    default_seats,
    evaluate,
    load_layout,
)

NAMES = ("A", "B", "C", "D")


class FullCircuit(Circuit):
    """Baseline: the same interface as Circuit, re-evaluating the whole board on every attack pawn."""

    def add_attack(self, slot: str) -> frozenset[str]:
        self._attack.add(slot)
        before = self._lit
        state = evaluate(self.layout, self._attack)
        self._closed, self._lit = set(state.closed_rows), state.lit
        return self._lit - before


def playouts(
    layout: Layout, games: int, seed: int, *, baseline: bool = False
) -> tuple[float, int, Counter[str], list[tuple[int, ...]]]:
    rng = random.Random(seed)
    placements = 0
    endings: Counter[str] = Counter()
    points = []
    start = time.perf_counter()
    for index in range(games):
        n = 2 + index % 3
        game = Game(layout, default_seats(NAMES[:n]), first=rng.randrange(n))
        if baseline:
            game._circuit = FullCircuit(layout)  # the board is still empty: swap the evaluator
        while not game.is_over():
            game.push(rng.choice(game.free_slots()), rng.choice(game.legal_kinds()))
        placements += len(game.history)
        outcome = game.outcome()
        assert outcome is not None
        endings[f"{n}p {outcome.termination.name}"] += 1
        points.append(game.points())
    return time.perf_counter() - start, placements, endings, points


def placement_sequences(layout: Layout, count: int, rng: random.Random) -> list[list[tuple[str, bool]]]:
    """Whole boards filled in random order; each pawn conducts with the stock's odds (22 in 25)."""
    odds = ATTACK_PAWNS / (ATTACK_PAWNS + DEFENSE_PAWNS)
    sequences = []
    for _ in range(count):
        slots = list(layout.slots)
        rng.shuffle(slots)
        sequences.append([(slot, rng.random() < odds) for slot in slots])
    return sequences


def incremental(
    layout: Layout, sequences: list[list[tuple[str, bool]]]
) -> tuple[float, list[frozenset[str]]]:
    results = []
    start = time.perf_counter()
    for sequence in sequences:
        circuit = Circuit(layout)
        for slot, conducts in sequence:
            if conducts:
                circuit.add_attack(slot)
            results.append(circuit.lit)
    return time.perf_counter() - start, results


def full(layout: Layout, sequences: list[list[tuple[str, bool]]]) -> tuple[float, list[frozenset[str]]]:
    results = []
    start = time.perf_counter()
    for sequence in sequences:
        attack: set[str] = set()
        for slot, conducts in sequence:
            if conducts:
                attack.add(slot)
            results.append(evaluate(layout, attack).lit)
    return time.perf_counter() - start, results


def searches_needed(layout: Layout, sequences: list[list[tuple[str, bool]]]) -> tuple[int, int]:
    """(row counters touched, connectivity searches) by the incremental circuit over all sequences."""
    touched = searches = 0
    for sequence in sequences:
        counts = [0] * len(layout.rows)
        for slot, conducts in sequence:
            if not conducts:
                continue
            closed = False
            for index in layout.rows_of_slot[slot]:
                touched += 1
                counts[index] += 1
                closed |= counts[index] == len(layout.rows[index].slots)
            searches += closed
    return touched, searches


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--games", type=int, default=5000, help="random full games to play (default %(default)s)"
    )
    parser.add_argument(
        "--sequences", type=int, default=1000, help="boards to fill pawn by pawn (default %(default)s)"
    )
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    layout = load_layout()
    rng = random.Random(args.seed)

    seconds, placements, endings, points = playouts(layout, args.games, args.seed)
    base_seconds, base_placements, _, base_points = playouts(layout, args.games, args.seed, baseline=True)
    if (base_placements, base_points) != (placements, points):
        print("MISMATCH: the baseline games went differently", file=sys.stderr)
        return 1
    print(f"layout {layout.name}: {len(layout.slots)} slots, {len(layout.rows)} rows")
    print(f"\nRandom full-game playouts ({args.games} games, 2/3/4 players in turn, same games for both)")
    print(f"  {'':30}{'games/s':>10}{'placements/s':>14}")
    print(f"  {'Game (incremental circuit)':30}{args.games / seconds:10.0f}{placements / seconds:14.0f}")
    print(
        f"  {'baseline: full re-evaluation':30}"
        f"{args.games / base_seconds:10.0f}{placements / base_seconds:14.0f}"
    )
    print(f"  playouts are {base_seconds / seconds:.2f}× faster with the incremental circuit")
    print(f"  {placements / args.games:.1f} placements per game (machine-independent); endings:")
    for ending, count in sorted(endings.items()):
        print(f"  {count:10d} × {ending}")

    sequences = placement_sequences(layout, args.sequences, rng)
    evaluations = sum(len(s) for s in sequences)
    inc_seconds, inc_results = incremental(layout, sequences)
    full_seconds, full_results = full(layout, sequences)
    if inc_results != full_results:
        print("MISMATCH: incremental and full evaluation disagree", file=sys.stderr)
        return 1
    touched, searches = searches_needed(layout, sequences)
    slot_checks = sum(len(r.slots) for r in layout.rows)
    print(f"\nCircuit evaluation after each placement ({evaluations} placements, same sequences for both)")
    print(f"  {'':14}{'evaluations/s':>16}{'row checks/placement':>24}{'lamp searches/placement':>26}")
    print(
        f"  {'incremental':14}{evaluations / inc_seconds:16.0f}{touched / evaluations:24.2f}"
        f"{searches / evaluations:26.3f}"
    )
    print(f"  {'full':14}{evaluations / full_seconds:16.0f}{slot_checks:24.2f}{1:26.3f}")
    print(f"  incremental is {full_seconds / inc_seconds:.1f}× faster than full re-evaluation (same results)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
