"""The tournaments blueprint: public pages, staff forms and the JSON API.

Staff forms post back to the pages (they work on any tablet browser, no
script needed); each entry form carries a request id so that a form sent
twice (a double tap, a resend after a power cut) is recorded once.
"""

from __future__ import annotations

import datetime
import functools
import secrets
from collections.abc import Callable
from typing import Any

from flask import (
    Blueprint,
    Response,
    abort,
    current_app,
    flash,
    jsonify,
    redirect,
    render_template,
    request,
    url_for,
)
from flask.typing import ResponseReturnValue
from flask_babel import force_locale

from games.exc import GameError
from games.hautetension.outcome import Lighting
from games.hautetension.seats import DEFAULT_COLOURS
from store.commands import CommandKind
from store.season import Calendar
from store.tournaments import (
    BoardGame,
    BoardGameError,
    Recorded,
    TournamentInfo,
    TournamentNotFoundError,
    Tournaments,
)
from tournaments.exc import ResultError, TournamentError
from tournaments.model import Table, TournamentEvent
from tournaments.points import game_points
from tournaments.tournament import Tournament
from webpanel import openapi
from webpanel import tournament_words as words
from webpanel.auth import actor, is_staff, staff_required
from webpanel.codes import RESULT_EXISTS, TABLE_NOT_FOUND, TOURNAMENT_NOT_FOUND
from webpanel.db import BOARD_GAME_RUNNING, board_state, game_running, get_db, submit
from webpanel.errors import ApiError, bad_field, define_code, json_object
from webpanel.ids import path_id
from webpanel.standings import standings_view
from webpanel.tournament_words import _
from webpanel.tournaments import chart, present

bp = Blueprint(
    "tournaments",
    __name__,
    template_folder="templates",
    static_folder="static",
    static_url_path="/tournaments/static",
)

NO_RESULT_YET = define_code("no_result_yet", "The table has no result to correct yet.")
IMPOSSIBLE_RESULT = define_code("impossible_result", "A lamp order that cannot have happened at this table.")
NOTHING_TO_UNDO = define_code("nothing_to_undo", "The tournament has no entry left to undo.")

bp.add_app_template_global(words.names, "list_names")

ENTRY_ERRORS = (GameError, BoardGameError, ValueError)
"""What a refused entry raises (tournament rules, impossible results, board games that do not fit)."""


def store() -> Tournaments:
    return Tournaments(get_db(), backups=current_app.config.get("BACKUPS"))


def _load(tid: int) -> tuple[TournamentInfo, Tournament]:
    try:
        return store().get(tid), store().load(tid)
    except TournamentNotFoundError:
        abort(404)


def _record(
    tid: int, command: Callable[[Tournament], TournamentEvent], *, request_id: str | None = None
) -> Recorded:
    return store().record(tid, command, actor=actor(), request_id=request_id or None)


def _already_recorded(tid: int) -> bool:
    """Whether this form's request id was recorded before (a double tap, a resend)."""
    request_id = request.form.get("request_id")
    return request_id is not None and request_id != "" and store().find_request(tid, request_id) is not None


def _back(tid: int) -> ResponseReturnValue:
    return redirect(url_for("tournaments.overview", tid=tid), code=303)


# -- public pages -------------------------------------------------------------------


@bp.get("/tournaments")
def index() -> str:
    return render_template("tournaments/index.html", tournaments=store().all())


KIOSK_ROWS = 12
"""Players per column of the wall display: 12 rows read from across the room on 1920×1080."""
KIOSK_COLUMNS = 2
"""Columns of standings beside the chart; a longer list is shown a page at a time."""
KIOSK_SECONDS = 20
"""How long the wall display shows a page (the whole list: how often it refreshes)."""


@bp.get("/tournaments/<id:tid>")
def overview(tid: int) -> str:
    info, t = _load(tid)
    current = present.round_view(t, len(t.rounds)) if t.rounds else None
    standings = t.standings()
    kiosk = bool(request.args.get("kiosk"))
    figure = chart.figure(present.points_chart(t, standings))
    return render_template(
        "tournaments/overview.html",
        info=info,
        t=present.tournament_view(info, t),
        standings=standings_view(t),
        current=current,
        rounds=list(range(1, len(t.rounds) + 1)),
        can_register=not t.rounds,
        kiosk=kiosk,
        wall=_wall(standings_view(t)) if kiosk else None,
        chart=figure,
    )


def _wall(standings: list[dict[str, Any]]) -> dict[str, Any]:
    """The wall display's page of the standings (``?page=``, from 1): its columns, and the page the
    display goes to next when it refreshes."""
    per_page = KIOSK_ROWS * KIOSK_COLUMNS
    pages = max(1, -(-len(standings) // per_page))
    asked = request.args.get("page", "1")
    page = min(int(asked), pages) if asked.isdigit() and int(asked) >= 1 else 1
    shown = standings[(page - 1) * per_page : page * per_page]
    columns = [shown[i : i + KIOSK_ROWS] for i in range(0, len(shown), KIOSK_ROWS)]
    return {
        "columns": columns,
        # In contention is what most players are, and the wall does not say it: the column is shown
        # only when someone's status says something else (out, withdrawn, finalist, winner).
        "with_status": any(s["status"] != "in" for s in standings),
        "page": page,
        "pages": pages,
        "next": page % pages + 1,
        "seconds": KIOSK_SECONDS,
    }


@bp.get("/tournaments/<id:tid>/rounds/<id:number>")
def round_page(tid: int, number: int) -> str:
    info, t = _load(tid)
    if not 1 <= number <= len(t.rounds):
        abort(404)
    return render_template("tournaments/round.html", info=info, r=present.round_view(t, number))


@bp.get("/tournaments/<id:tid>/players/<id:player>")
def player_page(tid: int, player: int) -> str:
    info, t = _load(tid)
    line = next((s for s in standings_view(t) if s["player"] == player), None)
    if line is None:
        abort(404)
    standing = next(s for s in t.standings() if s.player == player)
    line["notes"] = words.standing_notes(standing, long=True)
    games = []
    for game in line["games"]:
        table = t.round(game["round"]).table(game["table"])
        games.append({**game, "opponents": [t.names[p] for p in table.seats if p != player]})
    return render_template("tournaments/player.html", info=info, s=line, games=games)


@bp.get("/tournaments/<id:tid>/standings.csv")
def standings_csv(tid: int) -> ResponseReturnValue:
    info, t = _load(tid)
    return _csv(present.standings_csv(t), f"tournament-{info.id}-standings.csv")


@bp.get("/tournaments/<id:tid>/games.csv")
def games_csv(tid: int) -> ResponseReturnValue:
    info, t = _load(tid)
    return _csv(present.games_csv(t), f"tournament-{info.id}-games.csv")


def _csv(text: str, filename: str) -> Response:
    response = Response(text, mimetype="text/csv")
    response.headers["Content-Disposition"] = f'attachment; filename="{filename}"'
    response.headers["Cache-Control"] = "no-store"
    return response


# -- staff pages ----------------------------------------------------------------------


@bp.post("/tournaments")
@staff_required
def create() -> ResponseReturnValue:
    form = request.form
    try:
        step = form.get("handicap_step", "").strip()
        if step and not step.isdigit():
            raise TournamentError(f"the handicap step is a whole number, not {step!r}", code="handicap_step")
        info = store().create(
            form.get("name", ""),
            seed=form.get("seed", "").strip() or None,
            handicap=form.get("handicap") == "on",
            handicap_step=int(step) if step else None,
            event=_server_event(),
            late_entries=form.get("late_entries") == "on",
        )
    except ENTRY_ERRORS as exc:
        flash(words.error_text(exc), "error")
        return redirect(url_for("tournaments.index"), code=303)
    return _back(info.id)


def _server_event() -> str | None:
    """On the event server, the event it runs (a tournament made there belongs to it); else None."""
    event = current_app.config.get("EVENT")
    if event is None:
        return None
    return Calendar(get_db()).ensure(event.event, actor=actor()).id


@bp.post("/tournaments/<id:tid>/players")
@staff_required
def register(tid: int) -> ResponseReturnValue:
    _load(tid)
    names = [n for n in request.form.get("names", "").splitlines() if n.strip()]
    try:
        for name in names or [""]:
            _record(tid, functools.partial(Tournament.register, name=name))
    except ENTRY_ERRORS as exc:
        flash(words.error_text(exc), "error")
    return _back(tid)


@bp.post("/tournaments/<id:tid>/players/<id:player>/withdraw")
@staff_required
def withdraw(tid: int, player: int) -> ResponseReturnValue:
    _load(tid)
    try:
        _record(tid, lambda t: t.withdraw(player))
    except ENTRY_ERRORS as exc:
        flash(words.error_text(exc), "error")
    return _back(tid)


@bp.post("/tournaments/<id:tid>/rounds")
@staff_required
def next_round(tid: int) -> ResponseReturnValue:
    _load(tid)
    try:
        recorded = _record(tid, lambda t: t.next_round(), request_id=request.form.get("request_id"))
    except ENTRY_ERRORS as exc:
        flash(words.error_text(exc), "error")
        return _back(tid)
    event = recorded.entry.event
    number = event["data"]["round"] if event["kind"] == "round" else len(store().load(tid).rounds)
    return redirect(url_for("tournaments.round_page", tid=tid, number=number), code=303)


@bp.route("/tournaments/<id:tid>/rounds/<id:number>/tables/<id:table>", methods=["GET", "POST"])
@staff_required
def entry(tid: int, number: int, table: int) -> Any:
    """The tablet page of one table: enter (or correct) its result by lamp order, or attach a board game."""
    info, t = _load(tid)
    try:
        seated = t.round(number).table(table)
    except TournamentError:
        abort(404)
    error = None
    preview = None
    status = 200
    form = request.form if request.method == "POST" else {}
    if request.method == "POST" and _already_recorded(tid):
        already = _(
            "Round %(round)d, table %(table)d: this entry was already recorded.", round=number, table=table
        )
        flash(already, "ok")
        return redirect(url_for("tournaments.entry", tid=tid, number=number, table=table), code=303)
    if request.method == "POST":
        try:
            lightings = present.lightings_from_form(request.form, len(seated.seats))
            correction = t.result(number, table) is not None
            if correction and request.form.get("confirm_correction") != "on":
                raise _needs_confirmation(number, table)
            if request.form.get("action") == "preview":
                preview = list(game_points(len(seated.seats), lightings))
            else:
                _record(
                    tid,
                    lambda t: t.enter_result(number, table, lightings, correction=correction),
                    request_id=request.form.get("request_id"),
                )
                flash(_("Round %(round)d, table %(table)d: result recorded.", round=number, table=table),
                      "ok")
                return redirect(url_for("tournaments.entry", tid=tid, number=number, table=table), code=303)
        except ENTRY_ERRORS as exc:
            error, status = words.error_text(exc, [t.names[p] for p in seated.seats]), 422
    return (
        render_template(
            "tournaments/entry.html",
            info=info,
            number=number,
            table=present.table_view(t, number, seated),
            form=form,
            error=error,
            preview=preview,
            request_id=secrets.token_urlsafe(12),
            board_games=_matching_first(store().finished_board_games(limit=20), t, seated),
            next_pending=[x.number for x in t.pending_tables()] if len(t.rounds) == number else [],
            lamp_choices=[(n, words.lamp_lit(n)) for n in range(1, len(seated.seats))],
            together=present.lit_together(form, len(seated.seats)),
        ),
        status,
    )


def _matching_first(games: list[BoardGame], t: Tournament, table: Table) -> list[BoardGame]:
    """Board games with exactly this table's players first (they were started from this table)."""
    names = sorted(t.names[p].casefold() for p in table.seats)
    return sorted(games, key=lambda g: sorted(n.casefold() for n in g.players) != names)


@bp.post("/tournaments/<id:tid>/rounds/<id:number>/tables/<id:table>/start")
@staff_required
def start_on_board(tid: int, number: int, table: int) -> ResponseReturnValue:
    """Start the table's game on the board: its players in seat order, who starts, its handicap.

    The board game then carries the players' names, so its result attaches to
    this table by name.
    """
    t = _load(tid)[1]
    try:
        seated = t.round(number).table(table)
    except TournamentError:
        abort(404)
    colours = DEFAULT_COLOURS[: len(seated.seats)]
    players = [{"name": t.names[p], "colour": c} for p, c in zip(seated.seats, colours, strict=True)]
    payload: dict[str, Any] = {"players": players, "first": seated.first}
    if seated.handicap:
        payload["handicap"] = dict(seated.handicap)
    try:
        if game_running(board_state()):
            raise ApiError(
                409, "a game is running on the board: finish or abandon it first", code=BOARD_GAME_RUNNING
            )
        command = submit(CommandKind.NEW_GAME, payload, failed_status=422)
        game = (command.result or {}).get("game")
        flash(
            _("Round %(round)d, table %(table)d: started on the board (game %(game)s).",
              round=number, table=table, game=game),
            "ok",
        )
    except ApiError as exc:
        flash(words.error_text(exc), "error")
    return redirect(url_for("tournaments.entry", tid=tid, number=number, table=table), code=303)


@bp.post("/tournaments/<id:tid>/rounds/<id:number>/tables/<id:table>/board")
@staff_required
def attach_board(tid: int, number: int, table: int) -> ResponseReturnValue:
    t = _load(tid)[1]
    if _already_recorded(tid):
        return redirect(url_for("tournaments.entry", tid=tid, number=number, table=table), code=303)
    try:
        game_text = request.form.get("game_id", "").strip()
        if not game_text.isdigit():
            raise BoardGameError("choose a board game from the list", code="board_game_missing")
        game_id = int(game_text)
        correction = t.result(number, table) is not None
        if correction and request.form.get("confirm_correction") != "on":
            raise _needs_confirmation(number, table)
        store().attach_board_game(
            tid,
            number,
            table,
            game_id,
            actor=actor(),
            request_id=request.form.get("request_id") or None,
            correction=correction,
        )
        flash(
            _("Round %(round)d, table %(table)d: result taken from board game %(game)d.",
              round=number, table=table, game=game_id),
            "ok",
        )
    except ENTRY_ERRORS as exc:
        flash(words.error_text(exc), "error")
    return redirect(url_for("tournaments.entry", tid=tid, number=number, table=table), code=303)


@bp.get("/tournaments/<id:tid>/audit")
@staff_required
def audit_page(tid: int) -> str:
    info, t = _load(tid)
    entries = store().audit(tid)
    return render_template("tournaments/audit.html", info=info, entries=present.audit_view(t, entries))


@bp.get("/tournaments/<id:tid>/undo")
@staff_required
def undo_page(tid: int) -> str:
    """Ask before undoing: say which entry would be undone."""
    info, t = _load(tid)
    live = [e for e in store().audit(tid) if not e.is_undone]
    last = present.audit_view(t, live[-1:])
    return render_template("tournaments/undo.html", info=info, last=last[0] if last else None)


@bp.post("/tournaments/<id:tid>/undo")
@staff_required
def undo(tid: int) -> ResponseReturnValue:
    t = _load(tid)[1]
    try:
        undone = store().undo(tid, actor=actor())
        flash(_("Undone: %(entry)s.", entry=present.summarize(t, undone.event)), "ok")
    except ENTRY_ERRORS as exc:
        flash(words.error_text(exc), "error")
    return _back(tid)


@bp.app_template_filter("tournament_time")
def _tournament_time(value: float) -> str:
    return datetime.datetime.fromtimestamp(value, datetime.UTC).strftime("%Y-%m-%d %H:%M:%S")


def _needs_confirmation(number: int, table: int) -> ResultError:
    return ResultError(
        "this table already has a result: tick “replace it” to correct it",
        code="has_result",
        round=number,
        table=table,
    )


# -- JSON API ---------------------------------------------------------------------------


def _api_load(tid: int) -> tuple[TournamentInfo, Tournament]:
    try:
        return store().get(tid), store().load(tid)
    except TournamentNotFoundError as exc:
        raise ApiError(404, str(exc), code=TOURNAMENT_NOT_FOUND) from None


@bp.get("/api/tournaments")
def api_list() -> Response:
    return jsonify(
        {"tournaments": [{"id": i.id, "name": i.name, "created_at": i.created_at} for i in store().all()]}
    )


@bp.get("/api/tournaments/<id:tid>")
def api_get(tid: int) -> ResponseReturnValue:
    info, t = _api_load(tid)
    with force_locale("en"):  # the API's texts are English, for programs
        body = present.tournament_view(info, t)
        body["standings"] = standings_view(t)
        body["round_details"] = [present.round_view(t, n) for n in range(1, len(t.rounds) + 1)]
    if not is_staff():
        # The seed decides the draws still to come: staff only.
        body["settings"].pop("seed", None)
    return jsonify(body)


@bp.post("/api/tournaments/<id:tid>/rounds/<id:number>/tables/<id:table>/result")
@staff_required
def api_result(tid: int, number: int, table: int) -> Any:
    info, t = _api_load(tid)
    round_number, table_number = number, table
    body = json_object(allowed={"lightings", "correction", "request_id"}, required={"lightings"})
    raw = body["lightings"]
    if not isinstance(raw, list) or not all(isinstance(x, dict) for x in raw):
        raise bad_field("lightings", "lightings must be a list of {seats: [seat, …], by: seat}")
    correction = body.get("correction", False)
    request_id = body.get("request_id")
    if not isinstance(correction, bool):
        raise bad_field("correction", "correction must be true or false")
    if request_id is not None and (not isinstance(request_id, str) or not 1 <= len(request_id) <= 100):
        raise bad_field("request_id", "request_id must be a string of 1 to 100 characters")
    try:
        t.round(round_number).table(table_number)
    except TournamentError as exc:
        raise ApiError(404, str(exc), code=TABLE_NOT_FOUND) from None
    if request_id is not None:
        earlier = store().find_request(info.id, request_id)
        if earlier is not None:
            event = earlier.event
            return jsonify(
                {
                    "entry": earlier.id,
                    "duplicate": True,
                    "points": event["result"]["points"] if event["kind"] == "result" else None,
                }
            )
    recorded_before = t.result(round_number, table_number) is not None
    if recorded_before != correction:
        if recorded_before:
            raise ApiError(
                409, "this table already has a result: send correction: true to replace it",
                code=RESULT_EXISTS,
            )
        raise ApiError(409, "this table has no result to correct yet", code=NO_RESULT_YET)
    try:
        lightings = [Lighting.from_dict(x) for x in raw]
        recorded = _record(
            info.id,
            lambda t: t.enter_result(round_number, table_number, lightings, correction=correction),
            request_id=request_id,
        )
    except ENTRY_ERRORS as exc:
        raise ApiError(422, str(exc), code=IMPOSSIBLE_RESULT) from None
    event = recorded.entry.event
    points = event["result"]["points"] if event["kind"] == "result" else None
    return jsonify({"entry": recorded.entry.id, "duplicate": recorded.duplicate, "points": points}), (
        200 if recorded.duplicate else 201
    )


@bp.post("/api/tournaments/<id:tid>/undo")
@staff_required
def api_undo(tid: int) -> ResponseReturnValue:
    info, t = _api_load(tid)
    try:
        undone = store().undo(info.id, actor=actor())
    except TournamentError as exc:
        raise ApiError(409, str(exc), code=NOTHING_TO_UNDO) from None
    with force_locale("en"):
        summary = present.summarize(t, undone.event)
    return jsonify({"undone": undone.id, "summary": summary})


_TOURNAMENT_ID = path_id("tid")
_ROUND = path_id("number")
_TABLE = path_id("table")

openapi.add_schemas(
    {
        "Lighting": {
            "type": "object",
            "required": ["seats"],
            "description": "Lamps that lit on one placement: table seats (0 = first seat) and the seat that"
            " placed the pawn (required when several lamps lit at once).",
            "properties": {
                "seats": {"type": "array", "items": {"type": "integer"}},
                "by": {"type": ["integer", "null"]},
            },
        },
    }
)
openapi.add_paths(
    {
        "/api/tournaments": {
            "get": {
                "summary": "Every tournament, latest first",
                "responses": {"200": openapi.json_response("Tournaments")},
            }
        },
        "/api/tournaments/{tid}": {
            "get": {
                "summary": "A tournament: status, standings (each player's games) and every round's tables",
                "parameters": [_TOURNAMENT_ID],
                "responses": {
                    "200": openapi.json_response("The tournament"),
                    "404": openapi.error("No such tournament"),
                },
            }
        },
        "/api/tournaments/{tid}/rounds/{number}/tables/{table}/result": {
            "post": {
                "summary": "Enter (or, with correction, replace) a table's result by lamp order;"
                " the points are computed",
                "parameters": [_TOURNAMENT_ID, _ROUND, _TABLE, openapi.CSRF_PARAMETER],
                "requestBody": openapi.json_body(
                    {
                        "type": "object",
                        "required": ["lightings"],
                        "properties": {
                            "lightings": {
                                "type": "array",
                                "items": {"$ref": "#/components/schemas/Lighting"},
                            },
                            "correction": {"type": "boolean"},
                            "request_id": {
                                "type": "string",
                                "description": "Sent again, returns the entry already made",
                            },
                        },
                    }
                ),
                "responses": {
                    "201": openapi.json_response("Recorded: {entry, duplicate, points}"),
                    "200": openapi.json_response("Already recorded under this request_id"),
                    "400": openapi.error("Malformed body"),
                    "401": openapi.error("Staff only"),
                    "404": openapi.error("No such tournament, round or table"),
                    "409": openapi.error(
                        "The table already has a result (send correction) or has none to correct"
                    ),
                    "422": openapi.error("A lamp order that cannot have happened"),
                },
            }
        },
        "/api/tournaments/{tid}/undo": {
            "post": {
                "summary": "Undo the tournament's last entry (kept in the audit trail as undone)",
                "parameters": [_TOURNAMENT_ID, openapi.CSRF_PARAMETER],
                "responses": {
                    "200": openapi.json_response("What was undone"),
                    "401": openapi.error("Staff only"),
                    "404": openapi.error("No such tournament"),
                    "409": openapi.error("Nothing to undo"),
                },
            }
        },
    }
)
