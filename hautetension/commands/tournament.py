"""``hautetension tournament``: list tournaments, print standings, export CSV (read only)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("tournament", help="tournaments in the database (read only)")
    parser.add_argument("--config", help="configuration file (its [panel] database)")
    parser.add_argument(
        "--db", help="database file, or an event server's postgresql:// DSN (overrides the configuration)"
    )
    actions = parser.add_subparsers(dest="tournament_command", metavar="ACTION", required=True)
    actions.add_parser("list", help="every tournament, latest first").set_defaults(func=list_command)
    standings = actions.add_parser("standings", help="a tournament's standings")
    standings.add_argument("id", type=int)
    standings.set_defaults(func=standings_command)
    export = actions.add_parser("export", help="CSV of a tournament's standings or of every game")
    export.add_argument("id", type=int)
    export.add_argument("what", choices=("standings", "games"))
    export.add_argument("-o", "--output", help="file to write (default: standard output)")
    export.set_defaults(func=export_command)


def _store(args: argparse.Namespace) -> Any:
    from configuration import load_config
    from store.db import connect
    from store.dialect import is_postgresql
    from store.event.db import connect_event
    from store.tournaments import Tournaments
    from webpanel.config import PanelSettings

    if args.db and is_postgresql(args.db):  # an event server's database
        return Tournaments(connect_event(args.db))
    database = Path(args.db or PanelSettings.from_config(load_config(args.config)).database)
    if not database.exists():
        raise FileNotFoundError(f"no database at {database}")
    return Tournaments(connect(database))


def _run(args: argparse.Namespace, action: Any) -> int:
    from configuration import ConfigError
    from store.tournaments import TournamentNotFoundError

    try:
        action(_store(args))
    except (TournamentNotFoundError, FileNotFoundError, ConfigError) as exc:
        print(f"hautetension tournament: {str(exc).strip(chr(39))}", file=sys.stderr)
        return 2
    return 0


def list_command(args: argparse.Namespace) -> int:
    def action(store: Any) -> None:
        for info in store.all():
            t = store.load(info.id)
            state = "over" if t.is_over() else f"round {len(t.rounds)}" if t.rounds else "registration"
            print(f"{info.id}\t{info.name}\t{len(t.names)} players\t{state}")

    return _run(args, action)


def standings_command(args: argparse.Namespace) -> int:
    def action(store: Any) -> None:
        info, t = store.get(args.id), store.load(args.id)
        print(f"{info.name} — {len(t.rounds)} round(s){' — over' if t.is_over() else ''}")
        for s in t.standings():
            note = f" — {s.note}" if s.note else ""
            print(f"{s.place:>3}. {s.name:<24} {s.points:>4}  {s.status}{note}")

    return _run(args, action)


def export_command(args: argparse.Namespace) -> int:
    from webpanel.tournaments import present

    def action(store: Any) -> None:
        t = store.load(args.id)
        text = present.standings_csv(t) if args.what == "standings" else present.games_csv(t)
        if args.output:
            Path(args.output).write_text(text, encoding="utf-8")
        else:
            sys.stdout.write(text)

    return _run(args, action)
