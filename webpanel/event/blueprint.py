"""The event area's blueprint and what its pages and API share."""

from __future__ import annotations

from flask import Blueprint, current_app, request

from store.event.settings import EventSettings

bp = Blueprint(
    "event", __name__, template_folder="templates", static_folder="static", static_url_path="/event/static"
)


def settings() -> EventSettings:
    value: EventSettings = current_app.config["EVENT"]
    return value


def actor() -> str:
    return f"staff@{request.remote_addr or 'unknown'}"


def requested_tournament() -> int | None:
    """``?t=ID`` (else the event's own choice: see :func:`webpanel.event.present.event_tournament`)."""
    value = request.args.get("t", "")
    return int(value) if value.isdigit() and len(value) < 12 else None
