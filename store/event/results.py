"""Results from the boards: confirmed by the players, entered into the tournament exactly once.

A game started from an assignment and played to its end is a result *waiting*
for the players' confirmation: each seat taps "I agree" on the board's display
(or staff confirm for them there, or here). Once every seat agreed it is
*confirmed*, and :meth:`Results.settle` enters it into its tournament through
the same path as a tablet entry (:meth:`store.tournaments.Tournaments.record`,
``Tournament.import_result``) under the request id
``board:<board>:<history>:<game>``: whatever happens between entering it and
marking it entered (a crash, a second server process), it is recorded once.

It is never entered over another result: a table that already has one (typed
on a tablet) makes it a *clash*, shown to staff, who keep the hand entry or
correct the table with the board's result. A result the tournament refuses
(the table was moved to another board, the players do not match) is *refused*,
with the reason. A result still waiting past its deadline is flagged for staff
(:attr:`BoardResult.is_overdue`), never dropped: staff may confirm it for the
players.
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

from games.hautetension.tournament import Lighting, ResultEvent, Tournament
from store.db import transaction
from store.dialect import Connection, Record
from store.event import sql
from store.event.assignments import Assignment, Assignments, assignment_from_row
from store.event.boards import Boards
from store.tournaments import (
    Command,
    Recorded,
    TournamentNotFoundError,
    Tournaments,
    seat_order,
)

STATUSES = ("waiting", "confirmed", "entered", "clash", "refused", "dismissed")

Mark = tuple["BoardResult", str, int | None, str | None]
"""How a result moved on: the result, its new status, the tournament entry, the problem."""


class ResultStateError(ValueError):
    """A result cannot be moved on that way now (the message says why)."""


class ResultNotFoundError(LookupError):
    """No board sent a result for that game."""


@dataclass(frozen=True)
class BoardResult:
    game: int
    """The event's game id (``event_games.id``)."""
    assignment: str
    status: str
    confirmed: tuple[int, ...]
    confirmed_by: str | None
    received_at: float
    deadline: float
    entered_at: float | None
    entry_id: int | None
    problem: str | None
    board: str
    board_game: int
    players: tuple[str, ...]
    points: tuple[int, ...]
    lightings: tuple[Lighting, ...] | None
    history: str
    unreadable: str | None = None
    """Why the board's stored result cannot be read (it is then refused, never entered): a row stored
    before the server checked what boards send never stops the ingest nor a page."""

    def is_overdue(self, now: float | None = None) -> bool:
        """Still waiting for the players after the confirmation time: staff should look."""
        return self.status == "waiting" and (time.time() if now is None else now) > self.deadline

    @property
    def needs_staff(self) -> bool:
        return self.status in ("clash", "refused") or self.is_overdue()

    def to_json(self, *, now: float | None = None) -> dict[str, Any]:
        return {
            "game": self.game,
            "board": self.board,
            "board_game": self.board_game,
            "assignment": self.assignment,
            "status": self.status,
            "overdue": self.is_overdue(now),
            "players": list(self.players),
            "points": list(self.points),
            "confirmed": list(self.confirmed),
            "confirmed_by": self.confirmed_by,
            "received_at": round(self.received_at, 3),
            "deadline": round(self.deadline, 3),
            "entry": self.entry_id,
            "problem": self.problem,
        }


def _result(row: Record) -> BoardResult:
    points: tuple[int, ...] = ()
    lightings: tuple[Lighting, ...] | None = None
    unreadable = None
    try:
        result: Mapping[str, Any] = json.loads(row["result"] or "{}")
        points = tuple(int(p) for p in result.get("points") or ())
        made = result.get("lightings")
        lightings = None if not isinstance(made, list) else tuple(Lighting.from_dict(x) for x in made)
    except (ValueError, TypeError, KeyError, AttributeError, OverflowError) as exc:
        points, lightings = (), None
        unreadable = f"the board's result cannot be read ({type(exc).__name__}: {str(exc)[:200]})"
    return BoardResult(
        game=int(row["game"]),
        assignment=str(row["assignment"]),
        status=str(row["status"]),
        confirmed=tuple(json.loads(row["confirmed"])),
        confirmed_by=row["confirmed_by"],
        received_at=float(row["received_at"]),
        deadline=float(row["deadline"]),
        entered_at=row["entered_at"],
        entry_id=row["entry_id"],
        problem=row["problem"] or unreadable,
        board=str(row["board"]),
        board_game=int(row["board_game"]),
        players=tuple(json.loads(row["players"])),
        points=points,
        lightings=lightings,
        history=str(row["history"]),
        unreadable=unreadable,
    )


class Results:
    """The boards' results, on one connection."""

    def __init__(self, conn: Connection, *, clock: Callable[[], float] = time.time) -> None:
        self.conn = conn
        self.clock = clock

    def all(self) -> list[BoardResult]:
        return [_result(r) for r in self.conn.execute(sql.RESULTS)]

    def get(self, game: int) -> BoardResult:
        row = self.conn.execute(sql.RESULT, (game,)).fetchone()
        if row is None:
            raise ResultNotFoundError(f"no result from a board for game {game}")
        return _result(row)

    def needing_staff(self) -> list[BoardResult]:
        now = self.clock()
        return [r for r in self.all() if r.status in ("clash", "refused") or r.is_overdue(now)]

    # -- staff ------------------------------------------------------------------------------

    def confirm(self, game: int, *, actor: str) -> BoardResult:
        """Staff confirm a waiting result for the players (overdue or not); the ingest then enters it
        (:meth:`settle` runs in one place only, so two threads never race to enter one result)."""
        with transaction(self.conn):
            result = self.get(game)
            if result.status != "waiting":
                raise ResultStateError(f"this result is {result.status}, not waiting for confirmation")
            everyone = json.dumps(list(range(len(result.players))))
            self.conn.execute(sql.RESULT_CONFIRM, (everyone, f"staff ({actor})", "confirmed", game))
        return self.get(game)

    def use_board_result(self, game: int, *, actor: str) -> BoardResult:
        """A clash: staff correct the table with the board's result (the hand entry stays in the audit)."""
        result = self.get(game)
        if result.status != "clash":
            raise ResultStateError(f"this result is {result.status}: only a clash is resolved this way")
        assignment = Assignments(self.conn).get(result.assignment)
        marks = [] if (refused := _refusal(result, assignment)) is None else [refused]
        if assignment is not None and not marks:
            label = Boards(self.conn).get(result.board).name
            marks = self._entries(assignment.tournament_id, [Pending(result, assignment, label)], actor=actor)
        self._mark(marks)
        return self.get(game)

    def dismiss(self, game: int, *, actor: str) -> BoardResult:
        """A clash or a refusal: staff keep the tournament as it is; the board's result stays on record."""
        with transaction(self.conn):
            result = self.get(game)
            if result.status not in ("clash", "refused", "waiting"):
                raise ResultStateError(f"this result is {result.status}: there is nothing to dismiss")
            note = f"dismissed by {actor}" + (f" ({result.problem})" if result.problem else "")
            self.conn.execute(sql.RESULT_SETTLE, ("dismissed", None, None, note, game))
        return self.get(game)

    # -- entering ---------------------------------------------------------------------------

    def settle(self) -> list[BoardResult]:
        """Enter every confirmed result into its tournament; the results it moved on, as they are now.

        One statement reads them all with their tables and boards; the results of one tournament go in
        together (:meth:`Tournaments.record_each`: the tournament loaded once, one commit), and how each
        moved on is written in one more transaction: a round ending on fifty boards at once is neither
        fifty replays nor fifty statements a result."""
        marks: list[Mark] = []
        by_tournament: dict[int, list[Pending]] = {}
        for row in self.conn.execute(sql.RESULTS_TO_ENTER).fetchall():
            result = _result(row)
            if result.unreadable is not None:
                marks.append((result, "refused", None, result.unreadable))
                continue
            assignment = None if row["a_id"] is None else assignment_from_row(row, prefix="a_")
            refused = _refusal(result, assignment)
            if refused is not None or assignment is None:
                marks += [refused] if refused is not None else []
                continue
            label = row["board_label"] or result.board
            by_tournament.setdefault(assignment.tournament_id, []).append(Pending(result, assignment, label))
        for tournament_id, items in by_tournament.items():
            marks += self._entries_apart(tournament_id, items)
        moved = self._mark(marks)
        return sorted(moved, key=lambda r: r.game)

    def _entries_apart(self, tournament_id: int, items: list[Pending]) -> list[Mark]:
        """:meth:`_entries`, and when a result the board sent makes that fail (a row stored before the
        server checked what boards send), each result alone: the one at fault is refused with the
        reason, the others go in. A failing database is not the results' fault: it propagates."""
        try:
            return self._entries(tournament_id, items, actor=None)
        except _UNUSABLE as exc:
            if len(items) == 1:
                return [(items[0].result, "refused", None, _unusable(exc))]
        marks: list[Mark] = []
        for pending in items:
            try:
                marks += self._entries(tournament_id, [pending], actor=None)
            except _UNUSABLE as exc:
                marks.append((pending.result, "refused", None, _unusable(exc)))
        return marks

    def _entries(self, tournament_id: int, items: list[Pending], *, actor: str | None) -> list[Mark]:
        """Record *items* into the tournament (corrections when *actor*, staff, asks); how each moved on.

        Everything is decided on the tournament :meth:`Tournaments.record_each` loads inside its write
        transaction (the one replay, and the state no other process can change meanwhile): a result
        recorded under its request id already is entered (a crash before its mark was written), one
        the tournament refuses is a clash when the table has a result, else refused."""
        correction = actor is not None
        suffix = ":correction" if correction else ""
        entries: list[tuple[Command, str, str | None]] = [
            (
                _command(p, correction=correction),
                actor or f"board {p.label}",
                f"board:{p.result.board}:{p.result.history}:{p.result.board_game}{suffix}",
            )
            for p in items
        ]
        tournaments = Tournaments(self.conn)
        try:
            outcomes = tournaments.record_each(tournament_id, entries)
        except TournamentNotFoundError as exc:
            return [(p.result, "refused", None, str(exc)) for p in items]
        marks: list[Mark] = []
        fresh: Tournament | None = None
        for pending, outcome in zip(items, outcomes, strict=True):
            result, assignment = pending.result, pending.assignment
            if isinstance(outcome, Recorded):
                marks.append((result, "entered", outcome.entry.id, None))
                continue
            fresh = fresh or tournaments.load(tournament_id)
            if not correction and fresh.result(assignment.round, assignment.table) is not None:
                marks.append(self._clash(result, fresh, assignment.round, assignment.table))
            else:
                marks.append(
                    (result, "refused", None, f"round {assignment.round} table {assignment.table}: {outcome}")
                )
        return marks

    def _clash(self, result: BoardResult, t: Tournament, round_number: int, table: int) -> Mark:
        recorded = t.result(round_number, table)
        source = recorded.source.get("kind", "tablet") if recorded is not None else "tablet"
        points = list(recorded.points) if recorded is not None else []
        return (
            result,
            "clash",
            None,
            f"round {round_number} table {table} already has a result ({source}"
            f" entry, points {points}): the board's result was not entered over it",
        )

    def _mark(self, marks: list[Mark]) -> list[BoardResult]:
        """Record how results moved on, in one transaction; an entered result's board is free again.
        The results as they are now."""
        if not marks:
            return []
        now = self.clock()
        moved = []
        with transaction(self.conn):
            for result, status, entry, problem in marks:
                entered_at = now if status == "entered" else None
                self.conn.execute(sql.RESULT_SETTLE, (status, entered_at, entry, problem, result.game))
                moved.append(
                    dataclasses.replace(
                        result, status=status, entered_at=entered_at, entry_id=entry, problem=problem
                    )
                )
            Assignments(self.conn).finish_each_within(
                [result.assignment for result, status, _, _ in marks if status == "entered"]
            )
        return moved


_UNUSABLE = (ValueError, TypeError, LookupError, ArithmeticError)
"""What a board's unusable result raises while it is entered (never a database error)."""


def _unusable(exc: Exception) -> str:
    return f"the board's result cannot be entered ({type(exc).__name__}: {str(exc)[:200]})"


class Pending(NamedTuple):
    """A confirmed result to enter, with its table and its board's name."""

    result: BoardResult
    assignment: Assignment
    label: str


def _command(pending: Pending, *, correction: bool) -> Command:
    """The tournament entry of a board's result, made on the tournament it is recorded into: its points
    and lamp order in the table's seat order (a table whose players are not the board's is refused)."""
    result, assignment = pending.result, pending.assignment

    def command(t: Tournament) -> ResultEvent:
        table = t.round(assignment.round).table(assignment.table)
        order, mapping = seat_order([t.names[p] for p in table.seats], result.players)
        points = [result.points[i] for i in order]
        lightings = None
        if result.lightings is not None:
            seat_at = {board_seat: seat for seat, board_seat in enumerate(order)}
            lightings = [
                Lighting(tuple(seat_at[s] for s in x.seats), None if x.by is None else seat_at[x.by])
                for x in result.lightings
            ]
        source = {
            "kind": "board",
            "board": result.board,
            "label": pending.label,
            "game_id": result.board_game,
            "event_game": result.game,
            "seats": mapping,
        }
        return t.import_result(
            assignment.round,
            assignment.table,
            points,
            source=source,
            lightings=lightings,
            correction=correction,
        )

    return command


def _refusal(result: BoardResult, assignment: Assignment | None) -> Mark | None:
    """Why the result cannot go into the table it names, if it cannot: the event server never made that
    table, or moved it to another board before this result arrived."""
    if assignment is None:
        return (
            result,
            "refused",
            None,
            f"the game names table assignment {result.assignment}, which this event server never made",
        )
    if assignment.board != result.board:
        return (
            result,
            "refused",
            None,
            f"round {assignment.round} table {assignment.table} was moved from board {result.board} to"
            f" {assignment.board or 'no board'} before this result arrived",
        )
    return None
