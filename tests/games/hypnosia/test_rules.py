"""Hand-worked positions for each rule of Hypnosia (default board, docs/hypnosia.md).

Default board: outer squares o0-o35, middle m0-m23, inner i0-i11, numbered
counter-clockwise. Bridges o3→m2, o9→m6, o15→m10, o21→m14, o27→m18, o33→m22;
m3→i2, m9→i4, m15→i8, m21→i10; i1, i5, i9 → centre. Red enters at o0 (start
squares red-s1..red-s4, 1-4 steps before it); with two players blue is the
other seat and enters at o18.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from games.exc import GameOverError
from games.frame import CHANCE
from games.hypnosia.exc import (
    BridgeError,
    CaptureError,
    DiceError,
    DieUsedError,
    NotationError,
    NotYourPawnError,
    PawnOffBoardError,
    StackError,
    StartLaneError,
    WaitForDiceError,
)
from games.hypnosia.game import Hypnosia, program_roll
from games.hypnosia.rules import Termination

Arrange = Callable[..., Hypnosia]
"""The ``arrange`` fixture (conftest.py): a game in a hand-worked position."""
RED = 0
BLUE = 1


def pawns(game: Hypnosia) -> dict[str, str]:
    view = game.view()
    assert isinstance(view["pawns"], dict)
    return view["pawns"]


# -- the opening ----------------------------------------------------------------


def test_highest_opening_roll_starts() -> None:
    game = Hypnosia.new(["ann", "bob", "cy"], options={"dice": "entered"}, seed=3)
    assert game.to_act == CHANCE
    for roll in ([2, 3], [6, 4], [1, 1]):
        game.push({"roll": roll})
    assert game.to_act == CHANCE  # bob's first turn starts with his roll
    assert game.view()["rolling"] == 1
    game.push({"roll": [3, 4]})
    assert game.to_act == 1


def test_tied_opening_rolls_are_rolled_again_by_the_tied_players_only() -> None:
    game = Hypnosia.new(["ann", "bob", "cy"], options={"dice": "entered"}, seed=3)
    for roll in ([6, 5], [1, 2], [5, 6]):
        game.push({"roll": roll})
    assert game.view()["rolling"] == 0
    game.push({"roll": [1, 1]})  # ann re-rolls
    assert game.view()["rolling"] == 2
    game.push({"roll": [2, 1]})  # cy re-rolls and wins
    assert game.view()["opening"] == [
        [{"seat": 0, "roll": [6, 5]}, {"seat": 1, "roll": [1, 2]}, {"seat": 2, "roll": [5, 6]}],
        [{"seat": 0, "roll": [1, 1]}, {"seat": 2, "roll": [2, 1]}],
    ]
    assert game.view()["rolling"] == 2


# -- a turn -----------------------------------------------------------------------


def test_each_die_moves_a_pawn_exactly_its_value_counter_clockwise(arrange: Arrange) -> None:
    game = arrange({"red1": "o5", "red2": "o10"}, (4, 2))
    game.push({"die": 0, "pawn": "red1"})
    assert pawns(game)["red1"] == "o9"
    assert game.to_act == RED
    game.push({"die": 1, "pawn": "red2"})
    assert pawns(game)["red2"] == "o12"
    assert game.to_act == CHANCE and game.view()["rolling"] == BLUE


def test_one_pawn_may_take_both_dice_or_the_sum(arrange: Arrange) -> None:
    game = arrange({"red1": "o4", "red2": "o10"}, (4, 2))
    game.push({"die": "sum", "pawn": "red1"})
    assert pawns(game)["red1"] == "o10"
    assert pawns(game)["red2"] == "o10"  # landing on its own pawn made a stack
    assert game.to_act == CHANCE  # the sum used both dice


def test_a_sum_move_does_not_stop_on_the_way(arrange: Arrange) -> None:
    # Blue's single on o9 would be captured by a 4 alone; the sum passes over it.
    game = arrange({"red1": "o5", "blue1": "o9"}, (4, 3))
    game.push({"die": "sum", "pawn": "red1"})
    assert pawns(game)["red1"] == "o12"
    assert pawns(game)["blue1"] == "o9"


def test_a_sum_may_pass_an_enemy_stack_a_single_die_cannot_land_on(arrange: Arrange) -> None:
    game = arrange({"red1": "o5", "blue1": "o9", "blue2": "o9"}, (4, 1))
    moves = game.legal_moves()
    assert {"die": 0, "pawn": "red1"} not in moves
    assert {"die": "sum", "pawn": "red1"} in moves


def test_circles_wrap_around(arrange: Arrange) -> None:
    game = arrange({"red1": "o34", "red2": "i11"}, (3, 2))
    game.push({"die": 0, "pawn": "red1"})
    game.push({"die": 1, "pawn": "red2"})
    assert pawns(game)["red1"] == "o1"
    assert pawns(game)["red2"] == "i1"


LONE_RED_ON_I1 = {
    "red1": "i1",
    "red2": "centre",
    "red3": "captured",
    "red4": "captured",
    "blue1": "i6",
    "blue2": "i6",
    "blue3": "i7",
    "blue4": "i7",
}
"""Red's last pawn on the inner bridge i1; blue stacks 5 and 6 squares ahead of it."""


def test_a_die_no_pawn_can_use_cannot_be_chosen(arrange: Arrange) -> None:
    game = arrange(LONE_RED_ON_I1, (1, 5))
    # The 5 (to i6) and the sum (to i7) would put the single red1 on an enemy stack.
    assert game.legal_moves() == [{"die": 0, "pawn": "red1"}, {"die": 0, "pawn": "red1", "cross": True}]


def test_the_second_die_is_lost_when_no_pawn_can_use_it(arrange: Arrange) -> None:
    game = arrange(LONE_RED_ON_I1, (1, 5))
    game.push({"die": 0, "pawn": "red1", "cross": True})
    assert pawns(game)["red1"] == "centre"
    assert game.view()["lost_dice"] == [5]
    assert game.to_act == CHANCE and game.view()["rolling"] == BLUE


def test_a_roll_with_no_possible_move_passes_the_turn(arrange: Arrange) -> None:
    # Only red4 is left in its start lane: it needs 4, and 1 + 2 is 3.
    game = arrange({"red1": "captured", "red2": "captured", "red3": "captured", "blue1": "o20"}, (1, 2))
    assert game.view()["lost_dice"] == [1, 2]
    assert game.to_act == CHANCE and game.view()["rolling"] == BLUE


def test_a_usable_die_must_be_played(arrange: Arrange) -> None:
    game = arrange({"red1": "o5"}, (3, 2))
    game.push({"die": 0, "pawn": "red1"})
    assert game.to_act == RED  # the 2 can be used, so the turn goes on: there is no pass
    assert all(move["die"] == 1 for move in game.legal_moves())


def test_when_only_one_die_can_be_kept_the_player_chooses_which(arrange: Arrange) -> None:
    # red1 alone on o22, a blue stack on o27: 3 then 2, 2 then 3 and the sum all end on the stack.
    game = arrange(
        {
            "red1": "o22",
            "red2": "captured",
            "red3": "captured",
            "red4": "captured",
            "blue1": "o27",
            "blue2": "o27",
        },
        (3, 2),
    )
    assert game.legal_moves() == [{"die": 0, "pawn": "red1"}, {"die": 1, "pawn": "red1"}]
    game.push({"die": 1, "pawn": "red1"})  # keeps the smaller die: allowed
    assert pawns(game)["red1"] == "o24"
    assert game.view()["lost_dice"] == [3]


def test_dice_already_played_are_refused(arrange: Arrange) -> None:
    game = arrange({"red1": "o5", "red2": "o10"}, (3, 2))
    game.push({"die": 0, "pawn": "red1"})
    with pytest.raises(DieUsedError, match="already been played"):
        game.push({"die": 0, "pawn": "red2"})
    with pytest.raises(DieUsedError, match="sum takes both dice"):
        game.push({"die": "sum", "pawn": "red2"})


# -- the start lane -------------------------------------------------------------------


def test_pawn_k_needs_at_least_k_to_leave_the_start_lane(arrange: Arrange) -> None:
    game = arrange(dice=(2, 3))
    with pytest.raises(StartLaneError, match="red3 needs at least 3"):
        game.push({"die": 0, "pawn": "red3"})
    game.push({"die": 1, "pawn": "red3"})
    assert pawns(game)["red3"] == "o0"  # passed through red1's and red2's start squares
    game.push({"die": 0, "pawn": "red1"})
    assert pawns(game)["red1"] == "o1"


def test_the_last_pawn_enters_on_four_or_more(arrange: Arrange) -> None:
    game = arrange(dice=(6, 1))
    legal = game.legal_moves()
    assert {"die": 0, "pawn": "red4"} in legal
    assert {"die": 1, "pawn": "red4"} not in legal
    game.push({"die": 0, "pawn": "red4"})
    assert pawns(game)["red4"] == "o2"


# -- bridges ------------------------------------------------------------------------------


def test_passing_over_a_bridge_does_not_cross_it(arrange: Arrange) -> None:
    game = arrange({"red1": "o1"}, (5, 6))
    game.push({"die": 0, "pawn": "red1"})
    assert pawns(game)["red1"] == "o6"  # went over the bridge o3


def test_a_pawn_stopped_on_a_bridge_crosses_with_the_second_die(arrange: Arrange) -> None:
    game = arrange({"red1": "o1"}, (2, 3))
    game.push({"die": 0, "pawn": "red1"})
    assert pawns(game)["red1"] == "o3"
    game.push({"die": 1, "pawn": "red1", "cross": True})
    assert pawns(game)["red1"] == "m4"  # one step onto m2, two more on the middle circle


def test_a_pawn_on_a_bridge_may_also_stay_on_its_circle(arrange: Arrange) -> None:
    game = arrange({"red1": "o3"}, (2, 3))
    assert {"die": 0, "pawn": "red1"} in game.legal_moves()
    assert {"die": 0, "pawn": "red1", "cross": True} in game.legal_moves()
    game.push({"die": 0, "pawn": "red1"})
    assert pawns(game)["red1"] == "o5"


def test_crossing_needs_a_bridge(arrange: Arrange) -> None:
    game = arrange({"red1": "o4"}, (2, 3))
    with pytest.raises(BridgeError, match="o4, which is not a bridge"):
        game.push({"die": 0, "pawn": "red1", "cross": True})


def test_a_sum_may_cross_from_the_bridge_it_starts_on(arrange: Arrange) -> None:
    game = arrange({"red1": "m3"}, (2, 3))
    game.push({"die": "sum", "pawn": "red1", "cross": True})
    assert pawns(game)["red1"] == "i6"


def test_middle_bridges_lead_to_the_inner_circle(arrange: Arrange) -> None:
    game = arrange({"red1": "m9"}, (1, 6))
    game.push({"die": 0, "pawn": "red1", "cross": True})
    assert pawns(game)["red1"] == "i4"


# -- the centre ---------------------------------------------------------------------------


def test_the_centre_takes_a_die_of_exactly_one_from_an_inner_bridge(arrange: Arrange) -> None:
    game = arrange({"red1": "i5", "red2": "o10"}, (2, 1))
    with pytest.raises(BridgeError, match="exactly 1, not 2"):
        game.push({"die": 0, "pawn": "red1", "cross": True})
    with pytest.raises(BridgeError, match="exactly 1, not 3"):
        game.push({"die": "sum", "pawn": "red1", "cross": True})
    game.push({"die": 1, "pawn": "red1", "cross": True})
    assert pawns(game)["red1"] == "centre"
    assert game.view()["players"][RED]["centre_points"] == 5


def test_centre_places_score_five_to_one_by_arrival(arrange: Arrange) -> None:
    game = arrange({"red1": "centre", "blue1": "centre", "red2": "i1", "blue2": "o20"}, (1, 3))
    game.push({"die": 0, "pawn": "red2", "cross": True})
    players = game.view()["players"]
    assert players[RED]["centre_points"] == 5 + 3
    assert players[BLUE]["centre_points"] == 4
    assert game.view()["centre_places_left"] == 2


def test_a_stack_entering_the_centre_scores_for_both_pawns(arrange: Arrange) -> None:
    game = arrange({"blue1": "centre", "red1": "i9", "red2": "i9"}, (1, 4))
    game.push({"die": 0, "pawn": "red2", "stack": True, "cross": True})
    assert game.view()["centre"] == ["blue1", "red1", "red2"]
    assert game.view()["players"][RED]["centre_points"] == 4 + 3


def test_a_stack_scores_only_while_places_remain_and_the_game_ends_at_five(arrange: Arrange) -> None:
    game = arrange(
        {
            "blue1": "centre",
            "blue2": "centre",
            "blue3": "centre",
            "red3": "centre",
            "red1": "i9",
            "red2": "i9",
        },
        (1, 4),
    )
    game.push({"die": 0, "pawn": "red1", "stack": True, "cross": True})
    outcome = game.outcome()
    assert outcome is not None and outcome.termination is Termination.CENTRE_FULL
    assert game.view()["players"][RED]["centre_points"] == 2 + 1  # red3 was 4th; red1 5th; red2 no place
    assert game.to_act is None
    with pytest.raises(GameOverError):
        game.push({"die": 1, "pawn": "red4"})


def test_the_game_ends_as_soon_as_five_pawns_are_in_the_centre(arrange: Arrange) -> None:
    game = arrange(
        {
            "blue1": "centre",
            "blue2": "centre",
            "blue3": "centre",
            "red3": "centre",
            "red1": "i5",
            "red2": "o7",
        },
        (1, 4),
    )
    game.push({"die": 0, "pawn": "red1", "cross": True})
    outcome = game.outcome()
    assert outcome is not None and outcome.termination is Termination.CENTRE_FULL
    assert outcome.scores == (2.0 + 1.0, 5.0 + 4.0 + 3.0)
    assert outcome.winners == (BLUE,)


# -- stacks -----------------------------------------------------------------------------------


def test_a_stack_forms_moves_as_one_and_comes_apart(arrange: Arrange) -> None:
    game = arrange({"red1": "o5", "red2": "o8"}, (3, 4))
    game.push({"die": 0, "pawn": "red1"})
    assert game.view()["stacks"] == [["red1", "red2"]]
    game.push({"die": 1, "pawn": "red1", "stack": True})
    assert pawns(game)["red1"] == pawns(game)["red2"] == "o12"
    game.push({"roll": [2, 2]})  # blue has nothing on the board but its start lane
    game.push({"die": 0, "pawn": "blue2"})
    game.push({"die": 1, "pawn": "blue2"})
    game.push({"roll": [1, 6]})
    game.push({"die": 0, "pawn": "red2"})  # dismantles the stack
    assert pawns(game)["red2"] == "o13"
    assert pawns(game)["red1"] == "o12"
    assert game.view()["stacks"] == []


def test_either_pawn_names_its_stack(arrange: Arrange) -> None:
    game = arrange({"red1": "o5", "red2": "o5"}, (3, 4))
    game.push({"die": 0, "pawn": "red2", "stack": True, "cross": False})
    assert pawns(game)["red1"] == pawns(game)["red2"] == "o8"
    assert game.history[-1] == {"die": 0, "pawn": "red1", "stack": True}  # as legal_moves() writes it


def test_stacks_hold_two_pawns_at_most(arrange: Arrange) -> None:
    game = arrange({"red1": "o5", "red2": "o5", "red3": "o2"}, (3, 4))
    with pytest.raises(StackError, match="two pawns at most"):
        game.push({"die": 0, "pawn": "red3"})
    with pytest.raises(StackError, match="not in a stack"):
        game.push({"die": 0, "pawn": "red3", "stack": True})


def test_variant_stacks_may_not_cross_bridges_nor_enter_the_centre(arrange: Arrange) -> None:
    game = arrange({"red1": "o3", "red2": "o3", "red3": "i1", "red4": "i1"}, (1, 2), stacks_cross=False)
    for move in (
        {"die": 1, "pawn": "red1", "stack": True, "cross": True},
        {"die": 0, "pawn": "red3", "stack": True, "cross": True},
    ):
        with pytest.raises(StackError, match="stacks may not cross"):
            game.push(move)
        assert move not in game.legal_moves()
    game.push({"die": 0, "pawn": "red3", "cross": True})  # a single pawn of the stack may
    assert pawns(game)["red3"] == "centre"


def test_by_default_stacks_cross_bridges(arrange: Arrange) -> None:
    game = arrange({"red1": "o3", "red2": "o3"}, (1, 2))
    game.push({"die": 1, "pawn": "red1", "stack": True, "cross": True})
    assert pawns(game)["red1"] == pawns(game)["red2"] == "m3"


# -- captures ---------------------------------------------------------------------------------


def test_a_single_captures_a_single(arrange: Arrange) -> None:
    game = arrange({"red1": "o5", "blue1": "o8"}, (3, 4))
    game.push({"die": 0, "pawn": "red1"})
    view = game.view()
    assert view["pawns"]["blue1"] == "captured" and view["pawns"]["red1"] == "o8"
    assert [p["score"] for p in view["players"]] == [1, -1]
    assert view["players"][BLUE]["captured"] == 1


def test_a_stack_captures_a_single_and_a_stack(arrange: Arrange) -> None:
    game = arrange({"red1": "o5", "red2": "o5", "blue1": "o8", "blue2": "o12", "blue3": "o12"}, (3, 4))
    game.push({"die": 0, "pawn": "red1", "stack": True})
    game.push({"die": 1, "pawn": "red1", "stack": True})
    view = game.view()
    assert [view["pawns"][f"blue{k}"] for k in (1, 2, 3)] == ["captured"] * 3
    assert [p["captures"] for p in view["players"]] == [3, -3]


def test_a_single_may_not_land_on_an_enemy_stack(arrange: Arrange) -> None:
    game = arrange({"red1": "o5", "blue1": "o8", "blue2": "o8"}, (3, 4))
    with pytest.raises(CaptureError, match="only a stack can capture a stack"):
        game.push({"die": 0, "pawn": "red1"})


def test_a_captured_pawn_leaves_the_game(arrange: Arrange) -> None:
    game = arrange({"red1": "o5", "blue1": "o8"}, (3, 4))
    game.push({"die": 0, "pawn": "red1"})
    game.push({"die": 1, "pawn": "red2"})
    game.push({"roll": [1, 1]})
    with pytest.raises(PawnOffBoardError, match="blue1 has been captured"):
        game.push({"die": 0, "pawn": "blue1"})


# -- the end and the winner ------------------------------------------------------------------------


def test_the_game_ends_when_no_pawn_is_left_on_the_board(arrange: Arrange) -> None:
    game = arrange(
        {
            "red1": "i5",
            "red2": "captured",
            "red3": "captured",
            "red4": "captured",
            "blue1": "centre",
            "blue2": "captured",
            "blue3": "captured",
            "blue4": "captured",
        },
        (1, 6),
    )
    game.push({"die": 0, "pawn": "red1", "cross": True})
    outcome = game.outcome()
    assert outcome is not None and outcome.termination is Termination.NO_PAWN_LEFT
    assert outcome.scores == (4.0, 5.0)  # blue1 arrived first
    assert outcome.winners == (BLUE,)


def test_equal_scores_go_to_the_best_arrival(arrange: Arrange) -> None:
    game = arrange(
        {
            "blue1": "centre",
            "red1": "i5",
            "red2": "centre",
            "red3": "captured",
            "red4": "captured",
            "blue2": "captured",
            "blue3": "captured",
            "blue4": "captured",
        },
        (1, 6),
    )
    game.position.captures[:] = [-1, 1]  # red lost a pawn to blue earlier
    game.push({"die": 0, "pawn": "red1", "cross": True})
    outcome = game.outcome()
    assert outcome is not None
    assert outcome.scores == (4.0 + 3.0 - 1.0, 5.0 + 1.0)
    assert outcome.winners == (BLUE,)  # blue1 arrived first


def test_equal_scores_without_arrivals_are_a_draw(arrange: Arrange) -> None:
    game = arrange(
        {
            "red1": "o5",
            "red2": "captured",
            "red3": "captured",
            "red4": "captured",
            "blue1": "o8",
            "blue2": "captured",
            "blue3": "captured",
            "blue4": "captured",
        },
        (3, 4),
    )
    game.position.captures[:] = [0, 0]
    game.push({"die": 1, "pawn": "red1"})  # passes over blue1
    game.push({"die": 0, "pawn": "red1"})
    # red1 on o12, blue1 on o8; both keep circling until the turn limit.
    game.position.max_turns = game.position.turns + 1
    game.push({"roll": [1, 2]})
    game.push({"die": 0, "pawn": "blue1"})
    game.push({"die": 1, "pawn": "blue1"})
    outcome = game.outcome()
    assert outcome is not None and outcome.termination is Termination.TURN_LIMIT
    assert outcome.draw and outcome.winners == ()


# -- dice ------------------------------------------------------------------------------------------


def test_program_dice_are_the_only_legal_roll_and_replay_exactly() -> None:
    game = Hypnosia.new(["ann", "bob"], seed=42)
    for number in range(40):
        if game.to_act == CHANCE:
            assert game.legal_moves() == [{"roll": list(program_roll(42, game.position.rolls))}]
        game.push(game.legal_moves()[number % len(game.legal_moves())])
    again = Hypnosia.from_json(game.to_json())
    assert again.view() == game.view() and again.history == game.history
    assert again.legal_moves() == game.legal_moves()


def test_the_seed_decides_the_dice() -> None:
    rolls = {tuple(program_roll(seed, 0)) for seed in range(30)}
    assert len(rolls) > 5
    sequence = [program_roll(7, n) for n in range(20)]
    assert sequence == [program_roll(7, n) for n in range(20)]
    assert sequence != [program_roll(8, n) for n in range(20)]


def test_program_dice_cannot_be_entered() -> None:
    game = Hypnosia.new(["ann", "bob"], seed=42)
    (rolled,) = game.legal_moves()
    a, b = rolled["roll"]
    with pytest.raises(DiceError, match="program rolls the dice"):
        game.push({"roll": [a % 6 + 1, b]})
    assert game.history == []


def test_entered_dice_accept_any_real_roll_and_nothing_else() -> None:
    game = Hypnosia.new(["ann", "bob"], options={"dice": "entered"}, seed=1)
    assert len(game.legal_moves()) == 36
    for bad in ([0, 3], [7, 1], [True, 2], [2.5, 1]):
        with pytest.raises(DiceError, match="1 to 6"):
            game.push({"roll": bad})
    for bad in ({"roll": [1]}, {"roll": [1, 2], "seat": 0}, {"roll": "6 6"}):
        with pytest.raises(NotationError):
            game.push(bad)
    assert game.history == []


def test_a_roll_while_a_pawn_must_move_is_refused(arrange: Arrange) -> None:
    game = arrange({"red1": "o5"}, (3, 2))
    with pytest.raises(WaitForDiceError, match="must move a pawn"):
        game.push({"roll": [1, 1]})


def test_a_pawn_move_before_the_roll_is_refused(arrange: Arrange) -> None:
    game = arrange({"red1": "o5"})
    with pytest.raises(WaitForDiceError, match="roll the dice first"):
        game.push({"die": 0, "pawn": "red1"})


# -- notation and readable refusals ----------------------------------------------------------------


def test_moving_someone_elses_pawn_is_refused(arrange: Arrange) -> None:
    game = arrange({"red1": "o5", "blue1": "o20"}, (3, 2))
    with pytest.raises(NotYourPawnError, match="blue1 is not player 1's pawn"):
        game.push({"die": 0, "pawn": "blue1"})
    with pytest.raises(NotYourPawnError, match="no pawn 'green1'"):
        game.push({"die": 0, "pawn": "green1"})


@pytest.mark.parametrize(
    "move",
    [
        {"die": 2, "pawn": "red1"},
        {"die": True, "pawn": "red1"},
        {"pawn": "red1"},
        {"die": 0},
        {"die": 0, "pawn": "red1", "stack": "yes"},
        {"die": 0, "pawn": "red1", "jump": True},
        [0, "red1"],
        "red1",
    ],
)
def test_malformed_moves_are_refused_with_the_notation(arrange: Arrange, move: object) -> None:
    game = arrange({"red1": "o5"}, (3, 2))
    with pytest.raises(NotationError):
        game.push(move)
    assert len(game.history) == 3  # the opening rolls and the dice only


def test_a_refused_move_changes_nothing(arrange: Arrange) -> None:
    game = arrange({"red1": "o5", "blue1": "o8", "blue2": "o8"}, (3, 4))
    before = game.view()
    with pytest.raises(CaptureError):
        game.push({"die": 0, "pawn": "red1"})
    assert game.view() == before


def test_pop_takes_a_move_back() -> None:
    game = Hypnosia.new(["ann", "bob"], seed=5)
    while game.to_act == CHANCE:
        game.push(game.legal_moves()[0])
    before = game.view()
    game.push(game.legal_moves()[0])
    game.pop()
    assert game.view() == before


def test_the_view_hides_the_seed_and_lists_moves_only_for_the_seat_to_act(arrange: Arrange) -> None:
    game = arrange({"red1": "o5"}, (3, 2))
    assert "seed" not in game.view(RED) and "legal_moves" not in game.view(BLUE)
    assert game.view(RED)["legal_moves"] == game.legal_moves()
    assert game.view()["dice"] == {"values": [3, 2], "used": [False, False]}


def test_refusals_name_the_square_where_a_crossing_would_land(arrange: Arrange) -> None:
    game = arrange({"red1": "o3", "red2": "m4", "red3": "m4", "blue1": "m5", "blue2": "m5"}, (3, 4))
    with pytest.raises(StackError, match="m4 already holds your stack"):
        game.push({"die": 0, "pawn": "red1", "cross": True})
    with pytest.raises(CaptureError, match="m5 holds an enemy stack"):
        game.push({"die": 1, "pawn": "red1", "cross": True})
