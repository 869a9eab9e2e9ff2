"""The application factory.

``create_app`` builds one panel: configuration, security, the shared
database, then one blueprint per area from :data:`BLUEPRINTS`. To add an area,
append one line to that list (see docs/webpanel.md, "Extending the panel").

The panel receives its settings (a :class:`~webpanel.config.PanelSettings`)
from whoever creates it; it never looks for the configuration file.
"""

from __future__ import annotations

import dataclasses
import datetime
import importlib
from collections.abc import Callable, Mapping
from typing import Any

from flask import Blueprint, Flask

from store.event.settings import EventSettings
from webpanel import csrf, db, errors, fanout, i18n, ids, outage, seats, security, stream
from webpanel.auth import PinChecker, is_staff, make_limiter
from webpanel.config import PanelSettings
from webpanel.hub import make_hub
from webpanel.stream import BoardFollower

BLUEPRINTS: list[str | Blueprint] = [
    "webpanel.board:bp",
    "webpanel.sim:bp",
    "webpanel.staff:bp",
    "webpanel.wiring:bp",
    "webpanel.openapi:bp",
    "webpanel.tournaments:bp",
    "webpanel.lobby:bp",
    "webpanel.replay:bp",
    "webpanel.slot_health:bp",
    "webpanel.metrics:bp",
]
"""Every area of the panel, registered in this order: ``"module:attribute"`` or a Blueprint."""
BOARD_ONLY: list[str | Blueprint] = ["webpanel.table:bp"]
"""Areas of a board's panel only: the event's table on the board's display."""
EVENT_ONLY: list[str | Blueprint] = ["webpanel.event:bp", "webpanel.ranking:bp"]
"""Areas of the event server only (the panel in its "event" role, ``hautetension central``)."""

MAX_BODY_BYTES = 64 * 1024


def create_app(
    test_config: Mapping[str, Any] | None = None, *, staff_pin_hash: Callable[[], str] | None = None
) -> Flask:
    """A panel app.

    *test_config* sets Flask settings; its ``PANEL`` is the panel's
    :class:`PanelSettings` (the built-in defaults without it), ``LOBBY`` the lobby's
    :class:`~webpanel.config.LobbySettings` and ``LOBBY_PUBLIC_URL`` (if set) the lobby's public
    address. With ``EVENT`` (a :class:`~store.event.settings.EventSettings`) the panel is the
    event server (``ROLE`` "event"): on the event's database, with the event's pages instead of
    the board's table page. *staff_pin_hash* gives the
    configured staff PIN hash at each login (``hautetension panel`` reads the
    configuration file again, so a new PIN needs no restart); without it, the
    settings' ``staff_pin_hash``.
    """
    app = Flask(__name__)
    overrides = dict(test_config or {})
    settings: PanelSettings = overrides.get("PANEL") or PanelSettings()
    event: EventSettings | None = overrides.get("EVENT")
    if event is not None:
        settings = dataclasses.replace(settings, database=event.database)
        overrides["PANEL"] = settings
    app.config.update(
        PANEL=settings,
        EVENT=event,
        ROLE="event" if event is not None else "board",
        MAX_CONTENT_LENGTH=MAX_BODY_BYTES,
        SESSION_COOKIE_NAME="hautetension_session",
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Strict",
        SESSION_COOKIE_SECURE=settings.secure_cookies,
        PERMANENT_SESSION_LIFETIME=datetime.timedelta(hours=settings.session_hours),
    )
    app.config.update(overrides)
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = security.load_or_create_secret_key(settings.secret_key_path)

    app.extensions["board_follower"] = BoardFollower(settings)
    stream.init_app(app)
    app.extensions["staff_pin_hash"] = staff_pin_hash or (lambda: settings.staff_pin_hash)
    app.extensions["staff_limiter"] = make_limiter(settings)
    app.extensions["staff_pin_checker"] = PinChecker()
    ids.init_app(app)  # before the blueprints: their rules use the `id` converter
    errors.init_app(app)
    outage.init_app(app)
    security.init_app(app)
    csrf.init_app(app)
    db.init_app(app)
    app.extensions["change_hub"] = make_hub(settings.database, app.extensions["change_listener"],
                                            settings.poll_interval, app.extensions["db_pool"].get,
                                            settings.service_stale_seconds)
    fanout.init_app(app)
    i18n.init_app(app)
    seats.init_app(app)  # the join codes and tokens guessed, for every area that asks who is asking
    app.jinja_env.globals["is_staff"] = is_staff
    # Areas link themselves in the shared navigation only when they are registered.
    app.jinja_env.globals["has_endpoint"] = lambda endpoint: endpoint in app.view_functions

    for entry in BLUEPRINTS + (EVENT_ONLY if event is not None else BOARD_ONLY):
        blueprint, module = _resolve(entry)
        app.register_blueprint(blueprint)
        init = getattr(module, "init_app", None)
        if callable(init):
            init(app)
    return app


def close_app(app: Flask) -> None:
    """Stop the app's background reader (tests and a clean shutdown)."""
    if "wall_feed" in app.extensions:
        app.extensions["wall_feed"].close()  # before the hub: it publishes there
    app.extensions["board_follower"].close()
    app.extensions["change_hub"].close()
    fanout.close_app(app)
    if "event_follower" in app.extensions:
        app.extensions["event_follower"].close()
    if app.extensions.get("change_listener") is not None:
        app.extensions["change_listener"].close()
    app.extensions["db_pool"].close()


def _resolve(entry: str | Blueprint) -> tuple[Blueprint, Any]:
    if isinstance(entry, Blueprint):
        return entry, importlib.import_module(entry.import_name)
    module_name, _, attribute = entry.partition(":")
    module = importlib.import_module(module_name)
    blueprint = getattr(module, attribute or "bp")
    if not isinstance(blueprint, Blueprint):
        raise TypeError(f"{entry} is not a Flask Blueprint")
    return blueprint, module
