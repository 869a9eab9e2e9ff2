"""The general ranking from the event's database: every registered player's games, in every tournament.

The counting is the rules engine's (:mod:`tournaments.ranking`); this
module gathers what it counts. A tournament counts through its players'
links to the registry (:mod:`store.players`): each game of a linked player
is dated by the moment its table's result was first entered (a later
correction changes its points, not its date), with the points the table has
now; a finished tournament gives each linked player a placing. Duplicates
merged in the registry count as the player kept.

Only the tournaments that count (:mod:`store.season`: a friendly or
demonstration tournament does not) are in it; the ranking of one event
counts only that event's.
"""

from __future__ import annotations

import functools
import threading
import time
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from store.dialect import Connection
from store.event import sql
from store.players import Player, Players, holding
from store.season import Calendar
from store.tournaments import AuditEntry, Tournaments
from tournaments.ranking import (
    HandicapProposal,
    Placing,
    PlayedGame,
    RankingLine,
    RankingRules,
    general_ranking,
    proposed_handicap,
)
from tournaments.rating import RatedGame, RatingRules, Ratings, ranks_by_points, ranks_of, rate_games
from tournaments.tournament import Tournament


@dataclass(frozen=True)
class Season:
    """Everything the ranking counted, as of one moment."""

    at: float
    rules: RankingRules
    lines: list[RankingLine]
    players: dict[int, Player]
    games: list[PlayedGame]
    """Every game of a registered player, in the window or not, oldest first."""
    tournaments: dict[int, str]
    """The tournaments those games were played in: id → name."""
    event: str | None = None
    """The event whose tournaments alone it counted (None: every counting tournament)."""
    rated: list[RatedGame] = field(default_factory=list)
    """Every table's game with a registered player, as the rating reads it."""
    rating_rules: RatingRules = field(default_factory=RatingRules)

    @functools.cached_property
    def ratings(self) -> Ratings:
        """The rating of every registered player who played, from every game up to :attr:`at`."""
        return rate_games(self.rated, now=self.at, rules=self.rating_rules)

    def line(self, player_id: int) -> RankingLine | None:
        return next((line for line in self.lines if line.player == player_id), None)

    def games_of(self, player_id: int) -> list[PlayedGame]:
        return [g for g in self.games if g.player == player_id]

    def handicap(self, players: Sequence[int]) -> HandicapProposal:
        """The handicap the ranking proposes for a table of these registered players."""
        return proposed_handicap({line.player: line for line in self.lines}, players, rules=self.rules)


@dataclass(frozen=True)
class _Counted:
    """One tournament as the ranking reads it: its players' names, each one's dated games (round,
    table, points, when), each one's final place if it is over, and its name. Plain values, made
    once per version of the tournament."""

    names: dict[int, str]
    games: dict[int, list[tuple[int, int, int, float]]]
    places: dict[int, int] | None
    ended_at: float | None
    name: str
    tables: list[_Table] = field(default_factory=list)

    @classmethod
    def of(cls, t: Tournament, dates: dict[tuple[int, int], float], name: str) -> _Counted:
        games = {
            number: [
                (line.round, line.table, line.points, dates[(line.round, line.table)])
                for line in t.history(number)
                if line.points is not None and (line.round, line.table) in dates
            ]
            for number in t.names
        }
        over = t.is_over() and bool(dates)
        places = {s.player: s.place for s in t.standings()} if over else None
        ended = max(dates.values()) if over else None
        return cls(dict(t.names), games, places, ended, name, _tables(t, dates))


@dataclass(frozen=True)
class _Table:
    """One table's game as the rating reads it: tournament players by seat, their ranks, when, and the
    seats a computer played."""

    round: int
    table: int
    seats: tuple[int, ...]
    ranks: tuple[int, ...]
    at: float
    computers: frozenset[int]


def _tables(t: Tournament, dates: dict[tuple[int, int], float]) -> list[_Table]:
    tables: list[_Table] = []
    for made in t.rounds:
        for table in made.tables:
            key = (made.number, table.number)
            result = t.results.get(key)
            if result is None or key not in dates:
                continue
            # The lamp order when the result has it; a total imported without it ranks by points.
            ranks = (
                ranks_by_points(result.points)
                if result.lightings is None
                else ranks_of(len(table.seats), result.lightings)
            )
            computers = result.source.get("computers") or []
            seats = frozenset(s for s in computers if isinstance(s, int))
            tables.append(_Table(made.number, table.number, table.seats, ranks, dates[key], seats))
    return tables


class TournamentCache:
    """Tournaments kept replayed, each by its last entry and undo count: a season's recount
    replays only the tournaments that changed since (a new result, an undo).

    Shared by the threads of a process; the tournaments it holds are only read.
    """

    def __init__(self, *, max_tournaments: int = 512) -> None:
        self.max_tournaments = max_tournaments
        self._lock = threading.Lock()
        self._kept: OrderedDict[int, tuple[tuple[Any, ...], _Counted]] = OrderedDict()

    def get(self, tid: int, key: tuple[Any, ...]) -> _Counted | None:
        with self._lock:
            kept = self._kept.get(tid)
            if kept is None or kept[0] != key:
                return None
            self._kept.move_to_end(tid)
            return kept[1]

    def put(self, tid: int, key: tuple[Any, ...], counted: _Counted) -> None:
        with self._lock:
            self._kept[tid] = (key, counted)
            self._kept.move_to_end(tid)
            while len(self._kept) > self.max_tournaments:
                self._kept.popitem(last=False)


class Ranking:
    """The general ranking of the registered players, on one connection."""

    def __init__(
        self, conn: Connection, rules: RankingRules | None = None, *, cache: TournamentCache | None = None
    ) -> None:
        self.conn = conn
        self.rules = rules or RankingRules()
        self.cache = cache

    def season(self, *, now: float | None = None, event: str | None = None) -> Season:
        """The ranking now, of the tournaments that count (of *event*'s alone, with it)."""
        now = time.time() if now is None else now
        counting = Calendar(self.conn).counted(event)
        registry = Players(self.conn)
        canonical = registry.canonical()
        tournaments = Tournaments(self.conn)
        games: list[PlayedGame] = []
        rated: list[RatedGame] = []
        placings: list[Placing] = []
        names: dict[int, str] = {}
        for tid, links in registry.links().items():
            if tid not in counting:
                continue
            counted = self._counted(tournaments, tid)
            players = {e.player: canonical[e.player_id] for e in holding(links, counted.names)}
            if not players:
                continue
            names[tid] = counted.name
            for number, registered in players.items():
                games += [
                    PlayedGame(registered, at, points, tid, r, n)
                    for r, n, points, at in counted.games[number]
                ]
            rated += [_rated(tid, table, players) for table in counted.tables]
            if counted.places is not None and counted.ended_at is not None:
                field = len(counted.names)
                placings += [
                    Placing(registered, tid, counted.ended_at, counted.places[number], field)
                    for number, registered in players.items()
                ]
        games.sort(key=lambda g: (g.at, g.tournament, g.round, g.table, g.player))
        lines = general_ranking(games, placings, now=now, rules=self.rules)
        kept = {p.id: p for p in registry.all()}
        return Season(now, self.rules, lines, kept, games, names, event, rated)

    def _counted(self, tournaments: Tournaments, tid: int) -> _Counted:
        key = tuple(self.conn.execute(sql.TOURNAMENT_CHANGE, (tid,)).fetchone())
        counted = None if self.cache is None else self.cache.get(tid, key)
        if counted is None:
            # One read of the tournament's entries serves its replay and its games' dates.
            info, audit = tournaments.get(tid), tournaments.audit(tid)
            t = Tournament.replay(info.settings, [e.event for e in audit if not e.is_undone])
            counted = _Counted.of(t, _result_dates(audit), info.name)
            if self.cache is not None:
                self.cache.put(tid, key, counted)
        return counted


def _rated(tid: int, table: _Table, registered: dict[int, int]) -> RatedGame:
    """A table's game with registered players: a seat whose player is not linked to the registry is left
    out as a computer's is (the rating, like the ranking, counts registered players only)."""
    left_out = table.computers | {s for s, p in enumerate(table.seats) if p not in registered}
    players = tuple(registered.get(p, -1 - s) for s, p in enumerate(table.seats))
    return RatedGame(table.at, tid, table.round, table.table, players, table.ranks, frozenset(left_out))


def _result_dates(audit: list[AuditEntry]) -> dict[tuple[int, int], float]:
    """Each table's result → when it was first entered (entries undone do not count)."""
    dates: dict[tuple[int, int], float] = {}
    for entry in audit:
        event = entry.event
        if entry.is_undone or event["kind"] != "result":
            continue
        key = (event["round"], event["table"])
        dates[key] = min(dates.get(key, entry.at), entry.at)
    return dates
