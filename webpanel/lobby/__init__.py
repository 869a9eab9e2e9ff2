"""The digital games lobby: create a game, seat humans and computers, play on
the display (hot seat) or from tablets that join by a short link or QR code.

Every game registered in :mod:`games.frame` can be played here; a game's
board page is a template in ``templates/lobby/boards/<game>.html`` plus its
script. See docs/games-lobby.md.
"""

from __future__ import annotations

from flask import Flask

from configuration import ConfigError, ConfigFile
from webpanel.auth import AttemptLimiter
from webpanel.lobby import api, apidoc, hop, hypnosia, pages  # noqa: F401  (they register routes and paths)
from webpanel.lobby.blueprint import bp
from webpanel.lobby.runner import AiRunner
from webpanel.lobby.seats import GUESSES_PER_MINUTE


def public_url_setting(config: ConfigFile) -> str | None:
    """``[lobby] public_url``: the address tablets use to reach the panel (for join links and QR codes)."""
    section = config.section("lobby")
    unknown = sorted(set(section) - {"public_url"})
    if unknown:
        raise ConfigError(f"{config.describe()}: unknown [lobby] key(s): {', '.join(unknown)}")
    url = section.get("public_url", "")
    if not isinstance(url, str) or (url and not url.startswith(("http://", "https://"))):
        raise ConfigError(f"{config.describe()}: [lobby] public_url must be an http:// or https:// address")
    return url or None


def init_app(app: Flask) -> None:
    app.extensions["lobby_ai"] = AiRunner(app.config["PANEL"].database)
    app.extensions["lobby_guesses"] = AttemptLimiter(per_client=GUESSES_PER_MINUTE, window=60.0)


__all__ = ["bp", "init_app"]
