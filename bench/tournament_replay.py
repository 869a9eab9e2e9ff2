"""Tournaments: what a page view and a tablet entry cost as a tournament grows.

    .venv/bin/python bench/tournament_replay.py [--players 16 32 64] [--repeat 20]

A stored tournament is the list of its events, replayed through the engine on
every load, and every entry re-reads and replays them inside its write
transaction. For complete tournaments of each size (seeded random results) it
measures, side by side in the same run:

* replay + standings (what a standings page computes) against the baseline of
  only decoding the same events from JSON (the floor any storage pays);
* one entry recorded through ``store.tournaments.Tournaments.record`` (load,
  check, append, commit with synchronous=FULL) against the baseline of one
  plain INSERT + COMMIT of the same row on the same database.

It prints medians, the ratios, and machine-independent counts (events, rounds,
games, engine events applied per entry).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games.hautetension.outcome import Lighting  # noqa: E402
from store.db import connect, transaction  # noqa: E402
from store.tournaments import Tournaments  # noqa: E402
from tournaments.tournament import Tournament  # noqa: E402


def play(n_players: int, seed: int, *, names: list[str] | None = None) -> Tournament:
    """A complete tournament of *n_players* (P1, P2, … or *names*), seeded random results."""
    rng = random.Random(seed)
    t = Tournament(seed=seed)
    for i in range(n_players):
        t.register(names[i] if names else f"P{i + 1}")
    while not t.is_over():
        number = t.next_round()["data"]["round"]
        for table in t.round(number).tables:
            order = rng.sample(range(len(table.seats)), len(table.seats) - 1)
            t.enter_result(number, table.number, [Lighting((s,)) for s in order])
    return t


def median_seconds(action: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


HEADER = (
    f"{'players':>7} {'events':>6} {'rounds':>6} {'games':>5} | {'replay ms':>9} {'json ms':>8} {'ratio':>6}"
    f" | {'entry ms':>8} {'insert ms':>9} {'ratio':>6}"
)
INSERT = "INSERT INTO tournament_events (tournament_id, at, actor, kind, payload) VALUES (?, ?, ?, ?, ?)"
DELETE_LAST = "DELETE FROM tournament_events WHERE id = (SELECT MAX(id) FROM tournament_events)"


def measure(n: int, repeat: int, tmp: Path) -> str:
    t = play(n, seed=n)
    text = json.dumps(t.events)
    games = sum(len(r.tables) for r in t.rounds)
    replay_s = median_seconds(lambda: Tournament.replay(t.settings(), json.loads(text)).standings(), repeat)
    json_s = median_seconds(lambda: json.loads(text), repeat)

    conn = connect(tmp / f"bench-{n}.db")
    store = Tournaments(conn)
    tid = store.create("bench", seed=t.seed).id
    # Everything but the final's last result, which the entries below enter and undo.
    last = t.events[-1]
    for event in t.events[:-1]:
        store.record(tid, lambda x, e=event: x.apply(e), actor="bench")

    def entry() -> None:
        store.record(tid, lambda x: x.apply(last), actor="bench")
        store.undo(tid, actor="bench")

    def insert() -> None:
        with transaction(conn):
            conn.execute(INSERT, (tid, time.time(), "bench", "result", json.dumps(last)))
        with transaction(conn):
            conn.execute(DELETE_LAST)

    entry_s = median_seconds(entry, repeat)
    insert_s = median_seconds(insert, repeat)
    conn.close()
    return (
        f"{n:>7} {len(t.events):>6} {len(t.rounds):>6} {games:>5} |"
        f" {replay_s * 1e3:>9.2f} {json_s * 1e3:>8.3f} {replay_s / json_s:>6.0f} |"
        f" {entry_s * 1e3:>8.2f} {insert_s * 1e3:>9.2f} {entry_s / insert_s:>6.1f}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--players", type=int, nargs="+", default=[16, 32, 64])
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    print(HEADER)
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.players:
            print(measure(n, args.repeat, Path(tmp)))
    print("entry = record + undo of one result (two commits); insert = INSERT + DELETE (two commits).")
    print("Each entry replays every event once (events column) inside its write transaction.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
