"""The season's events and which tournaments count: the staff page (``/season``) and its JSON API.

Everyone may read the season (``GET /api/event/season``: the events and the
tournaments' places in them, what the ranking's ``?event=`` takes); staff
make and change events and say, for each tournament, which event it belongs
to and whether it counts for the general ranking (a friendly or
demonstration tournament does not). Every change is in the audit trail.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from flask import Response, flash, jsonify, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue
from flask_babel import gettext as _

from store.season import (
    EVENT_ID,
    KEEP,
    MAX_EVENT_NAME,
    MAX_EVENT_PLACE,
    Calendar,
    EventDatesError,
    EventExistsError,
    EventNotFoundError,
    SeasonError,
)
from store.tournaments import TournamentNotFoundError, Tournaments
from webpanel import openapi
from webpanel.auth import actor, staff_required
from webpanel.codes import TOURNAMENT_NOT_FOUND
from webpanel.db import get_db
from webpanel.errors import ApiError, bad_field, define_code, json_object
from webpanel.ids import path_id
from webpanel.ranking.blueprint import EVENT_NOT_FOUND, bp
from webpanel.refusals import refusal_text

EVENT_FIELDS = {"name", "place", "starts_on", "ends_on"}
EVENT_REFUSED = define_code(
    "event_refused",
    f"An event's name is 1 to {MAX_EVENT_NAME} letters, digits, spaces, punctuation or symbols, its place"
    f" at most {MAX_EVENT_PLACE}, its days dates (YYYY-MM-DD).",
)
EVENT_EXISTS = define_code("event_exists", "The season has an event of this id already.")
EVENT_DATES = define_code("event_dates", "The event's last day would come before its first.")

T = TypeVar("T")


def _refused(exc: Exception) -> ApiError:
    if isinstance(exc, TournamentNotFoundError):
        return ApiError(404, str(exc), code=TOURNAMENT_NOT_FOUND)
    if isinstance(exc, EventNotFoundError):
        return ApiError(404, str(exc), code=EVENT_NOT_FOUND)
    if isinstance(exc, EventExistsError):
        return ApiError(409, str(exc), code=EVENT_EXISTS)
    if isinstance(exc, EventDatesError):
        return ApiError(409, str(exc), code=EVENT_DATES)
    return ApiError(422, str(exc), code=EVENT_REFUSED)


REFUSED = (SeasonError, EventNotFoundError, TournamentNotFoundError)


def _api(change: Callable[[], T]) -> T:
    try:
        return change()
    except REFUSED as exc:
        raise _refused(exc) from None


def _event_fields(body: dict[str, Any]) -> dict[str, Any]:
    """The event fields of an API body, checked as the document says (left out: kept)."""
    fields = {k: body[k] for k in EVENT_FIELDS if k in body}
    name, place = fields.get("name"), fields.get("place")
    if "name" in fields and not (
        isinstance(name, str) and openapi.matches_name(name, MAX_EVENT_NAME, openapi.LABEL_BLOCKS)
    ):
        raise ApiError(
            422, f"an event's name is 1 to {MAX_EVENT_NAME} printable characters", code=EVENT_REFUSED
        )
    if "place" in fields and not (
        isinstance(place, str)
        and (place == "" or openapi.matches_name(place, MAX_EVENT_PLACE, openapi.LABEL_BLOCKS))
    ):
        raise ApiError(422, f"an event's place is at most {MAX_EVENT_PLACE} printable characters",
                       code=EVENT_REFUSED)
    for day in ("starts_on", "ends_on"):
        if fields.get(day) == "":  # the page's empty field; the API says null
            raise ApiError(422, f"{day} is a date written YYYY-MM-DD, or null", code=EVENT_REFUSED)
    return fields


# -- JSON API -------------------------------------------------------------------------------------


@bp.get("/api/event/season")
def api_season() -> Response:
    """The season's events and every tournament's place in it."""
    return jsonify(_season_json())


def _season_json() -> dict[str, Any]:
    conn = get_db()
    tournaments = Tournaments(conn).all()
    return {
        "events": [
            {**e.to_json(), "tournaments": [t.id for t in tournaments if t.event == e.id]}
            for e in Calendar(conn).events()
        ],
        "tournaments": [
            {"id": t.id, "name": t.name, "event": t.event, "counts": t.counts} for t in tournaments
        ],
    }


@bp.post("/api/event/season/events")
@staff_required
def api_create_event() -> tuple[Response, int]:
    body = json_object(allowed={"id", *EVENT_FIELDS}, required={"id"})
    event_id = body["id"]
    if not isinstance(event_id, str) or not EVENT_ID.match(event_id):
        raise bad_field("id", "id is 1 to 40 characters among a-z, 0-9 and '-'")
    fields = _event_fields(body)
    event = _api(lambda: Calendar(get_db()).create(event_id, **fields, actor=actor()))
    return jsonify(event.to_json()), 201


@bp.post("/api/event/season/events/<event>")
@staff_required
def api_edit_event(event: str) -> Response:
    """Change an event's name, place or days (fields left out are kept; a day null: not known)."""
    body = json_object(allowed=EVENT_FIELDS)
    fields = _event_fields(body)
    changed = _api(lambda: Calendar(get_db()).edit(event, **fields, actor=actor()))
    return jsonify(changed.to_json())


@bp.post("/api/event/tournaments/<id:tid>/season")
@staff_required
def api_place_tournament(tid: int) -> Response:
    """``{"event": id or null, "counts": true or false}`` (left out: kept)."""
    body = json_object(allowed={"event", "counts"})
    if "counts" in body and not isinstance(body["counts"], bool):
        raise bad_field("counts", "counts must be true or false")
    event = body.get("event", KEEP)
    if event is not KEEP and event is not None and not isinstance(event, str):
        raise bad_field("event", "event must be an event's id, or null for none")
    placed = _api(
        lambda: Calendar(get_db()).place(tid, event=event, counts=body.get("counts", KEEP), actor=actor())
    )
    return jsonify(placed)


@bp.get("/api/event/season/audit")
@staff_required
def api_season_audit() -> Response:
    """The season's audit trail, newest first."""
    return jsonify([a.to_json() for a in Calendar(get_db()).audit()])


# -- the staff page -------------------------------------------------------------------------------


@bp.get("/season")
@staff_required
def season_page() -> str:
    conn = get_db()
    calendar = Calendar(conn)
    events, tournaments = calendar.events(), Tournaments(conn).all()
    return render_template(
        "ranking/season.html",
        events=events,
        event_names={e.id: e.name for e in events},
        tournament_names={t.id: t.name for t in tournaments},
        tournaments=tournaments,
        audit=calendar.audit(limit=30),
        max_name=MAX_EVENT_NAME,
        max_place=MAX_EVENT_PLACE,
    )


def _page(change: Callable[[], str]) -> ResponseReturnValue:
    """Run a form's change; its message (or the refusal's) on the season page."""
    try:
        flash(change(), "ok")
    except REFUSED as exc:
        flash(refusal_text(exc), "error")
    return redirect(url_for("ranking.season_page"), code=303)


def _form_event() -> dict[str, Any]:
    """An event form's fields as :class:`store.season.Calendar` takes them (an empty day: not known)."""
    form = request.form
    return {
        "name": form.get("name", "").strip(),
        "place": form.get("place", ""),
        **{day: form.get(day, "").strip() or None for day in ("starts_on", "ends_on")},
    }


@bp.post("/season/events")
@staff_required
def create_event() -> ResponseReturnValue:
    def change() -> str:
        fields = _form_event()
        fields["name"] = fields["name"] or None  # none given: the event is named after its id
        event = Calendar(get_db()).create(request.form.get("id", "").strip(), **fields, actor=actor())
        return str(_("Event %(name)s is in the season.", name=event.name))

    return _page(change)


@bp.post("/season/events/<event>")
@staff_required
def edit_event(event: str) -> ResponseReturnValue:
    def change() -> str:
        changed = Calendar(get_db()).edit(event, **_form_event(), actor=actor())
        return str(_("Saved: %(name)s.", name=changed.name))

    return _page(change)


@bp.post("/season/tournaments/<id:tid>")
@staff_required
def place_tournament(tid: int) -> ResponseReturnValue:
    form = request.form

    def change() -> str:
        placed = Calendar(get_db()).place(
            tid, event=form.get("event") or None, counts=form.get("counts") == "yes", actor=actor()
        )
        name = Tournaments(get_db()).get(tid).name
        if placed["counts"]:
            return str(_("%(name)s counts for the general ranking.", name=name))
        return str(
            _("%(name)s is a friendly tournament: it does not count for the general ranking.", name=name)
        )

    return _page(change)


# -- the document ---------------------------------------------------------------------------------

_EVENT_ID = {"type": "string", "pattern": EVENT_ID.pattern}
_DAY = {"type": ["string", "null"], "format": "date", "description": "YYYY-MM-DD; null: not known"}
_EVENT_BODY = {
    "name": openapi.printable_name(MAX_EVENT_NAME, openapi.LABEL_BLOCKS),
    "place": {"anyOf": [{"const": ""}, openapi.printable_name(MAX_EVENT_PLACE, openapi.LABEL_BLOCKS)]},
    "starts_on": _DAY,
    "ends_on": _DAY,
}
_EVENT = {
    "type": "object",
    "required": ["id", "name", "place", "starts_on", "ends_on"],
    "properties": {
        "id": {"type": "string"},
        "name": {"type": "string"},
        "place": {"type": "string"},
        "starts_on": {"type": ["string", "null"]},
        "ends_on": {"type": ["string", "null"]},
    },
}
openapi.add_schemas({"SeasonEvent": _EVENT})
_EVENT_REF = {"$ref": "#/components/schemas/SeasonEvent"}
_REFUSED = openapi.error(
    f"A name of more than {MAX_EVENT_NAME} characters or only spaces, a place of more than"
    f" {MAX_EVENT_PLACE}, or a character outside the ones the patterns list (event_refused)"
)
_DATES = openapi.error("The last day would come before the first (event_dates)")
openapi.add_paths(
    {
        "/api/event/season": {
            "get": {
                "summary": "The season: its events (each with its tournaments' ids) and every tournament's"
                " event and whether it counts for the general ranking",
                "responses": {"200": openapi.json_response("events, tournaments")},
            }
        },
        "/api/event/season/events": {
            "post": {
                "summary": "Add an event to the season (staff); its name is its id when none is given",
                "requestBody": openapi.json_body(
                    {
                        "type": "object",
                        "required": ["id"],
                        "additionalProperties": False,
                        "properties": {"id": _EVENT_ID, **_EVENT_BODY},
                    }
                ),
                "responses": {
                    "201": openapi.json_response("The event", _EVENT_REF),
                    "409": openapi.error("An event of this id already (event_exists), or the last day"
                                         " before the first (event_dates)"),
                    "422": _REFUSED,
                },
            }
        },
        "/api/event/season/events/{event}": {
            "post": {
                "summary": "Change an event's name, place or days (staff; fields left out are kept)",
                "parameters": [
                    {"name": "event", "in": "path", "required": True, "schema": {"type": "string"}}
                ],
                "requestBody": openapi.json_body(
                    {"type": "object", "additionalProperties": False, "properties": _EVENT_BODY}
                ),
                "responses": {
                    "200": openapi.json_response("The event", _EVENT_REF),
                    "404": openapi.error("No such event (event_not_found)"),
                    "409": _DATES,
                    "422": _REFUSED,
                },
            }
        },
        "/api/event/tournaments/{tid}/season": {
            "post": {
                "summary": "Put a tournament in an event (null: none) and say whether it counts for the"
                " general ranking (staff; fields left out are kept)",
                "parameters": [path_id("tid")],
                "requestBody": openapi.json_body(
                    {
                        "type": "object",
                        "additionalProperties": False,
                        "properties": {
                            "event": {"anyOf": [{"type": "null"}, _EVENT_ID]},
                            "counts": {"type": "boolean"},
                        },
                    }
                ),
                "responses": {
                    "200": openapi.json_response("tournament, event, counts"),
                    "404": openapi.error(
                        "No such tournament (tournament_not_found) or event (event_not_found)"
                    ),
                },
            }
        },
        "/api/event/season/audit": {
            "get": {
                "summary": "The season's audit trail, newest first (staff)",
                "responses": {"200": openapi.json_response("The entries", {"type": "array"})},
            }
        },
    }
)
