"""Staff at the door: the players' badges, check-in by code or scan, late entries, the flags players raise.

The door page (a tablet at the desk) takes a badge's code typed or scanned (a
scanner that reads the QR code types the whole link: its token is looked up
too), lists who is in the hall, who is missing and who is away, and lets staff
check anyone in, mark them absent, give a new link (a lost badge), or register
a late player when the tournament takes late entries. The badges sheet is an
A4 page to print and cut: one badge a player, their name, QR code and code.
"""

from __future__ import annotations

import re
from typing import Any

import segno
from flask import Response, flash, jsonify, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue
from flask_babel import gettext as _
from markupsafe import Markup

from games.exc import GameError
from store.event.attendance import Attendance, PlayerLink, PlayerLinks, ResultFlags, clean_code
from store.tournaments import TournamentNotFoundError, Tournaments
from tournaments.tournament import Tournament
from webpanel import openapi
from webpanel.auth import actor, staff_required
from webpanel.codes import TOURNAMENT_NOT_FOUND
from webpanel.db import get_db
from webpanel.errors import ApiError, bad_field, define_code, json_object
from webpanel.event.blueprint import bp, settings
from webpanel.refusals import refusal_text
from webpanel.seats import guess, right_guess

NO_SUCH_CODE = define_code("no_such_code", "No player of this tournament has this badge code.")


def _tournament(tid: int) -> Tournament:
    try:
        return Tournaments(get_db()).load(tid)
    except TournamentNotFoundError as exc:
        raise ApiError(404, str(exc), code=TOURNAMENT_NOT_FOUND) from None


def player_url(link: PlayerLink) -> str:
    return url_for("event.player_page", token=link.token, _external=True)


def door_rows(tid: int, t: Tournament) -> list[dict[str, Any]]:
    """Every registered player: their code, link and presence ("here", "away", "missing", "withdrawn")."""
    links = PlayerLinks(get_db()).ensure(tid, t.names, actor=actor())
    hall = Attendance(get_db()).of_tournament(tid)
    rows = []
    for player, name in sorted(t.names.items(), key=lambda item: _name_order(item[1])):
        presence = hall.get(player)
        state = "missing" if presence is None else "here" if presence.here else "away"
        if player in t.withdrawn:
            state = "withdrawn"
        link = links[player]
        rows.append(
            {"player": player, "name": name, "code": link.code, "url": player_url(link), "state": state}
        )
    return rows


def _name_order(name: str) -> list[tuple[int, int | str]]:
    """Names in the order people look them up: « P2 » before « P10 », case aside."""
    return [(0, int(part)) if part.isdigit() else (1, part.casefold()) for part in re.split(r"(\d+)", name)]


def _find(tid: int, typed: str) -> PlayerLink | None:
    """The player a typed code or a scanned link names (None: no one of this tournament)."""
    links = PlayerLinks(get_db())
    text = typed.strip()
    attempt = guess()  # a code is a guess until it is found, even from staff's tablet
    found = _lookup(links, tid, text)
    if found is not None:
        right_guess(attempt)
    return found


def _lookup(links: PlayerLinks, tid: int, text: str) -> PlayerLink | None:
    if "/p/" in text:  # a scanner typed the badge's whole link
        link = links.by_token(text.rsplit("/p/", 1)[1].split("?")[0].strip("/"))
        return link if link is not None and link.is_live and link.tournament_id == tid else None
    return links.by_code(tid, clean_code(text))


@bp.get("/event/tournaments/<id:tid>/door")
@staff_required
def door_page(tid: int) -> ResponseReturnValue:
    t = _tournament(tid)
    rows = door_rows(tid, t)
    counts = {state: sum(1 for r in rows if r["state"] == state) for state in ("here", "away", "missing")}
    return render_template(
        "event/door.html",
        event=settings(),
        info=Tournaments(get_db()).get(tid),
        tournament=t,
        rows=rows,
        counts=counts,
        late=not t.rounds or t.takes_late_entries(),
    )


@bp.post("/event/tournaments/<id:tid>/door")
@staff_required
def door_check_in(tid: int) -> ResponseReturnValue:
    t = _tournament(tid)
    link = _find(tid, request.form.get("code", "")[:500])
    if link is None:
        text = _("No player of this tournament has this code: check it, or find the player in the list.")
        flash(text, "error")
    else:
        Attendance(get_db()).mark(tid, link.player, here=True, by=f"door ({actor()})")
        flash(_("%(name)s is checked in.", name=t.names[link.player]), "ok")
    return redirect(url_for("event.door_page", tid=tid), code=303)


@bp.post("/event/tournaments/<id:tid>/players/<id:player>/<action>")
@staff_required
def door_action(tid: int, player: int, action: str) -> ResponseReturnValue:
    t = _tournament(tid)
    if player not in t.names or action not in ("here", "absent", "new-link"):
        flash(_("There is no player number %(player)d.", player=player), "error")
    elif action == "new-link":
        PlayerLinks(get_db()).issue(tid, player, actor=actor())
        flash(
            _(
                "A new link for %(name)s: print their badge again; the old one no longer works.",
                name=t.names[player],
            ),
            "ok",
        )
    else:
        Attendance(get_db()).mark(tid, player, here=action == "here", by=f"staff ({actor()})")
        name = t.names[player]
        if action == "here":
            flash(_("%(name)s is checked in.", name=name), "ok")
        else:
            flash(_("%(name)s is marked absent.", name=name), "ok")
    return redirect(url_for("event.door_page", tid=tid), code=303)


@bp.post("/event/tournaments/<id:tid>/late")
@staff_required
def late_entry(tid: int) -> ResponseReturnValue:
    name = request.form.get("name", "")[:200]
    try:
        recorded = Tournaments(get_db()).record(tid, lambda t: t.register(name), actor=actor())
        event = recorded.entry.event
        player = int(event["player"]) if event["kind"] == "register" else 0
        Attendance(get_db()).mark(tid, player, here=True, by=f"door ({actor()})")
        flash(_("%(name)s is registered and checked in: give them their badge.", name=name.strip()), "ok")
    except (GameError, TournamentNotFoundError) as exc:
        flash(refusal_text(exc), "error")
    return redirect(url_for("event.door_page", tid=tid), code=303)


@bp.get("/event/tournaments/<id:tid>/badges")
@staff_required
def badges(tid: int) -> ResponseReturnValue:
    t = _tournament(tid)
    rows = [r for r in door_rows(tid, t) if r["state"] != "withdrawn"]
    only = request.args.get("player")
    if only is not None:
        rows = [r for r in rows if str(r["player"]) == only]
    for row in rows:
        row["qr"] = Markup(segno.make(row["url"], error="m").svg_inline(scale=4, border=2, omitsize=True))
    info = Tournaments(get_db()).get(tid)
    return render_template("event/badges.html", event=settings(), info=info, rows=rows)


@bp.post("/event/flags/<id:flag>/seen")
@staff_required
def flag_seen(flag: int) -> ResponseReturnValue:
    ResultFlags(get_db()).seen(flag, actor=actor())
    flash(_("Done."), "ok")
    return redirect(request.referrer or url_for("event.overview"), code=303)


# -- the API -------------------------------------------------------------------------------------


@bp.get("/api/event/tournaments/<id:tid>/players")
@staff_required
def api_door(tid: int) -> Response:
    return jsonify(door_rows(tid, _tournament(tid)))


@bp.post("/api/event/tournaments/<id:tid>/check-in")
@staff_required
def api_door_check_in(tid: int) -> Response:
    body = json_object(allowed={"code"}, required={"code"})
    code = body["code"]
    if not isinstance(code, str) or len(code) > 500:
        raise bad_field("code", "code is the badge's code or link, a text")
    t = _tournament(tid)
    link = _find(tid, code)
    if link is None:
        raise ApiError(404, "no player of this tournament has this code", code=NO_SUCH_CODE)
    Attendance(get_db()).mark(tid, link.player, here=True, by=f"door ({actor()})")
    return jsonify({"player": link.player, "name": t.names[link.player], "state": "here"})


_TID = {"name": "tid", "in": "path", "required": True, "schema": {"type": "integer"}}
_ROW = {
    "type": "object",
    "required": ["player", "name", "code", "url", "state"],
    "properties": {
        "player": {"type": "integer"},
        "name": {"type": "string"},
        "code": {"type": "string", "description": "The badge's code, typed at the door"},
        "url": {"type": "string", "description": "The player's own link (their badge's QR code)"},
        "state": {"type": "string", "enum": ["here", "away", "missing", "withdrawn"]},
    },
}
openapi.add_paths(
    {
        "/api/event/tournaments/{tid}/players": {
            "get": {
                "summary": "Staff: every registered player's badge code, own link and presence in the hall"
                " (links are issued for those without)",
                "parameters": [_TID],
                "responses": {
                    "200": openapi.json_response("The players", {"type": "array", "items": _ROW}),
                    "401": openapi.error("Staff only"),
                    "404": openapi.error("No such tournament"),
                },
            }
        },
        "/api/event/tournaments/{tid}/check-in": {
            "post": {
                "summary": "Staff at the door: check a player in by their badge's code or scanned link",
                "parameters": [_TID, openapi.CSRF_PARAMETER],
                "requestBody": openapi.json_body(
                    {
                        "type": "object",
                        "required": ["code"],
                        "additionalProperties": False,
                        "properties": {"code": {"type": "string", "maxLength": 500}},
                    }
                ),
                "responses": {
                    "200": openapi.json_response("The player checked in"),
                    "400": openapi.error("A body that is not as described"),
                    "401": openapi.error("Staff only"),
                    "404": openapi.error("No such tournament, or no player with this code (no_such_code)"),
                },
            }
        },
    }
)
