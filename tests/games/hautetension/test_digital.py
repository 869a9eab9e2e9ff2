"""The digital Haute-Tension game on the games frame: moves, options, views, timer."""

from __future__ import annotations

import random

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from games.exc import GameOverError, NoPawnLeftError, SlotTakenError
from games.frame import AI_LEVELS, BadMoveError, BadOptionsError, SavedGameError, ai_player, game_class
from games.hautetension.digital import DigitalHauteTension
from games.hautetension.draw import draw_first_player
from games.hautetension.outcome import Termination


def new(players: int = 2, **options: object) -> DigitalHauteTension:
    return DigitalHauteTension([f"p{i}" for i in range(players)], options={"first": 0, **options}, seed=7)


def test_registered_in_the_frame_with_three_levels() -> None:
    assert game_class("hautetension") is DigitalHauteTension
    assert set(AI_LEVELS["hautetension"]) == {"random", "heuristic", "ismcts"}
    game = new()
    move = ai_player("hautetension", "heuristic", rng=random.Random(1)).choose(game)
    assert move in game.legal_moves()


def test_a_move_places_the_pawn_and_passes_the_turn() -> None:
    game = new(3)
    game.push({"slot": "f9", "pawn": "attack"})
    assert game.to_act == 1
    assert game.view(0)["you"]["pawns"] == {"f9": "attack"}
    assert game.view(0)["you"]["stock"] == {"attack": 21, "defense": 3}
    assert game.history == [{"slot": "f9", "pawn": "attack"}]


@pytest.mark.parametrize(
    "move",
    [
        "f9",
        ["f9", "attack"],
        {"slot": "f9"},
        {"slot": "f9", "pawn": "attack", "extra": 1},
        {"slot": 9, "pawn": "attack"},
        {"slot": "f9", "pawn": "conductor"},
        {"slot": "z9", "pawn": "attack"},
        {"slot": "e5", "pawn": "attack"},
    ],
)
def test_a_badly_written_move_is_refused_and_changes_nothing(move: object) -> None:
    game = new()
    before = game.view(None)
    with pytest.raises(BadMoveError):
        game.push(move)
    assert game.view(None) == before
    assert game.history == []
    assert not game.is_legal(move)


def test_illegal_moves_raise_the_engine_errors() -> None:
    game = new()
    game.push({"slot": "a9", "pawn": "defense"})
    with pytest.raises(SlotTakenError):
        game.push({"slot": "a9", "pawn": "attack"})
    for slot in ("b9", "c9"):
        game.push({"slot": slot, "pawn": "attack"})  # seat 1
        game.push({"slot": slot.replace("9", "8"), "pawn": "defense"})  # seat 0
    game.push({"slot": "a1", "pawn": "attack"})  # seat 1
    with pytest.raises(NoPawnLeftError):
        game.push({"slot": "a2", "pawn": "defense"})  # seat 0 has used its 3 defenses
    assert all(move["pawn"] == "attack" for move in game.legal_moves())


@pytest.mark.parametrize(
    "options",
    [
        {"colour": "red"},
        {"layout": "no-such-board"},
        {"layout": 3},
        {"handicap": {"N": 4}},
        {"handicap": {"N": True}},
        {"handicap": ["N"]},
        {"handicap": {"Q": 1}},
        {"first": 2},
        {"first": True},
        {"turn_timer": -1},
        {"turn_timer": "30"},
        {"default_action": "pass"},
    ],
)
def test_bad_options_are_refused_with_a_reason(options: dict[str, object]) -> None:
    with pytest.raises(BadOptionsError) as info:
        DigitalHauteTension(["a", "b"], options=options, seed=1)
    assert str(info.value)


def test_player_counts() -> None:
    for n in (1, 5):
        with pytest.raises(BadOptionsError):
            DigitalHauteTension([f"p{i}" for i in range(n)], seed=1)
    assert [seat["lamp"] for seat in new(4).view(None)["seats"]] == ["N", "E", "S", "W"]


def test_the_first_player_is_drawn_from_the_seed() -> None:
    for seed in range(6):
        game = DigitalHauteTension(["a", "b", "c"], seed=seed)
        assert game.to_act == draw_first_player(3, seed)
        assert DigitalHauteTension(["a", "b", "c"], seed=seed).to_act == game.to_act


def test_handicap_pawns_are_placed_and_shown_as_nobodys() -> None:
    game = new(2, handicap={"N": 2})
    pawns = game.view(None)["pawns"]
    assert len(pawns) == 2 and all(p["owner"] is None for p in pawns.values())
    assert len(game.legal_moves()) == 2 * 78


def test_views_show_only_ones_own_kinds_and_spectators_none() -> None:
    game = new(3)
    game.push({"slot": "f9", "pawn": "defense"})
    game.push({"slot": "a9", "pawn": "attack"})
    spectator = game.view(None)
    assert "you" not in spectator
    assert "defense" not in repr(spectator) and "attack" not in repr(spectator)
    assert game.view(0)["you"]["pawns"] == {"f9": "defense"}
    assert game.view(1)["you"]["pawns"] == {"a9": "attack"}
    assert game.view(2)["you"]["pawns"] == {}
    with pytest.raises(BadOptionsError):
        game.view(3)


def test_lamps_lit_and_the_result_with_points() -> None:
    game = new(2)
    # Seat 0 closes f9-f5 (a straight row to N, seat 0's own lamp) with seat 1 playing elsewhere.
    for column_slot, other in zip(["f9", "f8", "f7", "f6"], ["a1", "b1", "c1", "d1"], strict=True):
        game.push({"slot": column_slot, "pawn": "attack"})
        game.push({"slot": other, "pawn": "attack"})
    game.push({"slot": "f5", "pawn": "attack"})
    assert game.is_over()
    view = game.view(None)
    assert view["lit"] == ["N"] and view["lit_at"] == {"N": 9}
    outcome = game.outcome()
    assert outcome is not None
    assert outcome.termination is Termination.LAST_PLAYER_STANDING
    assert outcome.winners == (1,)
    assert outcome.scores == (0.0, 4.0)
    assert view["points"] == [0, 4]
    with pytest.raises(GameOverError):
        game.push({"slot": "g1", "pawn": "attack"})
    with pytest.raises(GameOverError):
        game.default_move()


def test_default_move_follows_the_option() -> None:
    game = new(2, turn_timer=30, default_action="random-defense")
    assert game.view(0)["turn_timer"] == {"seconds": 30, "default_action": "random-defense"}
    kinds = []
    for _ in range(5):
        move = game.default_move()
        assert move in game.legal_moves()
        kinds.append(move["pawn"])
        game.push(move)
        game.push(game.legal_moves()[0])
    assert kinds == ["defense"] * 3 + ["attack"] * 2  # no defense left: the other kind

    attack = new(2, default_action="random-attack")
    assert attack.default_move()["pawn"] == "attack"
    plain = new(2)
    pawns = {plain.play(plain.default_move()).history[-1]["pawn"] for _ in range(40)}
    assert pawns == {"attack", "defense"}  # drawn from the stock: either kind can come


def test_save_replay_pop_and_copy() -> None:
    game = new(4, handicap={"E": 1})
    player = ai_player("hautetension", "random", rng=random.Random(3))
    for _ in range(30):
        game.push(player.choose(game))
    saved = game.to_json()
    again = DigitalHauteTension.from_json(saved)
    assert again.view(None) == game.view(None)
    assert again.view(2) == game.view(2)
    clone = game.copy()
    last = game.pop()
    assert len(game.history) == 29 and clone.history[-1] == last
    assert clone.view(None) != game.view(None)
    broken = dict(saved, moves=[*saved["moves"], saved["moves"][0]])
    with pytest.raises(SavedGameError):
        DigitalHauteTension.from_json(broken)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10**6), st.integers(2, 4))
@example(seed=1216, players=2)  # the changed pawn later lights a lamp in one game only
def test_a_hidden_kind_changes_no_other_seats_view(seed: int, players: int) -> None:
    """Two games differing by one pawn's kind look the same to everyone else while lamps agree."""
    rng = random.Random(seed)
    a = new(players)
    b = new(players)
    changed_by: int | None = None
    for _ in range(rng.randrange(1, 40)):
        if a.is_over():
            break
        seat = a.to_act
        move = rng.choice(a.legal_moves())
        other = dict(move, pawn="defense" if move["pawn"] == "attack" else "attack")
        if changed_by is None and other in b.legal_moves():
            trial = b.play(other)
            a_after = a.play(move)
            if trial.view(None)["lit"] == a_after.view(None)["lit"]:
                a, b, changed_by = a_after, trial, seat
                continue
        if move not in b.legal_moves():
            break
        a.push(move)
        b.push(move)
        if a.view(None)["lit"] != b.view(None)["lit"]:
            # From here the lamps differ, which everyone sees on the table: compare before it.
            a.pop()
            b.pop()
            break
    if changed_by is None:
        return
    assert a.view(None) == b.view(None)
    for seat in range(players):
        if seat != changed_by:
            assert a.view(seat) == b.view(seat)
    assert a.view(changed_by) != b.view(changed_by)
