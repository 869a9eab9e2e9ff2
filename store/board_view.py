"""The public board view: what any page, API response, event or message may show.

The board service writes ``board_state.public`` already free of secrets; the
panel (``GET /api/board``, its event stream) and the uplink (the ``live``
message to the event server) still build what they send from a list of known
fields, so a field added to the service's state later is not shown to players
nor sent off the board until someone decides it is safe. Pawn kinds, closed
rows and stock by kind never pass.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

SEAT_FIELDS = ("name", "colour", "lamp", "eliminated", "pawns_left")
VIEW_FIELDS = ("layout", "to_move", "handicap", "lit", "outcome", "points")
ANOMALY_FIELDS = ("kind", "slot", "at", "message")
CHECK_STATUSES = ("waiting", "holding", "confirm", "failed", "passed", "skipped")
CHECK_FOUND = ("current", "seen", "failed", "unchecked")


def public_board(
    public: Mapping[str, Any] | None, *, journal_id: int, service_running: bool
) -> dict[str, Any]:
    """The public view of a board state (``None``: the service has never written one)."""
    public = public or {}
    return {
        "id": journal_id,
        "service": {"running": service_running},
        "layout": _str(public.get("layout")),
        "backend": _str(public.get("backend")),
        "game": _game(public.get("game")),
        "pawns": _pawns(public.get("pawns")),
        "lamps": _lamps(public.get("lamps")),
        "anomalies": _records(public.get("anomalies"), ANOMALY_FIELDS),
        "faults": _records(public.get("faults"), ANOMALY_FIELDS),
        "scanner_faulted": bool(public.get("scanner_faulted", False)),
        "paused": bool(public.get("paused", False)),
        "button": bool(public.get("button", False)),
    }


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _owner(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _pawns(value: Any) -> dict[str, dict[str, int | None]]:
    if not isinstance(value, Mapping):
        return {}
    pawns = {}
    for slot, pawn in value.items():
        owner = pawn.get("owner") if isinstance(pawn, Mapping) else None
        pawns[str(slot)] = {"owner": _owner(owner)}
    return pawns


def _lamps(value: Any) -> dict[str, Any]:
    value = value if isinstance(value, Mapping) else {}
    lit = value.get("lit")
    return {
        "lit": sorted(str(lamp) for lamp in lit) if isinstance(lit, list | tuple) else [],
        "test": bool(value.get("test", False)),
        "safe": bool(value.get("safe", False)),
    }


def _records(value: Any, keep: tuple[str, ...]) -> list[dict[str, Any]]:
    if not isinstance(value, list):
        return []
    return [{k: _scalar(item.get(k)) for k in keep} for item in value if isinstance(item, Mapping)]


def _scalar(value: Any) -> Any:
    return value if isinstance(value, str | int | float | bool) or value is None else str(value)


def _game(value: Any) -> dict[str, Any] | None:
    if not isinstance(value, Mapping):
        return None
    raw_view = value.get("view")
    view: Mapping[str, Any] = raw_view if isinstance(raw_view, Mapping) else {}
    points = value.get("points")
    confirmed = value.get("confirmed")
    return {
        "id": _owner(value.get("id")),
        "status": _str(value.get("status")),
        "points": list(points) if isinstance(points, list) else None,
        "view": _game_view(view),
        # A game started from an event's table: its assignment, and the seats that agreed to the result.
        "assignment": _str(value.get("assignment")),
        "confirmed": sorted(s for s in confirmed if _owner(s) is not None)
        if isinstance(confirmed, list) else [],
        "check": _check(value.get("check")),
    }


def _lamp_names(value: Any) -> list[str]:
    return [str(lamp) for lamp in value] if isinstance(value, list | tuple) else []


def _check(value: Any) -> dict[str, Any] | None:
    """The pre-game check: lamps only (it never reads a slot), so all of it is public."""
    if not isinstance(value, Mapping) or value.get("status") not in CHECK_STATUSES:
        return None
    raw_lamps = value.get("lamps")
    lamps = raw_lamps if isinstance(raw_lamps, Mapping) else {}
    attempts = value.get("attempts")
    return {
        "status": value["status"],
        "lamps": {str(k): v for k, v in lamps.items() if v in CHECK_FOUND},
        "ask": _lamp_names(value.get("ask")),
        "failed": _lamp_names(value.get("failed")),
        "short": bool(value.get("short", False)),
        "attempts": attempts if isinstance(attempts, int) else 0,
    }


def _game_view(view: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {name: view.get(name) for name in VIEW_FIELDS if name in view}
    seats = view.get("seats")
    out["seats"] = [
        {k: seat.get(k) for k in SEAT_FIELDS if k in seat}
        for seat in (seats if isinstance(seats, list) else [])
        if isinstance(seat, Mapping)
    ]
    out["pawns"] = _pawns(view.get("pawns"))
    moves = view.get("moves")
    out["moves"] = [
        {"slot": _str(m.get("slot")), "player": _owner(m.get("player"))}
        for m in (moves if isinstance(moves, list) else [])
        if isinstance(m, Mapping)
    ]
    eliminations = view.get("eliminations")
    out["eliminations"] = _records(eliminations, ("player", "lamp", "move", "by"))
    return out
