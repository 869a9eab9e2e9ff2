"""The rating beside the points ranking: its JSON, CSV, a table's chances, and what the pages show of it.

The counting is :mod:`tournaments.rating` (OpenSkill Plackett-Luce over each
game's lamp order); the season's games are :mod:`store.ranking`'s, counted
once per request with the ranking (``season().ratings``). A table's chances
before its game are here for any page that wants them: the staff round page
shows them (:func:`round_chances`, a template global), and
``/api/ranking/chances`` and ``/api/ranking/tournaments/<tid>/rounds/<n>/chances``
give them as JSON.
"""

from __future__ import annotations

from dataclasses import dataclass

from flask import Response, current_app, jsonify
from flask_babel import format_percent

from store.players import Players
from store.ranking import Ranking, Season
from store.tournaments import TournamentNotFoundError, Tournaments
from tournaments.exc import TournamentError
from webpanel import openapi
from webpanel.auth import is_staff
from webpanel.codes import TABLE_NOT_FOUND, TOURNAMENT_NOT_FOUND
from webpanel.db import get_db
from webpanel.errors import ApiError
from webpanel.ranking.api import (
    PLAYER_ID_LIST,
    table_players,
)
from webpanel.ranking.blueprint import bp, rules, season
from webpanel.ranking.rating_present import chances_json, rating_csv, ratings_json

# -- a tournament round's tables ----------------------------------------------------------------------


@dataclass(frozen=True)
class TableChances:
    """One table of a round: its players' chances by the rating (the tournament's player numbers)."""

    table: int
    win: dict[int, float]
    """Tournament player number → chance of finishing first (only the players linked to the registry)."""
    unlinked: tuple[int, ...]
    newcomers: tuple[int, ...]

    @property
    def percent(self) -> dict[int, str]:
        """Each chance as a whole percent, as the page's language writes it (41%, 41 %); the table's add
        up to 100 (the largest remainders are rounded up)."""
        raw = {p: w * 100 for p, w in self.win.items()}
        whole = {p: int(v) for p, v in raw.items()}
        short = max(0, 100 - sum(whole.values())) if whole else 0
        for p in sorted(raw, key=lambda p: whole[p] - raw[p])[:short]:
            whole[p] += 1
        return {p: str(format_percent(n / 100)) for p, n in whole.items()}


def table_chances(season: Season, tid: int, number: int) -> list[TableChances]:
    """Each table of the tournament's round: the chances of its players, by the rating."""
    t = Tournaments(get_db()).load(tid)
    made = t.round(number)
    linked = {e.player: e.player_id for e in Players(get_db()).entrants(tid)}
    canonical = Players(get_db()).canonical()
    tables = []
    for table in made.tables:
        registered = {p: canonical.get(linked[p], linked[p]) for p in table.seats if p in linked}
        unlinked = tuple(p for p in table.seats if p not in linked)
        if len(registered) < 2 or len(set(registered.values())) != len(registered):
            tables.append(TableChances(table.number, {}, unlinked, ()))
            continue
        chances = season.ratings.chances(list(registered.values()))
        number_of = {pid: p for p, pid in registered.items()}
        tables.append(
            TableChances(
                table.number,
                {number_of[pid]: win for pid, win in chances.win.items()},
                unlinked,
                tuple(number_of[pid] for pid in chances.newcomers),
            )
        )
    return tables


@bp.app_template_global()
def round_chances(tid: int, number: int) -> dict[int, TableChances]:
    """For the staff round page: each table's chances (empty for visitors, or when nothing can be said)."""
    if not is_staff():
        return {}
    # Every event's games, whatever the page's query says: a table's players may have met anywhere.
    whole = Ranking(get_db(), rules(), cache=current_app.extensions["ranking_tournaments"]).season()
    try:
        return {c.table: c for c in table_chances(whole, tid, number)}
    except (TournamentNotFoundError, TournamentError):
        return {}


# -- routes -----------------------------------------------------------------------------------------


@bp.get("/api/ranking/rating")
def api_rating() -> Response:
    """The rating of every registered player who played, best first."""
    return jsonify(ratings_json(season()))


@bp.get("/ranking/rating.csv")
def rating_csv_file() -> Response:
    response = Response(rating_csv(season()), mimetype="text/csv")
    response.headers["Content-Disposition"] = 'attachment; filename="rating.csv"'
    response.headers["Cache-Control"] = "no-store"
    return response


CHANCES_MEANING = (
    "The Plackett-Luce chance of finishing first, softmax(strength / β) with the rating's β (10), averaged"
    " over what the rating does not know of each strength (a normal of the player's mean and uncertainty)."
    " The chances sum to 1; equal ratings get equal chances; measured against points per game in"
    " docs/ranking.md (bench/rating.py)."
)
"""What a chance means, for the API document."""


@bp.get("/api/ranking/chances")
def api_chances() -> Response:
    """A table's chances before its game: ``?players=3,8,12`` (registered ids, 2 to 4)."""
    kept = table_players()
    now = season()
    return jsonify(chances_json(now, now.ratings.chances(kept)))


@bp.get("/api/ranking/tournaments/<id:tid>/rounds/<id:number>/chances")
def api_round_chances(tid: int, number: int) -> Response:
    """Each table's chances in a tournament's round, by the rating (players linked to the registry)."""
    try:
        tables = table_chances(season(), tid, number)
    except TournamentNotFoundError as exc:
        raise ApiError(404, str(exc), code=TOURNAMENT_NOT_FOUND) from None
    except TournamentError as exc:
        raise ApiError(404, str(exc), code=TABLE_NOT_FOUND) from None
    return jsonify(
        {
            "tournament": tid,
            "round": number,
            "tables": [
                {
                    "table": c.table,
                    "players": [{"number": p, "win": round(w, 4)} for p, w in c.win.items()],
                    "unlinked": list(c.unlinked),
                    "newcomers": list(c.newcomers),
                }
                for c in tables
            ],
        }
    )


_ID = {"in": "path", "required": True, "schema": {"type": "integer"}}
_EVENT_QUERY = {
    "name": "event",
    "in": "query",
    "required": False,
    "schema": {"type": "string"},
    "description": "An event's id: the rating from that event's counting tournaments alone",
}
_RATING = {
    "type": "object",
    "required": ["place", "player", "rating", "mean", "uncertainty", "games", "last_game"],
    "properties": {
        "place": {"type": "integer"},
        "player": {"$ref": "#/components/schemas/RegisteredPlayer"},
        "rating": {"type": "number", "description": "Shown: mean − spread × uncertainty"},
        "mean": {"type": "number"},
        "uncertainty": {"type": "number", "description": "Grown with inactivity since the last game"},
        "games": {"type": "integer"},
        "last_game": {"type": ["number", "null"]},
    },
}
openapi.add_schemas({"PlayerRating": _RATING})
openapi.add_paths(
    {
        "/api/ranking/rating": {
            "get": {
                "summary": "The rating (OpenSkill Plackett-Luce over each game's lamp order) of every"
                " registered player who played, best first",
                "parameters": [_EVENT_QUERY],
                "responses": {
                    "200": openapi.json_response(
                        "at, event, rules (spread, drift) and the rating",
                        {
                            "type": "object",
                            "required": ["at", "event", "rules", "rating"],
                            "properties": {
                                "at": {"type": "number"},
                                "event": {"type": ["string", "null"]},
                                "rules": {"type": "object"},
                                "rating": {
                                    "type": "array",
                                    "items": {"$ref": "#/components/schemas/PlayerRating"},
                                },
                            },
                        },
                    ),
                    "404": openapi.error("No such event (event_not_found)"),
                },
            }
        },
        "/api/ranking/chances": {
            "get": {
                "summary": "A table's chances before its game, by the rating: each player's chance of"
                " finishing first (never lit)",
                "description": CHANCES_MEANING,
                "parameters": [
                    {
                        "name": "players",
                        "in": "query",
                        "required": True,
                        "schema": {"type": "string", "pattern": f"^{PLAYER_ID_LIST}$"},
                        "description": "2 to 4 registered player ids, comma-separated",
                    },
                    _EVENT_QUERY,
                ],
                "responses": {
                    "200": openapi.json_response("players (player, win, rating, games) and newcomers"),
                    "400": openapi.error("Not 2 to 4 different ids"),
                    "404": openapi.error("No such registered player, or no such event"),
                },
            }
        },
        "/api/ranking/tournaments/{tid}/rounds/{number}/chances": {
            "get": {
                "summary": "Each table's chances in a tournament's round, by the rating (the players"
                " linked to the registry, by their number in the tournament)",
                "description": CHANCES_MEANING,
                "parameters": [{"name": "tid", **_ID}, {"name": "number", **_ID}, _EVENT_QUERY],
                "responses": {
                    "200": openapi.json_response("tournament, round, tables (table, players, unlinked,"
                                                 " newcomers)"),
                    "404": openapi.error("No such tournament, round or event"),
                },
            }
        },
    }
)
