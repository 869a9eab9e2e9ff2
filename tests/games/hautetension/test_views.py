"""Views: the public view never tells which pawns conduct; a player's view adds only their own secrets."""

from __future__ import annotations

import json
import random

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from games.exc import GameError
from games.hautetension import Game, Layout, PawnKind, default_seats, load_layout
from games.hautetension.views import player_view, public_view

PINWHEEL = load_layout("pinwheel-80")
NAMES = ("Rouge", "Bleu", "Noir", "Blanc")


def test_public_view_contents(pinwheel: Layout) -> None:
    game = Game(pinwheel, default_seats(NAMES[:2]), handicap={"N": 1})
    game.push("c3", "defense")
    game.push("a9", "attack")
    view = public_view(game)
    assert json.loads(json.dumps(view)) == view
    assert view["layout"] == "pinwheel-80"
    assert view["seats"][0] == {
        "name": "Rouge",
        "colour": "red",
        "lamp": "N",
        "eliminated": False,
        "pawns_left": 24,
    }
    assert view["to_move"] == 0
    assert view["pawns"] == {"f9": {"owner": None}, "c3": {"owner": 0}, "a9": {"owner": 1}}
    assert view["moves"] == [{"slot": "c3", "player": 0}, {"slot": "a9", "player": 1}]
    assert view["lit"] == [] and view["outcome"] is None and view["points"] is None
    text = json.dumps(view)
    for secret in ("attack", "defense", "closed", "stock", "kind"):
        assert secret not in text


def test_player_view_adds_only_their_own_secrets(pinwheel: Layout) -> None:
    game = Game(pinwheel, default_seats(NAMES[:2]))
    game.push("c3", "defense")
    game.push("a9", "attack")
    mine = player_view(game, 0)
    assert mine["you"] == {"seat": 0, "pawns": {"c3": "defense"}, "stock": {"attack": 22, "defense": 2}}
    theirs = player_view(game, 1)
    assert theirs["you"] == {"seat": 1, "pawns": {"a9": "attack"}, "stock": {"attack": 21, "defense": 3}}
    del mine["you"]
    assert mine == public_view(game)


def test_finished_game_shows_outcome_and_points(pinwheel: Layout) -> None:
    game = Game(pinwheel, default_seats(NAMES[:2]))
    for slot in ("d5", "a9", "d4", "b9", "d3", "c9", "d2", "d9", "d1"):
        game.push(slot, "attack")
    view = public_view(game)
    assert view["outcome"] == {
        "termination": "LAST_PLAYER_STANDING",
        "reason": "last player standing",
        "winners": [0],
    }
    assert view["points"] == [4, 0]
    assert view["lit"] == ["S"]
    assert view["seats"][1]["eliminated"] is True
    assert view["eliminations"] == [{"player": 1, "lamp": "S", "move": 9, "by": 0}]


@settings(max_examples=120, deadline=None)
@given(
    n=st.integers(min_value=2, max_value=4),
    seed=st.integers(min_value=0, max_value=2**32),
    length=st.integers(min_value=1, max_value=80),
    flip_at=st.integers(min_value=0, max_value=79),
)
def test_the_kind_of_a_pawn_never_shows_in_the_public_view(
    n: int, seed: int, length: int, flip_at: int
) -> None:
    """Two games that differ only by one pawn's kind, with the same lamps, look the same to everyone."""
    rng = random.Random(seed)
    game = Game(PINWHEEL, default_seats(NAMES[:n]))
    moves: list[tuple[str, PawnKind]] = []
    while not game.is_over() and len(moves) < length:
        move = (rng.choice(game.free_slots()), rng.choice(game.legal_kinds()))
        game.push(*move)
        moves.append(move)
    assume(flip_at < len(moves))
    slot, kind = moves[flip_at]
    flipped = PawnKind.DEFENSE if kind is PawnKind.ATTACK else PawnKind.ATTACK
    other = Game(PINWHEEL, default_seats(NAMES[:n]))
    for index, (s, k) in enumerate(moves):
        try:
            other.push(s, flipped if index == flip_at else k)
        except GameError:  # out of defense pawns, or the game ended earlier: not a twin
            assume(False)
    assume([p.lit for p in other.history] == [p.lit for p in game.history])
    assert public_view(other) == public_view(game)
    assert other.pawns[slot][1] is not game.pawns[slot][1]
    owner = game.pawns[slot][0]
    assert owner is not None
    assert player_view(other, owner) != player_view(game, owner)
