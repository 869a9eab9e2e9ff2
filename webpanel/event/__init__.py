"""The event server's own pages and API: the boards, their tables, their results, the wall display.

The panel in its "event" role (``hautetension central``) registers this area
besides the shared ones (tournaments above all). Staff accept the boards that
report to the event and label them, make a round and send it to the boards
with one click (each table on a board, changeable), and see the results that
need them (a clash with a hand entry, a result the players did not confirm in
time, one the tournament refused). The wall display shows the room every
board live, the standings and which tables are still playing. The panel never
talks to the broker: it writes to the event's database what the ingest
publishes (docs/event-network.md).
"""

from __future__ import annotations

from flask import Flask, url_for

from webpanel import translation_marks

# The route modules, each adding its routes to the blueprint (and its paths to the API description).
from webpanel.event import api, door, online, players, views, wall_feed  # noqa: F401
from webpanel.event.blueprint import bp
from webpanel.event.follow import EventFollower


def init_app(app: Flask) -> None:
    translation_marks.install(app)
    app.extensions["event_follower"] = EventFollower(
        app.config["PANEL"], listener=app.extensions.get("change_listener")
    )
    app.extensions["home_page"] = lambda: url_for("event.overview")
    wall_feed.init_app(app)


__all__ = ["bp", "init_app"]
