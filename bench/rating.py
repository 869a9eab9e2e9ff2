"""The rating against points per game: which standing predicts the next games better, as a season grows.

    .venv/bin/python bench/rating.py [--seasons 3] [--seed 1 [--seed 11 ...]] [--handicap]
                                     [--keep FILE] [--quick]

Simulated seasons from the project's own arena. A pool of players of known
different strengths -- each plays as one profile: random moves, the heuristic
player with 30 % and 10 % of random moves (noise), the heuristic player, and
ISMCTS at 10, 30 and 100 iterations (a fixed count, no time budget: the games
are the same on every machine) -- meets in weekly tournaments of the rules'
shape (``tournaments.Tournament``: two drawn rounds, then rounds by the
standings where the first lamp puts a player out, a final of four; without
the handicap, the tournament's default, or with it: ``--handicap``), each
tournament drawing its field from the pool. Every table is played
to its end by the digital Haute-Tension engine.

Before each game, four systems predict who finishes first (never lit):

* **baseline**: knows nothing, every seat alike (1/n);
* **points per game** (the general ranking's): each player's points per game
  so far (a newcomer: the season's mean so far), turned into chances by
  softmax(points per game / T), T fitted on a separate calibration season;
* **rating** (``tournaments.rating``, the product's rules): the chances the
  product shows (``Rater.chances``: the Plackett-Luce chance of finishing
  first averaged over each player's uncertainty, its scale β);
* **OpenSkill's predict_win**: the same rating, its chances by the library's
  own pairwise approximation, for comparison.

The calibration seasons check the product's constants: the run prints which
of several β, and which of several scales of the chances, predicted them best.

Each is scored on what happened: log-loss (−Σ o·log p, o = 1/k for each of k
winners) and Brier score (Σ (p − o)²) of the table's first place, and how
often its favourite won, by how many games the table's players had played
(the season growing). Rating against points per game is a paired comparison:
the mean difference over the same tables, with its standard error counted by
tournament (a tournament's tables share their players). After each
tournament, the rank correlation (Spearman) between each standing and the
players' true strength -- their profile's win share over every game of the
run, hundreds a profile. ``--seed`` repeated pools several runs (each with its
own calibration season); ``--keep FILE`` keeps each run's games (``{seed}`` in
FILE: one file a seed) and scores them again in seconds.

Everything printed is a count of seeded games: the same on any machine.
Only the seconds it took are the machine's.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games.hautetension.ai import InformationSet, RandomPlayer, Searcher  # noqa: E402
from games.hautetension.ai.arena import make  # noqa: E402
from games.hautetension.digital import DigitalHauteTension  # noqa: E402
from games.hautetension.seats import default_lamps  # noqa: E402
from tournaments.points import lightings_of  # noqa: E402
from tournaments.rating import BETA, RatedGame, Rater, RatingRules, ranks_of, win_chances  # noqa: E402
from tournaments.tournament import Tournament  # noqa: E402

DAY = 86400.0


@dataclass(frozen=True)
class Profile:
    """How one player of the pool plays."""

    name: str
    level: str
    iterations: int = 0
    noise: float = 0.0
    """Share of moves played at random instead."""


PROFILES = (
    Profile("random", "random"),
    Profile("heuristic, 30 % noise", "heuristic", noise=0.3),
    Profile("heuristic, 10 % noise", "heuristic", noise=0.1),
    Profile("heuristic", "heuristic"),
    Profile("ISMCTS 10", "ismcts-fixed", 10),
    Profile("ISMCTS 30", "ismcts-fixed", 30),
    Profile("ISMCTS 100", "ismcts-fixed", 100),
)
QUICK_PROFILES = PROFILES[:4]
"""The profiles without search: a smoke run in seconds."""


class Noisy:
    """A searcher that plays a random move instead, now and then."""

    def __init__(self, inner: Searcher, rng: random.Random, noise: float) -> None:
        self.inner, self.rng, self.noise = inner, rng, noise
        self.random = RandomPlayer(rng)

    def choose_from(self, info: InformationSet) -> tuple[int, bool]:
        if self.noise and self.rng.random() < self.noise:
            return self.random.choose_from(info)
        return self.inner.choose_from(info)


def searcher(profile: Profile, rng: random.Random) -> Searcher:
    return Noisy(make(profile.level, rng, profile.iterations), rng, profile.noise)


@dataclass(frozen=True)
class Played:
    """One table's game of a season: who sat where (pool ids), its ranks, its points."""

    game: RatedGame
    points: tuple[int, ...]
    winners: tuple[int, ...]
    """Seats never lit (ranked first)."""
    week: int


def play_table(t: Tournament, number: int, table: int, seed: int, profiles: Sequence[Profile]) -> None:
    """Play one table of the tournament with the engine, seat k by its player's profile; enter its result."""
    seated = t.round(number).table(table)
    lamps = default_lamps(len(seated.seats))
    handicap = {lamps[i]: seated.handicap.get(lamp, 0) for i, lamp in enumerate(seated.lamps)}
    game = DigitalHauteTension(
        [f"p{p}" for p in seated.seats], options={"first": seated.first, "handicap": handicap}, seed=seed
    )
    rng = random.Random(seed)
    players = [searcher(profiles[_pool_id(t, p)], random.Random(rng.getrandbits(64))) for p in seated.seats]
    while not game.is_over():
        seat = game.to_act
        assert seat is not None
        slot, attack = players[seat].choose_from(InformationSet.from_view(game.view(seat)))
        game.push({"slot": game.layout.slots[slot], "pawn": "attack" if attack else "defense"})
    engine = game.game
    lightings = lightings_of(engine.history)
    t.import_result(number, table, [int(x) for x in engine.points()], source={"kind": "digital"},
                    lightings=lightings)


def _pool_id(t: Tournament, number: int) -> int:
    return int(t.names[number].removeprefix("pool-"))


def play_season(seed: int, tournaments: int, field_size: int, profiles: Sequence[Profile],
                pool: int, *, handicap: bool = False) -> list[Played]:
    """A season of weekly tournaments among *pool* players (profile = id modulo the profiles), with the
    tournament's handicap or without it (its default)."""
    rng = random.Random(seed)
    assignment = [profiles[i % len(profiles)] for i in range(pool)]
    played: list[Played] = []
    for week in range(tournaments):
        t = Tournament(seed=f"{seed}-{week}", handicap=handicap)
        for pid in rng.sample(range(pool), field_size):
            t.register(f"pool-{pid}")
        while not t.is_over():
            number = t.next_round()["data"]["round"]
            for table in t.round(number).tables:
                play_table(t, number, table.number, rng.getrandbits(32), assignment)
                result = t.result(number, table.number)
                assert result is not None and result.lightings is not None
                seats = tuple(_pool_id(t, p) for p in table.seats)
                ranks = ranks_of(len(seats), result.lightings)
                at = week * 7 * DAY + number * 3600.0
                game = RatedGame(at, week, number, table.number, seats, ranks)
                winners = tuple(s for s, r in enumerate(ranks) if r == 1)
                played.append(Played(game, result.points, winners, week))
    return played


# -- the systems ------------------------------------------------------------------------------------


class PointsPerGame:
    """The general ranking's measure: points per game so far, as chances by a softmax."""

    def __init__(self, temperature: float) -> None:
        self.temperature = temperature
        self.points: dict[int, int] = {}
        self.games: dict[int, int] = {}

    def per_game(self, player: int) -> float:
        if self.games.get(player):
            return self.points[player] / self.games[player]
        total = sum(self.games.values())
        return sum(self.points.values()) / total if total else 0.0

    def chances(self, players: Sequence[int]) -> list[float]:
        return _softmax([self.per_game(p) / self.temperature for p in players])

    def add(self, played: Played) -> None:
        for player, points in zip(played.game.players, played.points, strict=True):
            self.points[player] = self.points.get(player, 0) + points
            self.games[player] = self.games.get(player, 0) + 1

    def standing(self, player: int) -> float:
        return self.per_game(player)


class Rating:
    """The rating: the chances the product shows (``Rater.chances``)."""

    def __init__(self, rules: RatingRules | None = None) -> None:
        self.rater = Rater(rules)
        self.at = 0.0

    def chances(self, players: Sequence[int]) -> list[float]:
        win = self.rater.chances(players, self.at).win
        return [win[p] for p in players]

    def add(self, played: Played) -> None:
        self.at = played.game.at
        self.rater.rate(played.game)

    def standing(self, player: int) -> float:
        return self.rater.rating(player, self.at).value

    def mean(self, player: int) -> float:
        return self.rater.rating(player, self.at).mu


class Library(Rating):
    """The same rating, its chances by OpenSkill's own ``predict_win`` (pairwise approximations)."""

    def chances(self, players: Sequence[int]) -> list[float]:
        model = self.rater.model
        ratings = (self.rater.rating(p, self.at) for p in players)
        teams = [[model.rating(mu=r.mu, sigma=r.sigma)] for r in ratings]
        return [float(w) for w in model.predict_win(teams)]


class Scaled(Rating):
    """The product's chances with another scale than β: to check β against the calibration seasons."""

    def __init__(self, scale: float) -> None:
        super().__init__()
        self.scale = scale

    def chances(self, players: Sequence[int]) -> list[float]:
        return win_chances([(r.mu, r.sigma) for r in (self.rater.rating(p, self.at) for p in players)],
                           self.scale)


def _softmax(scores: Sequence[float]) -> list[float]:
    top = max(scores)
    weights = [math.exp(s - top) for s in scores]
    return [w / sum(weights) for w in weights]


class Baseline:
    """Knows nothing: every seat alike."""

    def chances(self, players: Sequence[int]) -> list[float]:
        return [1 / len(players)] * len(players)

    def add(self, played: Played) -> None:
        pass

    def standing(self, player: int) -> float:
        return 0.0


SYSTEMS = ("baseline", "points per game", "rating", "OpenSkill's predict_win")
MEAN = "rating's mean"
"""The rating's mean without its uncertainty taken off: how well it orders, apart from how sure it is."""
BUCKETS = ((0, 1), (1, 3), (3, 6), (6, 10), (10, 15), (15, 25), (25, 10**6))
"""Games the table's players had played before it (their mean): the season growing."""
METRICS = ("log_loss", "brier", "favourite_won")


def scores_of(chances: Sequence[float], winners: Sequence[int]) -> tuple[float, float, float]:
    """One table's log-loss, Brier score and whether the favourite won (a share when favourites tie)."""
    target = [1 / len(winners) if s in winners else 0.0 for s in range(len(chances))]
    log_loss = -sum(o * math.log(max(p, 1e-12)) for o, p in zip(target, chances, strict=True))
    brier = sum((p - o) ** 2 for o, p in zip(target, chances, strict=True))
    best = max(chances)
    favourites = [s for s, p in enumerate(chances) if p == best]
    # A favourite shared by k seats is right for the share of them that won.
    return log_loss, brier, sum(1 for s in favourites if s in winners) / len(favourites)


@dataclass(frozen=True)
class Predicted:
    """One table's game as every system predicted it."""

    tournament: tuple[int, int, int]
    """(seed, season, week): the tables of one tournament share their players, so their scores are not
    independent; the standard errors count tournaments, not tables."""
    bucket: int
    scores: dict[str, tuple[float, float, float]]
    """System → log-loss, Brier score, favourite won."""

    def metric(self, system: str, name: str) -> float:
        return self.scores[system][METRICS.index(name)]


def mean_of(tables: Sequence[Predicted], system: str, name: str) -> float:
    return math.fsum(t.metric(system, name) for t in tables) / len(tables)


def difference(tables: Sequence[Predicted], name: str, a: str, b: str) -> tuple[float, float]:
    """The mean of *a* − *b* over the same tables (paired) and its standard error, clustered by tournament:
    the spread of each tournament's sum of differences around the mean, a tournament a draw."""
    diffs = [t.metric(a, name) - t.metric(b, name) for t in tables]
    mean = math.fsum(diffs) / len(diffs)
    clusters: dict[tuple[int, int, int], float] = {}
    for table, d in zip(tables, diffs, strict=True):
        clusters[table.tournament] = clusters.get(table.tournament, 0.0) + d - mean
    g = len(clusters)
    if g < 2:
        return mean, float("nan")
    return mean, math.sqrt(g / (g - 1) * math.fsum(v * v for v in clusters.values())) / len(diffs)


@dataclass
class Evaluation:
    tables: list[Predicted] = field(default_factory=list)
    correlations: dict[str, dict[int, list[float]]] = field(default_factory=dict)
    """System → tournaments played so far → Spearman of each season."""
    games_per_player: dict[int, list[float]] = field(default_factory=dict)
    """Tournaments so far → median games of the players who played, each season."""

    def bucket(self, index: int | None) -> list[Predicted]:
        """The tables of one bucket (None: every table)."""
        return [t for t in self.tables if index is None or t.bucket == index]


@dataclass(frozen=True)
class Fitted:
    """What a calibration season fitted: points per game's softmax temperature."""

    per_game: float


def systems(fitted: Fitted) -> dict[str, PointsPerGame | Rating | Baseline]:
    return {
        "baseline": Baseline(),
        "points per game": PointsPerGame(fitted.per_game),
        "rating": Rating(),
        "OpenSkill's predict_win": Library(),
    }


def evaluate(seasons: Sequence[list[Played]], fitted: Fitted, strength: dict[int, float],
             into: Evaluation | None = None, seed: int = 0) -> Evaluation:
    """Predict every game of every season before it is played, each system from the games before."""
    out = into or Evaluation()
    for number, season in enumerate(seasons):
        running = systems(fitted)
        games: dict[int, int] = {}
        for index, played in enumerate(season):
            players = played.game.players
            mean = sum(games.get(p, 0) for p in players) / len(players)
            bucket = next(i for i, (lo, hi) in enumerate(BUCKETS) if lo <= mean < hi)
            scores = {name: scores_of(system.chances(players), played.winners)
                      for name, system in running.items()}
            out.tables.append(Predicted((seed, number, played.week), bucket, scores))
            for system in running.values():
                system.add(played)
            for p in players:
                games[p] = games.get(p, 0) + 1
            last_of_week = index + 1 == len(season) or season[index + 1].week != played.week
            if last_of_week:
                done = played.week + 1
                seen = sorted(games)
                out.games_per_player.setdefault(done, []).append(statistics.median(games[p] for p in seen))
                truth = [strength[p] for p in seen]
                standings = {name: [system.standing(p) for p in seen] for name, system in running.items()}
                rating = running["rating"]
                assert isinstance(rating, Rating)
                standings[MEAN] = [rating.mean(p) for p in seen]
                for name, values in standings.items():
                    out.correlations.setdefault(name, {}).setdefault(done, []).append(spearman(values, truth))
    return out


def spearman(xs: Sequence[float], ys: Sequence[float]) -> float:
    """Rank correlation, ties averaged; 0 when either side is constant (it orders nothing)."""
    rx, ry = _ranks(xs), _ranks(ys)
    if len(set(rx)) < 2 or len(set(ry)) < 2:
        return 0.0
    mx, my = statistics.fmean(rx), statistics.fmean(ry)
    cov = sum((a - mx) * (b - my) for a, b in zip(rx, ry, strict=True))
    return cov / math.sqrt(sum((a - mx) ** 2 for a in rx) * sum((b - my) ** 2 for b in ry))


def _ranks(values: Sequence[float]) -> list[float]:
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2
        i = j + 1
    return ranks


BETAS = (BETA, 6.0, 8.0, 10.0, 12.0, 16.0)
"""The rating's β tried on the calibration seasons (the library's 25/6 first)."""
SCALES = (6.0, 8.0, 9.0, 10.0, 11.0, 12.0, 14.0)
"""The chances' scale tried on the calibration seasons (the product's is β)."""


def fit_beta(seasons: Sequence[list[Played]]) -> float:
    """The rating's β with the least log-loss on the calibration seasons (to check the product's)."""
    return min(BETAS, key=lambda beta: _loss(seasons, lambda: Rating(RatingRules(beta=beta))))


def fit_scale(seasons: Sequence[list[Played]]) -> float:
    """The chances' scale with the least log-loss on the calibration seasons (to check the product's β)."""
    return min(SCALES, key=lambda scale: _loss(seasons, lambda: Scaled(scale)))


def fit(seasons: Sequence[list[Played]]) -> Fitted:
    """Points per game's softmax temperature with the least log-loss on the calibration seasons."""
    candidates = [0.25 * 1.25**k for k in range(30)]
    return Fitted(min(candidates, key=lambda t: _loss(seasons, lambda: PointsPerGame(t))))


def _loss(seasons: Sequence[list[Played]], make: Callable[[], PointsPerGame | Rating]) -> float:
    total, games = 0.0, 0
    for season in seasons:
        system = make()
        for played in season:
            total += scores_of(system.chances(played.game.players), played.winners)[0]
            games += 1
            system.add(played)
    return total / games


def true_strength(seasons: Sequence[list[Played]], profiles: Sequence[Profile]) -> dict[str, float]:
    """Each profile's win share (1/k for a k-way first place) over every game."""
    won: dict[str, float] = {}
    seats: dict[str, int] = {}
    for season in seasons:
        for played in season:
            for seat, player in enumerate(played.game.players):
                name = profiles[player % len(profiles)].name
                seats[name] = seats.get(name, 0) + 1
                if seat in played.winners:
                    won[name] = won.get(name, 0.0) + 1 / len(played.winners)
    return {p.name: won.get(p.name, 0.0) / seats[p.name] for p in profiles if seats.get(p.name)}


# -- the command ------------------------------------------------------------------------------------


def run(args: argparse.Namespace, progress: Callable[[str], None]) -> str:
    profiles = QUICK_PROFILES if args.quick else PROFILES
    pool = args.pool or 3 * len(profiles)
    started = time.process_time()
    played = {seed: _played(args, seed, profiles, pool, progress) for seed in args.seeds}
    calibration = [season for cal, _ in played.values() for season in cal]
    every = [season for cal, scored in played.values() for season in (*cal, *scored)]
    by_profile = true_strength(every, profiles)
    strength = {p: by_profile[profiles[p % len(profiles)].name] for p in range(pool)}
    evaluation = Evaluation()
    temperatures = {}
    for seed, (cal, scored) in played.items():
        temperatures[seed] = fit(cal)
        evaluate(scored, temperatures[seed], strength, evaluation, seed)
    checked = {"beta": fit_beta(calibration), "scale": fit_scale(calibration)}
    seconds = time.process_time() - started
    return report(args, profiles, pool, played, temperatures, checked, by_profile, evaluation, seconds)


def _played(args: argparse.Namespace, seed: int, profiles: Sequence[Profile], pool: int,
            progress: Callable[[str], None]) -> tuple[list[list[Played]], list[list[Played]]]:
    """One seed's calibration seasons and seasons scored: played, or read back from ``--keep`` when it
    holds the games of the same command (playing is the slow part; scoring takes seconds)."""
    key = {"seed": seed} | {name: getattr(args, name) for name in ("seasons", "calibration", "tournaments",
                                                                     "field", "handicap", "quick")}
    key |= {"pool": pool}
    keep = Path(args.keep.replace("{seed}", str(seed))) if getattr(args, "keep", None) else None
    if keep is not None and keep.exists():
        kept = json.loads(keep.read_text())
        if kept["key"] == key:
            progress(f"games read from {keep}")
            return ([_season_of(s) for s in kept["calibration"]], [_season_of(s) for s in kept["seasons"]])
    calibration = []
    for k in range(args.calibration):
        calibration.append(play_season(seed + 1000 + k, args.tournaments, args.field, profiles, pool,
                                       handicap=args.handicap))
        progress(f"seed {seed}, calibration: {len(calibration[-1])} games")
    seasons = []
    for k in range(args.seasons):
        seasons.append(
            play_season(seed + k, args.tournaments, args.field, profiles, pool, handicap=args.handicap)
        )
        progress(f"seed {seed}, season {k + 1}/{args.seasons}: {len(seasons[-1])} games")
    if keep is not None:
        keep.write_text(json.dumps({"key": key, "calibration": [[_json(p) for p in s] for s in calibration],
                                    "seasons": [[_json(p) for p in s] for s in seasons]}))
    return calibration, seasons


def _json(played: Played) -> dict[str, Any]:
    g = played.game
    return {"at": g.at, "tournament": g.tournament, "round": g.round, "table": g.table,
            "players": list(g.players), "ranks": list(g.ranks), "points": list(played.points),
            "winners": list(played.winners), "week": played.week}


def _season_of(rows: list[dict[str, Any]]) -> list[Played]:
    return [
        Played(RatedGame(r["at"], r["tournament"], r["round"], r["table"], tuple(r["players"]),
                         tuple(r["ranks"])), tuple(r["points"]), tuple(r["winners"]), r["week"])
        for r in rows
    ]


def report(args: argparse.Namespace, profiles: Sequence[Profile], pool: int,
           played: dict[int, tuple[list[list[Played]], list[list[Played]]]], temperatures: dict[int, Fitted],
           checked: dict[str, float], by_profile: dict[str, float], evaluation: Evaluation,
           seconds: float) -> str:
    scored = [season for _, seasons in played.values() for season in seasons]
    calibration = [season for cal, _ in played.values() for season in cal]
    games = sum(len(s) for s in scored)
    seats = sum(len(p.game.players) for s in scored for p in s)
    seeds = ", ".join(map(str, played))
    fitted = ", ".join(f"{t.per_game:.2f}" for t in temperatures.values())
    beta = RatingRules().beta
    lines = [
        f"{args.seasons} season(s) of {args.tournaments} weekly tournaments of {args.field}"
        f" {'with' if args.handicap else 'without'} the handicap for each of {len(played)} seed(s) ({seeds}),"
        f" from a pool of {pool} ({len(profiles)} profiles): {games} games, {seats} seats;"
        f" calibration {args.calibration} season(s) a seed, {sum(len(s) for s in calibration)} games;"
        f" points per game's softmax T fitted there: {fitted}."
        f" The rating's β = {beta:g}, also its chances' scale (the product's; the calibration's best β of"
        f" {', '.join(f'{b:.3g}' for b in BETAS)}: {checked['beta']:g}; its best scale of"
        f" {', '.join(f'{b:g}' for b in SCALES)}: {checked['scale']:g})",
        "",
        "True strength (win share over every game of the run, calibration included):",
        "",
        "| profile | win share |",
        "|---|---:|",
        *(f"| {name} | {share:.3f} |" for name, share in sorted(by_profile.items(), key=lambda kv: kv[1])),
        "",
        "Predicting each table's first place, by the games its players had played before it (mean);"
        " rating − points per game: the mean difference over the same tables ± its standard error"
        " (by tournament), negative when the rating predicts better:",
        "",
        "| games before | tables | log-loss: baseline | points per game | rating | OpenSkill's predict_win"
        " | rating − points per game | Brier: baseline | points per game | rating"
        " | rating − points per game | favourite won: points per game | rating |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for index, (lo, hi) in enumerate(BUCKETS):
        tables = evaluation.bucket(index)
        if tables:
            lines.append(_score_row(f"{lo} to {hi}" if hi < 10**6 else f"{lo} or more", tables))
    lines.append(_score_row("**all**", evaluation.bucket(None)))
    lines += [
        "",
        "Rank correlation (Spearman) of each standing with the true strength, after each tournament:",
        "",
        "| tournaments | median games a player | points per game | rating (shown) | rating's mean |",
        "|---:|---:|---:|---:|---:|",
    ]
    for done in sorted(evaluation.games_per_player):
        rho = {name: statistics.fmean(by_done[done]) for name, by_done in evaluation.correlations.items()}
        median = statistics.fmean(evaluation.games_per_player[done])
        lines.append(
            f"| {done} | {median:.1f} | {rho['points per game']:.2f} | {rho['rating']:.2f}"
            f" | {rho[MEAN]:.2f} |"
        )
    lines += ["", f"({seconds:.0f} CPU seconds here; every figure above is a count of seeded games.)"]
    return "\n".join(lines)


def _score_row(label: str, tables: Sequence[Predicted]) -> str:
    b, p, r, o = SYSTEMS
    log_loss, log_se = difference(tables, "log_loss", r, p)
    brier, brier_se = difference(tables, "brier", r, p)
    return (
        f"| {label} | {len(tables)}"
        f" | {mean_of(tables, b, 'log_loss'):.3f} | {mean_of(tables, p, 'log_loss'):.3f}"
        f" | {mean_of(tables, r, 'log_loss'):.3f} | {mean_of(tables, o, 'log_loss'):.3f}"
        f" | {log_loss:+.3f} ± {log_se:.3f}"
        f" | {mean_of(tables, b, 'brier'):.3f} | {mean_of(tables, p, 'brier'):.3f}"
        f" | {mean_of(tables, r, 'brier'):.3f} | {brier:+.3f} ± {brier_se:.3f}"
        f" | {mean_of(tables, p, 'favourite_won'):.2f} | {mean_of(tables, r, 'favourite_won'):.2f} |"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--seasons", type=int, default=3, help="seasons scored")
    parser.add_argument("--calibration", type=int, default=1,
                        help="seasons to fit points per game's softmax on")
    parser.add_argument("--tournaments", type=int, default=10, help="weekly tournaments a season")
    parser.add_argument("--field", type=int, default=12, help="players a tournament")
    parser.add_argument("--pool", type=int, default=0, help="players in the pool (0: three of each profile)")
    parser.add_argument("--seed", type=int, action="append", dest="seeds", metavar="SEED",
                        help="a run's seed (repeated: runs pooled, each with its calibration; default 1)")
    parser.add_argument("--handicap", action="store_true",
                        help="tournaments with the handicap (pawns against the table's best; default: none)")
    parser.add_argument("--keep", metavar="FILE",
                        help="keep the games played in FILE and read them back when it holds this command's"
                        " ({seed} in FILE: one file a seed)")
    parser.add_argument("--quick", action="store_true",
                        help="a smoke run: profiles without search, 2 seasons of 3 tournaments of 8")
    args = parser.parse_args(argv)
    args.seeds = args.seeds or [1]
    if args.keep and len(args.seeds) > 1 and "{seed}" not in args.keep:
        parser.error("several seeds keep their games in one file each: put {seed} in --keep's FILE")
    if args.quick:
        args.seasons, args.tournaments, args.field = 2, 3, 8
    print(run(args, lambda line: print(line, file=sys.stderr)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
