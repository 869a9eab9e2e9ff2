"""The rating as the pages, JSON and CSV see it: plain values, ready to show."""

from __future__ import annotations

import csv
import io
from typing import Any

from store.ranking import Season
from tournaments.rating import Chances, PlayerRating, RatingStep
from webpanel.spreadsheet import safe_cell


def rating_json(season: Season, rating: PlayerRating) -> dict[str, Any]:
    player = season.players.get(rating.player)
    return {
        "place": rating.place,
        "player": player.to_json() if player is not None else {"id": rating.player},
        "rating": round(rating.value, 2),
        "mean": round(rating.mu, 3),
        "uncertainty": round(rating.sigma, 3),
        "games": rating.games,
        "last_game": rating.last_at,
    }


def step_json(season: Season, step: RatingStep) -> dict[str, Any]:
    return {
        "tournament": step.tournament,
        "name": season.tournaments.get(step.tournament, ""),
        "round": step.round,
        "table": step.table,
        "at": step.at,
        "rating": round(step.value, 2),
        "mean": round(step.mu, 3),
        "uncertainty": round(step.sigma, 3),
        "change": round(step.change, 2),
    }


def ratings_json(season: Season) -> dict[str, Any]:
    ratings = season.ratings
    return {
        "at": season.at,
        "event": season.event,
        "rules": {"spread": ratings.rules.spread, "drift": ratings.rules.drift},
        "rating": [rating_json(season, line) for line in ratings.lines if line.player in season.players],
    }


def chances_json(season: Season, chances: Chances) -> dict[str, Any]:
    return {
        "players": [
            {
                "player": season.players[p].to_json() if p in season.players else {"id": p},
                "win": round(chances.win[p], 4),
                "rating": round(season.ratings.of(p).value, 2),
                "games": season.ratings.of(p).games,
            }
            for p in chances.players
        ],
        "newcomers": list(chances.newcomers),
    }


RATING_CSV_COLUMNS = ["place", "player", "name", "club", "city", "rating", "mean", "uncertainty", "games"]


def rating_csv(season: Season) -> str:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(RATING_CSV_COLUMNS)
    for line in season.ratings.lines:
        player = season.players.get(line.player)
        if player is None:
            continue
        writer.writerow(
            [
                line.place,
                player.id,
                safe_cell(player.name),
                safe_cell(player.club),
                safe_cell(player.city),
                f"{line.value:.2f}",
                f"{line.mu:.3f}",
                f"{line.sigma:.3f}",
                line.games,
            ]
        )
    return out.getvalue()


def player_rating(season: Season, pid: int) -> dict[str, Any]:
    """A player's rating and its history (for the player's JSON)."""
    return {
        "rating": rating_json(season, season.ratings.of(pid)),
        "history": [step_json(season, s) for s in season.ratings.steps.get(pid, [])],
    }
