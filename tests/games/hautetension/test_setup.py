"""Setting up a physical game: one set of rules for the staff page and the board service."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.exc import GameSetupError, SetupError
from games.hautetension.draw import draw_first_player
from games.hautetension.layout import Layout
from games.hautetension.setup import GameSetup, PlayerSetup


def problems(payload: Any, **options: Any) -> list[str]:
    with pytest.raises(GameSetupError) as info:
        GameSetup.from_payload(payload, **options)
    assert isinstance(info.value, SetupError) and isinstance(info.value, ValueError)
    return info.value.problems


def test_a_full_setup_and_its_payload_read_back_the_same() -> None:
    payload = {"players": [{"name": " Ana ", "colour": "red"}, {"name": "Ben", "colour": "#00ff88"}],
               "first": "draw", "seed": 7, "handicap": {"N": 2, "S": 0}}
    setup = GameSetup.from_payload(payload)
    assert setup.players == (PlayerSetup("Ana", "red"), PlayerSetup("Ben", "#00ff88"))
    assert setup.handicap == {"N": 2} and setup.first == "draw" and setup.seed == 7
    assert setup.to_payload() == {
        "players": [{"name": "Ana", "colour": "red"}, {"name": "Ben", "colour": "#00ff88"}],
        "first": "draw", "seed": 7, "handicap": {"N": 2}}
    assert GameSetup.from_payload(setup.to_payload()) == setup
    assert setup.first_seat == draw_first_player(2, 7)
    assert [s.lamp for s in setup.seats] == ["N", "S"]


def test_names_alone_take_the_default_colours_in_seat_order() -> None:
    setup = GameSetup.from_payload({"players": ["Ana", {"name": "Ben"}, {"name": "Cy", "colour": "green"}]})
    assert [(p.name, p.colour) for p in setup.players] == [("Ana", "red"), ("Ben", "blue"), ("Cy", "green")]
    assert setup.first == 0 and GameSetup.from_payload({"players": ["A", "B"]}, first="draw").first == "draw"


def test_names_and_colours_are_compared_without_case() -> None:
    assert problems({"players": ["Ana", "ana"]}) == ["players must have different names"]
    assert problems({"players": [{"name": "A", "colour": "red"}, {"name": "B", "colour": "RED"}]}) == [
        "players[1].colour must be one of red, blue, black, white, green, yellow, orange, purple or #rrggbb"]
    same_hex = [{"name": "A", "colour": "#AA0000"}, {"name": "B", "colour": "#aa0000"}]
    assert problems({"players": same_hex}) == ["players must have different colours"]
    assert problems({"players": [{"name": "A"}, {"name": "B", "colour": "red"}]}) == [
        "players must have different colours"]  # A's default colour is red


def test_every_problem_is_reported_at_once() -> None:
    found = problems({"players": [{"name": "", "colour": "pink", "lamp": "N"}, 3], "first": "coin",
                      "seed": -1, "handicap": {"Q": 1, "N": 4}})
    assert found == [
        "players[0]: unknown field(s): lamp",
        "players[0].name must be 1 to 24 characters",
        "players[0].colour must be one of red, blue, black, white, green, yellow, orange, purple or #rrggbb",
        "players[1] must be an object with a name and a colour (or just a name)",
        'first (or "draw") must be a whole number from 0 to 3',
        "seed must be a whole number from 0 to 9223372036854775807",
        "handicap: unknown lamp 'Q' (lamps: N, E, S, W)",
        "handicap.N must be a whole number from 0 to 3",
    ]


@pytest.mark.parametrize(("payload", "says"), [
    ({}, "players must be a list of 2 to 4 players"),
    ({"players": "Ana,Ben"}, "players must be a list of 2 to 4 players"),
    ({"players": ["Solo"]}, "players must be a list of 2 to 4 players"),
    ({"players": ["A", "B", "C", "D", "E"]}, "players must be a list of 2 to 4 players"),
    ({"players": ["A" * 25, "B"]}, "players[0].name must be 1 to 24 characters"),
    ({"players": ["A\x00", "B"]}, "players[0].name must not contain control characters"),
    ({"players": ["A", "B"], "first": 2}, 'first (or "draw") must be a whole number from 0 to 1'),
    ({"players": ["A", "B"], "first": True}, 'first (or "draw") must be a whole number from 0 to 1'),
    ({"players": ["A", "B"], "seed": "7"}, "seed must be a whole number"),
    ({"players": ["A", "B"], "handicap": [1]}, "handicap must be an object {lamp: pawns}"),
])
def test_bad_setups_say_what_is_wrong(payload: dict[str, Any], says: str) -> None:
    assert any(p.startswith(says) for p in problems(payload)), problems(payload)


def test_a_handicap_names_only_the_boards_lamps() -> None:
    assert problems({"players": ["A", "B"], "handicap": {"N": 1}}, lamps=("A", "B")) == [
        "handicap: unknown lamp 'N' (lamps: A, B)"]


def test_the_game_it_starts(pinwheel: Layout) -> None:
    setup = GameSetup.from_payload({"players": ["Ana", "Ben", "Cy"], "first": 2, "handicap": {"E": 1}})
    game = setup.start(pinwheel)
    assert [s.name for s in game.seats] == ["Ana", "Ben", "Cy"] and game.first == 2
    assert dict(game.handicap) == {"E": 1} and len(game.pawns) == 1
    with pytest.raises(SetupError, match="needs a seed"):
        _ = GameSetup.from_payload({"players": ["A", "B"], "first": "draw"}).first_seat


def test_the_journal_record_replays_even_what_these_rules_refuse(pinwheel: Layout) -> None:
    payload = {"players": ["Ana", "Ben"], "first": "draw", "seed": 11, "handicap": {"S": 2}}
    setup = GameSetup.from_payload(payload)
    record = setup.to_record()
    assert record == {
        "players": [{"name": "Ana", "colour": "red"}, {"name": "Ben", "colour": "blue"}],
        "first": "draw", "first_seat": draw_first_player(2, 11), "seed": 11, "handicap": {"S": 2},
        "pregame_check": "ask"}
    assert GameSetup.from_record(record).pregame_check is True
    again = GameSetup.from_record(record).start(pinwheel)
    assert again.to_json() == setup.start(pinwheel).to_json()
    # An older service accepted any colour and names that differ only in case: its games still replay.
    old = {"players": [{"name": "ana", "colour": "pink"}, {"name": "Ana", "colour": "pink"}], "first": 0,
           "first_seat": 1, "seed": None, "handicap": {}}
    replayed = GameSetup.from_record(old).start(pinwheel)
    assert [s.colour for s in replayed.seats] == ["pink", "pink"] and replayed.first == 1
    assert GameSetup.from_record(old).pregame_check is False  # set up before the pre-game check existed


def test_staff_may_skip_the_pregame_check_and_nothing_else_is_taken() -> None:
    assert GameSetup.from_payload({"players": ["A", "B"]}).pregame_check is True
    skipped = GameSetup.from_payload({"players": ["A", "B"], "pregame_check": "skip"})
    assert skipped.pregame_check is False and skipped.to_payload()["pregame_check"] == "skip"
    assert GameSetup.from_payload(skipped.to_payload()) == skipped
    refused = problems({"players": ["A", "B"], "pregame_check": False})
    assert refused == ['pregame_check must be "ask" or "skip"']


def test_the_demo_game_says_it_skipped_the_check_itself() -> None:
    """``make run``'s demo game skips the check with ``skipped_by: "demo"``; only "staff" and "demo"
    are taken, and only a skipped check has someone who skipped it."""
    demo = GameSetup.from_payload({"players": ["A", "B"], "pregame_check": "skip", "skipped_by": "demo"})
    assert demo.skipped_by == "demo" and demo.to_payload()["skipped_by"] == "demo"
    assert GameSetup.from_payload(demo.to_payload()) == demo
    assert GameSetup.from_payload({"players": ["A", "B"], "pregame_check": "skip"}).skipped_by == "staff"
    asked = GameSetup.from_payload({"players": ["A", "B"], "skipped_by": "demo"})
    assert asked.pregame_check and asked.skipped_by == "staff" and "skipped_by" not in asked.to_payload()
    assert problems({"players": ["A", "B"], "pregame_check": "skip", "skipped_by": "Ana"}) == [
        'skipped_by must be "staff" or "demo"'
    ]


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 2**64) | st.text(max_size=30)
    | st.sampled_from(["draw", "red", "#00ff00", "N", "Ana", "skip", "demo"]),
    lambda inner: st.lists(inner, max_size=5)
    | st.dictionaries(st.sampled_from(["players", "first", "seed", "handicap", "name", "colour", "N"]), inner,
                      max_size=4),
    max_leaves=15,
)


FIELDS = ["players", "first", "seed", "handicap", "pregame_check", "skipped_by"]


@settings(max_examples=150, deadline=None)
@given(payload=st.dictionaries(st.sampled_from(FIELDS), JSON, max_size=4))
def test_any_payload_is_a_setup_or_a_list_of_problems(payload: dict[str, Any]) -> None:
    try:
        setup = GameSetup.from_payload(payload)
    except GameSetupError as exc:
        assert exc.problems and all(isinstance(p, str) and p for p in exc.problems)
        return
    assert GameSetup.from_payload(setup.to_payload()) == setup
