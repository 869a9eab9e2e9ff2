"""A board's reports as the event server receives them, made by hand for the store's tests."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from games.hautetension.tournament_points import Lighting, game_points
from protocol import ReportedRow, StatusReport
from store.dialect import Connection
from store.event.intake import Intake, Receipt
from store.tournaments import Tournaments


class Reports:
    """One board's history: each call makes its next outbox row (``seq`` counting up from *first*)."""

    def __init__(self, board: str = "board-1", *, history: str = "h1", first: int = 1) -> None:
        self.board = board
        self.history = history
        self.first = first
        self.seq = first - 1

    def row(self, kind: str, body: dict[str, Any], *, game: int | None = None) -> ReportedRow:
        self.seq += 1
        return ReportedRow(self.seq, self.history, self.first, kind, game, 1000.0 + self.seq, body)

    def status(self, *, online: bool = True, game: dict[str, Any] | None = None) -> StatusReport:
        body: dict[str, Any] = {"online": online}
        if online:
            body.update(
                history=self.history,
                first=self.first,
                game=game,
                layout="pinwheel-80",
                health={"ok": True, "faults": []},
            )
        return StatusReport(body)

    def game(
        self,
        game: int,
        players: Sequence[str],
        *,
        assignment: str | None = None,
        points: Sequence[int] | None = None,
        lightings: Sequence[dict[str, Any]] | None = None,
        status: str = "over",
    ) -> list[ReportedRow]:
        """A whole game: its start, its end (with the result when over)."""
        start: dict[str, Any] = {"game": game, "players": [{"name": n} for n in players]}
        end: dict[str, Any] = {"game": game, "players": list(players), "status": status}
        if assignment is not None:
            start["assignment"] = end["assignment"] = assignment
        if status == "over":
            # By default seat 0 wins, the others' lamps lighting one by one in seat order.
            made = [Lighting((seat,), by=0) for seat in range(1, len(players))]
            end["lightings"] = list(lightings) if lightings is not None else [x.to_dict() for x in made]
            end["points"] = list(points) if points is not None else list(game_points(len(players), made))
        return [self.row("game-start", start, game=game), self.row("game-end", end, game=game)]

    def agree(self, game: int, seats: Sequence[int], *, by: str = "player") -> ReportedRow:
        return self.row("result-confirmed", {"game": game, "seats": list(seats), "by": by}, game=game)


def send(intake: Intake, board: str, reports: Sequence[Any]) -> Receipt:
    return intake.receive([(board, report) for report in reports])


def a_tournament(conn: Any, players: int = 12, *, seed: int = 3, handicap: bool = False) -> int:
    """A tournament with *players* registered (P1, P2, …) and round 1 made; its id."""
    from store.tournaments import Tournaments

    store = Tournaments(conn)
    tid = store.create("Paris open", seed=seed, handicap=handicap).id
    for n in range(1, players + 1):
        store.record(tid, lambda t, n=n: t.register(f"P{n}"), actor="test")
    store.record(tid, lambda t: t.next_round(), actor="test")
    return tid


def boards_online(intake: Intake, *names: str, accept: bool = True) -> None:
    """Boards that reported their status (and were accepted, labelled "Table <n>" in that order)."""
    from store.event.boards import Boards

    for index, name in enumerate(names, start=1):
        send(intake, name, [Reports(name).status()])
        if accept:
            Boards(intake.conn).accept(name, f"Table {index}", actor="test")


def play(conn: Connection, tid: int, *, seed: int, rounds: int | None = None) -> None:
    """Play the tournament's rounds with seeded random lamp orders (to the end, or *rounds* of them)."""
    store, rng, made = Tournaments(conn), random.Random(seed), 0
    while not store.load(tid).is_over() and (rounds is None or made < rounds):
        store.record(tid, lambda t: t.next_round(), actor="staff@test")
        made += 1
        t = store.load(tid)
        current = t.current_round
        assert current is not None
        for table in current.tables:
            order = rng.sample(range(len(table.seats)), len(table.seats) - 1)
            lightings = [Lighting((s,)) for s in order]
            store.record(
                tid,
                lambda t, r=current.number, n=table.number, x=lightings: t.enter_result(r, n, x),
                actor="staff@test",
            )
