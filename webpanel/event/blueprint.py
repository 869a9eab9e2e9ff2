"""The event area's blueprint and what its pages and API share."""

from __future__ import annotations

from flask import Blueprint, current_app, request

from store.event.settings import EventSettings
from webpanel.errors import ApiError, whole_number

bp = Blueprint(
    "event", __name__, template_folder="templates", static_folder="static", static_url_path="/event/static"
)


def settings() -> EventSettings:
    value: EventSettings = current_app.config["EVENT"]
    return value


def requested_tournament() -> int | None:
    """``?t=ID`` (else the event's own choice: see :func:`webpanel.event.present.event_tournament`)."""
    try:
        return whole_number(request.args.get("t", ""), "t") or None
    except ApiError:
        return None  # a page asked for no tournament it can show: the event's own choice
