"""The general ranking: what recounting a season costs, on SQLite and on PostgreSQL.

    .venv/bin/python bench/ranking.py [--players 1000] [--tournaments 40] [--field 64] [--repeat 3]
                                      [--postgresql DSN]

A season of complete tournaments (seeded random results) among registered
players, every tournament's player linked to the registry, is written straight
into an event database (one transaction: the set-up is not what is measured).
Then, side by side in the same run, on each engine:

* the ranking recounted (``store.ranking.Ranking.season``: every linked
  tournament loaded and replayed, every game dated, the ranking sorted) —
  what one look at ``/ranking`` or ``/api/ranking`` costs;
* the same recount with the tournaments kept replayed (``TournamentCache``, what
  the pages use): only a tournament that changed since is replayed again;
* the baseline: only loading and replaying the same tournaments
  (``Tournaments.load``), the floor a ranking kept as tournaments pays.

It prints medians, the ratio, and machine-independent counts (tournaments,
events, games counted, ranking lines). ``--postgresql`` also runs it on an
empty PostgreSQL database (``postgresql://…``).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.tournament_replay import median_seconds, play  # noqa: E402
from store.db import transaction  # noqa: E402
from store.dialect import Connection  # noqa: E402
from store.event import sql  # noqa: E402
from store.event.db import connect_event  # noqa: E402
from store.players import identity  # noqa: E402
from store.ranking import Ranking, TournamentCache  # noqa: E402
from store.tournaments import Tournaments  # noqa: E402
from tournaments.ranking import RankingRules  # noqa: E402


def write_season(conn: Connection, players: int, tournaments: int, field: int, seed: int) -> int:
    """The registry and the season's tournaments, linked; how many events were written."""
    rng = random.Random(seed)
    names = [f"Player {i:04d}" for i in range(1, players + 1)]
    now = time.time()
    events = 0
    with transaction(conn):
        for name in names:
            conn.execute(sql.PLAYER_ADD, (name, "", "", identity(name, "", ""), now)).fetchone()
        for n in range(tournaments):
            chosen = rng.sample(range(players), field)
            t = play(field, seed + n, names=[names[i] for i in chosen])
            row = conn.execute(
                "INSERT INTO tournaments (name, created_at, settings) VALUES (?, ?, ?) RETURNING id",
                (f"Open {n + 1}", now, json.dumps(t.settings())),
            ).fetchone()
            tid = int(row[0])
            at = now - (tournaments - n) * 86400.0  # a tournament a day, the last one yesterday
            for event in t.events:
                conn.execute(
                    "INSERT INTO tournament_events (tournament_id, at, actor, kind, payload)"
                    " VALUES (?, ?, ?, ?, ?)",
                    (tid, at, "bench", event["kind"], json.dumps(event, sort_keys=True)),
                )
                events += 1
            for number, name in t.names.items():
                conn.execute(sql.ENTRANT_LINK, (tid, number, name, chosen[number - 1] + 1, now))
    return events


def measure(label: str, conn: Connection, args: argparse.Namespace) -> None:
    events = write_season(conn, args.players, args.tournaments, args.field, args.seed)
    rules = RankingRules(min_games=5)
    ranking = Ranking(conn, rules)
    store = Tournaments(conn)
    ids = [info.id for info in store.all()]
    season = ranking.season()
    kept = Ranking(conn, rules, cache=TournamentCache())
    kept.season()
    counted = median_seconds(ranking.season, args.repeat)
    warm = median_seconds(kept.season, args.repeat)
    loaded = median_seconds(lambda: [store.load(tid) for tid in ids], args.repeat)
    print(
        f"{label:10} players {args.players:5}  tournaments {len(ids):3}  events {events:6}  "
        f"games {len(season.games):6}  lines {len(season.lines):5}\n"
        f"{'':10} ranking {counted * 1000:8.1f} ms  kept {warm * 1000:8.1f} ms"
        f"  load only {loaded * 1000:8.1f} ms"
        f"  ranking/load {counted / loaded:5.2f}  kept/load {warm / loaded:5.2f}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=1000)
    parser.add_argument("--tournaments", type=int, default=40)
    parser.add_argument("--field", type=int, default=64, help="players per tournament")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--postgresql", metavar="DSN", help="also run on this (empty) PostgreSQL database")
    args = parser.parse_args()
    if not 4 <= args.field <= args.players:
        parser.error("a tournament's field is 4 players to --players")
    with tempfile.TemporaryDirectory() as folder:
        conn = connect_event(Path(folder) / "central.db")
        try:
            measure("sqlite", conn, args)
        finally:
            conn.close()
    if args.postgresql:
        pg = connect_event(args.postgresql)
        try:
            measure("postgresql", pg, args)
        finally:
            pg.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
