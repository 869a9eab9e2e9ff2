"""The replay's analysis: what the strongest computer player would have placed, and its chances.

For one move of a finished game, the search (:class:`~games.hautetension.ai.ismcts.ISMCTSPlayer`)
is run from the seat of the player who moved, seeing what that player saw then (their own pawn kinds,
the lamps, who placed where; never the opponents' kinds). It says which placement it would have
made, its estimated chances with it, and its estimated chances with the move actually played, the
same playouts judging both. The analysis needs every pawn's kind (the mover's own kinds are part of
what they saw), so the replay offers it only once the game is fully revealed.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from games.exc import GameError
from games.hautetension.ai.infoset import InformationSet
from games.hautetension.ai.ismcts import ISMCTSPlayer
from games.hautetension.game import Game
from games.hautetension.pawn import PawnKind
from games.hautetension.views import player_view

ITERATIONS = 600
"""Playouts per analysed move: a fraction of a second on a Raspberry Pi, the same every time."""


@dataclass(frozen=True)
class Estimate:
    slot: str
    pawn: PawnKind
    chances: float
    """The search's estimated result for the mover in [0, 1] (mostly its share of the win)."""
    playouts: int


@dataclass(frozen=True)
class MoveAnalysis:
    move: int
    """The move analysed (from 1)."""
    player: int
    best: Estimate
    played: Estimate

    @property
    def is_best(self) -> bool:
        return (self.best.slot, self.best.pawn) == (self.played.slot, self.played.pawn)

    def to_dict(self) -> dict[str, object]:
        def one(e: Estimate) -> dict[str, object]:
            return {"slot": e.slot, "pawn": e.pawn.value, "chances": round(e.chances, 3),
                    "playouts": e.playouts}

        return {"move": self.move, "player": self.player, "best": one(self.best), "played": one(self.played),
                "is_best": self.is_best, "change": round(self.played.chances - self.best.chances, 3)}


def analyse_move(game: Game, move: int, *, seed: int = 0, iterations: int = ITERATIONS) -> MoveAnalysis:
    """Analyse move *move* (from 1) of *game* (a game with its kinds, e.g. rebuilt from a revealed
    record). Seeded: the same game and move give the same answer."""
    if not 1 <= move <= len(game.history):
        raise GameError(f"there is no move {move}: the game has {len(game.history)}")
    before = game.copy()
    while len(before.history) >= move:
        before.pop()
    played = game.history[move - 1]
    info = InformationSet.from_view(player_view(before, played.player))
    searcher = ISMCTSPlayer(random.Random(seed), iterations=iterations)
    actual = (info.board.index[played.slot], played.kind is PawnKind.ATTACK)
    moves, visits, wins = searcher.search(info, also=actual)
    best = max(range(len(moves)), key=lambda k: (visits[k], wins[k]))
    mine = moves.index(actual)

    def estimate(k: int) -> Estimate:
        slot, attack = moves[k]
        chances = wins[k] / visits[k] if visits[k] else 0.0
        pawn = PawnKind.ATTACK if attack else PawnKind.DEFENSE
        return Estimate(info.board.slots[slot], pawn, chances, visits[k])

    return MoveAnalysis(move, played.player, estimate(best), estimate(mine))
