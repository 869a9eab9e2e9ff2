"""|Hop> benchmark: random playouts/s, MCTS iterations/s on 5×5 and 6×6, thinking time per decision.

    .venv/bin/python bench/hop.py [--playouts 100] [--positions 8] [--iterations 300]
                                  [--games 4] [--only-thinking]

For each shipped board size (5×5 with two players, 6×6 with four in two
teams), side by side in the same run:

* playouts -- random games (Master level, so the energy rule is on) to their
  end on the engine's :class:`games.hop.rules.State`, what the computer
  players search, against the baseline of the very same games played through
  the games frame (JSON moves, ``legal_moves``/``push``, what the panel uses);
* search -- MCTS iterations per second on seeded positions, and the positions
  it evaluates per second against the greedy player's rate on the same
  positions (the baseline).

The Doctorate level (thesis defenses, the effects market, effect tokens acting
after each turn) is measured the same way on 5×5, with fewer playouts.

Thinking time: the CPU time of each searching decision of ``mcts`` (four
players in two teams on 6×6, two players on 5×5 at the Master level) and
``expert`` (5×5, Master) in seeded games against greedy players: median, 95th
percentile and worst, without a time budget (the fixed search, baseline) and
with the level's default one (games.budget: 1 s on a Pi, i.e. 0.2 s of CPU
here), and how many decisions the budget cut.

Machine-independent counts (decisions per playout, positions evaluated per
MCTS iteration) are printed with the rates: they change only when the rules
or the search do.
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
from games.budget import Budget, TimedLevel  # noqa: E402
from games.frame import Player  # noqa: E402
from games.hop.ai import AI_LEVELS, GreedyPlayer, MctsPlayer  # noqa: E402
from games.hop.game import Hop  # noqa: E402
from games.hop.rules import Phase, State  # noqa: E402

BOARDS = {"5×5": ["a", "b"], "6×6": ["a", "b", "c", "d"]}
OPTIONS = {"level": "master"}
DOCTORATE = {"level": "doctorate"}


def engine_playout(players: list[str], seed: int, options: dict[str, str] = OPTIONS) -> int:
    """A random game on the engine's state; returns the number of decisions played."""
    state = Hop.new(players, options=options, seed=seed).state
    rng = random.Random(seed)
    steps = 0
    while state.phase != Phase.OVER:
        state.apply(rng.choice(state.legal_actions()))
        steps += 1
    return steps


def frame_playout(players: list[str], seed: int, options: dict[str, str] = OPTIONS) -> int:
    """The same game through the frame's JSON moves."""
    game = Hop.new(players, options=options, seed=seed)
    rng = random.Random(seed)
    steps = 0
    while not game.is_over():
        game.push(rng.choice(game.legal_moves()))
        steps += 1
    return steps


def playouts(size: str, count: int, options: dict[str, str] = OPTIONS) -> None:
    players = BOARDS[size]
    results = {}
    for name, run in (("frame (baseline)", frame_playout), ("engine", engine_playout)):
        start = time.perf_counter()
        steps = [run(players, seed, options) for seed in range(count)]
        results[name] = (count / (time.perf_counter() - start), steps)
    base_rate, base_steps = results["frame (baseline)"]
    rate, steps = results["engine"]
    assert base_steps == steps, "the engine and the frame must play the very same games"
    print(f"{size}, {len(players)} players, {options['level']}: random playouts, {count} seeded games")
    print(f"  decisions per playout: mean {statistics.mean(steps):.1f}, max {max(steps)}")
    print(f"  frame (baseline) {base_rate:9.1f} playouts/s")
    print(f"  engine           {rate:9.1f} playouts/s   x{rate / base_rate:.2f}")


def sample_positions(players: list[str], count: int, options: dict[str, str] = OPTIONS) -> list[State]:
    """Positions with a choice to make, from seeded greedy games."""
    found: list[State] = []
    seed = 0
    while len(found) < count:
        game = Hop.new(players, options=options, seed=seed)
        rng = random.Random(seed)
        greedy = GreedyPlayer(rng)
        while not game.is_over() and len(found) < count:
            if len(game.state.legal_actions()) > 1 and rng.random() < 0.2:
                found.append(game.state.copy())
            game.push(greedy.choose(game))
        seed += 1
    return found


def search(size: str, count: int, iterations: int, options: dict[str, str] = OPTIONS) -> None:
    positions = sample_positions(BOARDS[size], count, options)
    greedy = GreedyPlayer(random.Random(0))
    start = time.perf_counter()
    for state in positions:
        greedy.choose_action(state.copy())
    greedy_rate = greedy.nodes / (time.perf_counter() - start)
    mcts = MctsPlayer(random.Random(0), iterations=iterations)
    start = time.perf_counter()
    for state in positions:
        mcts.choose_action(state.copy())
    elapsed = time.perf_counter() - start
    searched = mcts.searched // iterations  # a single legal action or a win needs no search
    mcts_rate = mcts.nodes / elapsed
    print(
        f"{size}, {options['level']}: search, {count} seeded positions ({searched} searched), "
        f"{iterations} MCTS iterations each"
    )
    print(f"  greedy (baseline) {greedy_rate:9.0f} positions evaluated/s")
    print(f"  mcts              {mcts_rate:9.0f} positions evaluated/s   x{mcts_rate / greedy_rate:.2f}")
    print(
        f"  mcts              {mcts.searched / elapsed:9.0f} iterations/s   "
        f"{mcts.nodes / max(1, mcts.searched):.1f} positions evaluated per iteration"
    )


THINKING = (  # (what, level, players, options; the searching level plays seats 0 and 2 of four)
    ("6×6, 4 players, mcts team", "mcts", BOARDS["6×6"], {}),
    ("5×5, 2 players, mcts, master", "mcts", BOARDS["5×5"], OPTIONS),
    ("5×5, 2 players, expert, master", "expert", BOARDS["5×5"], OPTIONS),
)


def thinking(games: int) -> None:
    """The searching levels' CPU time per decision in seeded games against greedy, fixed and anytime."""
    print(f"thinking time per searching decision (CPU of the searching thread), {games} seeded games each")
    print(HEADER)
    for what, level, players, options in THINKING:
        factory = AI_LEVELS[level]
        assert isinstance(factory, TimedLevel)
        for name, budget in (("fixed", None), ("anytime", Budget.pi_equivalent(factory.seconds))):
            search = factory.make(random.Random(1), budget)
            assert isinstance(search, MctsPlayer)
            timed = Timed(search, lambda s=search: s.searched + s.cut, lambda s=search: s.cut)
            for seed in range(games):
                seats: list[Player] = [GreedyPlayer(random.Random(seed * 7 + k)) for k in range(len(players))]
                for seat in range(seed % 2, len(players), 2):
                    seats[seat] = timed
                play_out(Hop.new(players, options=options, seed=seed), seats)
            print(row(f"{what}, {name}", timed))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--playouts", type=int, default=100)
    parser.add_argument("--positions", type=int, default=8)
    parser.add_argument("--iterations", type=int, default=300)
    parser.add_argument("--games", type=int, default=4, help="seeded games per line of thinking times")
    parser.add_argument("--only-thinking", action="store_true", help="skip the playout and search rates")
    args = parser.parse_args(argv)
    if args.only_thinking:
        thinking(args.games)
        return 0
    for size in BOARDS:
        playouts(size, args.playouts)
        search(size, args.positions, args.iterations)
    playouts("5×5", max(1, args.playouts // 4), DOCTORATE)
    search("5×5", args.positions, args.iterations, DOCTORATE)
    thinking(args.games)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
