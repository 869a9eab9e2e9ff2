"""Computer players of Haute-Tension: random, heuristic and information-set search.

A computer player sees exactly what its seat sees: it reads the seat's player
view (:meth:`DigitalGame.view`), never the game with its hidden pawn kinds.
"""

from __future__ import annotations

import random
from typing import Final, Protocol

from games.budget import Budget, TimedLevel
from games.exc import GameOverError
from games.frame import DigitalGame, Move, PlayerFactory
from games.hautetension.ai.heuristic import HeuristicPlayer
from games.hautetension.ai.infoset import InformationSet
from games.hautetension.ai.ismcts import ISMCTSPlayer


class Searcher(Protocol):
    def choose_from(self, info: InformationSet) -> tuple[int, bool]: ...


class RandomPlayer:
    """A uniformly random legal placement (slot and kind) from the seat's own stock."""

    def __init__(self, rng: random.Random | None = None) -> None:
        self.rng = rng or random.Random()

    def choose_from(self, info: InformationSet) -> tuple[int, bool]:
        taken = {slot for slot, _ in info.moves} | set(info.handicap)
        free = [s for s in range(len(info.board.slots)) if s not in taken]
        kinds = [k for k, left in zip((True, False), info.stock, strict=True) if left]
        return self.rng.choice([(s, k) for s in free for k in kinds])


class SeatPlayer:
    """Adapts a searcher to the frame's Player protocol: reads the seat's view only."""

    def __init__(self, searcher: Searcher) -> None:
        self.searcher = searcher

    def choose(self, game: DigitalGame) -> Move:
        seat = game.to_act
        if seat is None or seat < 0:
            raise GameOverError("the game is over")
        return self.choose_for_view(game.view(seat))

    def choose_for_view(self, view: dict[str, object]) -> Move:
        info = InformationSet.from_view(view)
        slot, attack = self.searcher.choose_from(info)
        return {"slot": info.board.slots[slot], "pawn": "attack" if attack else "defense"}


def random_player(rng: random.Random) -> SeatPlayer:
    return SeatPlayer(RandomPlayer(rng))


def heuristic_player(rng: random.Random) -> SeatPlayer:
    return SeatPlayer(HeuristicPlayer(rng))


def ismcts_player(rng: random.Random, budget: Budget | None = None) -> SeatPlayer:
    return SeatPlayer(ISMCTSPlayer(rng, budget=budget))


AI_LEVELS: Final[dict[str, PlayerFactory]] = {
    "random": random_player,
    "heuristic": heuristic_player,
    "ismcts": TimedLevel(ismcts_player),
}

__all__ = [
    "AI_LEVELS",
    "HeuristicPlayer",
    "ISMCTSPlayer",
    "InformationSet",
    "RandomPlayer",
    "SeatPlayer",
    "Searcher",
]
