"""The digital games lobby: create a game, seat humans and computers, play on
the display (hot seat) or from tablets that join by a short link or QR code.

Every game registered in :mod:`games.frame` can be played here; a game's
board page is a template in ``templates/lobby/boards/<game>.html`` plus its
script. See docs/games-lobby.md.
"""

from __future__ import annotations

from flask import Flask

from webpanel import table_games

# The route modules, each adding its routes to the blueprint and its paths to the API description.
# Named here, and only here: no route module registers another as a side effect of an import.
from webpanel.lobby import (  # noqa: F401
    api,
    apidoc,
    hop,
    hypnosia,
    pages,
    remote,
    rules,
    tables,
)
from webpanel.lobby.blueprint import bp, lobby_settings
from webpanel.lobby.cache import GameCache
from webpanel.lobby.runner import AiRunner
from webpanel.lobby.tables import LobbyTableGames


def init_app(app: Flask) -> None:
    settings = lobby_settings(app)
    games = GameCache(max_games=settings.cached_games, max_moves=settings.cached_moves)
    app.extensions["lobby_games"] = games
    app.extensions["lobby_ai"] = AiRunner(app.config["PANEL"].database, games=games,
                                          workers=settings.computer_workers,
                                          thinking_seconds=settings.thinking_seconds)
    table_games.provide(app, LobbyTableGames())  # the event server's online rounds (webpanel/event/online.py)


__all__ = ["bp", "init_app"]
