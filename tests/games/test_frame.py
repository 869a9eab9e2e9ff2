"""The digital-game frame, exercised by a small dice-and-stones game."""

from __future__ import annotations

import enum
import random
from collections.abc import Mapping
from typing import ClassVar

import pytest

from games.exc import GameOverError, IllegalMoveError
from games.frame import (
    AI_LEVELS,
    CHANCE,
    GAMES,
    JSON,
    BadOptionsError,
    DigitalGame,
    Move,
    Outcome,
    RandomPlayer,
    SavedGameError,
    UnknownGameError,
    ai_player,
    game_class,
    load_builtin_games,
    register_game,
)


class StonesTermination(enum.Enum):
    LAST_STONE = "last_stone"


class TooManyStonesError(IllegalMoveError):
    pass


class Stones(DigitalGame):
    """Players take 1-3 stones in turn; after each take a die may add a stone
    back (a chance actor). Whoever takes the last stone wins."""

    name: ClassVar[str] = "stones"
    max_players: ClassVar[int] = 3

    def __init__(self, players: list[str], *, options: Mapping[str, JSON] | None = None,
                 seed: int | None = None) -> None:
        super().__init__(players, options=options, seed=seed)
        self._restart()

    def check_options(self, options: dict[str, JSON]) -> dict[str, JSON]:
        stones = options.setdefault("stones", 7)
        if not isinstance(stones, int) or stones < 1 or set(options) != {"stones"}:
            raise BadOptionsError("stones takes one option, stones: a positive integer")
        return options

    def _restart(self) -> None:
        self.left = int(self.options["stones"])
        self.seat = 0
        self.dice_due = False
        self.winner: int | None = None

    @property
    def to_act(self) -> int | None:
        if self.winner is not None:
            return None
        return CHANCE if self.dice_due else self.seat

    def legal_moves(self) -> list[Move]:
        if self.winner is not None:
            return []
        if self.dice_due:
            return [{"die": 0}, {"die": 1}]
        return [{"take": n} for n in range(1, min(3, self.left) + 1)]

    def _apply(self, move: Move) -> None:
        if self.dice_due:
            self.left += move["die"]
            self.dice_due = False
            return None
        take = move["take"]
        if take > self.left:
            raise TooManyStonesError(f"only {self.left} stones are left")
        self.left -= take
        if self.left == 0:
            self.winner = self.seat
        else:
            self.seat = (self.seat + 1) % len(self.players)
            self.dice_due = True

    def outcome(self) -> Outcome | None:
        return None if self.winner is None else Outcome(StonesTermination.LAST_STONE, (self.winner,))

    def view(self, seat: int | None = None) -> dict[str, JSON]:
        return {"left": self.left, "to_act": self.to_act, "seat": seat}


register_game(Stones, ai_levels={"random": lambda rng: RandomPlayer(rng)})


def roll(game: Stones) -> Move:
    return game.rng.choice(game.legal_moves())


def test_new_games_are_registered_and_checked() -> None:
    assert game_class("stones") is Stones and GAMES["stones"] is Stones
    assert Stones.new(["ann", "bob"], seed=3).left == 7
    with pytest.raises(BadOptionsError, match="2-3 players, not 1"):
        Stones.new(["ann"])
    with pytest.raises(BadOptionsError, match="positive integer"):
        Stones.new(["ann", "bob"], options={"stones": -1})
    with pytest.raises(UnknownGameError, match="no game called 'chess'"):
        game_class("chess")
    assert load_builtin_games()["qttt"].name == "qttt"  # the shipped games register on import


def test_push_pop_play_and_history() -> None:
    game = Stones.new(["ann", "bob"], options={"stones": 5}, seed=1)
    game.push({"take": 2})
    assert game.to_act == CHANCE and game.legal_moves() == [{"die": 0}, {"die": 1}]
    game.push({"die": 1})
    after = game.play({"take": 3})
    assert game.left == 4 and after.left == 1 and len(after.history) == 3
    assert game.pop() == {"die": 1}
    assert game.to_act == CHANCE and game.left == 3
    with pytest.raises(IndexError):
        Stones.new(["a", "b"]).pop()


def test_an_illegal_move_changes_nothing() -> None:
    game = Stones.new(["ann", "bob"], options={"stones": 2}, seed=1)
    with pytest.raises(TooManyStonesError, match="only 2 stones"):
        game.push({"take": 3})
    assert game.history == [] and game.left == 2 and not game.is_legal({"take": 3})
    assert game.is_legal({"take": 2})


def test_outcome_and_game_over() -> None:
    game = Stones.new(["ann", "bob"], options={"stones": 1}, seed=1)
    assert game.outcome() is None and not game.is_over()
    game.push({"take": 1})
    outcome = game.outcome()
    assert outcome == Outcome(StonesTermination.LAST_STONE, (0,))
    assert outcome is not None and not outcome.draw
    assert outcome.to_json() == {"termination": "last_stone", "winners": [0], "draw": False, "scores": None}
    assert Outcome(StonesTermination.LAST_STONE).draw
    with pytest.raises(GameOverError):
        game.push({"take": 1})


def test_a_seeded_game_replays_identically_from_json() -> None:
    game = Stones.new(["ann", "bob", "cy"], options={"stones": 9}, seed=42)
    players = [ai_player("stones", "random", rng=random.Random(i)) for i in range(3)]
    while not game.is_over():
        seat = game.to_act
        game.push(roll(game) if seat == CHANCE else players[seat or 0].choose(game))
    saved = game.to_json()
    assert saved["game"] == "stones" and saved["seed"] == 42 and saved["options"] == {"stones": 9}
    again = Stones.from_json(saved)
    assert again.history == game.history and again.outcome() == game.outcome()
    # The seeded dice give the same rolls on a new game with the same seed.
    a, b = Stones.new(["x", "y"], seed=5), Stones.new(["x", "y"], seed=5)
    assert [a.rng.random() for _ in range(3)] == [b.rng.random() for _ in range(3)]


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        ({"players": ["a", "b"]}, "needs players, options, seed and moves"),
        ([], "needs players"),
        ({"game": "qttt", "players": ["a", "b"], "options": {}, "seed": 1, "moves": []}, "not 'stones'"),
        ({"players": ["a", "b"], "options": {}, "seed": "x", "moves": []}, "seed must be an integer"),
        ({"players": ["a", "b"], "options": {}, "seed": 1, "moves": {}}, "must be lists"),
        ({"players": ["a", "b"], "options": [], "seed": 1, "moves": []}, "options must be a JSON object"),
        ({"players": ["a"], "options": {}, "seed": 1, "moves": []}, "refused: stones is played by 2-3"),
        ({"players": ["a", "b"], "options": {"stones": 2}, "seed": 1, "moves": [{"take": 3}]},
         "move 1 .* cannot be replayed: only 2 stones"),
    ],
)
def test_a_bad_save_is_refused_with_the_reason(data: JSON, reason: str) -> None:
    with pytest.raises(SavedGameError, match=reason):
        Stones.from_json(data)


def test_ai_levels() -> None:
    assert set(AI_LEVELS["stones"]) == {"random"}
    with pytest.raises(BadOptionsError, match="no computer level 'perfect'"):
        ai_player("stones", "perfect")
    game = Stones.new(["a", "b"], options={"stones": 1}, seed=0)
    game.push({"take": 1})
    with pytest.raises(GameOverError):
        RandomPlayer(random.Random(0)).choose(game)
