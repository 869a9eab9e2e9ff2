"""A board's reports as the event server receives them, made by hand for the store's tests."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from games.hautetension.tournament_points import Lighting, game_points
from store.event.intake import Intake, Receipt, ReportedRow, StatusReport


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
