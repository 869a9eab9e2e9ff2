"""What a player's own page shows: their next table, the game on its board, their results and standing.

Only what that player may see: their own table (players' names and seats,
who starts, the handicap — all public at a tournament), the board's public
live view (the boards never send anything else), the tournament's public
standings, their own presence, results and flags. Never another player's
link or code, nothing of a board's secret state (no Flask here).
"""

from __future__ import annotations

from typing import Any

from store.dialect import Connection
from store.event.assignments import Assignments
from store.event.attendance import Attendance, PlayerLink, ResultFlags
from store.event.boards import BoardNotFoundError, Boards
from store.event.results import BoardResult, Results
from store.players import Players
from store.ranking import Ranking, TournamentCache
from store.tournaments import Tournaments
from tournaments.model import Table
from tournaments.ranking import RankingRules
from tournaments.tournament import Tournament
from webpanel.event import present
from webpanel.standings import standings_view


def player_view(
    conn: Connection,
    link: PlayerLink,
    *,
    rules: RankingRules | None = None,
    cache: TournamentCache | None = None,
) -> dict[str, Any]:
    """The player's page as data. *rules*: the event's general ranking rules; *cache*: the process's
    kept tournaments for it (a recount from nothing reads every tournament of the season, on every page
    of every phone)."""
    tournaments = Tournaments(conn)
    info = tournaments.get(link.tournament_id)
    t = tournaments.load(link.tournament_id)
    player = link.player
    presence = Attendance(conn).of_tournament(info.id).get(player)
    mine = next((s for s in standings_view(t) if s["player"] == player), None)
    withdrawn = player in t.withdrawn
    over = t.is_over()
    table = _table_view(conn, t, info.id, player)
    return {
        "tournament": {"id": info.id, "name": info.name, "round": len(t.rounds), "over": over},
        "player": {"number": player, "name": t.names.get(player, ""), "withdrawn": withdrawn},
        "here": None if presence is None else presence.here,
        "can_check_in": not withdrawn and not over and not (presence is not None and presence.here),
        "can_leave": not withdrawn and not over and presence is not None and presence.here,
        "can_withdraw": not withdrawn and not over,
        "table": table,
        "results": [
            {"round": g.round, "table": g.table, "seat": g.seat + 1, "points": g.points}
            for g in t.history(player)
        ],
        "standing": None
        if mine is None
        else {k: mine[k] for k in ("place", "points", "status", "status_label", "notes")},
        "players": len(t.names),
        "ranking": _ranking_place(conn, info.id, player, rules, cache),
        "flags": [f.to_json() for f in ResultFlags(conn).of_player(info.id, player)],
    }


def _table_view(conn: Connection, t: Tournament, tid: int, player: int) -> dict[str, Any] | None:
    """The player's table in the latest round (None: not seated in it, or no round yet)."""
    current = t.current_round
    table = None if current is None else next((x for x in current.tables if player in x.seats), None)
    if current is None or table is None:
        return None
    assignments = Assignments(conn).of_round(tid, current.number)
    assignment = next((a for a in assignments if a.table == table.number), None)
    board = None
    if assignment is not None and assignment.board:
        try:
            board = Boards(conn).get(assignment.board)
        except BoardNotFoundError:
            board = None
    board_result = None if assignment is None else Results(conn).of_assignment(assignment.id)
    recorded = t.result(current.number, table.number)
    state = present.table_state(conn, t, current.number, table.number, assignment)
    seat = table.seat_of(player)
    return {
        "round": current.number,
        "table": table.number,
        "board": None if board is None else {"name": board.name, "online": board.online},
        "live": None if board is None else board.live,
        "game": None if board is None or assignment is None else _board_game(board.game, assignment.id),
        "seats": _seats(t, table, player),
        "first": t.names[table.seats[table.first]],
        "you_start": table.first == seat,
        "state": state,
        "points": None if recorded is None else list(recorded.points),
        "confirm": _confirmation(board_result, seat),
    }


def _board_game(game: dict[str, Any] | None, assignment: str) -> dict[str, Any] | None:
    """The board's game of this table as its status says (public: whose turn, how many moves)."""
    if game is None or game.get("assignment") != assignment:
        return None
    to_move = game.get("to_move")
    moves = game.get("moves")
    return {
        "status": str(game.get("status", "")),
        "to_move": to_move if isinstance(to_move, str) else None,
        "paused": game.get("paused") is True,
        "moves": moves if type(moves) is int else None,
    }


def _seats(t: Tournament, table: Table, player: int) -> list[dict[str, Any]]:
    return [
        {
            "seat": i + 1,
            "name": t.names[p],
            "you": p == player,
            "lamp": lamp,
            "handicap": int(table.handicap.get(lamp, 0)),
            "first": i == table.first,
        }
        for i, (p, lamp) in enumerate(zip(table.seats, table.lamps, strict=True))
    ]


def _confirmation(result: BoardResult | None, seat: int) -> dict[str, Any] | None:
    """The board's result waiting for the players, as this seat sees it (None: none to agree to)."""
    if result is None or result.status not in ("waiting", "confirmed"):
        return None
    return {
        "game": result.game,
        "status": result.status,
        "points": list(result.points),
        "agreed": seat in result.confirmed or result.status == "confirmed",
        "agreed_seats": len(result.confirmed),
        "seats": len(result.players),
    }


def _ranking_place(
    conn: Connection, tid: int, player: int, rules: RankingRules | None, cache: TournamentCache | None
) -> dict[str, Any] | None:
    """The player's line of the general ranking, when staff linked them to the player registry."""
    entrant = next((e for e in Players(conn).entrants(tid) if e.player == player), None)
    if entrant is None:
        return None
    registered = Players(conn).canonical().get(entrant.player_id, entrant.player_id)
    line = Ranking(conn, rules, cache=cache).season().line(registered)
    if line is None:
        return None
    return {"place": line.place, "points": line.points, "games": line.games, "ranked": line.is_ranked}
