"""The game: turns, placements, errors, eliminations, end conditions, points, handicap, draw, storage."""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Mapping
from typing import Any

import pytest

from games.exc import (
    GameError,
    GameOverError,
    IllegalMoveError,
    NoPawnLeftError,
    NothingToUndoError,
    NotYourTurnError,
    SetupError,
    SlotTakenError,
    UnknownSlotError,
)
from games.hautetension import (
    Game,
    Layout,
    PawnKind,
    Seat,
    Termination,
    default_lamps,
    default_seats,
    draw_first_player,
    draw_rounds,
    handicap_plan,
    handicap_slots,
    parse_layout,
)
from games.hautetension.outcome import tournament_points
from games.hautetension.views import player_view, public_view

NAMES = ("Rouge", "Bleu", "Noir", "Blanc")


def new_game(layout: Layout, n: int, *, first: int = 0, handicap: Mapping[str, int] | None = None) -> Game:
    return Game(layout, default_seats(NAMES[:n]), first=first, handicap=handicap)


def play_queues(game: Game, queues: Mapping[int, Iterable[str | tuple[str, str]]]) -> None:
    """Each seat places the slots of its own queue, in turn order, until every queue is empty.

    A queue item is a slot (an attack pawn) or (slot, kind).
    """
    pending = {seat: list(items) for seat, items in queues.items()}
    while any(pending.values()):
        seat = game.to_move
        assert seat is not None, "the game ended before the script did"
        slot, kind = (item, "attack") if isinstance(item := pending[seat].pop(0), str) else item
        game.push(slot, kind)


def random_playout(game: Game, rng: random.Random, max_moves: int = 200) -> None:
    for _ in range(max_moves):
        if game.is_over():
            return
        game.push(rng.choice(game.free_slots()), rng.choice(game.legal_kinds()))


# -- seats and turns ------------------------------------------------------------


def test_default_lamps() -> None:
    assert default_lamps(2) == ("N", "S")
    assert default_lamps(3) == ("N", "E", "S")
    assert default_lamps(4) == ("N", "E", "S", "W")
    for bad in (1, 5):
        with pytest.raises(SetupError, match="2 to 4 players"):
            default_lamps(bad)


def test_seats_are_checked(pinwheel: Layout) -> None:
    with pytest.raises(SetupError, match="2 to 4 players"):
        Game(pinwheel, [Seat("solo", "N", "red")])
    with pytest.raises(SetupError, match="same lamp"):
        Game(pinwheel, [Seat("a", "N", "red"), Seat("b", "N", "blue")])
    with pytest.raises(SetupError, match="X are not on board pinwheel-80"):
        Game(pinwheel, [Seat("a", "N", "red"), Seat("b", "X", "blue")])
    with pytest.raises(SetupError, match="first player"):
        new_game(pinwheel, 2, first=2)


def test_turns_go_clockwise_from_the_first_player(pinwheel: Layout) -> None:
    game = new_game(pinwheel, 3, first=1)
    order = []
    for slot in ("a9", "b8", "c7", "d6", "a2"):
        order.append(game.to_move)
        placement = game.push(slot, "attack")
        assert placement.player == order[-1]
    assert order == [1, 2, 0, 1, 2]


def test_placement_record_and_stock(pinwheel: Layout) -> None:
    game = new_game(pinwheel, 2)
    placement = game.push("c3", PawnKind.DEFENSE)
    assert (placement.slot, placement.kind, placement.player) == ("c3", PawnKind.DEFENSE, 0)
    assert placement.lit == frozenset() and placement.eliminated == ()
    assert game.stock(0) == (22, 2) and game.stock(1) == (22, 3)
    assert game.pawns == {"c3": (0, PawnKind.DEFENSE)}
    assert game.pawns_left(0) == 24
    assert game.history == (placement,)
    with pytest.raises(AttributeError):  # a record: it cannot be changed
        placement.slot = "a9"  # type: ignore[misc]


# -- illegal actions ----------------------------------------------------------------


def test_slot_taken(pinwheel: Layout) -> None:
    game = new_game(pinwheel, 2)
    game.push("a9", "attack")
    with pytest.raises(SlotTakenError, match="slot a9 already holds a pawn"):
        game.push("a9", "defense")


def test_unknown_slot(pinwheel: Layout) -> None:
    game = new_game(pinwheel, 2)
    with pytest.raises(UnknownSlotError, match="no slot 'e5'"):
        game.push("e5", "attack")
    with pytest.raises(KeyError):  # also the built-in it stands for
        game.push("z1", "attack")


def test_no_defense_pawn_left(pinwheel: Layout) -> None:
    game = new_game(pinwheel, 2)
    play_queues(game, {0: [("a9", "defense"), ("b9", "defense"), ("c9", "defense")], 1: ["a1", "b1", "c1"]})
    with pytest.raises(NoPawnLeftError, match="Rouge has no defense pawn left"):
        game.push("d9", "defense")
    assert game.legal_kinds() == [PawnKind.ATTACK]
    moves = game.legal_moves()
    assert len(moves) == 80 - 6 and moves[0] == ("d9", PawnKind.ATTACK)
    game.push("d9", "attack")
    assert len(game.legal_moves()) == 2 * (80 - 7)  # Bleu still has both kinds


def test_not_your_turn(pinwheel: Layout) -> None:
    game = new_game(pinwheel, 2)
    with pytest.raises(NotYourTurnError, match="not Bleu's turn: Rouge plays now"):
        game.push("a9", "attack", player=1)
    game.push("a9", "attack", player=0)
    assert game.to_move == 1


def test_bad_pawn_kind(pinwheel: Layout) -> None:
    game = new_game(pinwheel, 2)
    with pytest.raises(IllegalMoveError, match="'attack' or 'defense', not 'bomb'"):
        game.push("a9", "bomb")


def test_refused_moves_change_nothing(pinwheel: Layout) -> None:
    game = new_game(pinwheel, 2)
    play_queues(game, {0: [("b9", "defense"), ("c9", "defense"), ("d9", "defense")], 1: ["a1", "b1", "c1"]})

    def state() -> tuple[Any, ...]:
        return (game.to_json(), game.free_slots(), game.legal_moves(), game.lit, game.to_move,
                [game.stock(seat) for seat in (0, 1)], game.history, game.pawns)

    before = state()
    for slot, kind, player in (("a1", "attack", None), ("e5", "attack", None), ("b8", "attack", 1),
                               ("b8", "bomb", None), ("b8", "defense", None)):
        with pytest.raises(GameError):
            game.push(slot, kind, player=player)
        assert state() == before
    game.push("b8", "attack")
    game.pop()
    assert state() == before


@pytest.mark.parametrize(
    ("slot", "kind", "player", "error"),
    [
        # Each placement breaks several rules at once: the first check in this
        # order names the problem (turn, kind, slot, free slot, stock).
        ("e5", "bomb", 1, NotYourTurnError),
        ("e5", "bomb", None, IllegalMoveError),
        ("e5", "defense", None, UnknownSlotError),
        ("a9", "defense", None, SlotTakenError),
        ("a8", "defense", None, NoPawnLeftError),
    ],
)
def test_the_first_broken_rule_is_the_one_reported(
    pinwheel: Layout, slot: str, kind: str, player: int | None, error: type[GameError]
) -> None:
    game = new_game(pinwheel, 2)
    play_queues(game, {0: [("a9", "defense"), ("b9", "defense"), ("c9", "defense")], 1: ["a1", "b1", "c1"]})
    with pytest.raises(GameError) as raised:
        game.push(slot, kind, player=player)
    assert type(raised.value) is error


def test_game_over(pinwheel: Layout) -> None:
    game = new_game(pinwheel, 2)
    play_queues(game, {0: ["d5", "d4", "d3", "d2", "d1"], 1: ["a9", "b9", "c9", "d9"]})
    assert game.is_over() and game.to_move is None
    with pytest.raises(GameOverError, match="the game is over"):
        game.push("a8", "attack")
    assert game.legal_kinds() == [] and game.legal_moves() == []


# -- eliminations and the end ----------------------------------------------------------


def test_two_players_last_player_standing(pinwheel: Layout) -> None:
    game = new_game(pinwheel, 2)
    play_queues(game, {0: ["d5", "d4", "d3", "d2", "d1"], 1: ["a9", "b9", "c9", "d9"]})
    assert game.lit == {"S"}
    last = game.history[-1]
    assert last.lit == {"S"} and last.eliminated == (1,)
    [elimination] = game.eliminated
    assert (elimination.player, elimination.lamp, elimination.move, elimination.by) == (1, "S", 9, 0)
    outcome = game.outcome()
    assert outcome is not None
    assert outcome.termination is Termination.LAST_PLAYER_STANDING
    assert outcome.winners == (0,) and outcome.winner == 0 and not outcome.is_tie()
    assert game.points() == (4, 0)


def test_alliance_lights_both_lamps_and_the_game_goes_on(pinwheel: Layout) -> None:
    # Rules example 2: Rouge (N) and Bleu (E) close the N-E diagonal i7 h6 g5 f4 e3;
    # Blanc (W) then closes N's direct row f9..f5 and both allied lamps light together.
    game = new_game(pinwheel, 4)
    play_queues(
        game,
        {
            0: ["i7", "g5", "e3", "a8", "b7"],
            1: ["h6", "f4", "h2", "c1", "a2"],
            2: ["b1", "i3", "h1", "a7", "b8"],
            3: ["f9", "f8", "f7", "f6", "f5"],
        },
    )
    last = game.history[-1]
    assert (last.player, last.slot) == (3, "f5")
    assert last.lit == {"N", "E"} and last.eliminated == (0, 1)
    assert [e.move for e in game.eliminated] == [20, 20]
    assert not game.is_over()  # Noir and Blanc play on
    assert game.to_move == 2
    # Both share the first rank (0 points); Blanc lit two opponents' lamps with one pawn: +4.
    assert game.points() == (0, 0, 4, 8)


def test_alliance_with_a_hidden_defense_pawn_lets_the_ally_fall_alone(pinwheel: Layout) -> None:
    # Same game, but Bleu's h6 is a defense pawn: the diagonal stays open and only N lights.
    game = new_game(pinwheel, 4)
    play_queues(
        game,
        {
            0: ["i7", "g5", "e3", "a8", "b7"],
            1: [("h6", "defense"), "f4", "h2", "c1", "a2"],
            2: ["b1", "i3", "h1", "a7", "b8"],
            3: ["f9", "f8", "f7", "f6", "f5"],
        },
    )
    assert game.lit == {"N"}
    assert game.history[-1].eliminated == (0,)
    assert game.points() == (0, 4, 4, 4)


def test_chain_lights_three_lamps_for_the_maximum_of_twelve(pinwheel: Layout) -> None:
    # Rouge, Bleu and Noir close the N-E diagonal (i6 h5 g4 f3 e2) and the E-S diagonal
    # (b5 c4 d3 e2 f1); Blanc closes N's row g9..g5 last: N, E and S light at once.
    game = new_game(pinwheel, 4)
    play_queues(
        game,
        {
            0: ["i6", "h5", "g4", "a8", "b7"],
            1: ["f3", "e2", "b5", "h2", "c1"],
            2: ["c4", "d3", "f1", "i3", "h1"],
            3: ["g9", "g8", "g7", "g6", "g5"],
        },
    )
    assert game.lit == {"N", "E", "S"}
    assert game.history[-1].eliminated == (0, 1, 2)
    outcome = game.outcome()
    assert outcome is not None and outcome.termination is Termination.LAST_PLAYER_STANDING
    assert outcome.winners == (3,)
    assert game.points() == (0, 0, 0, 12)


def test_last_two_allied_lamps_lighting_together_is_a_tie(pinwheel: Layout) -> None:
    # Two players, N and S, joined through E by two diagonals: closing N's row puts both out.
    game = new_game(pinwheel, 2)
    play_queues(
        game,
        {
            0: ["i6", "h5", "g4", "f3", "e2", "g9", "g8"],
            1: ["b5", "c4", "d3", "f1", "g7", "g6", "g5"],
        },
    )
    assert game.lit == {"N", "E", "S"}
    outcome = game.outcome()
    assert outcome is not None
    assert outcome.termination is Termination.SIMULTANEOUS_ELIMINATION
    assert outcome.winners == (0, 1) and outcome.winner is None and outcome.is_tie()
    assert game.points() == (0, 0)  # one opponent only: no bonus


def test_eliminated_players_are_skipped(pinwheel: Layout) -> None:
    game = new_game(pinwheel, 3)  # N, E, S
    play_queues(
        game, {0: ["e4", "f4", "g4", "h4", "i4"], 1: ["a9", "b9", "c9", "d9"], 2: ["a8", "b8", "c8", "d8"]}
    )
    assert game.is_eliminated(1)
    assert game.to_move == 2
    game.push("a7", "attack")
    assert game.to_move == 0
    game.push("b7", "attack")
    assert game.to_move == 2


def test_unowned_lamps_light_but_eliminate_nobody_and_take_no_rank(pinwheel: Layout) -> None:
    game = new_game(pinwheel, 2)  # N and S; E and W belong to nobody
    play_queues(game, {0: ["a9", "b9", "c9", "d9", "e9"], 1: ["a1", "b1", "c1", "d1"]})
    assert game.lit == {"W"} and game.history[-1].eliminated == ()
    assert not game.is_over()
    play_queues(game, {1: ["f5", "f6", "f7", "f8", "f9"], 0: ["e1", "e2", "e3", "e4"]})
    # N's lamp is the second lamp lit but the first player's lamp: 0 points, not 2.
    assert game.lit == {"W", "N"}
    assert game.points() == (0, 4)


def test_no_pawn_left_ends_a_two_player_game(pinwheel: Layout) -> None:
    # 50 pawns without lighting N or S: W's and E's rows fill up (those lamps light, owned
    # by nobody) and ten more pawns go where they close no row.
    west_east = [s for r in pinwheel.rows if r.id[0] in "WE" and len(r.id) == 2 for s in r.slots]
    extra = ["f9", "f8", "g9", "g8", "h9", "a1", "a2", "b1", "b2", "c1"]
    slots = west_east + extra
    game = new_game(pinwheel, 2)

    def queue(own: list[str]) -> list[tuple[str, str]]:
        return [(s, "attack") for s in own[:22]] + [(s, "defense") for s in own[22:]]

    play_queues(game, {0: queue(slots[0::2]), 1: queue(slots[1::2])})
    assert game.lit == {"W", "E"}
    outcome = game.outcome()
    assert outcome is not None
    assert outcome.termination is Termination.NO_PAWN_LEFT
    assert outcome.winners == (0, 1)
    assert game.points() == (4, 4)


TINY: dict[str, Any] = {
    "name": "tiny",
    "grid": {"rows": 2, "columns": 5},
    "battery": [3, 2],
    "lamps": {"N": [-1, 2], "S": [4, 2]},
    "slots": {f"{c}{r}": [2 - r, "abcde".index(c)] for c in "abcde" for r in (1, 2)},
    "rows": [
        {"id": "N1", "kind": "straight", "lamps": ["N"], "slots": [f"{c}2" for c in "abcde"]},
        {"id": "S1", "kind": "straight", "lamps": ["S"], "slots": [f"{c}1" for c in "abcde"]},
    ],
}


def test_no_free_slot_on_a_small_board() -> None:
    layout = parse_layout(TINY)
    game = Game(layout, default_seats(["A", "B"]))
    play_queues(
        game, {0: [("a2", "defense"), "b2", "c2", "d2", "e2"], 1: [("a1", "defense"), "b1", "c1", "d1", "e1"]}
    )
    outcome = game.outcome()
    assert outcome is not None and outcome.termination is Termination.NO_FREE_SLOT
    assert outcome.winners == (0, 1)
    assert game.free_slots() == []


# -- points --------------------------------------------------------------------------------------


def test_points_with_a_shared_second_rank(pinwheel: Layout) -> None:
    # Rouge closes E's row (Bleu out first), then a4, which closes both S's row a5..a1 and
    # the S-W diagonal e8 d7 c6 b5 a4: Noir and Blanc go out together, sharing second place.
    game = new_game(pinwheel, 4)
    play_queues(
        game,
        {
            0: ["e4", "f4", "g4", "h4", "i4", "a4"],
            1: ["e8", "d7", "c6", "b5"],
            2: ["a5", "a3", "a2", "b9", "g9"],
            3: ["a1", "h9", "c8", "b7", "i9"],
        },
    )
    assert [(e.player, e.lamp, e.move, e.by) for e in game.eliminated] == [
        (1, "E", 17, 0),
        (2, "S", 20, 0),
        (3, "W", 20, 0),
    ]
    outcome = game.outcome()
    assert outcome is not None and outcome.winners == (0,)
    assert game.points() == (4 + 4, 0, 2, 2)


def test_tournament_points_from_records() -> None:
    from games.hautetension import Placement

    def placed(player: int, *out: int) -> Placement:
        return Placement(
            slot="x", kind=PawnKind.ATTACK, player=player, lit=frozenset(), eliminated=tuple(out)
        )

    assert tournament_points(4, []) == (4, 4, 4, 4)
    assert tournament_points(4, [placed(0, 1), placed(2, 0, 3)]) == (2, 0, 4 + 4, 2)
    assert tournament_points(4, [placed(0, 1), placed(2, 0), placed(3, 2)]) == (2, 0, 3, 4)
    assert tournament_points(4, [placed(3, 0, 1, 2)]) == (0, 0, 0, 12)
    assert tournament_points(3, [placed(1, 1, 2)]) == (4, 0, 0)  # own lamp is no opponent
    assert tournament_points(2, [placed(0, 0, 1)]) == (0, 0)
    # A bonus stays earned when the placer's own lamp lights later (third: 3 + 4).
    assert tournament_points(4, [placed(2, 0, 1), placed(3, 2)]) == (0, 0, 7, 4)


# -- undo, copy ---------------------------------------------------------------------------------


def test_pop_undoes_exactly(pinwheel: Layout) -> None:
    rng = random.Random(7)
    for n in (2, 3, 4):
        game = new_game(pinwheel, n, first=n - 1)
        snapshots = []
        while not game.is_over():
            snapshots.append((game.to_json(), public_view(game), game.lit, game.eliminated, game.to_move,
                              game.free_slots(), game.legal_moves(), game.outcome()))
            game.push(rng.choice(game.free_slots()), rng.choice(game.legal_kinds()))
        final = game.history
        while snapshots:
            game.pop()
            assert (
                game.to_json(),
                public_view(game),
                game.lit,
                game.eliminated,
                game.to_move,
                game.free_slots(),
                game.legal_moves(),
                game.outcome(),
            ) == snapshots.pop()
        assert game.history == () and game.lit == frozenset()
        with pytest.raises(NothingToUndoError):
            game.pop()
        for placement in final:  # and the same game replays
            assert game.push(placement.slot, placement.kind) == placement


def test_copy_is_independent(pinwheel: Layout) -> None:
    game = new_game(pinwheel, 2)
    play_queues(game, {0: ["d5", "d4", "d3", "d2"], 1: ["a9", "b9", "c9"]})
    clone = game.copy()
    clone.push("b8", "defense")
    clone.push("d1", "attack")
    assert clone.lit == {"S"} and clone.is_over() and clone.stock(1) == (19, 2)
    assert game.lit == frozenset() and not game.is_over() and game.to_move == 1
    assert game.stock(1) == (19, 3) and "b8" not in game.pawns and len(game.history) == 7
    assert "b8" in game.free_slots() and "b8" not in clone.free_slots()


def test_seats_and_lamp_owners(pinwheel: Layout) -> None:
    seats = default_seats(["Ana", "Ben", "Cy"])
    assert seats == (Seat("Ana", "N", "red"), Seat("Ben", "E", "blue"), Seat("Cy", "S", "black"))
    game = Game(pinwheel, seats)
    assert [game.owner_of(lamp) for lamp in ("N", "E", "S", "W")] == [0, 1, 2, None]
    with pytest.raises(SetupError, match="no seat 3"):
        player_view(game, 3)
    with pytest.raises(SetupError, match="no seat -1"):
        game.stock(-1)
    with pytest.raises(AttributeError):
        seats[0].name = "Zed"  # type: ignore[misc]


# -- handicap -----------------------------------------------------------------------------------


def test_handicap_pawns_go_on_the_lamps_direct_rows(pinwheel: Layout) -> None:
    game = new_game(pinwheel, 4, handicap={"N": 3, "W": 1})
    assert handicap_slots(pinwheel, "N", 3) == ("f9", "g9", "h9")
    assert handicap_slots(pinwheel, "W", 1) == ("a6",)
    for slot in ("f9", "g9", "h9", "a6"):
        assert game.pawns[slot] == (None, PawnKind.ATTACK)
    assert game.history == () and game.stock(0) == (22, 3)
    # One pawn per direct row, on a slot no other row passes through.
    for lamp, slots in handicap_plan(pinwheel, {"N": 3, "E": 2, "S": 1, "W": 3}).items():
        rows = [pinwheel.rows[i] for s in slots for i in pinwheel.rows_of_slot[s]]
        assert len(rows) == len(slots) == len({r.id for r in rows})
        assert all(r.lamps == (lamp,) for r in rows)


def test_handicap_pawns_conduct(pinwheel: Layout) -> None:
    game = new_game(pinwheel, 2, handicap={"S": 1})  # d1
    play_queues(game, {0: ["d5", "d4", "d3", "d2"], 1: ["a9", "b9", "c9"]})
    assert game.lit == {"S"} and game.is_eliminated(1)


def test_handicap_is_the_same_for_every_lamp_under_a_quarter_turn(pinwheel: Layout) -> None:
    name_at = {pos: s for s, pos in pinwheel.slot_positions.items()}
    turn = {s: name_at[(c, 8 - r)] for s, (r, c) in pinwheel.slot_positions.items()}
    for lamp, next_lamp in (("W", "N"), ("N", "E"), ("E", "S"), ("S", "W")):
        for count in (1, 2, 3):
            assert [turn[s] for s in handicap_slots(pinwheel, lamp, count)] == list(
                handicap_slots(pinwheel, next_lamp, count)
            )


@pytest.mark.parametrize(
    ("handicap", "message"),
    [({"N": 0}, "1 to 3 attack pawns, not 0"), ({"N": 4}, "not 4"), ({"X": 1}, "unknown lamp")],
)
def test_bad_handicap(pinwheel: Layout, handicap: dict[str, int], message: str) -> None:
    with pytest.raises(SetupError, match=message):
        new_game(pinwheel, 2, handicap=handicap)


# -- drawing the first player -----------------------------------------------------------------------


def test_draw_follows_the_rules() -> None:
    for seed in range(300):
        rounds = draw_rounds(4, seed)
        assert rounds[0].drawing == (0, 1, 2, 3)
        for before, after in zip(rounds, rounds[1:], strict=False):
            # Several defense pawns: those players draw again; none: the same players again.
            assert after.drawing == (before.drew_defense or before.drawing)
            assert len(before.drew_defense) != 1
        assert len(rounds[-1].drew_defense) == 1
        assert draw_first_player(4, seed) == rounds[-1].drew_defense[0]


def test_draw_is_reproducible_and_fair() -> None:
    assert draw_first_player(3, "table 7") == draw_first_player(3, "table 7")
    counts = [0, 0, 0, 0]
    for seed in range(4000):
        counts[draw_first_player(4, seed)] += 1
    assert all(850 < c < 1150 for c in counts), counts


def test_draw_needs_two_to_four_players() -> None:
    with pytest.raises(SetupError):
        draw_first_player(1, 0)


def test_game_with_drawn_order(pinwheel: Layout) -> None:
    game = Game.with_drawn_order(pinwheel, default_seats(NAMES[:3]), seed=11)
    assert game.first == draw_first_player(3, 11) == game.to_move


# -- storage ------------------------------------------------------------------------------------


def test_json_round_trip(pinwheel: Layout) -> None:
    rng = random.Random(3)
    for n in (2, 3, 4):
        game = new_game(pinwheel, n, first=1, handicap={"N": 2})
        random_playout(game, rng, max_moves=30 * n)
        data = json.loads(json.dumps(game.to_json()))
        assert "layout_data" not in data
        again = Game.from_json(data)
        assert again.history == game.history
        assert again.pawns == game.pawns
        assert public_view(again) == public_view(game)
        assert again.outcome() == game.outcome()


def test_json_round_trip_with_a_custom_layout() -> None:
    layout = parse_layout(TINY)
    game = Game(layout, default_seats(["A", "B"]))
    game.push("a1", "attack")
    again = Game.from_json(json.loads(json.dumps(game.to_json())))
    assert again.layout == layout and again.pawns == game.pawns


@pytest.mark.parametrize(
    "data", [{}, {"layout": "pinwheel-80"}, {"layout": "pinwheel-80", "seats": [{"x": 1}]}]
)
def test_from_json_refuses_garbage(data: dict[str, Any]) -> None:
    with pytest.raises(SetupError, match="not a saved Haute-Tension game"):
        Game.from_json(data)
