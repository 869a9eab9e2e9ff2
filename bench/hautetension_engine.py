"""Benchmark of the Haute-Tension rules engine.

    .venv/bin/python bench/hautetension_engine.py [--games N] [--rounds R] [--sequences N] [--seed S]

Reports, in one run:
- random full games per second (2, 3 and 4 players in turn, random slots and
  kinds) through the public :class:`Game` (every check, history kept), against
  a plain ~60-line playout of the same rules (:func:`plain_playout`: the board
  as a dict, row counters, a breadth-first search from the battery when a row
  closes) playing the very same games: both draw the same random numbers in
  the same order, and the run fails unless every game ends the same way
  (termination, winners, who was eliminated at which placement). The two are
  timed in turn, ``--rounds`` times, and the ratio of each round is printed;
- circuit evaluations per second after each placement, incremental
  (``Circuit.add_attack``) against full re-evaluation (``evaluate``) on the very
  same placement sequences, with the ratio between them;
- counts that do not depend on the machine: placements per game, row counters
  touched per placement, lamp-connectivity searches per placement.

Times are CPU time of this process (``time.process_time``): on the shared
development machine other jobs stretch wall-clock time by a varying factor,
and CPU time is what the engine costs. On an idle machine the two agree. The
load average is printed at the start and the end.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from collections import Counter, deque
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.hautetension import (  # noqa: E402
    ATTACK_PAWNS,
    BATTERY,
    DEFENSE_PAWNS,
    Circuit,
    Game,
    Layout,
    default_lamps,
    default_seats,
    evaluate,
    load_layout,
)

NAMES = ("A", "B", "C", "D")
SEATS = {n: default_seats(NAMES[:n]) for n in (2, 3, 4)}

Result = tuple[str, tuple[int, ...], tuple[tuple[int, int], ...], int]
"""How a game ended: termination name, winners, (seat, placement number) of each
elimination, placements played."""


def plain_playout(layout: Layout, n: int, first: int, rng: random.Random) -> Result:
    """One random game of the rules written the plain way, drawing exactly as the Game loop does."""
    owner = {lamp: seat for seat, lamp in enumerate(default_lamps(n))}
    ends = [row.ends for row in layout.rows]
    board: dict[str, tuple[int, str]] = {}
    count = [0] * len(layout.rows)
    closed: list[int] = []
    lit: set[str] = set()
    stock = [[ATTACK_PAWNS, DEFENSE_PAWNS] for _ in range(n)]
    out = [False] * n
    eliminations: list[tuple[int, int]] = []
    player = first
    while True:
        free = [slot for slot in layout.slots if slot not in board]
        kinds = [kind for kind, left in zip(("attack", "defense"), stock[player], strict=True) if left]
        slot = rng.choice(free)
        kind = rng.choice(kinds)
        board[slot] = (player, kind)
        stock[player][kind == "defense"] -= 1
        fallen: list[int] = []
        if kind == "attack":
            closing = False
            for row in layout.rows_of_slot[slot]:
                count[row] += 1
                if count[row] == 5:
                    closed.append(row)
                    closing = True
            if closing:
                reached = {BATTERY}
                queue = deque([BATTERY])
                while queue:
                    node = queue.popleft()
                    for row in closed:
                        a, b = ends[row]
                        other = b if a == node else a if b == node else None
                        if other is not None and other not in reached:
                            reached.add(other)
                            queue.append(other)
                newly = reached - lit - {BATTERY}
                lit |= newly
                fallen = sorted(owner[lamp] for lamp in newly if lamp in owner)
                for seat in fallen:
                    out[seat] = True
                    eliminations.append((seat, len(board)))
        remaining = tuple(seat for seat in range(n) if not out[seat])
        if not remaining:
            return "SIMULTANEOUS_ELIMINATION", tuple(fallen), tuple(eliminations), len(board)
        if len(remaining) == 1:
            return "LAST_PLAYER_STANDING", remaining, tuple(eliminations), len(board)
        if len(layout.lamps) - len(lit) < 2:
            return "FEWER_THAN_TWO_UNLIT_LAMPS", remaining, tuple(eliminations), len(board)
        if len(board) == len(layout.slots):
            return "NO_FREE_SLOT", remaining, tuple(eliminations), len(board)
        movers = [p % n for p in range(player + 1, player + n + 1) if not out[p % n] and sum(stock[p % n])]
        if not movers:
            return "NO_PAWN_LEFT", remaining, tuple(eliminations), len(board)
        player = movers[0]


def game_playout(layout: Layout, n: int, first: int, rng: random.Random) -> Result:
    """The same random game through the public Game."""
    game = Game(layout, SEATS[n], first=first)
    while not game.is_over():
        game.push(rng.choice(game.free_slots()), rng.choice(game.legal_kinds()))
    outcome = game.outcome()
    assert outcome is not None
    eliminations = tuple((e.player, e.move) for e in game.eliminated)
    return outcome.termination.name, outcome.winners, eliminations, len(game.history)


Playout = Callable[[Layout, int, int, random.Random], Result]


def playouts(play: Playout, layout: Layout, games: int, seed: int) -> tuple[float, list[Result]]:
    """*games* random games (2, 3, 4 players in turn, first player drawn), timed."""
    rng = random.Random(seed)
    results = []
    start = time.process_time()
    for index in range(games):
        n = 2 + index % 3
        results.append(play(layout, n, rng.randrange(n), rng))
    return time.process_time() - start, results


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
    start = time.process_time()
    for sequence in sequences:
        circuit = Circuit(layout)
        for slot, conducts in sequence:
            if conducts:
                circuit.add_attack(slot)
            results.append(circuit.lit)
    return time.process_time() - start, results


def full(layout: Layout, sequences: list[list[tuple[str, bool]]]) -> tuple[float, list[frozenset[str]]]:
    results = []
    start = time.process_time()
    for sequence in sequences:
        attack: set[str] = set()
        for slot, conducts in sequence:
            if conducts:
                attack.add(slot)
            results.append(evaluate(layout, attack).lit)
    return time.process_time() - start, results


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
        "--games", type=int, default=3000, help="random full games per round (default %(default)s)"
    )
    parser.add_argument(
        "--rounds", type=int, default=5, help="rounds of plain then Game playouts (default %(default)s)"
    )
    parser.add_argument(
        "--sequences", type=int, default=1000, help="boards to fill pawn by pawn (default %(default)s)"
    )
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    layout = load_layout()
    rng = random.Random(args.seed)
    print(f"load average {os.getloadavg()[0]:.2f}; times are CPU seconds")
    print(f"layout {layout.name}: {len(layout.slots)} slots, {len(layout.rows)} rows")

    print(f"\nRandom full games ({args.games} a round, 2/3/4 players in turn, the same games for both)")
    print(f"  {'round':<8}{'plain games/s':>15}{'Game games/s':>15}{'Game / plain':>15}")
    ratios, rates = [], []
    results: list[Result] = []
    for round_ in range(1, args.rounds + 1):
        plain_seconds, plain_results = playouts(plain_playout, layout, args.games, args.seed)
        seconds, results = playouts(game_playout, layout, args.games, args.seed)
        if plain_results != results:
            print("MISMATCH: the plain playout and Game ended the same games differently", file=sys.stderr)
            return 1
        ratios.append(plain_seconds / seconds)
        rates.append(args.games / seconds)
        print(
            f"  {round_:<8}{args.games / plain_seconds:15.0f}{args.games / seconds:15.0f}"
            f"{ratios[-1]:14.2f}×"
        )
    median_rate, median_ratio = statistics.median(rates), statistics.median(ratios)
    print(f"  median: Game {median_rate:.0f} games/s, {median_ratio:.2f}× the plain playout")
    placements = sum(result[3] for result in results)
    print(f"  {placements / args.games:.1f} placements per game (machine-independent); endings:")
    endings = Counter(f"{2 + i % 3}p {result[0]}" for i, result in enumerate(results))
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
    print(f"load average {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
