"""The rating against points per game: which standing predicts the next games better, as a season grows.

    .venv/bin/python bench/rating.py [--seasons 3] [--tournaments 10] [--field 12] [--quick]

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

Before each game, three systems predict who finishes first (never lit):

* **baseline**: knows nothing, every seat alike (1/n);
* **points per game** (the general ranking's): each player's points per game
  so far (a newcomer: the season's mean so far), turned into chances by
  softmax(points per game / T), T fitted once on a separate calibration season;
* **rating** (``tournaments.rating``, OpenSkill Plackett-Luce, the product's
  rules): its own chances (``Rater.chances``);
* **rating, fitted**: the rating's means turned into chances as points per
  game's are, softmax(mean / T), T fitted on the calibration season: both on
  equal terms, what each knows apart from how it is calibrated.

The β the product's rating uses is checked against the calibration season:
the run prints which of several β predicted it best.

Each is scored on what happened: log-loss (−Σ o·log p, o = 1/k for each of k
winners) and Brier score (Σ (p − o)²) of the table's first place, and how
often its favourite won, by how many games the table's players had played
(the season growing); after each tournament, the rank correlation (Spearman)
between each system's standing and the players' true strength -- their
profile's win share over every game of the run, hundreds a profile.

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
from tournaments.rating import BETA, RatedGame, Rater, RatingRules, ranks_of  # noqa: E402
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
    """The rating: OpenSkill's own chances."""

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


class RatingFitted(Rating):
    """The rating's means as chances the way points per game gets them: softmax(mean / T), T fitted on the
    calibration season. Against points per game on equal terms: what each one knows, both calibrated alike."""

    def __init__(self, temperature: float) -> None:
        super().__init__()
        self.temperature = temperature

    def chances(self, players: Sequence[int]) -> list[float]:
        return _softmax([self.mean(p) / self.temperature for p in players])


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


SYSTEMS = ("baseline", "points per game", "rating", "rating, fitted")
MEAN = "rating's mean"
"""The rating's mean without its uncertainty taken off: how well it orders, apart from how sure it is."""
BUCKETS = ((0, 1), (1, 3), (3, 6), (6, 10), (10, 15), (15, 25), (25, 10**6))
"""Games the table's players had played before it (their mean): the season growing."""


@dataclass
class Score:
    games: int = 0
    log_loss: float = 0.0
    brier: float = 0.0
    favourite_won: float = 0.0

    def add(self, chances: Sequence[float], winners: Sequence[int]) -> None:
        target = [1 / len(winners) if s in winners else 0.0 for s in range(len(chances))]
        self.games += 1
        self.log_loss -= sum(o * math.log(max(p, 1e-12)) for o, p in zip(target, chances, strict=True))
        self.brier += sum((p - o) ** 2 for o, p in zip(target, chances, strict=True))
        best = max(chances)
        favourites = [s for s, p in enumerate(chances) if p == best]
        # A favourite shared by k seats is right for the share of them that won.
        self.favourite_won += sum(1 for s in favourites if s in winners) / len(favourites)

    def mean(self, name: str) -> float:
        return getattr(self, name) / self.games if self.games else float("nan")


@dataclass
class Evaluation:
    scores: dict[str, dict[int, Score]] = field(default_factory=dict)
    """System → bucket index → score."""
    correlations: dict[str, dict[int, list[float]]] = field(default_factory=dict)
    """System → tournaments played so far → Spearman of each season."""
    games_per_player: dict[int, list[float]] = field(default_factory=dict)
    """Tournaments so far → median games of the players who played, each season."""


@dataclass(frozen=True)
class Fitted:
    """What the calibration season fitted: the softmax temperatures of points per game and of the
    rating's means."""

    per_game: float
    mean: float


def systems(fitted: Fitted) -> dict[str, PointsPerGame | Rating | Baseline]:
    return {
        "baseline": Baseline(),
        "points per game": PointsPerGame(fitted.per_game),
        "rating": Rating(),
        "rating, fitted": RatingFitted(fitted.mean),
    }


def evaluate(seasons: Sequence[list[Played]], fitted: Fitted, strength: dict[int, float],
             into: Evaluation | None = None) -> Evaluation:
    """Predict every game of every season before it is played, each system from the games before."""
    out = into or Evaluation()
    for season in seasons:
        running = systems(fitted)
        games: dict[int, int] = {}
        for index, played in enumerate(season):
            players = played.game.players
            mean = sum(games.get(p, 0) for p in players) / len(players)
            bucket = next(i for i, (lo, hi) in enumerate(BUCKETS) if lo <= mean < hi)
            for name, system in running.items():
                out.scores.setdefault(name, {}).setdefault(bucket, Score()).add(
                    system.chances(players), played.winners
                )
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


def fit_beta(seasons: Sequence[list[Played]]) -> float:
    """The rating's β with the least log-loss on the calibration seasons (to check the product's)."""
    return min(BETAS, key=lambda beta: _rating_loss(seasons, RatingRules(beta=beta)))


def _rating_loss(seasons: Sequence[list[Played]], rules: RatingRules) -> float:
    total, games = 0.0, 0
    for season in seasons:
        system = Rating(rules)
        for played in season:
            score = Score()
            score.add(system.chances(played.game.players), played.winners)
            total, games = total + score.log_loss, games + 1
            system.add(played)
    return total / games


def fit(seasons: Sequence[list[Played]]) -> Fitted:
    """The softmax temperatures with the least log-loss on the calibration seasons."""
    candidates = [0.25 * 1.25**k for k in range(30)]
    return Fitted(
        min(candidates, key=lambda t: _loss(seasons, lambda: PointsPerGame(t))),
        min(candidates, key=lambda t: _loss(seasons, lambda: RatingFitted(t))),
    )


def _loss(seasons: Sequence[list[Played]], make: Callable[[], PointsPerGame | Rating]) -> float:
    total, games = 0.0, 0
    for season in seasons:
        system = make()
        for played in season:
            score = Score()
            score.add(system.chances(played.game.players), played.winners)
            total, games = total + score.log_loss, games + 1
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
    calibration, seasons = _played(args, profiles, pool, progress)
    temperatures = fit(calibration)
    beta = fit_beta(calibration)
    by_profile = true_strength([*calibration, *seasons], profiles)
    strength = {p: by_profile[profiles[p % len(profiles)].name] for p in range(pool)}
    evaluation = evaluate(seasons, temperatures, strength)
    seconds = time.process_time() - started
    fitted = {"temperature": temperatures.per_game, "mean": temperatures.mean, "beta": beta}
    return report(args, profiles, pool, calibration, seasons, fitted, by_profile, evaluation, seconds)


def _played(args: argparse.Namespace, profiles: Sequence[Profile], pool: int,
            progress: Callable[[str], None]) -> tuple[list[list[Played]], list[list[Played]]]:
    """The calibration seasons and the seasons scored: played, or read back from ``--keep`` when it holds
    the games of the same command (playing is the slow part; scoring takes seconds)."""
    key = {name: getattr(args, name) for name in ("seed", "seasons", "calibration", "tournaments", "field",
                                                    "handicap", "quick")} | {"pool": pool}
    keep = Path(args.keep) if getattr(args, "keep", None) else None
    if keep is not None and keep.exists():
        kept = json.loads(keep.read_text())
        if kept["key"] == key:
            progress(f"games read from {keep}")
            return ([_season_of(s) for s in kept["calibration"]], [_season_of(s) for s in kept["seasons"]])
    calibration = []
    for k in range(args.calibration):
        calibration.append(play_season(args.seed + 1000 + k, args.tournaments, args.field, profiles, pool,
                                       handicap=args.handicap))
        progress(f"calibration: {len(calibration[-1])} games")
    seasons = []
    for k in range(args.seasons):
        seasons.append(
            play_season(args.seed + k, args.tournaments, args.field, profiles, pool, handicap=args.handicap)
        )
        progress(f"season {k + 1}/{args.seasons}: {len(seasons[-1])} games")
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


def report(args: argparse.Namespace, profiles: Sequence[Profile], pool: int, calibration: list[list[Played]],
           seasons: list[list[Played]], fitted: dict[str, float], by_profile: dict[str, float],
           evaluation: Evaluation, seconds: float) -> str:
    games = sum(len(s) for s in seasons)
    seats = sum(len(p.game.players) for s in seasons for p in s)
    tried = ", ".join(f"{b:.3g}" for b in BETAS)
    lines = [
        f"{args.seasons} seasons of {args.tournaments} weekly tournaments of {args.field}"
        f" {'with' if args.handicap else 'without'} the handicap, seed {args.seed}, from a pool of"
        f" {pool} ({len(profiles)} profiles): {games} games, {seats} seats; calibration"
        f" {args.calibration} season(s), {sum(len(s) for s in calibration)} games;"
        f" softmax T fitted there: points per game {fitted['temperature']:.2f}, the rating's mean"
        f" {fitted['mean']:.2f}; the rating's β"
        f" = {RatingRules().beta:g} (the product's; the calibration's best of {tried}: {fitted['beta']:g})",
        "",
        "True strength (win share over every game of the run, calibration included):",
        "",
        "| profile | win share |",
        "|---|---:|",
        *(f"| {name} | {share:.3f} |" for name, share in sorted(by_profile.items(), key=lambda kv: kv[1])),
        "",
        "Predicting each table's first place, by the games its players had played before it (mean):",
        "",
        "| games before | tables | log-loss: baseline | points per game | rating | rating, fitted"
        " | Brier: baseline | points per game | rating | rating, fitted"
        " | favourite won: points per game | rating |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    total = {name: Score() for name in SYSTEMS}
    for index, (lo, hi) in enumerate(BUCKETS):
        row = {name: evaluation.scores.get(name, {}).get(index) for name in SYSTEMS}
        if not all(row.values()):
            continue
        scores = {name: s for name, s in row.items() if s is not None}
        for name, s in scores.items():
            merged = total[name]
            merged.games += s.games
            merged.log_loss += s.log_loss
            merged.brier += s.brier
            merged.favourite_won += s.favourite_won
        label = f"{lo} to {hi}" if hi < 10**6 else f"{lo} or more"
        lines.append(_score_row(label, scores))
    lines.append(_score_row("**all**", total))
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


def _score_row(label: str, scores: dict[str, Score]) -> str:
    b, p, r, f = (scores[name] for name in SYSTEMS)
    return (
        f"| {label} | {b.games}"
        f" | {b.mean('log_loss'):.3f} | {p.mean('log_loss'):.3f} | {r.mean('log_loss'):.3f}"
        f" | {f.mean('log_loss'):.3f}"
        f" | {b.mean('brier'):.3f} | {p.mean('brier'):.3f} | {r.mean('brier'):.3f} | {f.mean('brier'):.3f}"
        f" | {p.mean('favourite_won'):.2f} | {r.mean('favourite_won'):.2f} |"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--seasons", type=int, default=3, help="seasons scored")
    parser.add_argument("--calibration", type=int, default=1,
                        help="seasons to fit points per game's softmax on")
    parser.add_argument("--tournaments", type=int, default=10, help="weekly tournaments a season")
    parser.add_argument("--field", type=int, default=12, help="players a tournament")
    parser.add_argument("--pool", type=int, default=0, help="players in the pool (0: three of each profile)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--handicap", action="store_true",
                        help="tournaments with the handicap (pawns against the table's best; default: none)")
    parser.add_argument("--keep", metavar="FILE",
                        help="keep the games played in FILE and read them back when it holds this command's")
    parser.add_argument("--quick", action="store_true",
                        help="a smoke run: profiles without search, 2 seasons of 3 tournaments of 8")
    args = parser.parse_args(argv)
    if args.quick:
        args.seasons, args.tournaments, args.field = 2, 3, 8
    print(run(args, lambda line: print(line, file=sys.stderr)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
