"""A board's reports as the event server receives them, made by hand for the store's tests."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from games.hautetension.game import Game
from games.hautetension.layout import load_layout
from games.hautetension.outcome import Lighting
from games.hautetension.reported import ReportedGame
from games.hautetension.seats import default_seats
from protocol import ReportedRow, StatusReport
from store.dialect import Connection
from store.event.intake import Intake, Receipt
from store.tournaments import Tournaments
from tournaments.points import lightings_of


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
        points: Sequence[Any] | None = None,
        first: int = 0,
        handicap: dict[str, int] | None = None,
        seed: int = 0,
        status: str = "over",
        placements: bool = False,
        end: dict[str, Any] | None = None,
    ) -> list[ReportedRow]:
        """A whole game as its board reports it: its start, (with *placements*) a row a placement, its end
        with the game's public record (:func:`played`: a seeded game of random legal placements). *points*
        replaces the points the board claims; *end* replaces fields of the end's body."""
        played_game = played(players, first=first, handicap=handicap, seed=seed)
        start: dict[str, Any] = {
            "game": game,
            "players": [{"name": n} for n in players],
            "first": first,
            "handicap": dict(handicap or {}),
        }
        body: dict[str, Any] = {
            "game": game,
            "players": list(players),
            "status": status,
            "moves": len(played_game.history),
        }
        if assignment is not None:
            start["assignment"] = body["assignment"] = assignment
        if status == "over":
            body["lightings"] = [x.to_dict() for x in lightings_of(played_game.history)]
            body.update(ReportedGame.of_game(played_game).to_json())
            if points is not None:
                body["points"] = list(points)
        body.update(end or {})
        rows = [self.row("game-start", start, game=game)]
        if placements:
            for move, p in enumerate(played_game.history, 1):
                lit, out = sorted(p.lit), list(p.eliminated)
                rows.append(
                    self.row(
                        "placement",
                        {
                            "game": game,
                            "slot": p.slot,
                            "player": p.player,
                            "move": move,
                            "lit": lit,
                            "eliminated": out,
                        },
                        game=game,
                    )
                )
        return [*rows, self.row("game-end", body, game=game)]

    def agree(self, game: int, seats: Sequence[int], *, by: str = "player") -> ReportedRow:
        return self.row("result-confirmed", {"game": game, "seats": list(seats), "by": by}, game=game)


def played(
    players: Sequence[str], *, first: int = 0, handicap: dict[str, int] | None = None, seed: int = 0
) -> Game:
    """A game of these players played to its end on pinwheel-80 with seeded random legal placements."""
    rng = random.Random(seed)
    game = Game(load_layout(), default_seats(list(players)), first=first, handicap=handicap or None)
    while not game.is_over():
        game.push(*rng.choice(game.legal_moves()))
    return game


def table_of(conn: Connection, tid: int, round_number: int, table_number: int) -> dict[str, Any]:
    """The players (names, seat order), first seat and handicap of a tournament's table: what a board
    that plays it reports (``Reports.game(…, **table_of(…))``)."""
    t = Tournaments(conn).load(tid)
    table = t.round(round_number).table(table_number)
    return {
        "players": [t.names[p] for p in table.seats],
        "first": table.first,
        "handicap": dict(table.handicap),
    }


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
