"""The lobby's pages: the games list, a game's board, the join link and its QR code.

Pages are thin: they name the game and load the scripts; everything they
show comes from the JSON API, with the same rights (cookies) as the page.
"""

from __future__ import annotations

import io
import ipaddress
import socket
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import segno
from flask import Response, abort, current_app, render_template, request, url_for
from markupsafe import Markup

from games.frame import AI_LEVELS
from store.games import GameNotFoundError
from webpanel.errors import ApiError
from webpanel.fanout import live_channel_url
from webpanel.hub import game_topic
from webpanel.lobby.api import known_games
from webpanel.lobby.blueprint import bp, lobby_settings, store
from webpanel.lobby.names import RULES, names_json, seat_name, title
from webpanel.lobby.options import form_options
from webpanel.seats import guess, right_guess

BOARDS = Path(__file__).parent / "templates" / "lobby" / "boards"


@bp.app_template_global()
def lobby_names() -> Markup:
    """The games' titles, computer levels and colours for the lobby's scripts (a JSON block)."""
    return names_json({name: AI_LEVELS.get(name, {}) for name in known_games()})


@bp.get("/games")
def lobby_page() -> str:
    games = dict(sorted(known_games().items(), key=lambda item: title(item[0]).lower()))
    return render_template("lobby/index.html", games=games, title=title, options=form_options(games),
                           rules=RULES)


@bp.get("/games/<id:game_id>")
def game_page(game_id: int) -> str:
    try:
        record = store().get(game_id)
    except GameNotFoundError:
        abort(404)
    board = record.game if (BOARDS / f"{record.game}.html").exists() else "generic"
    return render_template("lobby/game.html", record=record, board=board, title=title(record.game),
                           rules=record.game in RULES,
                           live_url=live_channel_url(current_app, game_topic(record.id).channel))


def _find_code(code: str) -> tuple[int, int]:
    """The (game, seat) of a join code, or 404; wrong codes count as guesses (429 when too many)."""
    try:
        attempt = guess()
    except ApiError as exc:
        abort(Response(exc.message, status=429, headers=exc.headers, mimetype="text/plain"))
    found = store().find_code(code.lower()) if len(code) <= 32 else None
    if found is None:
        abort(404)
    right_guess(attempt)
    return found


@bp.get("/j/<code>")
def join_page(code: str) -> str:
    found = _find_code(code)
    game_id, seat = found
    record = store().get(game_id)
    held = record.seats[seat]
    return render_template("lobby/join.html", record=record, code=code.lower(), title=title(record.game),
                           seat_name=seat_name(record.game, held.kind, held.level, held.seat, held.name))


@bp.get("/j/<code>/qr.svg")
def join_qr(code: str) -> Response:
    """The join link as a QR code, for a tablet's camera (the code itself is the secret)."""
    _find_code(code)
    link = public_root() + url_for("lobby.join_page", code=code.lower()).lstrip("/")
    out = io.BytesIO()
    segno.make(link, error="m").save(out, kind="svg", scale=6, border=2, title="Join link", dark="#111",
                                     light="#fff")
    response = Response(out.getvalue(), mimetype="image/svg+xml")
    response.headers["Cache-Control"] = "no-store"
    return response


def public_root() -> str:
    """Where tablets reach the panel: ``LOBBY_PUBLIC_URL`` (or ``[lobby] public_url``) if set, else
    this request's host.

    A display on the Pi itself browses ``127.0.0.1``, which a tablet cannot
    reach; then the machine's address on the local network is used instead, but
    only when the panel can be reached there (it listens on every address, or
    sits behind the front server): a panel listening on loopback only (``make
    run``, ``make event``) keeps the address it was asked on.
    """
    configured = current_app.config.get("LOBBY_PUBLIC_URL") or lobby_settings().public_url
    if configured:
        return str(configured).rstrip("/") + "/"
    parts = urlsplit(request.host_url)
    host = parts.hostname or ""
    if _is_loopback(host) and _reachable_on_the_network():
        lan = _lan_address()
        if lan is not None:
            netloc = lan + (f":{parts.port}" if parts.port else "")
            return urlunsplit((parts.scheme, netloc, "/", "", ""))
    return request.host_url


def _reachable_on_the_network() -> bool:
    """Whether other machines can reach this panel: it listens beyond loopback, or a front server does."""
    panel = current_app.config["PANEL"]
    if panel.trusted_proxy:
        return True
    listening = str(current_app.config.get("LISTEN_HOST") or panel.host)
    return listening in ("", "0.0.0.0", "::", "*") or not _is_loopback(listening)


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _lan_address() -> str | None:
    """This machine's address on its default route (a UDP 'connect' sends no packet)."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(("192.0.2.1", 9))  # TEST-NET-1: only picks the outgoing interface
            address = str(probe.getsockname()[0])
    except OSError:
        return None
    return None if ipaddress.ip_address(address).is_loopback else address
