"""Properties over random games of Hypnosia (2-6 players, both dice modes, with and without the variant)."""

from __future__ import annotations

import json
import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from games.exc import IllegalMoveError
from games.frame import CHANCE
from games.hypnosia.board import PAWNS_PER_COLOUR
from games.hypnosia.game import Hypnosia
from games.hypnosia.rules import CAPTURED

games = st.fixed_dictionaries(
    {
        "seed": st.integers(0, 2**32 - 1),
        "players": st.integers(2, 6),
        "dice": st.sampled_from(["program", "entered"]),
        "stacks_cross": st.booleans(),
    }
)


def new_game(spec: dict[str, object]) -> Hypnosia:
    players = int(str(spec["players"]))
    options = {"dice": spec["dice"], "stacks_cross": spec["stacks_cross"]}
    return Hypnosia.new([f"p{k}" for k in range(players)], options=options, seed=int(str(spec["seed"])))


def check_invariants(game: Hypnosia) -> None:
    position = game.position
    view = json.loads(json.dumps(game.view()))  # the view and the moves are plain JSON
    assert json.loads(json.dumps(game.legal_moves())) == game.legal_moves()
    counts = Counter()
    for name, square in view["pawns"].items():
        seat = game.seat_of_colour(name.rstrip("1234"))
        counts[seat, "centre" if square == "centre" else "captured" if square == "captured" else "board"] += 1
    for seat, player in enumerate(view["players"]):
        on_board, centre, captured = (counts[seat, k] for k in ("board", "centre", "captured"))
        assert on_board + centre + captured == PAWNS_PER_COLOUR
        assert (player["on_board"], player["in_centre"], player["captured"]) == (on_board, centre, captured)
        assert player["score"] == player["captures"] + player["centre_points"]
    assert sum(p["captures"] for p in view["players"]) == 0
    # Squares and pawns agree; a square holds one pawn, or a stack of two of one colour.
    for square, here in enumerate(position.occ):
        assert len(here) <= 2
        assert len({position.owner(p) for p in here}) <= 1
        assert all(position.pos[p] == square for p in here)
    for pawn, square in enumerate(position.pos):
        if square != CAPTURED and square != game.board.centre:
            assert pawn in position.occ[square]


@settings(max_examples=40, deadline=None)
@given(games)
def test_random_games_keep_every_pawn_and_balance_captures_and_always_end(spec: dict[str, object]) -> None:
    game = new_game(spec)
    rng = random.Random(int(str(spec["seed"])))
    limit = game.options["max_rounds"] * len(game.players)
    pushes = 0
    while not game.is_over():
        moves = game.legal_moves()
        assert moves, "a game that is not over always has a move"
        game.push(rng.choice(moves))
        pushes += 1
        assert game.position.turns <= limit
        check_invariants(game)
    assert game.to_act is None and game.legal_moves() == []
    outcome = game.outcome()
    assert outcome is not None and outcome.scores is not None
    best = max(outcome.scores)
    assert all(outcome.scores[s] == best for s in outcome.winners)
    again = Hypnosia.from_json(game.to_json())
    assert again.view() == game.view()


@settings(max_examples=30, deadline=None)
@given(games, st.randoms(use_true_random=False))
def test_any_move_is_either_legal_or_refused_with_a_reason(
    spec: dict[str, object], rng: random.Random
) -> None:
    game = new_game(spec)
    pawns = list(game.view()["pawns"]) + ["nobody1"]
    for _ in range(150):
        if game.is_over():
            break
        if game.to_act == CHANCE:
            game.push(rng.choice(game.legal_moves()))
            continue
        move: dict[str, object] = {"die": rng.choice([0, 1, "sum"]), "pawn": rng.choice(pawns)}
        if rng.random() < 0.3:
            move["stack"] = True
        if rng.random() < 0.3:
            move["cross"] = True
        legal = game.legal_moves()
        before = game.view()
        try:
            game.push(move)
        except IllegalMoveError as exc:
            assert str(exc)
            assert move not in legal
            assert game.view() == before
        else:
            assert game.history[-1] in legal  # kept in the notation of legal_moves()
            assert move in legal or move.get("stack") is True  # a stack may be named by either pawn
