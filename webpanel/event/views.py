"""The event server's pages: the staff overview (boards, tables, results) and the room's wall display.

Staff forms post back to the overview (they work on any tablet browser) and
redirect to it with a message; the overview follows the event live.
"""

from __future__ import annotations

import secrets
import time

from flask import abort, flash, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue
from flask_babel import gettext as _

from games.exc import GameError
from store.dialect import Connection
from store.event.assignments import AssignmentError, Assignments
from store.event.attendance import Attendance, ResultFlags
from store.event.boards import BoardNotFoundError, Boards
from store.event.quarantine import Quarantine
from store.event.results import ResultNotFoundError, Results, ResultStateError
from store.tournaments import TournamentNotFoundError, Tournaments
from tournaments.tournament import Tournament
from webpanel import tournament_words as words
from webpanel.auth import actor, staff_required
from webpanel.db import get_db
from webpanel.event import present
from webpanel.event.blueprint import bp, requested_tournament, settings
from webpanel.refusals import refusal_text
from webpanel.slot_health import finding_text

STAFF_ERRORS = (
    AssignmentError,
    BoardNotFoundError,
    ResultNotFoundError,
    ResultStateError,
    TournamentNotFoundError,
    GameError,
    ValueError,
)


def _back(tid: int | None = None) -> ResponseReturnValue:
    return redirect(url_for("event.overview", t=tid) if tid else url_for("event.overview"), code=303)


@bp.get("/event")
@staff_required
def overview() -> str:
    conn = get_db()
    info = present.event_tournament(conn, requested_tournament())
    t = Tournaments(conn).load(info.id) if info is not None else None
    boards = Boards(conn).all()
    open_by_board = {a.board: a for a in Assignments(conn).open() if a.board}
    current = t.current_round if t is not None else None
    return render_template(
        "event/overview.html",
        event=settings(),
        info=info,
        tournament=t,
        tournaments=Tournaments(conn).all(),
        boards=[present.board_view(b, open_by_board.get(b.id), with_live=False) for b in boards],
        accepted=[b for b in boards if b.is_accepted],
        tables=present.table_states(conn, t, current.number, info.id) if t and current and info else [],
        unassigned=bool(t and current and info and _unassigned(info.id, current.number, len(current.tables))),
        next_round=present.next_round_proposal(t) if t is not None else None,
        can_make_round=t is not None
        and not t.is_over()
        and (current is None or t.is_round_complete(current.number)),
        results=[r.to_json() for r in Results(conn).needing_staff()],
        flags=_flags(conn),
        missing=_missing(conn, info.id, t) if info is not None and t is not None else [],
        quarantined=Quarantine(conn).recent(QUARANTINE_SHOWN),
        quarantine_counts=Quarantine(conn).counts(),
        to_check=[
            {"id": b.id, "name": b.name, "findings": [finding_text(f) for f in b.slot_findings]}
            for b in boards if b.is_accepted and b.slot_findings
        ],
        now=time.time(),
        request_id=secrets.token_urlsafe(12),
    )


def _flags(conn: Connection) -> list[dict[str, object]]:
    """The results players flagged as wrong from their links, with the tournament's names."""
    tournaments = Tournaments(conn)
    rows = []
    for flag in ResultFlags(conn).unseen():
        try:
            t = tournaments.load(flag.tournament_id)
        except TournamentNotFoundError:
            continue
        rows.append({**flag.to_json(), "name": t.names.get(flag.player, "?")})
    return rows


def _missing(conn: Connection, tid: int, t: Tournament) -> list[str]:
    """Who of the next round's players has not checked in (none while check-in is not in use)."""
    if t.is_over() or (t.current_round is not None and not t.is_round_complete(t.current_round.number)):
        return []
    missing, _away = Attendance(conn).absent(tid, t.in_contention())
    return [t.names[p] for p in missing]


QUARANTINE_SHOWN = 20
"""Refused messages the staff page lists (the newest; each board's count is shown whole)."""


def _unassigned(tid: int, number: int, tables: int) -> bool:
    return len(Assignments(get_db()).of_round(tid, number)) < tables


@bp.get("/event/wall")
def wall() -> str:
    """The room's wall display (public): every board live, the standings, the tables still playing."""
    return render_template("event/wall.html", event=settings(), tournament=requested_tournament())


@bp.post("/event/boards/<board>")
@staff_required
def accept_board(board: str) -> ResponseReturnValue:
    try:
        accepted = Boards(get_db()).accept(board, request.form.get("label", ""), actor=actor())
        flash(_("Board %(id)s is %(label)s.", id=accepted.id, label=accepted.label), "ok")
    except STAFF_ERRORS as exc:
        flash(refusal_text(exc), "error")
    return _back(requested_tournament())


@bp.post("/event/tournaments/<id:tid>/rounds")
@staff_required
def make_round(tid: int) -> ResponseReturnValue:
    """One click: make the next round and send each of its tables to a board. Once check-in is in use,
    the players not in the hall sit it out (see webpanel/event/door.py); while some never checked in,
    staff choose first: wait, check them in, mark them absent, or leave them out."""
    try:
        t = Tournaments(get_db()).load(tid)
        missing, away = Attendance(get_db()).absent(tid, t.in_contention())
        if missing and not request.form.get("leave_out"):
            flash(
                _(
                    "Not checked in: %(names)s. Check them in or mark them absent at the door, or make the"
                    " round without them.",
                    names=words.names(t.names[p] for p in missing),
                ),
                "error",
            )
            return _back(tid)
        Tournaments(get_db()).record(
            tid,
            lambda t: t.next_round(absent={*missing, *away}),
            actor=actor(),
            request_id=request.form.get("request_id") or None,
        )
        assignments = Assignments(get_db()).assign_round(tid)
        on_boards = sum(1 for a in assignments if a.board)
        flash(
            _(
                "Round made: %(n)s table(s) sent to the boards, %(m)s by hand.",
                n=on_boards,
                m=len(assignments) - on_boards,
            ),
            "ok",
        )
    except STAFF_ERRORS as exc:
        flash(refusal_text(exc), "error")
    return _back(tid)


@bp.post("/event/tournaments/<id:tid>/assignments")
@staff_required
def assign(tid: int) -> ResponseReturnValue:
    try:
        assignments = Assignments(get_db()).assign_round(tid)
        flash(_("%(n)s table(s) sent to the boards.", n=sum(1 for a in assignments if a.board)), "ok")
    except STAFF_ERRORS as exc:
        flash(refusal_text(exc), "error")
    return _back(tid)


@bp.post("/event/assignments/<assignment>")
@staff_required
def move(assignment: str) -> ResponseReturnValue:
    board = request.form.get("board") or None
    try:
        moved = Assignments(get_db()).move(assignment, board)
        flash(_("Tables and boards changed: each board shows its table now."), "ok")
        tid = moved[0].tournament_id if moved else None
    except STAFF_ERRORS as exc:
        flash(refusal_text(exc), "error")
        tid = requested_tournament()
    return _back(tid)


@bp.post("/event/results/<id:game>/<action>")
@staff_required
def result_action(game: int, action: str) -> ResponseReturnValue:
    results = Results(get_db())
    actions = {"confirm": results.confirm, "use-board": results.use_board_result, "dismiss": results.dismiss}
    if action not in actions:
        abort(404)
    try:
        actions[action](game, actor=actor())
        flash(_("Done."), "ok")
    except STAFF_ERRORS as exc:
        flash(refusal_text(exc), "error")
    return _back(requested_tournament())
