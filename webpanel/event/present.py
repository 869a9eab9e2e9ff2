"""The event shaped for its pages and API: the boards, the round's tables, standings (no Flask here).

Everything here is public unless a function says it is for staff: the boards'
live views are the public board view (the boards never send anything else),
standings and pairings are public at any tournament.
"""

from __future__ import annotations

import time
from typing import Any

from games.exc import GameError
from store.dialect import Connection
from store.event.assignments import Assignment, Assignments
from store.event.boards import Boards, EventBoard
from store.event.results import BoardResult, Results
from store.tournaments import TournamentInfo, TournamentNotFoundError, Tournaments
from tournaments.tournament import Tournament
from webpanel.standings import standings_view

TABLE_STATES = ("done", "confirming", "playing", "to-start", "by-hand", "abandoned")
"""Where a table of the round stands (the pages say it in words)."""


def event_tournament(conn: Connection, requested: int | None = None) -> TournamentInfo | None:
    """The tournament the event pages show: the one asked for, else the one boards play, else the latest."""
    tournaments = Tournaments(conn)
    if requested is not None:
        try:
            return tournaments.get(requested)
        except TournamentNotFoundError:
            return None
    open_ = Assignments(conn).open()
    if open_:
        return tournaments.get(open_[-1].tournament_id)
    every = tournaments.all()
    return every[0] if every else None


def board_view(board: EventBoard, assignment: Assignment | None, *, with_live: bool) -> dict[str, Any]:
    view = board.summary()
    view["name"] = board.name
    view["table"] = None if assignment is None else {"round": assignment.round, "table": assignment.table}
    if with_live:
        view["live"] = board.live
    return view


def table_states(
    conn: Connection, t: Tournament, round_number: int, tournament_id: int
) -> list[dict[str, Any]]:
    """Each table of a round: its players, its board, and where it stands."""
    assignments = Assignments(conn)
    by_table = {a.table: a for a in assignments.of_round(tournament_id, round_number)}
    results: dict[str, BoardResult] = {r.assignment: r for r in Results(conn).all()}
    boards = {b.id: b for b in Boards(conn).all()}
    rows = []
    for table in t.round(round_number).tables:
        assignment = by_table.get(table.number)
        board = boards.get(assignment.board) if assignment is not None and assignment.board else None
        state = _table_state(t, round_number, table.number, assignment, assignments, results)
        rows.append(
            {
                "table": table.number,
                "players": [t.names[p] for p in table.seats],
                "first": t.names[table.seats[table.first]],
                "board": None
                if board is None
                else {"id": board.id, "name": board.name, "online": board.online},
                "assignment": None if assignment is None else assignment.id,
                "state": state,
                "points": None if (r := t.result(round_number, table.number)) is None else list(r.points),
            }
        )
    return rows


def table_state(
    conn: Connection, t: Tournament, round_number: int, table: int, assignment: Assignment | None
) -> str:
    """Where one table of a round stands (:func:`table_states` for one table, reading only its result)."""
    result = None if assignment is None else Results(conn).of_assignment(assignment.id)
    results = {} if result is None or assignment is None else {assignment.id: result}
    return _table_state(t, round_number, table, assignment, Assignments(conn), results)


def _table_state(
    t: Tournament,
    round_number: int,
    table: int,
    assignment: Assignment | None,
    assignments: Assignments,
    results: dict[str, BoardResult],
) -> str:
    if t.result(round_number, table) is not None:
        return "done"
    if assignment is None or assignment.board is None:
        return "by-hand"
    result = results.get(assignment.id)
    if result is not None and result.status in ("waiting", "confirmed"):
        return "confirming"
    status = assignments.game_status(assignment)
    if status == "running":
        return "playing"
    if status == "abandoned":
        return "abandoned"
    return "to-start"


def next_round_proposal(t: Tournament) -> list[dict[str, Any]] | None:
    """The next round's tables as they would be made now (None while the round is not complete)."""
    if not t.rounds or not t.is_round_complete(t.rounds[-1].number) or t.is_over():
        return None
    try:
        planned = t.plan_next_round()
    except GameError:
        return None
    return [{"table": table.number, "players": [t.names[p] for p in table.seats]} for table in planned.tables]


def wall_view(conn: Connection, requested: int | None = None) -> dict[str, Any]:
    """The room's wall display: every board live, the standings, which tables are still playing."""
    info = event_tournament(conn, requested)
    open_by_board = {a.board: a for a in Assignments(conn).open() if a.board}
    boards = [
        board_view(b, open_by_board.get(b.id), with_live=True) for b in Boards(conn).all() if b.is_accepted
    ]
    view: dict[str, Any] = {
        "at": round(time.time(), 3),
        "tournament": None,
        "boards": boards,
        "standings": [],
        "tables": [],
        "next_round": None,
    }
    if info is None:
        return view
    t = Tournaments(conn).load(info.id)
    current = t.current_round
    winner = t.winner()
    view["tournament"] = {
        "id": info.id,
        "name": info.name,
        "round": current.number if current else None,
        "over": t.is_over(),
        "winner": None if winner is None else t.names[winner],
        "players": len(t.names),
    }
    view["standings"] = [
        {k: s[k] for k in ("place", "name", "points", "status", "status_label", "note")}
        for s in standings_view(t)
    ]
    if current is not None:
        view["tables"] = table_states(conn, t, current.number, info.id)
    view["next_round"] = next_round_proposal(t)
    return view
