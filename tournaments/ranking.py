"""The general ranking: players who play often together, told apart over the long term.

« Les tournois regroupent … des joueurs qui jouent souvent ensemble et
souhaitent se départager sur le long terme » -- and « l'ordinateur central qui
tient le classement général ». A tournament's own standings rank by its
points; across tournaments and events the number of games differs from one
player to the next, so the general ranking is by **points per game** over a
rolling window (the season), each game counted with the points the rules
give it (0, 2, 3 or 4, plus 4 or 8).

Decisions where the rules text is silent (docs/ranking.md):

- A player is *ranked* once they played ``min_games`` games in the window;
  the others are listed after the ranked players, as *provisional*, by the
  same order. Order: points per game, then games played, then the best game;
  players equal on all three share their place.
- The *best results* of a player are their best places in finished
  tournaments of the window (place, then the size of the field).
- The handicap proposed for a table follows the tournament rule (one pawn
  per started step of lead of the table's best player(s) over the next-best,
  at most three, level players share it) applied to points per game, with a
  step of half a point a game by default. It is proposed only when every
  player at the table is ranked: a newcomer's points per game say too little.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from tournaments.handicap import table_handicap

DAY = 86400.0


@dataclass(frozen=True)
class RankingRules:
    """How the general ranking counts (``[central] ranking_*``)."""

    window_days: float = 365.0
    """Games older than this many days no longer count (the rolling window)."""
    min_games: int = 5
    """Games in the window a player needs to be ranked (before: provisional)."""
    best_results: int = 3
    """How many of a player's best tournament places are shown."""
    handicap_step: Fraction = Fraction(1, 2)
    """Points per game of lead for each handicap pawn (one per started step, at most three)."""

    def __post_init__(self) -> None:
        if not self.window_days > 0:
            raise ValueError("the ranking's window is a positive number of days")
        if self.min_games < 1:
            raise ValueError("a player needs at least one game to be ranked")
        if self.best_results < 0:
            raise ValueError("the number of best results shown cannot be negative")
        if self.handicap_step <= 0:
            raise ValueError("the handicap step is a positive number of points per game")


@dataclass(frozen=True)
class PlayedGame:
    """One game of one player, as the ranking counts it."""

    player: int
    at: float
    """When its result was first entered (Unix time)."""
    points: int
    tournament: int
    round: int
    table: int


@dataclass(frozen=True)
class Placing:
    """A player's final place in a finished tournament."""

    player: int
    tournament: int
    at: float
    """When the tournament ended (its last result)."""
    place: int
    field: int
    """How many players the tournament had."""


@dataclass(frozen=True)
class RankingLine:
    """One player's line of the general ranking."""

    place: int
    player: int
    games: int
    points: int
    best_game: int
    tournaments: int
    """Tournaments they played a game of in the window."""
    best: tuple[Placing, ...] = field(default=())
    is_ranked: bool = True
    """False: fewer games than ``min_games`` in the window (provisional)."""

    @property
    def per_game(self) -> Fraction:
        return Fraction(self.points, self.games) if self.games else Fraction(0)


@dataclass(frozen=True)
class HandicapProposal:
    """The handicap proposed for a table by the general ranking."""

    pawns: Mapping[int, int]
    """Attack pawns per player of the table (0 for those who carry none)."""
    carriers: tuple[int, ...]
    lead: Fraction
    """The carriers' lead in points per game over the next-best."""
    over: tuple[int, ...]
    unranked: tuple[int, ...]
    """Players of the table not ranked yet: no handicap is proposed while there are any."""


def general_ranking(
    games: Iterable[PlayedGame],
    placings: Iterable[Placing],
    *,
    now: float,
    rules: RankingRules | None = None,
) -> list[RankingLine]:
    """The ranking of every player with a game in the window, ranked players first."""
    rules = rules or RankingRules()
    since = now - rules.window_days * DAY
    counted: dict[int, list[PlayedGame]] = {}
    for game in games:
        if since <= game.at <= now:
            counted.setdefault(game.player, []).append(game)
    best: dict[int, list[Placing]] = {}
    for placing in placings:
        if since <= placing.at <= now and placing.player in counted:
            best.setdefault(placing.player, []).append(placing)
    lines = [_line(player, played, best.get(player, []), rules) for player, played in counted.items()]
    lines.sort(key=lambda line: (not line.is_ranked, *_order(line), line.player))
    return _placed(lines)


def _line(player: int, played: list[PlayedGame], placings: list[Placing], rules: RankingRules) -> RankingLine:
    placings.sort(key=lambda p: (p.place, -p.field, -p.at))
    return RankingLine(
        place=0,
        player=player,
        games=len(played),
        points=sum(g.points for g in played),
        best_game=max(g.points for g in played),
        tournaments=len({g.tournament for g in played}),
        best=tuple(placings[: rules.best_results]),
        is_ranked=len(played) >= rules.min_games,
    )


def _order(line: RankingLine) -> tuple[Fraction, int, int]:
    return (-line.per_game, -line.games, -line.best_game)


def _placed(lines: list[RankingLine]) -> list[RankingLine]:
    """Places 1, 2, … for the ranked and again for the provisional; equal lines share a place."""
    placed: list[RankingLine] = []
    seen = {True: 0, False: 0}  # lines of each group so far (the next place, when not shared)
    for line in lines:
        seen[line.is_ranked] += 1
        before = placed[-1] if placed else None
        if before is not None and before.is_ranked == line.is_ranked and _order(before) == _order(line):
            place = before.place
        else:
            place = seen[line.is_ranked]
        placed.append(dataclasses.replace(line, place=place))
    return placed


def proposed_handicap(
    lines: Mapping[int, RankingLine], players: Sequence[int], *, rules: RankingRules | None = None
) -> HandicapProposal:
    """The handicap the general ranking proposes for a table of *players* (registry ids)."""
    rules = rules or RankingRules()
    if len(players) < 2 or len(set(players)) != len(players):
        raise ValueError("a table has two to four different players")
    unranked = tuple(p for p in players if p not in lines or not lines[p].is_ranked)
    none = {p: 0 for p in players}
    if unranked:
        return HandicapProposal(none, (), Fraction(0), (), unranked)
    per_game = {p: lines[p].per_game for p in players}
    # The tournament rule on integers: points per game over a common denominator, the step alike.
    scale = math.lcm(*(value.denominator for value in [*per_game.values(), rules.handicap_step]))
    scaled = {p: int(value * scale) for p, value in per_game.items()}
    handicap = table_handicap(scaled, int(rules.handicap_step * scale))
    pawns = {p: handicap.pawns if p in handicap.carriers else 0 for p in players}
    return HandicapProposal(pawns, handicap.carriers, Fraction(handicap.lead, scale), handicap.over, ())
