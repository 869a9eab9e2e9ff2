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
correct the table with the board's result. Nor is it believed: the points
entered are the server's, computed from the placements the board reported and
checked against the table (:mod:`games.hautetension.reported`); a result that
does not hold — points its placements do not give, a game the rules had not
ended, another table's players or first player or handicap, a table the event
server never made or gave to another board, a game started before its table
was given — is a *clash* too, with the reason, and can only be dismissed. A
result the tournament itself refuses is *refused*, with the reason. A result
still waiting past its deadline is flagged for staff
(:attr:`BoardResult.is_overdue`), never dropped: staff may confirm it for the
players.
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

from games.hautetension.outcome import Lighting
from games.hautetension.reported import ReportedGame, ReportedGameError, check_table, judge
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
)
from tournaments.model import ResultEvent
from tournaments.tournament import Tournament

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
    """The points the server derived from the board's placements (or, when they do not hold, the points
    the board claimed, for staff to read; empty when it claimed none that can be read)."""
    lightings: tuple[Lighting, ...] | None
    history: str
    claimed: tuple[int, ...] = ()
    """The points the board claimed."""
    report: ReportedGame | None = None
    """The game's public record as the server read it (None: it could not be read)."""
    unsound: str | None = None
    """Why the board's game does not hold, as its end came in (None: it holds)."""
    started: bool = False
    """Whether the game's start is in."""
    started_for: str | None = None
    """The table assignment the game's start names (a game started before its table was made: none)."""
    start_seq: int | None = None
    end_seq: int | None = None

    @property
    def holds(self) -> bool:
        """Whether the board's game was played by the rules and scores what the board says."""
        return self.report is not None and self.unsound is None

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
            "claimed": list(self.claimed),
            "holds": self.holds,
            "confirmed": list(self.confirmed),
            "confirmed_by": self.confirmed_by,
            "received_at": round(self.received_at, 3),
            "deadline": round(self.deadline, 3),
            "entry": self.entry_id,
            "problem": self.problem,
        }


def _result(row: Record) -> BoardResult:
    scored = _scored(row["result"])
    report = _report(scored.get("report"))
    unsound = scored.get("problem") if isinstance(scored.get("problem"), str) else None
    if report is None and unsound is None:
        unsound = "the game's record could not be read (an event server before placements were checked)"
    claimed = report.points if report is not None else ()
    points = _points(scored.get("points")) if unsound is None else claimed
    lightings = _lightings(scored.get("lightings")) if unsound is None else None
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
        problem=row["problem"],
        board=str(row["board"]),
        board_game=int(row["board_game"]),
        players=tuple(json.loads(row["players"])),
        points=points,
        lightings=lightings,
        history=str(row["history"]),
        claimed=claimed,
        report=report,
        unsound=unsound,
        started=row["start_seq"] is not None,
        started_for=row["started_for"],
        start_seq=row["start_seq"],
        end_seq=row["end_seq"],
    )


def _scored(text: str | None) -> dict[str, Any]:
    """What the intake made of a game's end (:func:`store.event.intake._scored`); an unreadable or older
    entry reads as a record that does not hold, never as an error that stops a page."""
    try:
        value = json.loads(text or "{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _report(value: Any) -> ReportedGame | None:
    try:
        return None if value is None else ReportedGame.from_json(value)
    except ReportedGameError:
        return None


def _lightings(value: Any) -> tuple[Lighting, ...] | None:
    """The lamp order the intake derived; anything else (a row stored before the server checked what
    boards send) reads as none, never as an error that stops a page or the ingest."""
    try:
        return None if not isinstance(value, list) else tuple(Lighting.from_dict(x) for x in value)
    except (ValueError, TypeError, KeyError, AttributeError, OverflowError):
        return None


def _points(value: Any) -> tuple[int, ...]:
    if not isinstance(value, list) or not all(type(p) is int for p in value):
        return ()
    return tuple(value)


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

    def agree(self, game: int, seat: int, *, by: str) -> BoardResult:
        """A player agrees from their own page (their link), as at the board's display: their seat is
        counted with the board's "I agree" rows; once every seat agreed (and the game's start is in) it is
        confirmed, and the ingest enters it exactly once, as any confirmed result. Agreeing twice counts
        once."""
        with transaction(self.conn):
            result = self.get(game)
            if result.status not in ("waiting", "confirmed"):
                raise ResultStateError(f"this result is {result.status}, not waiting for confirmation")
            if not 0 <= seat < len(result.players):
                raise ResultStateError(f"the game has no seat {seat + 1}")
            if result.status == "confirmed" or seat in result.confirmed:
                return result
            confirmed = sorted({*result.confirmed, seat})
            complete = set(range(len(result.players))) <= set(confirmed) and result.started
            status = "confirmed" if complete else "waiting"
            self.conn.execute(sql.RESULT_CONFIRM, (json.dumps(confirmed), by, status, game))
        return self.get(game)

    def of_assignment(self, assignment: str) -> BoardResult | None:
        """The latest result a board sent for this table (None: none yet)."""
        row = self.conn.execute(sql.RESULTS_OF_ASSIGNMENT, (assignment,)).fetchone()
        return None if row is None else _result(row)

    def use_board_result(self, game: int, *, actor: str) -> BoardResult:
        """A clash with a hand entry: staff correct the table with the board's result (the hand entry
        stays in the audit). A board's result the server does not believe cannot be used."""
        result = self.get(game)
        if result.status != "clash":
            raise ResultStateError(f"this result is {result.status}: only a clash is resolved this way")
        assignment = Assignments(self.conn).get(result.assignment)
        unbelieved = _unbelieved(result, assignment)
        if unbelieved is not None or assignment is None:
            reason = unbelieved[3] if unbelieved is not None else "no such table"
            raise ResultStateError(f"the board's result cannot be used: {reason}")
        label = Boards(self.conn).get(result.board).name
        marks = self._entries(assignment.tournament_id, [Pending(result, assignment, label)], actor=actor)
        if any(status == "clash" for _, status, _, _ in marks):
            raise ResultStateError(f"the board's result cannot be used: {marks[0][3]}")
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
            assignment = None if row["a_id"] is None else assignment_from_row(row, prefix="a_")
            unbelieved = _unbelieved(result, assignment)
            if unbelieved is not None or assignment is None:
                marks += [unbelieved] if unbelieved is not None else []
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
            if isinstance(outcome, ReportedGameError):
                marks.append((result, "clash", None, f"the board's game does not hold: {outcome}"))
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
    """The tournament entry of a board's result, made on the tournament it is recorded into: the board's
    game checked against the table (players in their seats, first player, handicap) and replayed, its
    points and lamp order the server's own (:mod:`games.hautetension.reported`)."""
    result, assignment = pending.result, pending.assignment

    def command(t: Tournament) -> ResultEvent:
        if result.report is None:
            raise ReportedGameError(result.unsound or "the game's record could not be read")
        table = t.round(assignment.round).table(assignment.table)
        check_table(
            result.report,
            players=[t.names[p] for p in table.seats],
            first=table.first,
            lamps=table.lamps,
            handicap=table.handicap,
        )
        verdict = judge(result.report)
        source = {
            "kind": "board",
            "board": result.board,
            "label": pending.label,
            "game_id": result.board_game,
            "event_game": result.game,
            "seats": "checked",
        }
        return t.import_result(
            assignment.round,
            assignment.table,
            verdict.points,
            source=source,
            lightings=verdict.lightings,
            correction=correction,
        )

    return command


def _unbelieved(result: BoardResult, assignment: Assignment | None) -> Mark | None:
    """Why the board's result cannot go into the table it names, if it cannot — a clash for staff, with
    the reason: the event server never made that table, or gave it to another board; the game started
    before its table was given to the board, or ended before it started; its record does not hold.
    What the table itself says (its players, first player, handicap) is checked as it is entered."""
    reason: str | None = None
    if assignment is None:
        reason = f"the game names table assignment {result.assignment}, which this event server never made"
    elif assignment.board != result.board:
        reason = (
            f"round {assignment.round} table {assignment.table} was not given to board {result.board}"
            f" (it is {assignment.board or 'played without a board'}): the table was moved, or the board"
            " names a table it was not given"
        )
    elif result.started and result.started_for != result.assignment:
        reason = (
            f"the game was started before round {assignment.round} table {assignment.table} was given to"
            f" the board: its start names {'no table' if result.started_for is None else 'another table'}"
        )
    elif result.start_seq is not None and result.end_seq is not None and result.start_seq > result.end_seq:
        reason = "the board reported the game's end before its start"
    elif not result.holds:
        reason = f"the board's game does not hold: {result.unsound}"
    return None if reason is None else (result, "clash", None, reason)
