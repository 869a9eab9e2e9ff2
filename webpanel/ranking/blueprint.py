"""The ranking area's blueprint and what its pages and API share."""

from __future__ import annotations

import datetime

from flask import Blueprint, Flask, Response, current_app, g, request
from flask_babel import format_date, format_decimal
from werkzeug.exceptions import NotFound

from store.ranking import Ranking, Season, TournamentCache
from store.season import Calendar, Event, EventNotFoundError
from tournaments.ranking import RankingRules
from webpanel.db import get_db
from webpanel.errors import define_code, error_response

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


EVENT_NOT_FOUND = define_code("event_not_found", "The season has no event of this id.")


def requested_event() -> Event | None:
    """``?event=ID``: that event (the ranking of its tournaments alone); None: every event."""
    raw = request.args.get("event", "")
    return Calendar(get_db()).get(raw) if raw else None


def season() -> Season:
    """The ranking as of this request (counted once per request): of the tournaments that count, of
    the event ``?event=`` names alone when it names one."""
    if "season" not in g:
        event = requested_event()
        g.season = Ranking(get_db(), rules(), cache=current_app.extensions["ranking_tournaments"]).season(
            event=event.id if event else None
        )
    value: Season = g.season
    return value


@bp.errorhandler(EventNotFoundError)
def _no_such_event(exc: EventNotFoundError) -> Response | NotFound:
    """A page of an event the season does not have is not found; the API says so with its code."""
    if not request.path.startswith("/api/"):
        return NotFound()
    return error_response(404, str(exc), EVENT_NOT_FOUND)


@bp.app_template_filter("day")
def day(at: float) -> str:
    """A Unix time as a date in the page's language."""
    return str(format_date(datetime.datetime.fromtimestamp(at)))


@bp.app_template_filter("iso_day")
def iso_day(value: str) -> str:
    """A day written YYYY-MM-DD, as the page's language writes a date."""
    return str(format_date(datetime.date.fromisoformat(value)))


@bp.app_template_filter("two_places")
def two_places(value: object) -> str:
    """A number with two decimals, written as the page's language writes it (2.50, 2,50)."""
    return str(format_decimal(float(value), format="0.00"))  # type: ignore[arg-type]


@bp.app_template_filter("one_place")
def one_place(value: object) -> str:
    """A number with one decimal, written as the page's language writes it (12.5, 12,5)."""
    return str(format_decimal(float(value), format="0.0"))  # type: ignore[arg-type]


def init_app(app: Flask) -> None:
    # The season's tournaments kept replayed: a look at the ranking replays only those that changed.
    app.extensions["ranking_tournaments"] = TournamentCache()
