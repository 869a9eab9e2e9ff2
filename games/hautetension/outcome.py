"""Records of a game: placements, eliminations, the outcome, tournament points."""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, TypedDict

from games.exc import GameError
from games.hautetension.pawn import PawnKind

NEVER_LIT_POINTS = 4
RANK_POINTS = {1: 0, 2: 2, 3: 3}
"""Points of the first, second and third player whose lamp lights."""
BONUS_POINTS = {2: 4, 3: 8}
"""Extra points for lighting two or three opponents' lamps with a single pawn."""


class Placement(NamedTuple):
    """One pawn put on the board, and what it did.

    ``kind`` is secret to the player who placed it: views never show it to
    anyone else.

    A named tuple rather than a frozen dataclass because ``Game.push`` makes
    one per placement: building it costs a third of a frozen dataclass's
    ``__init__`` (0.2 µs against 0.65 µs, a sixth of a whole ``push``), and it
    is just as immutable.
    """

    slot: str
    kind: PawnKind
    player: int
    lit: frozenset[str]
    """Lamps this placement lit (owned or not)."""
    eliminated: tuple[int, ...]
    """Seats eliminated by this placement, in seat order."""


@dataclass(frozen=True)
class Elimination:
    """A player whose lamp lit."""

    player: int
    lamp: str
    move: int
    """Number of the placement that lit it, counting from 1."""
    by: int
    """Seat of the player who made that placement."""


class Termination(enum.Enum):
    """Why a game ended."""

    LAST_PLAYER_STANDING = "last player standing"
    SIMULTANEOUS_ELIMINATION = "the last players' lamps lit together"
    FEWER_THAN_TWO_UNLIT_LAMPS = "fewer than two lamps unlit"
    NO_FREE_SLOT = "no free slot"
    NO_PAWN_LEFT = "no pawn left"


class OutcomeData(TypedDict):
    """An :class:`Outcome` as the board state and the journal's ``game-end`` carry it."""

    termination: str
    """The :class:`Termination`'s name (``LAST_PLAYER_STANDING``)."""
    reason: str
    """Its words (``last player standing``)."""
    winners: list[int]


@dataclass(frozen=True)
class Outcome:
    """How a game ended: the winner, or the players tied for the win."""

    termination: Termination
    winners: tuple[int, ...]

    @property
    def winner(self) -> int | None:
        """The single winner, or None when several players are tied."""
        return self.winners[0] if len(self.winners) == 1 else None

    def is_tie(self) -> bool:
        return len(self.winners) > 1

    def to_dict(self) -> OutcomeData:
        return {
            "termination": self.termination.name,
            "reason": self.termination.value,
            "winners": list(self.winners),
        }


def tournament_points(n_players: int, placements: Sequence[Placement]) -> tuple[int, ...]:
    """Tournament points of each seat for one game (see docs/rules-engine.md).

    Rank counts players, not lamps: players whose lamps light on the same
    placement share the best rank they reach (1, 1, 3 …); a lamp nobody owns
    takes no rank. A player whose lamp never lit gets 4. The placer gets a bonus
    for the opponents their single placement eliminates (2 → +4, 3 → +8).
    """
    rank_points = [NEVER_LIT_POINTS] * n_players
    bonus = [0] * n_players
    lit_before = 0
    for placement in placements:
        if not placement.eliminated:
            continue
        rank = lit_before + 1
        for player in placement.eliminated:
            # A fourth rank cannot happen: the game ends when one player is left.
            rank_points[player] = RANK_POINTS.get(rank, RANK_POINTS[3])
        lit_before += len(placement.eliminated)
        opponents = sum(1 for p in placement.eliminated if p != placement.player)
        # Kept even if the placer's own lamp lights later: the bonus was earned by that pawn.
        bonus[placement.player] += BONUS_POINTS.get(min(opponents, 3), 0)
    return tuple(r + b for r, b in zip(rank_points, bonus, strict=True))


class ResultError(GameError, ValueError):
    """A game result that cannot have happened (or cannot be read)."""


MAX_GAME_POINTS = NEVER_LIT_POINTS + max(BONUS_POINTS.values())
"""Twelve: a lamp that never lit plus the bonus for lighting three opponents' lamps at once."""


class LightingData(TypedDict):
    """A :class:`Lighting` as events and the JSON API carry it."""

    seats: list[int]
    by: int | None


@dataclass(frozen=True)
class Lighting:
    """Players' lamps that lit on one placement, and who placed that pawn.

    ``seats`` are seat numbers at the table (0 = first seat clockwise). ``by``
    is the seat that placed the pawn; it only matters (and is then required)
    when several lamps lit at once, because only then can it earn a bonus.
    """

    seats: tuple[int, ...]
    by: int | None = None

    def to_dict(self) -> LightingData:
        return {"seats": list(self.seats), "by": self.by}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Lighting:
        try:
            seats = tuple(int(s) for s in data["seats"])
            by = data.get("by")
            return cls(seats=seats, by=None if by is None else int(by))
        except (KeyError, TypeError, ValueError):
            raise ResultError(f"a lamp lighting is {{'seats': [...], 'by': seat}}, not {data!r}") from None
