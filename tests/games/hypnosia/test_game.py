"""Hypnosia on the games frame: options, seats and colours, saving, skipping players."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from games.frame import CHANCE, BadOptionsError, SavedGameError
from games.hypnosia.game import Hypnosia

Arrange = Callable[..., Hypnosia]


@pytest.mark.parametrize(
    ("players", "colours"),
    [
        (2, ["red", "blue"]),
        (3, ["red", "green", "purple"]),
        (4, ["red", "yellow", "blue", "purple"]),
        (6, ["red", "yellow", "green", "blue", "purple", "white"]),
    ],
)
def test_players_sit_as_far_apart_as_they_can(players: int, colours: list[str]) -> None:
    game = Hypnosia.new([f"p{k}" for k in range(players)], seed=1)
    assert [p["colour"] for p in game.view()["players"]] == colours
    assert len(game.view()["pawns"]) == 4 * players


def test_chosen_colours_keep_the_boards_order_of_play() -> None:
    game = Hypnosia.new(["ann", "bob"], options={"colours": ["white", "yellow"]}, seed=1)
    assert [game.colour_of(s) for s in range(2)] == ["yellow", "white"]
    assert game.options["colours"] == ["yellow", "white"]


@pytest.mark.parametrize(
    ("players", "options", "message"),
    [
        (2, {"dice": "loaded"}, "dice are program or entered"),
        (2, {"stacks_cross": "no"}, "stacks_cross is true"),
        (2, {"max_rounds": 0}, "max_rounds"),
        (2, {"colours": ["red", "red"]}, "colours must name 2 different colours"),
        (2, {"colours": ["red", "pink"]}, "colours must name"),
        (2, {"board": "/etc/passwd"}, "no board '/etc/passwd' \\(boards: default\\)"),
        (2, {"board": "pyproject.toml"}, "no board 'pyproject.toml'"),
        (2, {"board": 3}, "names a board"),
        (2, {"speed": 2}, "no option speed"),
        (7, {}, "2-6 players"),
        (1, {}, "2-6 players"),
    ],
)
def test_bad_options_are_refused(players: int, options: dict[str, object], message: str) -> None:
    with pytest.raises(BadOptionsError, match=message):
        Hypnosia.new([f"p{k}" for k in range(players)], options=options)


def test_a_saved_game_replays_and_a_tampered_one_is_refused() -> None:
    game = Hypnosia.new(["ann", "bob"], options={"dice": "entered"}, seed=8)
    for move in ({"roll": [6, 5]}, {"roll": [2, 2]}, {"roll": [3, 1]}, {"die": 0, "pawn": "red3"}):
        game.push(move)
    saved = game.to_json()
    assert Hypnosia.from_json(saved).view() == game.view()
    saved["moves"][-1] = {"die": 0, "pawn": "red4"}
    with pytest.raises(SavedGameError, match="move 4 .* needs at least 4"):
        Hypnosia.from_json(saved)


def test_a_player_with_no_pawn_on_the_board_is_skipped(arrange: Arrange) -> None:
    game = arrange(
        {"red1": "o5", "green1": "captured", "green2": "captured", "green3": "centre", "green4": "captured"},
        (3, 2),
        players=3,
    )
    game.push({"die": 0, "pawn": "red1"})
    game.push({"die": 1, "pawn": "red1"})
    assert game.to_act == CHANCE
    assert game.view()["rolling"] == 2  # purple: green has nothing left to move


def test_the_program_rolls_the_opening_too() -> None:
    game = Hypnosia.new(["ann", "bob", "cy"], seed=11)
    while game.view()["phase"] == "opening":
        game.push(game.legal_moves()[0])
    rounds = game.view()["opening"]
    last = {entry["seat"]: sum(entry["roll"]) for entry in rounds[-1]}
    assert game.view()["rolling"] == max(last, key=lambda s: last[s])
    assert list(last.values()).count(max(last.values())) == 1
