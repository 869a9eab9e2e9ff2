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

import json
import sqlite3
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from games.exc import GameError
from games.hautetension.tournament import Lighting, Tournament
from store.db import transaction
from store.event import sql
from store.event.assignments import Assignment, Assignments
from store.event.boards import Boards
from store.tournaments import (
    BoardGameError,
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


def _result(row: sqlite3.Row) -> BoardResult:
    result: Mapping[str, Any] = json.loads(row["result"] or "{}")
    lightings = result.get("lightings")
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
        points=tuple(int(p) for p in result.get("points") or ()),
        lightings=None
        if not isinstance(lightings, list)
        else tuple(Lighting.from_dict(x) for x in lightings),
        history=str(row["history"]),
    )


class Results:
    """The boards' results, on one connection."""

    def __init__(self, conn: sqlite3.Connection, *, clock: Callable[[], float] = time.time) -> None:
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
        assignment = self._assignment_of(result)
        if assignment is not None:
            self._enter(assignment.tournament_id, [(result, assignment)], correction=True, actor=actor)
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
        """Enter every confirmed result into its tournament; the results it moved on.

        The results of one tournament go in together (:meth:`Tournaments.record_each`: the tournament
        loaded once, one commit), so a round ending on fifty boards at once is not fifty replays."""
        pending = [
            _result(row) for row in self.conn.execute(sql.RESULTS_WITH_STATUS, ("confirmed",)).fetchall()
        ]
        by_tournament: dict[int, list[tuple[BoardResult, Assignment]]] = {}
        for result in pending:
            assignment = self._assignment_of(result)
            if assignment is not None:
                by_tournament.setdefault(assignment.tournament_id, []).append((result, assignment))
        for tournament_id, items in by_tournament.items():
            self._enter(tournament_id, items, correction=False, actor=None)
        return [self.get(result.game) for result in pending]

    def _assignment_of(self, result: BoardResult) -> Assignment | None:
        """The table the result is for, if it still is this board's (else the result is refused)."""
        assignment = Assignments(self.conn).get(result.assignment)
        if assignment is None:
            self._mark(
                [
                    (
                        result,
                        "refused",
                        None,
                        f"the game names table assignment {result.assignment},"
                        " which this event server never made",
                    )
                ]
            )
            return None
        if assignment.board != result.board:
            self._mark(
                [
                    (
                        result,
                        "refused",
                        None,
                        f"round {assignment.round} table {assignment.table} was"
                        f" moved from board {result.board} to {assignment.board or 'no board'} before this"
                        " result arrived",
                    )
                ]
            )
            return None
        return assignment

    def _enter(
        self,
        tournament_id: int,
        items: list[tuple[BoardResult, Assignment]],
        *,
        correction: bool,
        actor: str | None,
    ) -> None:
        tournaments = Tournaments(self.conn)
        marks: list[Mark] = []
        try:
            t = tournaments.load(tournament_id)
        except TournamentNotFoundError as exc:
            self._mark([(result, "refused", None, str(exc)) for result, _ in items])
            return
        entries: list[tuple[Command, str, str | None]] = []
        waiting: list[tuple[BoardResult, Assignment]] = []
        for result, assignment in items:
            request_id = f"board:{result.board}:{result.history}:{result.board_game}" + (
                ":correction" if correction else ""
            )
            earlier = tournaments.find_request(tournament_id, request_id)
            if earlier is not None:  # entered before the mark was written (a crash between the two)
                marks.append((result, "entered", earlier.id, None))
                continue
            if not correction and t.result(assignment.round, assignment.table) is not None:
                marks.append(self._clash(result, t, assignment.round, assignment.table))
                continue
            try:
                command = self._command(t, result, assignment, correction=correction)
            except (GameError, BoardGameError, KeyError, ValueError) as exc:
                marks.append(
                    (result, "refused", None, f"round {assignment.round} table {assignment.table}: {exc}")
                )
                continue
            label = Boards(self.conn).get(result.board).name
            entries.append((command, actor or f"board {label}", request_id))
            waiting.append((result, assignment))
        outcomes = tournaments.record_each(tournament_id, entries) if entries else []
        fresh: Tournament | None = None
        for (result, assignment), outcome in zip(waiting, outcomes, strict=True):
            if isinstance(outcome, Recorded):
                marks.append((result, "entered", outcome.entry.id, None))
                continue
            fresh = fresh or tournaments.load(tournament_id)
            if not correction and fresh.result(assignment.round, assignment.table) is not None:
                marks.append(
                    self._clash(result, fresh, assignment.round, assignment.table)
                )  # a tablet was quicker
            else:
                marks.append(
                    (result, "refused", None, f"round {assignment.round} table {assignment.table}: {outcome}")
                )
        self._mark(marks)

    def _command(
        self, t: Tournament, result: BoardResult, assignment: Assignment, *, correction: bool
    ) -> Command:
        """The tournament entry of a board's result: its points and lamp order in the table's seat order."""
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
            "label": Boards(self.conn).get(result.board).name,
            "game_id": result.board_game,
            "event_game": result.game,
            "seats": mapping,
        }
        return lambda tournament: tournament.import_result(
            assignment.round,
            assignment.table,
            points,
            source=source,
            lightings=lightings,
            correction=correction,
        )

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

    def _mark(self, marks: list[Mark]) -> None:
        """Record how results moved on, in one transaction; an entered result's board is free again."""
        if not marks:
            return
        assignments = Assignments(self.conn)
        with transaction(self.conn):
            for result, status, entry, problem in marks:
                self.conn.execute(
                    sql.RESULT_SETTLE,
                    (status, self.clock() if status == "entered" else None, entry, problem, result.game),
                )
                if status == "entered":
                    assignments.finish_within(result.assignment)
