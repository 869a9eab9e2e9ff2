"""The two kinds of pawn. They look the same; only attack pawns conduct."""

from __future__ import annotations

import enum

ATTACK_PAWNS = 22
DEFENSE_PAWNS = 3


class PawnKind(enum.Enum):
    ATTACK = "attack"
    DEFENSE = "defense"

    @property
    def conducts(self) -> bool:
        return self is PawnKind.ATTACK
