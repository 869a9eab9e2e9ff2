"""Tournament points of one game entered by hand, from the order the lamps lit.

A table without a controller board reports its game the way players remember
it: which lamps lit, in which order, which lit together on one placement, and
who placed the pawn that lit several at once. Points are never typed: they are
computed here by the same function the game engine uses
(:func:`games.hautetension.outcome.tournament_points`), so a hand-entered game
and the same game played on the board always score the same.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from games.hautetension.outcome import (
    BONUS_POINTS,
    NEVER_LIT_POINTS,
    RANK_POINTS,
    Lighting,
    Placement,
    ResultError,
    tournament_points,
)
from games.hautetension.pawn import PawnKind


def check_lightings(n_seats: int, lightings: Sequence[Lighting]) -> None:
    """Raise :class:`ResultError` unless *lightings* describe a game that can end this way."""
    if not 2 <= n_seats <= 4:
        raise ResultError(f"a table seats 2 to 4 players, not {n_seats}")
    seen: set[int] = set()
    for number, lighting in enumerate(lightings, start=1):
        if not lighting.seats:
            raise ResultError(f"lighting {number} names no lamp")
        for seat in (*lighting.seats, *(() if lighting.by is None else (lighting.by,))):
            if not 0 <= seat < n_seats:
                raise ResultError(f"there is no seat {seat + 1} at a table of {n_seats}")
        repeated = sorted({s for s in lighting.seats if s in seen or lighting.seats.count(s) > 1})
        if repeated:
            raise ResultError(
                f"seat {repeated[0] + 1}'s lamp cannot light twice", code="lit_twice", seat=repeated[0]
            )
        if len(lighting.seats) > 1 and lighting.by is None:
            raise ResultError(
                f"lighting {number} lit several lamps: say who placed the pawn",
                code="placer_missing",
                lighting=number,
                seats=list(lighting.seats),
            )
        if lighting.by is not None and lighting.by in seen:
            raise ResultError(
                f"seat {lighting.by + 1} was already out"
                f" and cannot have placed the pawn of lighting {number}",
                code="placer_out",
                lighting=number,
                seat=lighting.by,
            )
        if n_seats - len(seen) <= 1:
            raise ResultError(
                f"the game was over before lighting {number}: at most one player was left",
                code="game_over_before",
                lighting=number,
            )
        seen.update(lighting.seats)


def game_points(n_seats: int, lightings: Sequence[Lighting]) -> tuple[int, ...]:
    """Points of each seat for a game whose players' lamps lit in this order.

    Seats missing from *lightings* never lit (4 points). Simultaneous lamps
    share the rank they reach; the placer of a pawn that lit two (three)
    opponents' lamps gets +4 (+8).
    """
    check_lightings(n_seats, lightings)
    placements = [
        # The engine scores placements; a hand-entered game has no slot to name.
        Placement(
            slot="",
            kind=PawnKind.ATTACK,
            player=lighting.seats[0] if lighting.by is None else lighting.by,
            lit=frozenset(),
            eliminated=tuple(sorted(lighting.seats)),
        )
        for lighting in lightings
    ]
    return tournament_points(n_seats, placements)


def lightings_of(history: Iterable[Placement]) -> tuple[Lighting, ...]:
    """The lamp order of a game played with the engine (its placements that eliminated someone)."""
    return tuple(Lighting(seats=tuple(p.eliminated), by=p.player) for p in history if p.eliminated)


def possible_points(points: int) -> bool:
    """Whether one player can score *points* in one game: {0, 2, 3, 4} plus a bonus of 0, 4 or 8."""
    bases = {NEVER_LIT_POINTS, *RANK_POINTS.values()}
    bonuses = {0, *BONUS_POINTS.values()}
    return any(points == base + bonus for base in bases for bonus in bonuses)


def check_points(n_seats: int, points: Sequence[int]) -> tuple[int, ...]:
    """Validate points reported for a whole table (e.g. by the board service)."""
    if len(points) != n_seats:
        raise ResultError(f"the table has {n_seats} seats but {len(points)} scores were given")
    try:
        values = tuple(int(p) for p in points)
    except (TypeError, ValueError):
        raise ResultError(f"points must be whole numbers, not {list(points)!r}") from None
    for value in values:
        if not possible_points(value):
            raise ResultError(f"{value} points cannot be scored in one game")
    return values
