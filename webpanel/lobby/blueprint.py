"""The lobby's blueprint and what its pages and API share."""

from __future__ import annotations

from flask import Blueprint, current_app

from store.games import GameStore
from webpanel.db import get_db
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
