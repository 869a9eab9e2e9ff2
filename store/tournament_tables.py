"""Digital games played as tournament tables: which lobby game plays which table, and its points.

Staff create a table's digital Haute-Tension game from the lobby; the link
between that game and its tournament table is kept here. When the game ends
its tournament points (computed by the rules engine) are entered through the
same engine path as a board game's (``Tournament.import_result``, the lamp
order rebuilt from the game's placements), recorded once whatever sees the
end first (a move's answer, a page's look, the game watch) thanks to a
request id per game. A table that already has a result is not overwritten:
the refusal is kept with the link and the staff enter or correct the result
by hand.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass

from games.hautetension.digital import DigitalHauteTension
from games.hautetension.outcome import Lighting
from store.dialect import Connection
from store.games import GameNotFoundError, GameStore
from store.tournaments import TournamentNotFoundError, Tournaments
from tournaments.exc import TournamentError

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class TableLink:
    """A lobby game that plays one table of a tournament round."""

    game_id: int
    tournament_id: int
    round: int
    table: int
    created_at: float
    entered_at: float | None
    """When its points were entered into the tournament (None: not yet)."""
    refused: str | None
    """Why the tournament refused its points (the table had a result already, …)."""

    @property
    def is_pending(self) -> bool:
        """Whether its points are still to be entered."""
        return self.entered_at is None and self.refused is None


class TournamentTables:
    """The links between lobby games and tournament tables, on one connection."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn

    def link(self, game_id: int, tournament_id: int, round_number: int, table: int) -> TableLink:
        """Record that lobby game *game_id* plays this table."""
        now = time.time()
        self.conn.execute(
            "INSERT INTO digital_tournament_tables (game_id, tournament_id, round, table_number, created_at)"
            " VALUES (?, ?, ?, ?, ?)",
            (game_id, tournament_id, round_number, table, now),
        )
        return TableLink(game_id, tournament_id, round_number, table, now, None, None)

    def get(self, game_id: int) -> TableLink | None:
        row = self.conn.execute(
            "SELECT game_id, tournament_id, round, table_number, created_at, entered_at, refused"
            " FROM digital_tournament_tables WHERE game_id = ?",
            (game_id,),
        ).fetchone()
        return None if row is None else TableLink(*row)

    def is_pending(self, game_id: int) -> bool:
        """Whether the game is a tournament table whose points are still to be entered."""
        link = self.get(game_id)
        return link is not None and link.is_pending

    def running_game(self, tournament_id: int, round_number: int, table: int) -> int | None:
        """The lobby game still being played for this table, if any."""
        row = self.conn.execute(
            "SELECT l.game_id FROM digital_tournament_tables l JOIN digital_games g ON g.id = l.game_id"
            " WHERE l.tournament_id = ? AND l.round = ? AND l.table_number = ? AND g.status = 'running'",
            (tournament_id, round_number, table),
        ).fetchone()
        return None if row is None else int(row[0])

    def games_of_round(self, tournament_id: int, round_number: int) -> list[tuple[int, int]]:
        """(table, game id) of every lobby game made for the round's tables, oldest first."""
        rows = self.conn.execute(
            "SELECT table_number, game_id FROM digital_tournament_tables"
            " WHERE tournament_id = ? AND round = ? ORDER BY game_id",
            (tournament_id, round_number),
        ).fetchall()
        return [(int(row[0]), int(row[1])) for row in rows]

    def enter_result(self, game_id: int) -> None:
        """Enter a finished table game's points into its tournament (once; a refusal is kept)."""
        link = self.get(game_id)
        if link is None or not link.is_pending:
            return
        try:
            record = GameStore(self.conn).get(game_id)
        except GameNotFoundError:
            return
        if not record.is_over():
            return
        game = record.load()
        if not isinstance(game, DigitalHauteTension):
            return  # only Haute-Tension tables are created; a hand-edited database is left alone
        engine = game.game
        points = [int(p) for p in engine.points()]
        lightings = [Lighting(seats=tuple(p.eliminated), by=p.player) for p in engine.history if p.eliminated]
        source: dict[str, object] = {"kind": "digital", "game_id": game_id, "seats": "order"}
        computers = [seat.seat for seat in record.seats if seat.is_ai]
        if computers:
            # Allowed by the organiser for players who did not come or left: the audit trail says so.
            source["computers"] = computers
        try:
            Tournaments(self.conn).record(
                link.tournament_id,
                lambda t: t.import_result(link.round, link.table, points, source=source, lightings=lightings),
                actor=f"digital game {game_id}",
                request_id=f"digital-game-{game_id}",
            )
        except (TournamentError, TournamentNotFoundError, ValueError) as exc:
            self.conn.execute(
                "UPDATE digital_tournament_tables SET refused = ? WHERE game_id = ?", (str(exc), game_id)
            )
            log.warning("digital game %s: its result was not entered into the tournament: %s", game_id, exc)
            return
        self.conn.execute(
            "UPDATE digital_tournament_tables SET entered_at = ? WHERE game_id = ?", (time.time(), game_id)
        )
