"""A game's options declared as data: each kind's check, defaults, dependencies and refusals."""

from __future__ import annotations

from typing import Any

import pytest

from games.frame import BadOptionsError
from games.options import Kind, Option, Table, check_options

SIZES = {"small": ["red", "blue"], "large": ["red", "blue", "green", "white"]}

DECLARED = (
    Option("size", Kind.CHOICE, "size is {either}, not {value!r}", default="small", choices=tuple(SIZES)),
    Option("rounds", Kind.WHOLE, "rounds is 1 to {maximum}, not {value!r}", default=10, minimum=1,
           maximum=99),
    Option("timer", Kind.NUMBER, "timer is seconds, not {value!r}", default=0, minimum=0),
    Option("variant", Kind.FLAG, "variant is true or false", default=False),
    Option("first", Kind.SEAT, "first is a seat from 0 to {last_seat}, not {value!r}"),
    Option(
        "colours",
        Kind.COLOURS,
        "colours name {players} of {choices}, not {value!r}",
        default=lambda table: SIZES[table.chosen["size"]][: table.players],
        choices=lambda table: SIZES[table.chosen["size"]],
        depends_on="size",
    ),
    Option("bonus", Kind.PAWNS, "bonus maps a lamp to 0-{maximum}", default={}, choices=("N", "S"), minimum=0,
           maximum=3),
    Option("card", Kind.CHOICE, "card is {choices}, not {value!r}", default="random",
           choices=("random", "up", "down"), only_with=("size", ("large",))),
)


def check(options: dict[str, Any], players: int = 2) -> dict[str, Any]:
    return check_options("demo", DECLARED, options, players)


def refusal(options: dict[str, Any], players: int = 2) -> str:
    with pytest.raises(BadOptionsError) as info:
        check(options, players)
    return str(info.value)


def test_left_out_options_take_their_defaults_in_the_order_declared() -> None:
    checked = check({})
    assert list(checked) == ["size", "rounds", "timer", "variant", "first", "colours", "bonus", "card"]
    assert checked == {"size": "small", "rounds": 10, "timer": 0, "variant": False, "first": None,
                       "colours": ["red", "blue"], "bonus": {}, "card": None}


def test_each_kind_takes_its_values() -> None:
    given = {"size": "large", "rounds": 99, "timer": 2.5, "variant": True, "first": 2,
             "colours": ["white", "red", "green"], "bonus": {"N": 3, "S": 0}, "card": "up"}
    checked = check(given, players=3)
    assert checked == {"size": "large", "rounds": 99, "timer": 2.5, "variant": True, "first": 2,
                       "colours": ["red", "green", "white"], "bonus": {"N": 3}, "card": "up"}


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"size": "huge"}, "size is small or large, not 'huge'"),
        ({"size": 3}, "size is small or large, not 3"),
        ({"rounds": 0}, "rounds is 1 to 99, not 0"),
        ({"rounds": 100}, "rounds is 1 to 99, not 100"),
        ({"rounds": True}, "rounds is 1 to 99, not True"),
        ({"rounds": 2.0}, "rounds is 1 to 99, not 2.0"),
        ({"timer": -1}, "timer is seconds, not -1"),
        ({"timer": "5"}, "timer is seconds, not '5'"),
        ({"variant": 1}, "variant is true or false"),
        ({"first": 2}, "first is a seat from 0 to 1, not 2"),
        ({"first": False}, "first is a seat from 0 to 1, not False"),
        ({"colours": ["red", "red"]}, "colours name 2 of red, blue, not ['red', 'red']"),
        ({"colours": ["red", "green"]}, "colours name 2 of red, blue, not ['red', 'green']"),
        ({"colours": ["red"]}, "colours name 2 of red, blue, not ['red']"),
        ({"bonus": {"N": 4}}, "bonus maps a lamp to 0-3"),
        ({"bonus": ["N"]}, "bonus maps a lamp to 0-3"),
        ({"size": "large", "card": "sideways"}, "card is random, up, down, not 'sideways'"),
        ({"card": "up"}, "card goes only with size large: leave it out"),
        ({"speed": 2, "pace": 1}, "demo has no option pace, speed (options: bonus, card, colours, first, "),
    ],
)
def test_a_refused_value_gets_its_options_sentence(options: dict[str, Any], message: str) -> None:
    assert refusal(options).startswith(message)


def test_an_empty_list_or_map_stands_for_the_default() -> None:
    for empty in (None, False, 0, "", [], {}):
        checked = check({"colours": empty, "bonus": empty})
        assert (checked["colours"], checked["bonus"]) == (["red", "blue"], {})


def test_values_and_defaults_follow_the_option_they_depend_on() -> None:
    checked = check({"size": "large"}, players=3)
    assert checked["colours"] == ["red", "blue", "green"] and checked["card"] == "random"
    assert check({"size": "large", "colours": ["green", "white"]})["colours"] == ["green", "white"]
    assert check({"card": None})["card"] is None  # null is "left out" where the option does not exist
    option = DECLARED[5]
    assert [o.governed_by for o in DECLARED] == [None] * 5 + ["size", None, "size"]
    assert option.allowed(Table(2, {"size": "large"})) == SIZES["large"]


def test_a_game_that_declares_nothing_takes_no_options() -> None:
    assert check_options("plain", (), {}, 2) == {}
    with pytest.raises(BadOptionsError, match="plain takes no options \\(got a, b\\)"):
        check_options("plain", (), {"b": 1, "a": 2}, 2)
