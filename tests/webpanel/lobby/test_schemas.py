"""The lobby API's option schemas are written from each game's own declaration of its options."""

from __future__ import annotations

from typing import Any, ClassVar

from games.frame import game_class
from games.options import Kind, Option
from games.qttt.game import QuantumTicTacToe
from webpanel.lobby import schemas


def test_an_option_that_others_follow_splits_the_options_into_branches_of_its_values() -> None:
    hop = schemas.game_options(game_class("hop"), 2)
    bachelor, higher = hop["anyOf"]
    # Left out, the level is Bachelor: that branch does not require it; the others do.
    assert bachelor["properties"]["level"] == {"const": "bachelor"} and "required" not in bachelor
    assert bachelor["properties"]["field"] == {"type": "null"}
    assert higher["properties"]["level"] == {"enum": ["master", "doctorate"]}
    assert higher["required"] == ["level"]
    assert higher["properties"]["field"] == {"enum": ["random", "positive", "negative"]}
    assert bachelor["properties"]["board"] == {"enum": ["square-5x5-2"]}, "only the boards for 2 players"
    assert hop["description"] == schemas.NOTES["hop"]


def test_each_kind_of_option_has_its_schema() -> None:
    digital = schemas.game_options(game_class("hautetension"), 3)["properties"]
    assert digital["first"]["anyOf"][1] == {"type": "integer", "minimum": 0, "maximum": 2}
    timer = {"type": "number", "minimum": 0, "description": "Seconds per turn (0: none)."}
    assert digital["turn_timer"] == timer
    falsy, handicap = digital["handicap"]["anyOf"]
    assert falsy == {"enum": schemas.FALSY} and handicap["additionalProperties"] == {"const": 0}
    assert handicap["properties"]["W"] == {"type": "integer", "minimum": 0, "maximum": 3}
    colours = schemas.game_options(game_class("hypnosia"), 4)["anyOf"][0]["properties"]["colours"]["anyOf"][1]
    assert (colours["minItems"], colours["maxItems"], colours["uniqueItems"]) == (4, 4, True)
    assert schemas.game_options(game_class("qttt"), 2) == {
        "type": "object", "additionalProperties": False, "properties": {},
        "description": "Quantum tic-tac-toe takes no options.",
    }


class Variant(QuantumTicTacToe):
    """A game whose one option has no words in the panel: it still gets its schema."""

    name: ClassVar[str] = "qttt-variant"
    known_options: ClassVar[tuple[Option, ...]] = (
        Option("rounds", Kind.WHOLE, "rounds is at least 2, not {value!r}", default=9, minimum=2),
    )


def test_a_game_declared_later_is_documented_from_its_declaration() -> None:
    schema: dict[str, Any] = schemas.game_options(Variant, 2)
    assert schema == {"type": "object", "additionalProperties": False,
                      "properties": {"rounds": {"type": "integer", "minimum": 2}}}
    assert Variant.new(["a", "b"], options={"rounds": 3}, seed=1).options == {"rounds": 3}


def test_a_tournament_tables_options_are_the_ones_staff_choose() -> None:
    table = schemas.table_game()
    assert set(table["properties"]) == {"layout", "turn_timer", "default_action"}
    assert table["additionalProperties"] is False
