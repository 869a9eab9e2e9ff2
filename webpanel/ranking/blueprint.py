"""The ranking area's blueprint and what its pages and API share."""

from __future__ import annotations

import datetime

from flask import Blueprint, Flask, current_app, g, request
from flask_babel import format_date, format_decimal

from games.hautetension.ranking import RankingRules
from store.ranking import Ranking, Season, TournamentCache
from webpanel.db import get_db

bp = Blueprint(
    "ranking",
    __name__,
    template_folder="templates",
    static_folder="static",
    static_url_path="/ranking/static",
)


def rules() -> RankingRules:
    event = current_app.config["EVENT"]
    value: RankingRules = event.ranking
    return value


def season() -> Season:
    """The ranking as of this request (counted once per request)."""
    if "season" not in g:
        g.season = Ranking(get_db(), rules(), cache=current_app.extensions["ranking_tournaments"]).season()
    value: Season = g.season
    return value


def actor() -> str:
    return f"staff@{request.remote_addr or 'unknown'}"


@bp.app_template_filter("day")
def day(at: float) -> str:
    """A Unix time as a date in the page's language."""
    return str(format_date(datetime.datetime.fromtimestamp(at)))


@bp.app_template_filter("two_places")
def two_places(value: object) -> str:
    """A number with two decimals, written as the page's language writes it (2.50, 2,50)."""
    return str(format_decimal(float(value), format="0.00"))  # type: ignore[arg-type]


def init_app(app: Flask) -> None:
    # The season's tournaments kept replayed: a look at the ranking replays only those that changed.
    app.extensions["ranking_tournaments"] = TournamentCache()
