"""The ranking's pages (public) and the player registry's (staff).

Staff forms post back and redirect to the page they came from with a
message, as the event's pages do.
"""

from __future__ import annotations

import secrets
from typing import Any

from flask import Response, abort, flash, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue
from flask_babel import gettext as _

from store.players import PlayerNotFoundError, Players
from store.season import Calendar
from store.tournaments import Tournaments
from webpanel.auth import actor, staff_required
from webpanel.db import get_db
from webpanel.ranking import present, rating_chart
from webpanel.ranking.api import MAX_TABLE, REFUSED
from webpanel.ranking.blueprint import bp, requested_event, season
from webpanel.refusals import refusal_text


@bp.get("/ranking")
def index() -> str:
    now = season()
    # ?by=rating: the rating beside the points (the same page, the other table).
    by = "rating" if request.args.get("by") == "rating" else "points"
    return render_template(
        "ranking/index.html",
        event=requested_event(),
        events=Calendar(get_db()).events(),
        season=now,
        by=by,
        ratings=[r for r in now.ratings.lines if r.player in now.players] if by == "rating" else [],
        ranked=[line for line in now.lines if line.is_ranked],
        provisional=[line for line in now.lines if not line.is_ranked],
    )


@bp.get("/ranking.csv")
def ranking_csv() -> Response:
    response = Response(present.ranking_csv(season()), mimetype="text/csv")
    response.headers["Content-Disposition"] = 'attachment; filename="ranking.csv"'
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.get("/ranking/players/<id:pid>")
def player_page(pid: int) -> ResponseReturnValue:
    try:
        player = Players(get_db()).get(pid)
    except PlayerNotFoundError:
        abort(404)
    if player.merged_into is not None:
        return redirect(url_for("ranking.player_page", pid=player.merged_into), code=301)
    now = season()
    return render_template(
        "ranking/player.html",
        season=now,
        player=player,
        line=now.line(pid),
        rating=now.ratings.of(pid),
        rating_chart=rating_chart.figure(now.ratings.steps.get(pid, []), now.ratings.rules),
        games=list(reversed(now.games_of(pid))),
        since=now.at - now.rules.window_days * 86400,
    )


@bp.get("/ranking/handicap")
def handicap_page() -> str:
    """Choose the players of a table; the page says the handicap the ranking proposes."""
    now = season()
    chosen = [int(v) for v in request.args.getlist("p") if v.isdigit() and len(v) < 12]
    chosen = [p for i, p in enumerate(chosen) if p in now.players and p not in chosen[:i]][:MAX_TABLE]
    proposal = now.handicap(chosen) if len(chosen) >= 2 else None
    return render_template(
        "ranking/handicap.html",
        season=now,
        chosen=chosen,
        proposal=proposal,
        seats=range(MAX_TABLE),
        lines=now.lines,
    )


# -- the registry (staff) -------------------------------------------------------------------------


@bp.get("/players")
@staff_required
def registry() -> str:
    conn = get_db()
    tournaments = Tournaments(conn).all()
    chosen = request.args.get("t", "")
    tournament = next(
        (t for t in tournaments if str(t.id) == chosen), tournaments[0] if tournaments else None
    )
    players = Players(conn)
    linked = {e.player: e.player_id for e in players.entrants(tournament.id)} if tournament else {}
    names = Tournaments(conn).load(tournament.id).names if tournament else {}
    return render_template(
        "ranking/registry.html",
        players=players.all(),
        audit=players.audit(limit=30),
        tournaments=tournaments,
        tournament=tournament,
        names=names,
        linked=linked,
        request_id=secrets.token_urlsafe(12),
    )


@bp.get("/players/<id:pid>")
@staff_required
def registry_player(pid: int) -> str:
    players = Players(get_db())
    try:
        player = players.get(pid)
    except PlayerNotFoundError:
        abort(404)
    others = [p for p in players.all() if p.id != pid]
    return render_template(
        "ranking/registry_player.html", player=player, others=others, audit=players.audit(pid)
    )


def _back(endpoint: str = "ranking.registry", **values: Any) -> ResponseReturnValue:
    return redirect(url_for(endpoint, **values), code=303)


@bp.post("/players")
@staff_required
def create_player() -> ResponseReturnValue:
    form = request.form
    try:
        player = Players(get_db()).create(
            form.get("name", ""), club=form.get("club"), city=form.get("city"), actor=actor()
        )
        flash(_("%(name)s is registered (player %(id)s).", name=player.label, id=player.id), "ok")
    except REFUSED as exc:
        flash(refusal_text(exc), "error")
    return _back()


@bp.post("/players/<id:pid>")
@staff_required
def edit_player(pid: int) -> ResponseReturnValue:
    form = request.form
    try:
        player = Players(get_db()).edit(
            pid,
            name=form.get("name", ""),
            club=form.get("club", ""),
            city=form.get("city", ""),
            actor=actor(),
        )
        flash(_("Saved: %(name)s.", name=player.label), "ok")
    except REFUSED as exc:
        flash(refusal_text(exc), "error")
    return _back("ranking.registry_player", pid=pid)


@bp.post("/players/<id:pid>/merge")
@staff_required
def merge_player(pid: int) -> ResponseReturnValue:
    into = request.form.get("into", "")
    try:
        if not into.isdigit() or len(into) > 12:
            raise PlayerNotFoundError(_("Choose the player to keep."))
        kept = Players(get_db()).merge(pid, int(into), actor=actor())
        flash(_("Merged into %(name)s: their games count as one player's.", name=kept.label), "ok")
        return _back("ranking.registry_player", pid=kept.id)
    except REFUSED as exc:
        flash(refusal_text(exc), "error")
    return _back("ranking.registry_player", pid=pid)


@bp.post("/players/tournaments/<id:tid>/enter")
@staff_required
def enter_player(tid: int) -> ResponseReturnValue:
    raw = request.form.get("player", "")
    try:
        if not raw.isdigit() or len(raw) > 12:
            raise PlayerNotFoundError(_("Choose a player to register."))
        recorded = Players(get_db()).enter(
            tid, int(raw), actor=actor(), request_id=request.form.get("request_id") or None
        )
        event = recorded.entry.event
        if event["kind"] == "register":
            flash(_("%(name)s is registered in the tournament.", name=event["name"]), "ok")
    except REFUSED as exc:
        flash(refusal_text(exc), "error")
    return _back(t=tid)


@bp.post("/players/tournaments/<id:tid>/link")
@staff_required
def link_players(tid: int) -> ResponseReturnValue:
    form = request.form
    players = Players(get_db())
    try:
        number, player = form.get("number", ""), form.get("player", "")
        if number.isdigit() and player.isdigit() and len(number) < 12 and len(player) < 12:
            players.link(tid, int(number), int(player), actor=actor())
            flash(_("Linked."), "ok")
        else:
            adopted = players.adopt(tid, actor=actor())
            flash(
                _(
                    "%(linked)s linked to a registered player, %(created)s registered anew, %(left)s left to "
                    "choose (namesakes).",
                    linked=len(adopted.linked),
                    created=len(adopted.created),
                    left=len(adopted.ambiguous),
                ),
                "ok",
            )
    except REFUSED as exc:
        flash(refusal_text(exc), "error")
    return _back(t=tid)
