"""Each player's own page at the event (``/p/<token>``) and its JSON API (``/api/event/players/<token>``).

The token in the address is the player's credential (their badge's QR code):
whoever holds it sees that player's page and acts for that player only —
check in, say they left, agree to their table's result, flag it as wrong,
withdraw. A token is a guess until it is found: wrong ones are limited as the
lobby's join codes are (:func:`webpanel.seats.guess`). A token staff replaced
says so, and no more.
"""

from __future__ import annotations

from typing import Any

from flask import Response, abort, current_app, flash, jsonify, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue
from flask_babel import gettext as _

from games.exc import GameError
from store.event.assignments import Assignments
from store.event.attendance import (
    MAX_TOKEN,
    MAX_WORD,
    Attendance,
    AttendanceError,
    PlayerLink,
    PlayerLinks,
    ResultFlags,
)
from store.event.results import ResultNotFoundError, Results, ResultStateError
from store.ranking import TournamentCache
from store.tournaments import Tournaments
from webpanel import openapi
from webpanel.db import get_db
from webpanel.errors import ApiError, bad_field, define_code, json_object
from webpanel.event.blueprint import bp, settings
from webpanel.event.player_view import player_view
from webpanel.refusals import refusal_text
from webpanel.seats import guess, right_guess

ACTIONS = ("check-in", "leave", "agree", "flag", "withdraw")

NO_SUCH_LINK = define_code("no_such_link", "No player's link has this token.")
LINK_REPLACED = define_code(
    "link_replaced",
    "Staff gave this player a new link: this one no longer works (ask staff for the new one).",
)
NOTHING_TO_AGREE = define_code(
    "nothing_to_agree", "The player's table has no result from its board waiting for the players."
)
NOTHING_TO_FLAG = define_code("nothing_to_flag", "The player has no table with a result in this round.")
ACTION_REFUSED = define_code(
    "player_action_refused", "The tournament refuses it now: withdrawn already, or the tournament is over."
)


class _Refused(Exception):
    """A player's action that cannot be done now: the page's words, the API's code."""

    def __init__(self, text: str, code: Any) -> None:
        super().__init__(text)
        self.text = text
        self.code = code


def _link(token: str) -> PlayerLink:
    """The live link of *token*, counted as a guess until it is found (404: none; 410: replaced)."""
    attempt = guess()
    link = PlayerLinks(get_db()).by_token(token) if len(token) <= MAX_TOKEN else None
    if link is None:
        raise ApiError(404, "no player's link has this token", code=NO_SUCH_LINK)
    right_guess(attempt)
    if not link.is_live:
        raise ApiError(410, "staff gave this player a new link: this one no longer works", code=LINK_REPLACED)
    return link


def _page_link(token: str) -> PlayerLink | ResponseReturnValue:
    try:
        return _link(token)
    except ApiError as exc:
        status = exc.status if exc.status in (404, 410, 429) else 404
        error = refusal_text(exc)
        page = render_template("event/player_gone.html", event=settings(), status=status, error=error)
        return page, status, dict(exc.headers or {})


def _ranking_cache() -> TournamentCache:
    """The process's kept tournaments for the general ranking: the ranking area's when it is there."""
    cache = current_app.extensions.get("ranking_tournaments")
    if not isinstance(cache, TournamentCache):
        cache = current_app.extensions["ranking_tournaments"] = TournamentCache()
    return cache


def act(link: PlayerLink, action: str, *, word: str = "", sure: bool = False) -> str:
    """Do the player's *action*; what the page says it did (raises :class:`_Refused`)."""
    conn = get_db()
    tid, player = link.tournament_id, link.player
    t = Tournaments(conn).load(tid)
    if action in ("check-in", "leave"):
        if player in t.withdrawn or t.is_over():
            raise _Refused(_("You have withdrawn, or the tournament is over."), ACTION_REFUSED)
        Attendance(conn).mark(tid, player, here=action == "check-in", by="player")
        if action == "check-in":
            return str(_("You are checked in: your table appears here when the round is made."))
        return str(_("You are marked as away: check in again when you are back."))
    if action == "withdraw":
        if not sure:
            raise _Refused(_("Tick the box to say you really withdraw."), ACTION_REFUSED)
        try:
            Tournaments(conn).record(tid, lambda t: t.withdraw(player), actor=f"player {player} (own link)")
        except GameError as exc:
            raise _Refused(str(refusal_text(exc)), ACTION_REFUSED) from None
        return str(_("You have withdrawn from the tournament."))
    current = t.current_round
    table = None if current is None else next((x for x in current.tables if player in x.seats), None)
    if current is None or table is None:
        raise _Refused(_("You have no table in this round."), NOTHING_TO_FLAG)
    if action == "agree":
        assignment = next(
            (a for a in Assignments(conn).of_round(tid, current.number) if a.table == table.number), None
        )
        result = None if assignment is None else Results(conn).of_assignment(assignment.id)
        if result is None:
            raise _Refused(_("Your table has no result from its board to agree to."), NOTHING_TO_AGREE)
        try:
            Results(conn).agree(result.game, table.seat_of(player), by="the players (their own links)")
        except (ResultStateError, ResultNotFoundError):
            text = _("Your table's result is no longer waiting for the players.")
            raise _Refused(text, NOTHING_TO_AGREE) from None
        return str(_("You agreed to your table's result."))
    try:
        ResultFlags(conn).add(tid, current.number, table.number, player, word)
    except AttendanceError:
        raise _Refused(_("Say in a few words what is wrong."), NOTHING_TO_FLAG) from None
    return str(_("Staff are told: they will come to your table."))


# -- the page ------------------------------------------------------------------------------------


@bp.get("/p/<token>")
def player_page(token: str) -> ResponseReturnValue:
    found = _page_link(token)
    if not isinstance(found, PlayerLink):
        return found
    view = player_view(get_db(), found, rules=settings().ranking, cache=_ranking_cache())
    template = "event/_player_main.html" if request.args.get("part") == "main" else "event/player.html"
    response = Response(render_template(template, event=settings(), view=view, token=token))
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.post("/p/<token>/<action>")
def player_action(token: str, action: str) -> ResponseReturnValue:
    if action not in ACTIONS:
        abort(404)
    found = _page_link(token)
    if not isinstance(found, PlayerLink):
        return found
    try:
        word = request.form.get("word", "")[: MAX_WORD * 2]
        flash(act(found, action, word=word, sure=bool(request.form.get("sure"))), "ok")
    except _Refused as exc:
        refused = exc.text  # the page's words, made by the catalogue where it was raised
        flash(refused, "error")
    return redirect(url_for("event.player_page", token=token), code=303)


# -- the API -------------------------------------------------------------------------------------


@bp.get("/api/event/players/<token>")
def api_player(token: str) -> Response:
    view = player_view(get_db(), _link(token), rules=settings().ranking, cache=_ranking_cache())
    response = jsonify(view)
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.post("/api/event/players/<token>/<action>")
def api_player_action(token: str, action: str) -> Response:
    if action not in ACTIONS:
        raise ApiError(
            404, f"no such action {action[:20]!r} (one of {', '.join(ACTIONS)})", code=NO_SUCH_LINK
        )
    body = json_object(allowed={"word", "sure"})
    word = body.get("word", "")
    if not isinstance(word, str) or len(word) > MAX_WORD:
        raise bad_field("word", f"word is a text of at most {MAX_WORD} characters")
    sure = body.get("sure", False)
    if not isinstance(sure, bool):
        raise bad_field("sure", "sure must be true or false")
    link = _link(token)
    try:
        said = act(link, action, word=word, sure=sure)
    except _Refused as exc:
        raise ApiError(409, str(exc), code=exc.code) from None
    view = player_view(get_db(), link, rules=settings().ranking, cache=_ranking_cache())
    return jsonify({"done": action, "message": said, "player": view})


_TOKEN = {"name": "token", "in": "path", "required": True, "schema": {"type": "string", "pattern": "^[^/]+$"}}
_REFUSALS = {
    "404": openapi.error("No player's link has this token (no_such_link)"),
    "410": openapi.error("Staff replaced this link (link_replaced)"),
    "429": openapi.error("Too many wrong tokens from this address: wait (too_many_wrong_codes)"),
}
openapi.add_paths(
    {
        "/api/event/players/{token}": {
            "get": {
                "summary": "A player's own view (their link): presence, next table, the game on its board"
                " (public view), results round by round, standing, place in the general ranking",
                "parameters": [_TOKEN],
                "responses": {"200": openapi.json_response("The player's view"), **_REFUSALS},
            }
        },
        "/api/event/players/{token}/{action}": {
            "post": {
                "summary": "A player acts from their link: check-in, leave (away), agree (their table's"
                " result), flag (the result is wrong: word), withdraw (sure: true)",
                "parameters": [
                    _TOKEN,
                    {
                        "name": "action",
                        "in": "path",
                        "required": True,
                        "schema": {"type": "string", "enum": list(ACTIONS)},
                    },
                    openapi.CSRF_PARAMETER,
                ],
                "requestBody": openapi.json_body(
                    {
                        "type": "object",
                        "additionalProperties": False,
                        "properties": {
                            "word": {"type": "string", "maxLength": MAX_WORD},
                            "sure": {"type": "boolean"},
                        },
                    }
                ),
                "responses": {
                    "200": openapi.json_response("Done: what the page says, and the player's view"),
                    "400": openapi.error("A body that is not as described"),
                    "409": openapi.error(
                        "Not now: nothing to agree to or flag, withdrawn already, the tournament over, or"
                        " withdraw without sure (nothing_to_agree, nothing_to_flag, player_action_refused)"
                    ),
                    **_REFUSALS,
                },
            }
        },
    }
)
