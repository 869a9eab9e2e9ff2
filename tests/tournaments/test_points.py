"""Points of a hand-entered game: lamp order, simultaneous lamps, the placer's bonus."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.hautetension.game import Game
from games.hautetension.layout import Layout
from games.hautetension.outcome import MAX_GAME_POINTS, Lighting
from games.hautetension.pawn import PawnKind
from games.hautetension.seats import default_seats
from tournaments.exc import ResultError
from tournaments.points import check_points, game_points, lightings_of, possible_points


def L(*seats: int, by: int | None = None) -> Lighting:  # noqa: N802 - reads like the score sheet
    return Lighting(seats=seats, by=by)


@pytest.mark.parametrize(
    ("n", "lightings", "expected"),
    [
        (4, [], (4, 4, 4, 4)),
        (4, [L(2), L(0), L(3)], (2, 4, 0, 3)),
        (3, [L(1), L(2)], (4, 0, 2)),
        (2, [L(1)], (4, 0)),
        # Two lamps at once: both first (0); the placer, an opponent of both, +4.
        (4, [L(0, 1, by=2), L(3)], (0, 0, 8, 3)),
        # The placer lights their own lamp and one opponent's: one opponent, no bonus.
        (4, [L(0, 1, by=0), L(3)], (0, 0, 4, 3)),
        # Second rank shared: both get 2.
        (4, [L(3), L(1, 2, by=0)], (8, 2, 2, 0)),
        # Three opponents' lamps on one pawn: +8, twelve in all.
        (4, [L(1, 2, 3, by=0)], (12, 0, 0, 0)),
        # Own lamp with three opponents': 0 + 8.
        (4, [L(0, 1, 2, 3, by=0)], (8, 0, 0, 0)),
        # Last two lamps together (an alliance): both second.
        (3, [L(0), L(1, 2, by=1)], (0, 2, 2)),
    ],
)
def test_points_of_hand_entered_games(n: int, lightings: list[Lighting], expected: tuple[int, ...]) -> None:
    assert game_points(n, lightings) == expected


@pytest.mark.parametrize(
    ("n", "lightings", "message"),
    [
        (5, [], "2 to 4"),
        (4, [L()], "names no lamp"),
        (4, [L(4)], "no seat 5"),
        (4, [L(0), L(0)], "cannot light twice"),
        (4, [L(1, 1, by=0)], "cannot light twice"),
        (4, [L(0, 1)], "say who placed"),
        (4, [L(0), L(1, 2, by=0)], "already out"),
        (2, [L(0), L(1)], "game was over"),
        (4, [L(0, 1, 2), L(3)], "say who placed"),
        (4, [L(0, 1, 2, by=3), L(3)], "game was over"),
        (3, [L(0, by=5)], "no seat 6"),
    ],
)
def test_impossible_lamp_orders_are_refused(n: int, lightings: list[Lighting], message: str) -> None:
    with pytest.raises(ResultError, match=message):
        game_points(n, lightings)


def test_a_refused_lamp_order_names_what_is_wrong_for_a_page_to_say_it() -> None:
    with pytest.raises(ResultError) as missing:
        game_points(4, [L(0), L(1, 2)])
    assert (missing.value.code, missing.value.details) == ("placer_missing", {"lighting": 2, "seats": [1, 2]})
    with pytest.raises(ResultError) as out:
        game_points(4, [L(0), L(1, 2, by=0)])
    assert (out.value.code, out.value.details) == ("placer_out", {"lighting": 2, "seat": 0})
    with pytest.raises(ResultError) as over:
        game_points(3, [L(0, 1, by=2), L(2)])
    assert (over.value.code, over.value.details) == ("game_over_before", {"lighting": 2})


def test_lighting_from_bad_dict() -> None:
    with pytest.raises(ResultError, match="lamp lighting"):
        Lighting.from_dict({"seats": "x1"})
    assert Lighting.from_dict({"seats": [1, "2"], "by": "0"}) == L(1, 2, by=0)


def test_possible_points() -> None:
    assert [p for p in range(-2, 15) if possible_points(p)] == [0, 2, 3, 4, 6, 7, 8, 10, 11, 12]
    assert check_points(2, ["4", 0]) == (4, 0)
    with pytest.raises(ResultError, match="cannot be scored"):
        check_points(2, [5, 0])
    with pytest.raises(ResultError, match="2 seats but 3"):
        check_points(2, [4, 0, 0])
    with pytest.raises(ResultError, match="whole numbers"):
        check_points(2, ["x", 0])


@st.composite
def lamp_orders(draw: st.DrawFn) -> tuple[int, list[Lighting]]:
    """Any game ending that can happen at a table of 2-4."""
    n = draw(st.integers(2, 4))
    left = list(range(n))
    out: list[Lighting] = []
    while len(left) > 1 and draw(st.booleans()):
        group = draw(st.lists(st.sampled_from(left), min_size=1, max_size=len(left), unique=True))
        by = draw(st.sampled_from(left))
        out.append(Lighting(seats=tuple(group), by=by))
        left = [s for s in left if s not in group]
    return n, out


def oracle(n: int, lightings: list[Lighting]) -> list[int]:
    """The rules text read literally, independently of the engine."""
    points = [4] * n
    out = 0
    for lighting in lightings:
        for seat in lighting.seats:
            points[seat] = {0: 0, 1: 2}.get(out, 3)
        out += len(lighting.seats)
    for lighting in lightings:
        opponents = len([s for s in lighting.seats if s != lighting.by])
        points[lighting.by or 0] += {2: 4, 3: 8}.get(opponents, 0) if lighting.by is not None else 0
    return points


@settings(max_examples=200, deadline=None)
@given(lamp_orders())
def test_points_of_any_game_follow_the_rules(case: tuple[int, list[Lighting]]) -> None:
    n, lightings = case
    points = game_points(n, lightings)
    assert list(points) == oracle(n, lightings)
    for value in points:
        assert possible_points(value) and value <= MAX_GAME_POINTS, value
    lit = {s for lighting in lightings for s in lighting.seats}
    assert all(points[s] >= 4 for s in range(n) if s not in lit)


def test_a_bonus_is_kept_when_the_placer_lamp_lights_later() -> None:
    # Seat 2 lights 0 and 1 together (+4), then its own lamp lights third (3): 7 points.
    assert game_points(4, [L(0, 1, by=2), L(2, by=3)]) == (0, 0, 7, 4)


def _random_game(layout: Layout, n: int, rng: random.Random) -> Game:
    game = Game(layout, default_seats(["A", "B", "C", "D"][:n]), first=rng.randrange(n))
    while not game.is_over():
        kinds = game.legal_kinds()
        kind = PawnKind.DEFENSE if PawnKind.DEFENSE in kinds and rng.random() < 0.05 else kinds[0]
        # Crowd one corner of the board so rows close and lamps light often.
        free = game.free_slots()
        slot = min(rng.sample(free, min(3, len(free))))
        game.push(slot, kind)
    return game


@pytest.mark.parametrize("n", [2, 3, 4])
def test_hand_entry_agrees_with_the_game_engine(pinwheel: Layout, n: int) -> None:
    rng = random.Random(n)
    seen_lit = 0
    for _ in range(25):
        game = _random_game(pinwheel, n, rng)
        lightings = lightings_of(game.history)
        seen_lit += bool(lightings)
        assert game_points(n, lightings) == game.points()
    assert seen_lit > 0
