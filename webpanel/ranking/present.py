"""The general ranking as pages, JSON and CSV see it: plain values, ready to show."""

from __future__ import annotations

import csv
import io
from typing import Any

from store.ranking import Season
from tournaments.ranking import HandicapProposal, PlayedGame, RankingLine
from webpanel.spreadsheet import safe_cell


def line_json(season: Season, line: RankingLine) -> dict[str, Any]:
    player = season.players[line.player]
    return {
        "place": line.place,
        "ranked": line.is_ranked,
        "player": player.to_json(),
        "games": line.games,
        "points": line.points,
        "per_game": round(float(line.per_game), 3),
        "best_game": line.best_game,
        "tournaments": line.tournaments,
        "best": [
            {
                "tournament": p.tournament,
                "name": season.tournaments.get(p.tournament, ""),
                "place": p.place,
                "field": p.field,
                "at": p.at,
            }
            for p in line.best
        ],
    }


def ranking_json(season: Season) -> dict[str, Any]:
    return {
        "at": season.at,
        "event": season.event,
        "rules": {
            "window_days": season.rules.window_days,
            "min_games": season.rules.min_games,
            "handicap_step": float(season.rules.handicap_step),
        },
        "ranking": [line_json(season, line) for line in season.lines],
    }


def game_json(season: Season, game: PlayedGame) -> dict[str, Any]:
    return {
        "tournament": game.tournament,
        "name": season.tournaments.get(game.tournament, ""),
        "round": game.round,
        "table": game.table,
        "points": game.points,
        "at": game.at,
        "counts": season.at - season.rules.window_days * 86400 <= game.at <= season.at,
    }


def handicap_json(season: Season, proposal: HandicapProposal) -> dict[str, Any]:
    return {
        "players": [
            {"player": season.players[p].to_json(), "pawns": n}
            if p in season.players
            else {"player": p, "pawns": n}
            for p, n in proposal.pawns.items()
        ],
        "carriers": list(proposal.carriers),
        "lead": round(float(proposal.lead), 3),
        "over": list(proposal.over),
        "unranked": list(proposal.unranked),
    }


CSV_COLUMNS = [
    "place",
    "ranked",
    "player",
    "name",
    "club",
    "city",
    "games",
    "points",
    "per_game",
    "best_game",
    "tournaments",
    "best",
]


def ranking_csv(season: Season) -> str:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(CSV_COLUMNS)
    for line in season.lines:
        player = season.players[line.player]
        best = "; ".join(f"{p.place}/{p.field} {season.tournaments.get(p.tournament, '')}" for p in line.best)
        writer.writerow(
            [
                line.place,
                "yes" if line.is_ranked else "provisional",
                player.id,
                safe_cell(player.name),
                safe_cell(player.club),
                safe_cell(player.city),
                line.games,
                line.points,
                f"{float(line.per_game):.3f}",
                line.best_game,
                line.tournaments,
                safe_cell(best),
            ]
        )
    return out.getvalue()
