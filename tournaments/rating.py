"""The rating beside the general ranking: a strength that knows whom a player met, and how sure it is.

Points per game (:mod:`tournaments.ranking`) is the rules text's reading of
the general ranking and stays it. As a measure of strength it ignores the
opponents (a table of weaker players inflates it; a table of four is worth
2.25 points a game on average, a duel 2), carries no uncertainty (the
five-game threshold stands in for one) and jumps when an old game leaves the
window. The rating is OpenSkill's Weng-Lin Plackett-Luce model
(``openskill.models.PlackettLuce``, made for any number of players at a
table, with ties), updated game by game in date order.

Decisions where the rules text is silent (docs/ranking.md, "The rating"):

- A game's **order** is its lamp order: the players never lit rank first,
  the last lamp lit next, …, the first lamp lit last; lamps lit on the same
  placement tie. A result entered as points only (no lamp order) ranks by
  its points, equal points tied.
- A seat **played by the computer** (a player who did not come to an online
  table) is left out: its player did not play, and a computer has no place
  in the registry. The others are rated on their order among themselves; a
  game with fewer than two players left does not count.
- One game says less than in a game of pure skill: OpenSkill's β (a game's
  variation around the strengths) is 10, not the library's 25/6.
- The rating **shown** is conservative: mean − 3 × uncertainty (a newcomer
  shows 0 and climbs as their games make it surer).
- No window: the **uncertainty grows with inactivity** (its square by
  ``drift²`` a year, never above a newcomer's), so a player away for a long
  time sinks gently instead of leaving at a date.
- A table's **chances** are the Plackett-Luce model's chance of finishing
  first, softmax(strength / β), averaged over what the rating does not know
  of each strength (normal, of the player's mean and uncertainty):
  :func:`win_chances`. OpenSkill's own ``predict_win`` (pairwise
  approximations) is less well calibrated on ``bench/rating.py``'s seasons.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from openskill.models import PlackettLuce

from games.hautetension.outcome import Lighting

YEAR = 365 * 86400.0

_MODEL = PlackettLuce()
MU: float = _MODEL.mu
"""A newcomer's mean (25)."""
SIGMA: float = _MODEL.sigma
"""A newcomer's uncertainty (25 / 3)."""
BETA: float = _MODEL.beta
"""OpenSkill's default variation of one game around the strengths (25 / 6), for comparison."""


@dataclass(frozen=True)
class RatingRules:
    """How the rating is shown and how it forgets."""

    spread: float = 3.0
    """Uncertainties taken off the mean for the rating shown (mean − spread × uncertainty)."""
    drift: float = 4.0
    """Uncertainty a year of inactivity adds (in quadrature: σ² grows by drift² a year)."""
    beta: float = 10.0
    """How much one game's order varies around the players' strengths (OpenSkill's β), and the scale of a
    table's chances (softmax(strength / β), :func:`win_chances`). The library's 25/6 suits games of skill;
    hidden pawns make one game of Haute-Tension say less, and 10 predicts within 0.001 of log-loss of the
    best on ``bench/rating.py``'s calibration seasons, as a β and as the chances' scale (docs/ranking.md)."""

    def __post_init__(self) -> None:
        if not self.spread >= 0:
            raise ValueError("the rating's spread is a number of uncertainties, not negative")
        if not self.drift >= 0:
            raise ValueError("the rating's yearly drift cannot be negative")
        if not self.beta > 0:
            raise ValueError("the rating's β (a game's variation) is positive")

    def shown(self, mu: float, sigma: float) -> float:
        return mu - self.spread * sigma

    def aged(self, sigma: float, days: float) -> float:
        """The uncertainty after *days* without a game."""
        grown = math.sqrt(sigma * sigma + self.drift * self.drift * max(days, 0.0) / 365.0)
        return min(grown, max(sigma, SIGMA))


@dataclass(frozen=True)
class RatedGame:
    """One table's game, as the rating reads it."""

    at: float
    tournament: int
    round: int
    table: int
    players: tuple[int, ...]
    """Registered players, by seat."""
    ranks: tuple[int, ...]
    """Each seat's rank, 1 the best; equal ranks are ties."""
    computers: frozenset[int] = frozenset()
    """Seats a computer played: left out."""

    @property
    def key(self) -> tuple[float, int, int, int]:
        """Date order: when, then tournament, round and table."""
        return (self.at, self.tournament, self.round, self.table)

    def rated_seats(self) -> list[int]:
        return [s for s in range(len(self.players)) if s not in self.computers]


def ranks_of(seats: int, lightings: Sequence[Lighting]) -> tuple[int, ...]:
    """Each seat's rank from the lamp order: never lit first, then the lamps lit last to first."""
    lit: dict[int, int] = {}
    for number, lighting in enumerate(lightings):
        for seat in lighting.seats:
            lit.setdefault(seat, number)
    last = len(lightings)
    # A later lighting is a better rank; never lit is better than any.
    order = [last - lit.get(seat, last) for seat in range(seats)]
    distinct = sorted(set(order))
    return tuple(1 + distinct.index(value) for value in order)


def ranks_by_points(points: Sequence[int]) -> tuple[int, ...]:
    """Each seat's rank from its points alone (a result entered without its lamp order)."""
    return tuple(1 + sum(1 for other in points if other > mine) for mine in points)


@dataclass(frozen=True)
class RatingStep:
    """A player's rating just after one of their games."""

    at: float
    tournament: int
    round: int
    table: int
    mu: float
    sigma: float
    value: float
    """The rating shown (conservative)."""
    change: float
    """How much the rating shown moved with this game (inactivity before it included)."""


@dataclass(frozen=True)
class PlayerRating:
    """A player's rating as of one moment."""

    player: int
    mu: float
    sigma: float
    """As of that moment: grown since the last game."""
    value: float
    games: int
    last_at: float | None
    place: int = 0


@dataclass(frozen=True)
class Chances:
    """A table's chances before its game, by the rating."""

    players: tuple[int, ...]
    win: Mapping[int, float]
    """Player → chance of finishing first (never lit)."""
    newcomers: tuple[int, ...]
    """Players without a rated game yet: their chances say little."""


_HERMITE = (
    (-2.0201828704560856, 0.019953242059045913),
    (-0.9585724646138185, 0.3936193231522412),
    (0.0, 0.9453087204829419),
    (0.9585724646138185, 0.3936193231522412),
    (2.0201828704560856, 0.019953242059045913),
)
"""Gauss-Hermite's five nodes and weights (for ∫ e^(−x²) f(x) dx): exact for polynomials of degree 9."""
_NODES = tuple((math.sqrt(2) * x, w / math.sqrt(math.pi)) for x, w in _HERMITE)
"""The same for an expectation over a standard normal: (z, weight), the weights summing to 1."""


def win_chances(ratings: Sequence[tuple[float, float]], scale: float) -> list[float]:
    """Each player's chance to finish first from their (mean, uncertainty): E[softmax(strength / scale)].

    Plackett-Luce, the model the rating is fitted under, gives a player of known strength s_i the chance
    exp(s_i / scale) / Σ exp(s_j / scale) of finishing first. The rating knows each strength only as a
    normal of its mean and uncertainty, so the chance is averaged over them (Gauss-Hermite, five nodes
    each, all combinations: 625 at a table of four). Equal players get equal chances; the chances sum
    to 1; between two players, the more uncertain the closer to even.
    """
    if not scale > 0:
        raise ValueError("the chances' scale is positive")
    scores = [[(mu + sigma * z) / scale for z, _ in _NODES] for mu, sigma in ratings]
    # One shift for every score, so that each player's exponentials are reckoned once, not per combination.
    top = max(max(row) for row in scores)
    exps = [[math.exp(x - top) for x in row] for row in scores]
    win = [0.0] * len(ratings)
    for combination in itertools.product(range(len(_NODES)), repeat=len(ratings)):
        weight = math.prod(_NODES[k][1] for k in combination)
        row = [exps[seat][k] for seat, k in enumerate(combination)]
        total = sum(row)
        if total == 0.0:  # every exponential underflowed (a scale far below the spread): shift this one alone
            own = max(scores[seat][k] for seat, k in enumerate(combination))
            row = [math.exp(scores[seat][k] - own) for seat, k in enumerate(combination)]
            total = sum(row)
        for seat, e in enumerate(row):
            win[seat] += weight * e / total
    # The weights sum to 1 up to rounding: make the chances sum to 1 exactly.
    whole = sum(win)
    return [w / whole for w in win]


@dataclass
class _State:
    mu: float
    sigma: float
    at: float
    games: int
    shown: float
    """The rating shown just after the last game."""


class Rater:
    """The rating, game by game in date order (what :func:`rate_games` and the benchmark run)."""

    def __init__(self, rules: RatingRules | None = None) -> None:
        self.rules = rules or RatingRules()
        self.model = PlackettLuce(beta=self.rules.beta)
        self._states: dict[int, _State] = {}

    def rating(self, player: int, at: float) -> PlayerRating:
        """*player*'s rating at *at* (a newcomer's when they have no game)."""
        state = self._states.get(player)
        if state is None:
            return PlayerRating(player, MU, SIGMA, self.rules.shown(MU, SIGMA), 0, None)
        sigma = self.rules.aged(state.sigma, (at - state.at) / 86400.0)
        return PlayerRating(player, state.mu, sigma, self.rules.shown(state.mu, sigma), state.games, state.at)

    def players(self) -> list[int]:
        return list(self._states)

    def chances(self, players: Sequence[int], at: float) -> Chances:
        """Each player's chance to finish first at a table of *players* (at least two, different)."""
        if len(players) < 2 or len(set(players)) != len(players):
            raise ValueError("a table has two to four different players")
        ratings = [self.rating(p, at) for p in players]
        win = win_chances([(r.mu, r.sigma) for r in ratings], self.rules.beta)
        return Chances(
            tuple(players),
            dict(zip(players, win, strict=True)),
            tuple(r.player for r in ratings if r.games == 0),
        )

    def rate(self, game: RatedGame) -> dict[int, RatingStep]:
        """Fold in one game (no earlier than the games before it): each rated player's step."""
        seats = game.rated_seats()
        players = [game.players[s] for s in seats]
        if len(seats) < 2 or len(set(players)) != len(players):
            return {}
        before = [self.rating(p, game.at) for p in players]
        teams = [[self.model.rating(mu=r.mu, sigma=r.sigma)] for r in before]
        after = self.model.rate(teams, ranks=[float(game.ranks[s]) for s in seats])
        steps: dict[int, RatingStep] = {}
        for player, old, [new] in zip(players, before, after, strict=True):
            value = self.rules.shown(new.mu, new.sigma)
            last = self._states.get(player)
            # Against the rating shown after the previous game: the inactivity since is in the change.
            change = value - (last.shown if last is not None else old.value)
            self._states[player] = _State(new.mu, new.sigma, game.at, old.games + 1, value)
            steps[player] = RatingStep(
                game.at, game.tournament, game.round, game.table, new.mu, new.sigma, value, change
            )
        return steps


@dataclass(frozen=True)
class Ratings:
    """Every player's rating as of one moment, with each one's steps."""

    at: float
    rules: RatingRules
    lines: list[PlayerRating]
    """Best rating first; equal ratings share a place."""
    steps: dict[int, list[RatingStep]] = field(default_factory=dict)
    """Player → their rating after each of their games, oldest first."""
    rater: Rater | None = field(default=None, compare=False, repr=False)
    """The rater that made them (its players' states as of :attr:`at`), for a table's chances."""

    def line(self, player: int) -> PlayerRating | None:
        return next((line for line in self.lines if line.player == player), None)

    def of(self, player: int) -> PlayerRating:
        """*player*'s rating (a newcomer's when they have no rated game)."""
        line = self.line(player)
        return line if line is not None else Rater(self.rules).rating(player, self.at)

    def chances(self, players: Sequence[int]) -> Chances:
        """The table's chances before its game, as of :attr:`at`."""
        rater = self.rater or Rater(self.rules)
        return rater.chances(players, self.at)


def rate_games(games: Iterable[RatedGame], *, now: float, rules: RatingRules | None = None) -> Ratings:
    """The rating of every player with a rated game no later than *now*, from their games in date order."""
    rater = Rater(rules)
    steps: dict[int, list[RatingStep]] = {}
    for game in sorted((g for g in games if g.at <= now), key=lambda g: g.key):
        for player, step in rater.rate(game).items():
            steps.setdefault(player, []).append(step)
    lines = sorted((rater.rating(p, now) for p in rater.players()), key=lambda r: (-r.value, r.player))
    return Ratings(now, rater.rules, _placed(lines), steps, rater)


def _placed(lines: list[PlayerRating]) -> list[PlayerRating]:
    """Places 1, 2, …; equal ratings (to the shown hundredth) share a place."""
    placed: list[PlayerRating] = []
    for number, line in enumerate(lines, start=1):
        before = placed[-1] if placed else None
        same = before is not None and round(before.value, 2) == round(line.value, 2)
        placed.append(dataclasses.replace(line, place=before.place if same and before else number))
    return placed
