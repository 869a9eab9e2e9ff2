"""Which board plays which table: proposed when a round is made, changed by staff, published retained.

Each table of a round gets an assignment (a random id the board carries into
the game it starts from it, and so into that game's result). The proposal puts
tables 1, 2, … on the accepted boards in label order, boards that are online
and idle first; a table left without a board is played by hand (its result
entered on a tablet). Staff may move a table to another board (two tables
swap when the board already had one) as long as neither game has started.

The board's retained ``assignment`` topic holds its table until the table's
result is in: the board then shows no table until the next round is assigned.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from games.hautetension.handicap import handicap_plan
from games.hautetension.layout import DEFAULT_LAYOUT, load_layout
from games.hautetension.seats import DEFAULT_COLOURS
from store.db import transaction
from store.dialect import Connection, Record, placeholders
from store.event import sql
from store.event.boards import Boards, EventBoard
from store.event.publish import Publications
from store.tournaments import Tournaments
from tournaments.model import Table
from tournaments.tournament import Tournament


class AssignmentError(ValueError):
    """A table cannot be given to that board now (the message says why)."""


@dataclass(frozen=True)
class Assignment:
    id: str
    tournament_id: int
    round: int
    table: int
    board: str | None
    """None: the table is played without a board (by hand, a tablet enters its result)."""
    created_at: float
    updated_at: float
    done_at: float | None
    """When the table's result came in (the board is free again)."""

    @property
    def is_done(self) -> bool:
        return self.done_at is not None


def assignment_from_row(row: Record, prefix: str = "") -> Assignment:
    """The assignment in *row* (:data:`store.event.sql.ASSIGNMENT_COLUMNS`, each name after *prefix*
    where a query joins them to another table's)."""
    return Assignment(
        id=str(row[f"{prefix}id"]),
        tournament_id=int(row[f"{prefix}tournament_id"]),
        round=int(row[f"{prefix}round"]),
        table=int(row[f"{prefix}table_number"]),
        board=row[f"{prefix}board"],
        created_at=float(row[f"{prefix}created_at"]),
        updated_at=float(row[f"{prefix}updated_at"]),
        done_at=row[f"{prefix}done_at"],
    )


def assignment_message(
    assignment: Assignment, t: Tournament, name: str, table: Table, *, layout: str | None = None
) -> dict[str, Any]:
    """What the board shows and starts the game from (docs/event-network.md, ``assignment``)."""
    board_layout = load_layout(layout or DEFAULT_LAYOUT)
    colours = DEFAULT_COLOURS[: len(table.seats)]
    players = [
        {"name": t.names[player], "lamp": lamp, "colour": colour}
        for player, lamp, colour in zip(table.seats, table.lamps, colours, strict=True)
    ]
    owner = {lamp: t.names[player] for player, lamp in zip(table.seats, table.lamps, strict=True)}
    slots = handicap_plan(board_layout, dict(table.handicap)) if table.handicap else {}
    return {
        "assignment": assignment.id,
        "tournament": assignment.tournament_id,
        "tournament_name": name,
        "round": assignment.round,
        "table": assignment.table,
        "players": players,
        "first": t.names[table.seats[table.first]],
        "first_seat": table.first,
        "handicap": [
            {"slot": slot, "lamp": lamp, "player": owner[lamp]}
            for lamp, lamp_slots in slots.items()
            for slot in lamp_slots
        ],
        "handicap_pawns": dict(table.handicap),
        "layout": board_layout.name,
    }


def propose_boards(tables: Sequence[int], boards: Sequence[EventBoard]) -> dict[int, str | None]:
    """Tables in number order on the accepted boards in label order, online and idle boards first."""
    ready = sorted(
        (b for b in boards if b.is_accepted), key=lambda b: (not b.online, b.is_playing)
    )  # a stable sort: label order within each group
    return {table: ready[i].id if i < len(ready) else None for i, table in enumerate(sorted(tables))}


class Assignments:
    """Tables and boards, on one connection."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        self.publications = Publications(conn)

    def get(self, assignment_id: str) -> Assignment | None:
        row = self.conn.execute(sql.ASSIGNMENT, (assignment_id,)).fetchone()
        return None if row is None else assignment_from_row(row)

    def of_round(self, tournament_id: int, round_number: int) -> list[Assignment]:
        rows = self.conn.execute(sql.ASSIGNMENTS_OF_ROUND, (tournament_id, round_number))
        return [assignment_from_row(r) for r in rows]

    def open(self) -> list[Assignment]:
        """Tables given to a board whose result is not in yet."""
        return [assignment_from_row(r) for r in self.conn.execute(sql.ASSIGNMENTS_OPEN)]

    def of_board(self, board: str) -> Assignment | None:
        """The table a board plays now, if any."""
        return next((a for a in self.open() if a.board == board), None)

    def assign_round(self, tournament_id: int) -> list[Assignment]:
        """Propose boards for the tables of the tournament's current round that have none yet, and
        publish them; the round's assignments, by table."""
        t = Tournaments(self.conn).load(tournament_id)
        made = t.current_round
        if made is None:
            raise AssignmentError("the tournament has no round yet: make round 1 first")
        with transaction(self.conn):
            existing = {a.table for a in self.of_round(tournament_id, made.number)}
            busy = {a.board for a in self.open() if a.board and a.round != made.number}
            # Boards still holding a table of an earlier round are free again: that round is over.
            stale = [a for a in self.open() if a.round < made.number and a.tournament_id == tournament_id]
            self.finish_each_within([a.id for a in stale])
            busy -= {a.board for a in stale}
            free = [b for b in Boards(self.conn).all() if b.id not in busy]
            taken = {a.board for a in self.of_round(tournament_id, made.number) if a.board}
            plan = propose_boards(
                [table.number for table in made.tables if table.number not in existing],
                [b for b in free if b.id not in taken],
            )
            now = time.time()
            for number, board in plan.items():
                self.conn.execute(
                    sql.ASSIGNMENT_ADD,
                    (uuid.uuid4().hex, tournament_id, made.number, number, board, now, now),
                )
            assignments = self.of_round(tournament_id, made.number)
            for assignment in assignments:
                if (
                    assignment.board is not None
                    and assignment.table in plan
                    and t.result(made.number, assignment.table) is None
                ):
                    self._publish(assignment, t)
        return assignments

    def move(self, assignment_id: str, board: str | None) -> list[Assignment]:
        """Give a table to another board (or to none); a table that board had takes this one's board."""
        with transaction(self.conn):
            moving = self.get(assignment_id)
            if moving is None:
                raise AssignmentError(f"no table assignment {assignment_id!r}")
            if moving.is_done:
                raise AssignmentError(f"round {moving.round} table {moving.table} already has its result")
            if board is not None and not Boards(self.conn).get(board).is_accepted:
                raise AssignmentError(f"board {board} has not been accepted into the event yet")
            other = (
                next((a for a in self.open() if a.board == board and a.id != moving.id), None)
                if board is not None
                else None
            )
            if other is not None and (other.round, other.tournament_id) != (
                moving.round,
                moving.tournament_id,
            ):
                raise AssignmentError(
                    f"board {board} still plays round {other.round} table {other.table}: wait for its result"
                )
            for assignment in (moving, other):
                if assignment is not None and self.is_started(assignment):
                    raise AssignmentError(
                        f"round {assignment.round} table {assignment.table} is being played on board"
                        f" {assignment.board}: abandon that game on the board first"
                    )
            t = Tournaments(self.conn).load(moving.tournament_id)
            now = time.time()
            for assignment, target in ((moving, board), (other, moving.board)):
                if assignment is None:
                    continue
                if assignment.board is not None:
                    self._clear(assignment, self.publications.wanted(assignment.board, "assignment"))
                self.conn.execute(sql.ASSIGNMENT_BOARD, (target, now, assignment.id))
            for assignment in (moving, other):
                if assignment is not None:
                    moved = self.get(assignment.id)
                    assert moved is not None
                    if moved.board is not None:
                        self._publish(moved, t)
        return self.of_round(moving.tournament_id, moving.round)

    def game_status(self, assignment: Assignment) -> str | None:
        """How the last game its board started from this table went: "running", "over",
        "abandoned", or None (not started)."""
        games = [
            g
            for g in self.conn.execute(sql.GAMES_OF_ASSIGNMENT, (assignment.id,)).fetchall()
            if g["board"] == assignment.board
        ]
        return str(games[-1]["status"]) if games else None

    def is_started(self, assignment: Assignment) -> bool:
        """Whether its board is playing (or has finished) a game of this table."""
        return self.game_status(assignment) in ("running", "over")

    def finish(self, assignment_id: str) -> None:
        """The table's result is in: the board is free (its retained assignment cleared)."""
        with transaction(self.conn):
            self.finish_each_within([assignment_id])

    def finish_each_within(self, assignment_ids: Sequence[str]) -> None:
        """:meth:`finish` for each table, inside the caller's transaction (a round's worth read at once:
        the assignments in one statement, their boards' retained assignments in another)."""
        ids = list(dict.fromkeys(assignment_ids))
        if not ids:
            return
        rows = self.conn.execute(sql.ASSIGNMENTS_WITH_IDS.format(placeholders(len(ids))), ids)
        open_ = [a for a in map(assignment_from_row, rows) if not a.is_done]
        boards = [a.board for a in open_ if a.board is not None]
        current = self.publications.wanted_each(boards, "assignment")
        now = time.time()
        for assignment in open_:
            self.conn.execute(sql.ASSIGNMENT_DONE, (now, assignment.id))
            if assignment.board is not None:
                self._clear(assignment, current.get(assignment.board))

    def _publish(self, assignment: Assignment, t: Tournament) -> None:
        assert assignment.board is not None
        info = Tournaments(self.conn).get(assignment.tournament_id)
        table = t.round(assignment.round).table(assignment.table)
        layout = Boards(self.conn).get(assignment.board).layout
        message = assignment_message(assignment, t, info.name, table, layout=layout)
        self.publications.want(assignment.board, "assignment", _payload(message))

    def _clear(self, assignment: Assignment, current: bytes | None) -> None:
        """Clear the board's retained assignment if it still holds this one (*current*: what it holds)."""
        assert assignment.board is not None
        if current and json.loads(current).get("assignment") == assignment.id:
            self.publications.want(assignment.board, "assignment", b"")


def _payload(message: dict[str, Any]) -> bytes:
    return json.dumps(message, separators=(",", ":"), sort_keys=True).encode()
