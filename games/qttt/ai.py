"""Computer players of quantum tic-tac-toe: random, heuristic and perfect."""

from __future__ import annotations

import random
from typing import Final

from games.frame import DigitalGame, Move, PlayerFactory, RandomPlayer
from games.qttt import rules
from games.qttt.exc import NotationError
from games.qttt.game import QuantumTicTacToe
from games.qttt.solver import PerfectPlay

_WIN: Final = 1000


def _qttt(game: DigitalGame) -> QuantumTicTacToe:
    if not isinstance(game, QuantumTicTacToe):
        raise NotationError(f"a quantum tic-tac-toe player cannot play {game.name}")
    return game


def _json_move(kind: str, squares: tuple[int, ...]) -> Move:
    return {"collapse": squares[0]} if kind == "collapse" else list(squares)


class PerfectPlayer:
    """Plays a best move under perfect play (opening book, then live search)."""

    def __init__(self, rng: random.Random | None = None, *, play: PerfectPlay | None = None) -> None:
        from games.qttt.book import load_book

        self.play = play or PerfectPlay(book=load_book())

    def choose(self, game: DigitalGame) -> Move:
        qttt = _qttt(game)
        analysis = self.play.analyse(qttt.position, pending=qttt.pending)
        if analysis.best is None:
            return RandomPlayer().choose(game)  # raises GameOverError
        return _json_move(*analysis.best)


class HeuristicPlayer:
    """A shallow search: takes sure wins, avoids handing over sure wins, and
    otherwise prefers collapses and pairs that build its own classical lines."""

    def __init__(self, rng: random.Random | None = None, *, depth: int = 2) -> None:
        self.rng = rng or random.Random()
        self.depth = depth

    def choose(self, game: DigitalGame) -> Move:
        qttt = _qttt(game)
        me = qttt.to_act
        if me is None:
            return RandomPlayer().choose(game)  # raises GameOverError
        options = successors(qttt.position, qttt.pending)
        self.rng.shuffle(options)  # ties broken at random
        scores = [self._score(position, pending, me, self.depth - 1) for _, position, pending in options]
        return options[scores.index(max(scores))][0]

    def _score(self, position: bytes, pending: bool, me: int, depth: int) -> float:
        result = None if pending else rules.settle(position)
        if result is not None:
            return 0 if result == rules.DRAW else (_WIN if result == me else -_WIN)
        if depth <= 0:
            return _evaluate(position, me)
        scores = [self._score(p, q, me, depth - 1) for _, p, q in successors(position, pending)]
        return max(scores) if rules.mover(len(position) + 1) == me else min(scores)


def successors(position: bytes, pending: bool) -> list[tuple[Move, bytes, bool]]:
    """(move, position after it, whether a collapse then waits) for every legal move."""
    if pending:
        return [({"collapse": s}, rules.collapse(position, s), False) for s in rules.PAIRS[position[-1] - 9]]
    free = rules.free_squares(position)
    if len(free) == 1:
        return [([free[0]], position + bytes(free), False)]
    label = rules.components(position)
    return [
        ([a, b], position + bytes((rules.PAIR_CODE[a][b],)), label[a] == label[b])
        for i, a in enumerate(free) for b in free[i + 1:]
    ]


def _evaluate(position: bytes, me: int) -> float:
    """Lines still open to each player, weighted by the classical marks in them."""
    cells = rules.board(position)
    score = 0.0
    for line in rules.LINES:
        owners = {rules.mover(cells[s]) for s in line if cells[s]}
        if len(owners) == 1:
            (owner,) = owners
            weight = sum(1 for s in line if cells[s]) ** 2
            score += weight if owner == me else -weight
    return score


AI_LEVELS: Final[dict[str, PlayerFactory]] = {
    "random": lambda rng: RandomPlayer(rng),
    "heuristic": lambda rng: HeuristicPlayer(rng),
    "perfect": lambda rng: PerfectPlayer(rng),
}
