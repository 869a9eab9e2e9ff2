"""Haute-Tension computer players: ISMCTS iterations per second and time per move.

Times are CPU time of this process (the machine may be shared); the wall time
per move is printed too.

    .venv/bin/python bench/hautetension_ai.py [--positions 12] [--iterations 1000]
                                              [--games 3] [--only-thinking]

Side by side in the same run:

* playouts: the ISMCTS rollouts on the search position
  (:class:`games.hautetension.ai.sim.Sim`) against the baseline of the very same
  placements replayed on the rules engine's :class:`~games.hautetension.game.Game`
  (``copy`` and ``push``, what a search built on the engine would cost);
* time per move of each level (random, heuristic, ISMCTS at its default
  budget) on the same seeded positions of 2-, 3- and 4-player games, taken
  after 0, 12, 24 and 36 placements of heuristic play.

* thinking time: the CPU time of each ISMCTS move in seeded 2-, 3- and
  4-player games against heuristic players: median, 95th percentile and
  worst, without a time budget (the fixed 1000 iterations, baseline) and with
  the default one (games.budget: 1 s on a Pi, i.e. 0.2 s of CPU here), and
  how many moves the budget cut.

Machine-independent counts (iterations per move, placements per playout,
determinisations that reproduce every observation) are printed with the rates.
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
from games.frame import Player  # noqa: E402
from games.hautetension.ai import (  # noqa: E402
    HeuristicPlayer,
    InformationSet,
    ISMCTSPlayer,
    RandomPlayer,
    Searcher,
    SeatPlayer,
)
from games.hautetension.ai.ismcts import ITERATIONS, policy_move, rollout, row_signs  # noqa: E402
from games.hautetension.ai.sim import Sim  # noqa: E402
from games.hautetension.digital import DigitalHauteTension  # noqa: E402
from games.hautetension.game import Game  # noqa: E402

DEPTHS = (0, 12, 24, 36)


def positions(count: int) -> list[tuple[DigitalHauteTension, InformationSet]]:
    """Seeded positions of 2-4 player games after some heuristic placements."""
    found = []
    for number in range(count):
        players = 2 + number % 3
        depth = DEPTHS[number // 3 % len(DEPTHS)]
        game = DigitalHauteTension([f"p{i}" for i in range(players)], options={"first": 0}, seed=number)
        player = HeuristicPlayer(random.Random(number))
        while len(game.history) < depth and not game.is_over():
            slot, attack = player.choose_from(InformationSet.from_view(game.view(game.to_act)))
            game.push({"slot": game.layout.slots[slot], "pawn": "attack" if attack else "defense"})
        if not game.is_over():
            found.append((game, InformationSet.from_view(game.view(game.to_act))))
    return found


def bench_playouts(infos: list[InformationSet], playouts: int) -> dict[str, float]:
    """ISMCTS rollouts (policy included) on Sim; then their placements replayed on Sim and on Game."""
    rng = random.Random(1)
    recorded: list[tuple[Sim, Game, list[tuple[int, bool]]]] = []
    seconds = 0.0
    placements = 0
    for info in infos:
        start = info.determinise(rng)[0]
        signs = row_signs(start)
        for _ in range(playouts):
            sim = start.copy()
            began = time.process_time()
            rollout(sim, signs, rng)
            seconds += time.process_time() - began
            placements += sim.moves - start.moves
        sim = start.copy()
        moves: list[tuple[int, bool]] = []
        while not sim.over:
            slot, attack = policy_move(sim, signs, rng)
            sim.push(slot, attack)
            moves.append((slot, attack))
        recorded.append((start, engine_game(info, start), moves))
    replayed = 0
    sim_seconds = engine_seconds = 0.0
    for start, game, moves in recorded:
        named = [(start.board.slots[slot], "attack" if attack else "defense") for slot, attack in moves]
        began = time.process_time()
        for _ in range(playouts):
            sim = start.copy()
            for slot, attack in moves:
                sim.push(slot, attack)
        sim_seconds += time.process_time() - began
        began = time.process_time()
        for _ in range(playouts):
            copy = game.copy()
            for name, kind in named:
                copy.push(name, kind)
        engine_seconds += time.process_time() - began
        replayed += playouts * len(moves)
    return {
        "playouts_per_s": playouts * len(infos) / seconds,
        "placements_per_playout": placements / (playouts * len(infos)),
        "sim_placements_per_s": replayed / sim_seconds,
        "engine_placements_per_s": replayed / engine_seconds,
    }


def engine_game(info: InformationSet, sim: Sim) -> Game:
    """The engine's Game in the same (determinised) position as ``sim``."""
    from games.hautetension.seats import default_seats

    layout = info.board.layout
    seats = default_seats([f"p{i}" for i in range(len(info.lamps))])
    game = Game(layout, seats, first=info.first)
    for slot, player in info.moves:
        game.push(info.board.slots[slot], "attack" if sim.att[slot] else "defense", player=player)
    return game


def bench_levels(cases: list[tuple[DigitalHauteTension, InformationSet]], iterations: int) -> None:
    levels: dict[str, Searcher] = {
        "random": RandomPlayer(random.Random(1)),
        "heuristic": HeuristicPlayer(random.Random(1)),
        "ismcts": ISMCTSPlayer(random.Random(1), iterations=iterations),
    }
    print(f"{'level':<10} {'CPU ms/move':>12} {'max CPU ms':>11} {'wall ms/move':>13}")
    ismcts_stats: list[tuple[float, int, int, tuple[int, int]]] = []
    for name, player in levels.items():
        times = []
        walls = []
        for _game, info in cases:
            began, wall = time.process_time(), time.perf_counter()
            player.choose_from(info)
            elapsed = time.process_time() - began
            times.append(elapsed)
            walls.append(time.perf_counter() - wall)
            if isinstance(player, ISMCTSPlayer):
                ismcts_stats.append(
                    (elapsed, player.last_iterations, player.last_placements, player.last_determinisations)
                )
        print(
            f"{name:<10} {1000 * statistics.mean(times):>12.2f} {1000 * max(times):>11.2f}"
            f" {1000 * statistics.mean(walls):>13.2f}"
        )
    run = [s for s in ismcts_stats if s[1]]
    seconds = sum(s[0] for s in run)
    its = sum(s[1] for s in run)
    placements = sum(s[2] for s in run)
    drawn = sum(s[3][0] for s in run)
    consistent = sum(s[3][1] for s in run)
    print()
    print(f"ISMCTS: {its / seconds:,.0f} iterations per CPU second (whole move) over {len(run)} moves")
    print(f"  counts: {its // max(len(run), 1)} iterations per move")
    print(f"          {placements / max(its, 1):.1f} placements per playout")
    print(f"          {consistent}/{drawn} determinisations reproduce every observation")


def thinking(games: int, iterations: int) -> None:
    """ISMCTS's CPU time per move in seeded games against heuristic players, fixed and anytime."""
    print(f"\nthinking time per ISMCTS move (CPU of the searching thread), {games} seeded games each")
    print(HEADER)
    for name, budget in (("fixed (baseline)", None), ("anytime, 1 s on a Pi", Budget.pi_equivalent())):
        for players in (2, 3, 4):
            search = ISMCTSPlayer(random.Random(players), iterations=iterations, budget=budget)
            timed = Timed(SeatPlayer(search), lambda s=search: s.searched + s.cut, lambda s=search: s.cut)
            for seed in range(games):
                seats: list[Player] = [
                    SeatPlayer(HeuristicPlayer(random.Random(seed * 7 + k))) for k in range(players)
                ]
                seats[seed % players] = timed
                names = [f"p{k}" for k in range(players)]
                play_out(DigitalHauteTension(names, options={"first": 0}, seed=seed), seats)
            print(row(f"{players} players, {name}", timed))


def main() -> int:
    parser = argparse.ArgumentParser(description="Haute-Tension computer players benchmark")
    parser.add_argument("--positions", type=int, default=12, help="seeded positions (2-4 players)")
    parser.add_argument("--playouts", type=int, default=150, help="playouts per position for the rates")
    parser.add_argument("--iterations", type=int, default=ITERATIONS, help="ISMCTS iterations per move")
    parser.add_argument("--games", type=int, default=3, help="seeded games per table size for thinking times")
    parser.add_argument("--only-thinking", action="store_true", help="skip the rates and the levels' times")
    args = parser.parse_args()
    if args.only_thinking:
        thinking(args.games, args.iterations)
        return 0
    cases = positions(args.positions)
    print(f"{len(cases)} positions, 2-4 players, after {', '.join(map(str, DEPTHS))} placements\n")
    rates = bench_playouts([info for _g, info in cases], args.playouts)
    sim, engine = rates["sim_placements_per_s"], rates["engine_placements_per_s"]
    print(
        f"ISMCTS playouts (tactical policy included): {rates['playouts_per_s']:,.0f}/s, "
        f"{rates['placements_per_playout']:.1f} placements each"
    )
    print(f"{'placements on':<14} {'per CPU s':>12}")
    print(f"{'search Sim':<14} {sim:>12,.0f}")
    print(f"{'engine Game':<14} {engine:>12,.0f}   (baseline)")
    print(f"ratio Sim / Game: {sim / engine:.1f}x\n")
    bench_levels(cases, args.iterations)
    thinking(args.games, args.iterations)
    return 0


if __name__ == "__main__":
    sys.exit(main())
