"""A board's reported game, as an event server reads and judges it (games/hautetension/reported.py)."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.hautetension.game import Game
from games.hautetension.layout import load_layout
from games.hautetension.reported import (
    ReportedGame,
    ReportedGameError,
    ReportedPlacement,
    check_table,
    judge,
)
from games.hautetension.seats import default_seats
from tournaments.points import lightings_of

LAYOUT = load_layout("pinwheel-80")


def _random_game(seed: int) -> Game:
    rng = random.Random(seed)
    players = rng.choice([2, 3, 4])
    handicap = {"N": rng.randint(1, 3)} if rng.random() < 0.3 else None
    game = Game(
        LAYOUT,
        default_seats([f"P{n}" for n in range(players)]),
        first=rng.randrange(players),
        handicap=handicap,
    )
    while not game.is_over():
        game.push(*rng.choice(game.legal_moves()))
    return game


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**32))
def test_every_game_played_by_the_rules_is_judged_to_the_engines_points(seed: int) -> None:
    game = _random_game(seed)
    report = ReportedGame.from_json(json.loads(json.dumps(ReportedGame.of_game(game).to_json())))
    verdict = judge(report)
    assert verdict.points == game.points() and verdict.lightings == lightings_of(game.history)


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 2**32), data=st.data())
def test_a_changed_placement_or_claim_never_passes_unless_it_is_the_same_game(seed: int, data: Any) -> None:
    """Change one thing a board reports (a seat, a slot, a lamp, who went out, a point) and the judge
    either refuses it or it describes a game that gives exactly the points it claims."""
    game = _random_game(seed)
    body = ReportedGame.of_game(game).to_json()
    number = data.draw(st.integers(0, len(body["placements"]) - 1))
    placement = body["placements"][number]
    field = data.draw(st.sampled_from(["player", "slot", "lit", "eliminated", "points"]))
    if field == "player":
        placement["player"] = data.draw(st.integers(0, len(body["players"]) - 1))
    elif field == "slot":
        placement["slot"] = data.draw(st.sampled_from(LAYOUT.slots))
    elif field == "lit":
        placement["lit"] = data.draw(st.lists(st.sampled_from(LAYOUT.lamps), max_size=2, unique=True))
    elif field == "eliminated":
        placement["eliminated"] = data.draw(st.lists(st.integers(0, len(body["players"]) - 1), max_size=2))
    else:
        seat = data.draw(st.integers(0, len(body["players"]) - 1))
        body["points"][seat] = data.draw(st.sampled_from([0, 2, 3, 4, 6, 8, 12]))
    try:
        report = ReportedGame.from_json(body)
        verdict = judge(report)
    except ReportedGameError:
        return
    assert verdict.points == report.points  # whatever passed, the board's claim is what its record gives


def test_a_game_ended_early_or_going_on_after_its_end_is_refused() -> None:
    game = _random_game(7)
    body = ReportedGame.of_game(game).to_json()
    early = {**body, "placements": body["placements"][:-1]}
    with pytest.raises(ReportedGameError, match="the rules do not end the game"):
        judge(ReportedGame.from_json(early))
    free = next(slot for slot in LAYOUT.slots if slot not in game.pawns)
    after = {
        **body,
        "placements": [*body["placements"], {"slot": free, "player": 0, "lit": [], "eliminated": []}],
    }
    with pytest.raises(ReportedGameError, match="after the end of the game"):
        judge(ReportedGame.from_json(after))


def test_the_table_the_board_played_must_be_the_one_assigned() -> None:
    game = _random_game(3)
    report = ReportedGame.of_game(game)
    seats = list(report.players)
    check_table(report, players=seats, first=report.first, lamps=report.lamps, handicap=dict(report.handicap))
    with pytest.raises(ReportedGameError, match="the board seated"):
        check_table(report, players=seats[::-1], first=report.first, lamps=report.lamps, handicap={})
    with pytest.raises(ReportedGameError, match="played first on the board"):
        other = (report.first + 1) % len(seats)
        check_table(report, players=seats, first=other, lamps=report.lamps, handicap=dict(report.handicap))
    with pytest.raises(ReportedGameError, match="handicap"):
        check_table(report, players=seats, first=report.first, lamps=report.lamps, handicap={"S": 2})


def test_the_record_carries_no_pawn_kind() -> None:
    """Two games that differ only in the kind of a pawn that lit nothing have the same record."""
    seats = default_seats(["Ana", "Ben"])
    records = []
    for kind in ("attack", "defense"):
        game = Game(LAYOUT, seats)
        for slot, pawn in [("f9", "attack"), ("a1", kind), ("f8", "attack"), ("b1", "attack")]:
            game.push(slot, pawn)
        records.append(json.dumps(ReportedGame.of_game(game).to_json(), sort_keys=True))
    assert records[0] == records[1] and "attack" not in records[0] and "defense" not in records[0]
    assert ReportedPlacement("a1", 1).to_json() == {"slot": "a1", "player": 1, "lit": [], "eliminated": []}


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=70),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=12), inner, max_size=5),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(
    body=st.fixed_dictionaries(
        {},
        optional={
            "layout": st.sampled_from(["pinwheel-80", "../x", ""]) | json_values,
            "players": st.lists(st.text(max_size=70), max_size=5) | json_values,
            "first": st.integers(-2, 5) | json_values,
            "handicap": st.dictionaries(st.sampled_from(["N", "E", "S", "W", "X"]), st.integers(-1, 4))
            | json_values,
            "placements": st.lists(
                st.fixed_dictionaries(
                    {},
                    optional={
                        "slot": st.sampled_from(LAYOUT.slots) | json_values,
                        "player": st.integers(-1, 4) | json_values,
                        "lit": st.lists(st.sampled_from(LAYOUT.lamps)) | json_values,
                        "eliminated": st.lists(st.integers(-1, 4)) | json_values,
                    },
                ),
                max_size=12,
            )
            | json_values,
            "points": st.lists(st.integers(-1, 13) | json_values, max_size=5) | json_values,
        },
    )
    | json_values
)
def test_anything_a_board_sends_is_read_or_refused_with_a_reason(body: Any) -> None:
    try:
        report = ReportedGame.from_json(body)
        judge(report)
    except ReportedGameError as exc:
        assert str(exc)
