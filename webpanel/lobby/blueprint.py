"""The lobby's blueprint and what its pages and API share."""

from __future__ import annotations

from flask import Blueprint, Flask, current_app

from store.games import GameStore
from webpanel.config import LobbySettings
from webpanel.db import get_db
from webpanel.lobby.cache import GameCache
from webpanel.lobby.runner import AiRunner

bp = Blueprint(
    "lobby",
    __name__,
    template_folder="templates",
    static_folder="static",
    static_url_path="/games/static",
)


def store() -> GameStore:
    return GameStore(get_db())


def runner() -> AiRunner:
    value: AiRunner = current_app.extensions["lobby_ai"]
    return value


def games() -> GameCache:
    """The games this panel keeps loaded (webpanel/lobby/cache.py)."""
    value: GameCache = current_app.extensions["lobby_games"]
    return value


def lobby_settings(app: Flask | None = None) -> LobbySettings:
    """The ``[lobby]`` settings the panel was given (``LOBBY``), else the defaults."""
    value = (app or current_app).config.get("LOBBY")
    return value if isinstance(value, LobbySettings) else LobbySettings()
