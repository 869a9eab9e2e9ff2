"""What the board's display shows of its event: the table assigned, the game, the confirmation.

No Flask here: :func:`table_state` reads the uplink's state and the board
state (both in the board's database) and says which phase the table is in:

* ``no-event``: the board is not part of an event (no uplink has run here);
* ``waiting``: no table assigned (yet, or any more: the last result is in);
* ``assigned``: a table is assigned and not started: the players, who starts,
  the handicap pawns, and the one-touch start;
* ``playing``: a game is running;
* ``confirm``: the game of the table is over; each seat agrees (or staff for them);
* ``confirmed``: every seat agreed; the result goes (or went) to the event server.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from store.journal import BoardState, JournalKind
from store.outbox import Outbox, UplinkState

PHASES = ("no-event", "waiting", "assigned", "playing", "confirm", "confirmed")
NEEDS_THE_TABLE_PAGE = ("assigned", "confirm")
"""Phases in which the board's home page is the table page (players have something to do there)."""


def _game(state: BoardState | None) -> dict[str, Any] | None:
    game = state.public.get("game") if state is not None else None
    return game if isinstance(game, dict) else None


def phase_of(uplink: UplinkState | None, board: BoardState | None) -> str:
    if uplink is None:
        return "no-event"
    game = _game(board)
    assignment = uplink.assignment
    if game is not None and game.get("status") == "running":
        return "playing"
    event_game = game is not None and game.get("status") == "over" and game.get("assignment")
    seats = len((game or {}).get("view", {}).get("seats") or [])
    agreed = set((game or {}).get("confirmed") or [])
    if event_game and not set(range(seats)) <= agreed:
        return "confirm"
    same = game is not None and assignment is not None and assignment["assignment"] == game.get("assignment")
    if assignment is not None and not (event_game and same):
        return "assigned"
    return "confirmed" if event_game else "waiting"


def table_state(outbox: Outbox, board: BoardState | None) -> dict[str, Any]:
    """The table page's data (``GET /api/table``): public, like everything on the board's display."""
    uplink = outbox.state()
    phase = phase_of(uplink, board)
    game = _game(board)
    data: dict[str, Any] = {"phase": phase, "event": None, "assignment": None, "game": None}
    if uplink is None:
        return data
    data["event"] = {
        "event": uplink.event,
        "board": uplink.board,
        "connected": uplink.connected,
        "acked": uplink.acked_seq,
        "waiting": outbox.waiting(),
        "note": uplink.note,
    }
    data["assignment"] = uplink.assignment
    if game is not None:
        data["game"] = _game_view(game, board)
        if phase == "confirmed" and isinstance(game.get("id"), int):
            last = outbox.last_of(JournalKind.RESULT_CONFIRMED, game["id"])
            data["game"]["delivered"] = last is not None and uplink.acked_seq >= last
    return data


def _game_view(game: Mapping[str, Any], board: BoardState | None) -> dict[str, Any]:
    view = v if isinstance(v := game.get("view"), dict) else {}
    lamps = ls if board is not None and isinstance(ls := board.public.get("lamps"), dict) else {}
    return {
        "id": game.get("id"),
        "status": game.get("status"),
        "assignment": game.get("assignment"),
        "confirmed": list(game.get("confirmed") or []),
        "points": game.get("points"),
        "seats": [
            {
                "name": s.get("name"),
                "colour": s.get("colour"),
                "lamp": s.get("lamp"),
                "eliminated": bool(s.get("eliminated")),
            }
            for s in view.get("seats") or []
            if isinstance(s, dict)
        ],
        "to_move": None if (board and board.public.get("paused")) else view.get("to_move"),
        "paused": bool(board.public.get("paused")) if board else False,
        "lit": list(lamps.get("lit") or []),
        "outcome": view.get("outcome"),
        "eliminations": list(view.get("eliminations") or []),
    }


def start_payload(assignment: Mapping[str, Any]) -> dict[str, Any]:
    """The ``NEW_GAME`` command of an assignment: its players in seat order, who starts, its handicap."""
    players = [{"name": str(p["name"]), "colour": str(p["colour"])} for p in assignment["players"]]
    payload: dict[str, Any] = {
        "players": players,
        "first": int(assignment["first_seat"]),
        "assignment": str(assignment["assignment"]),
    }
    if assignment.get("handicap_pawns"):
        payload["handicap"] = {str(k): int(v) for k, v in dict(assignment["handicap_pawns"]).items()}
    return payload
