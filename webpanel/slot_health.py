"""Slot health in staff's words, and the board's service-mode view of it.

The board service keeps each slot's health across games (hardware/slot_health.py,
docs/hardware.md "Slot health") and the findings it makes: a slot whose
conduction contact has not closed in twelve games, one whose contacts
bounce, a lamp whose current feedback disagreed… :func:`finding_text` says
each one, with what to check, in the staff's language; the board's health
page draws the board with each slot coloured (``GET /api/staff/slot-health``)
and the event server's staff page lists every board's (webpanel/event).

Staff only: which slot's conduction contact closes is what a player's pawn
kinds would show. The findings come from finished games only, and no
player-facing page, API response or stream carries them.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, jsonify
from flask_babel import format_decimal, ngettext
from flask_babel import gettext as _

from protocol.health import (
    BOUNCES,
    LAMP,
    NO_CONDUCTION,
    NO_PRESENCE,
    OVERRUNS,
    REFERENCE,
    SLOW_SETTLE,
    STUCK,
    Finding,
)
from store.slot_health import BOARD_PART, SlotHealthStore
from webpanel import openapi
from webpanel.auth import staff_required
from webpanel.db import get_db

bp = Blueprint("slot_health", __name__)

COLOURS = {
    STUCK: "fault", NO_CONDUCTION: "fault", NO_PRESENCE: "fault", BOUNCES: "watch", SLOW_SETTLE: "watch",
}
"""How the board drawing colours a slot with that finding (the worst wins): a fault to repair, or a
contact to watch."""


def finding_text(finding: Finding) -> str:
    """One finding, with what to check, in the request's language."""
    return str(_words(finding))


def _words(finding: Finding) -> Any:
    n, part, kind = finding.n, finding.part, finding.kind
    if kind == NO_PRESENCE:
        return ngettext("slot %(part)s: no pawn seen in the last %(num)d game — check its presence contact",
                        "slot %(part)s: no pawn seen in the last %(num)d games — check its presence contact",
                        n, part=part)
    if kind == NO_CONDUCTION:
        return ngettext("slot %(part)s: no conduction in the last %(num)d game — check its contact",
                        "slot %(part)s: no conduction in the last %(num)d games — check its contact",
                        n, part=part)
    if kind == STUCK:
        return ngettext("slot %(part)s: conduction without presence in the last game — a contact is stuck"
                        " closed or bent",
                        "slot %(part)s: conduction without presence in the last %(num)d games — a contact is"
                        " stuck closed or bent", n, part=part)
    if kind == BOUNCES:
        return _("slot %(part)s: its contacts bounce %(bounces)s times per move — clean or tighten them",
                 part=part, bounces=format_decimal(n / 10, format="#,##0.#"))
    if kind == SLOW_SETTLE:
        return _("slot %(part)s: its contacts take %(ms)s ms to settle — clean or tighten them",
                 part=part, ms=n)
    if kind == REFERENCE:
        return ngettext("reference channel %(channel)s read the wrong level in the last game — check the"
                        " multiplexer's supply and cable",
                        "reference channel %(channel)s read the wrong level in the last %(num)d games — check"
                        " the multiplexer's supply and cable", n, channel=part.removeprefix("ref "))
    if kind == LAMP:
        return ngettext("a lamp's current disagreed with its switch in the last game — check the bulbs, fuses"
                        " and drivers",
                        "a lamp's current disagreed with its switch in the last %(num)d games — check the"
                        " bulbs, fuses and drivers", n)
    if kind == OVERRUNS:
        return _("the scan overran its period in %(n)s ‰ of the last game's turns — the Pi is overloaded:"
                 " check what else runs on it", n=n)
    return f"{part}: {kind}"


def finding_view(finding: Finding) -> dict[str, Any]:
    return {**finding.to_json(), "slot": finding.is_slot, "colour": COLOURS.get(finding.kind),
            "text": finding_text(finding)}


@bp.get("/api/staff/slot-health")
@staff_required
def api_slot_health() -> Response:
    """The board's slot health over its last games: each finding in words, each slot's colour for the
    board drawing, the games counted. Finished games only, so it is shown whether a game runs or not."""
    store = SlotHealthStore(get_db())
    findings = store.findings(limit=1000)
    colours: dict[str, str] = {}
    for finding in findings:  # the worst first: the first colour a slot gets is its worst
        colour = COLOURS.get(finding.kind)
        if finding.is_slot and colour is not None:
            colours.setdefault(finding.part, colour)
    games = store.counters().get(BOARD_PART, {}).get("games", 0)
    return jsonify({"games": games, "findings": [finding_view(f) for f in findings], "slots": colours})


openapi.add_paths(
    {
        "/api/staff/slot-health": {
            "get": {
                "summary": "The board's slot health over its last finished games: each finding in words, each"
                " slot's colour for the health page's drawing (staff only)",
                "responses": {"200": openapi.json_response("Slot health")},
            }
        },
    }
)
