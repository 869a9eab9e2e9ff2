"""Computer players: legality over many games, secrecy of what they read, determinisations."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.budget import Budget
from games.exc import GameOverError
from games.hautetension.ai import (
    AI_LEVELS,
    HeuristicPlayer,
    InformationSet,
    ISMCTSPlayer,
    RandomPlayer,
    SeatPlayer,
)
from games.hautetension.ai.arena import lineups, report, run
from games.hautetension.ai.arena import main as arena_main
from games.hautetension.ai.heuristic import Evaluator
from games.hautetension.ai.sim import Sim, board_of
from games.hautetension.digital import DigitalHauteTension
from games.hautetension.game import Game
from games.hautetension.pawn import DEFENSE_PAWNS
from games.hautetension.seats import default_seats
from games.hautetension.views import player_view


def new(players: int, seed: int = 7, **options: object) -> DigitalHauteTension:
    return DigitalHauteTension([f"p{i}" for i in range(players)], options={"first": 0, **options}, seed=seed)


def levels(rng: random.Random, ismcts_iterations: int = 40) -> dict[str, SeatPlayer]:
    return {
        "random": SeatPlayer(RandomPlayer(random.Random(rng.getrandbits(32)))),
        "heuristic": SeatPlayer(HeuristicPlayer(random.Random(rng.getrandbits(32)))),
        "ismcts": SeatPlayer(ISMCTSPlayer(random.Random(rng.getrandbits(32)), iterations=ismcts_iterations)),
    }


def play_out(game: DigitalHauteTension, players: list[SeatPlayer]) -> int:
    moves = 0
    while not game.is_over():
        seat = game.to_act
        assert seat is not None
        move = players[seat].choose(game)
        assert move in game.legal_moves(), f"illegal move {move!r} by seat {seat}"
        game.push(move)
        moves += 1
    return moves


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_and_heuristic_players_play_only_legal_moves(players: int) -> None:
    rng = random.Random(players)
    for number in range(12):
        pool = levels(rng)
        seated = [pool[rng.choice(["random", "heuristic"])] for _ in range(players)]
        handicap = {"S": 2} if number % 4 == 0 else {}
        game = new(players, seed=number, handicap=handicap)
        assert play_out(game, seated) > 0
        assert game.outcome() is not None


@pytest.mark.parametrize("players", [2, 3, 4])
def test_ismcts_plays_only_legal_moves(players: int) -> None:
    rng = random.Random(10 + players)
    for number in range(2):
        pool = levels(rng, ismcts_iterations=25)
        seated = [pool["ismcts"], *[pool[rng.choice(["random", "heuristic"])] for _ in range(players - 1)]]
        game = new(players, seed=number)
        play_out(game, seated)
        assert game.is_over()


def test_levels_are_registered_and_refuse_a_finished_game() -> None:
    game = new(2)
    for factory in AI_LEVELS.values():
        player = factory(random.Random(1))
        assert player.choose(game) in game.legal_moves()
    game.push({"slot": "f9", "pawn": "attack"})
    for slot in ("a1", "f8", "b1", "f7", "c1", "f6", "d1"):
        game.push({"slot": slot, "pawn": "attack"})
    game.push({"slot": "f5", "pawn": "attack"})
    assert game.is_over()
    with pytest.raises(GameOverError):
        AI_LEVELS["random"](random.Random(1)).choose(game)


def _twin_games(seed: int) -> tuple[DigitalHauteTension, DigitalHauteTension, int]:
    """Two 3-player games with the same public history, where seat 1's hidden kinds differ."""
    rng = random.Random(seed)
    a, b = new(3, seed=seed), new(3, seed=seed)
    differ = False
    for number in range(60):
        seat = a.to_act
        move = rng.choice(a.legal_moves())
        twin = dict(move)
        if seat == 1 and move["pawn"] == "attack" and any(m["pawn"] == "defense" for m in b.legal_moves()):
            twin["pawn"] = "defense"
        if a.play(move).view(None)["lit"] != b.play(twin).view(None)["lit"]:
            twin = move
        a.push(move)
        b.push(twin)
        differ = differ or twin != move
        if a.is_over():
            break
        if differ and number >= 8 and a.to_act == 0:
            return a, b, 0
    pytest.fail(f"seed {seed} gave no twin games with seat 0 to play: pick another seed")


@pytest.mark.parametrize("level", ["random", "heuristic", "ismcts"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_choice_does_not_depend_on_opponents_hidden_kinds(level: str, seed: int) -> None:
    a, b, seat = _twin_games(seed)
    assert a.to_json()["moves"] != b.to_json()["moves"]  # the hidden kinds differ
    assert a.view(seat) == b.view(seat)
    player_a = levels(random.Random(99), ismcts_iterations=60)[level]
    player_b = levels(random.Random(99), ismcts_iterations=60)[level]
    assert player_a.choose(a) == player_b.choose(b)


def test_players_read_only_the_seat_view() -> None:
    """A player given a game whose only readable part is the view still chooses."""
    game = new(2)
    game.push({"slot": "f9", "pawn": "defense"})

    class OnlyView:
        to_act = game.to_act

        def view(self, seat: int | None = None) -> dict[str, object]:
            assert seat == game.to_act, "a player may only read its own seat's view"
            return game.view(seat)

    for factory in AI_LEVELS.values():
        move = factory(random.Random(5)).choose(OnlyView())  # type: ignore[arg-type]
        assert move in game.legal_moves()


def test_ismcts_is_reproducible_with_a_seed() -> None:
    game = new(3, seed=4)
    player = SeatPlayer(HeuristicPlayer(random.Random(1)))
    for _ in range(12):
        game.push(player.choose(game))
    first = SeatPlayer(ISMCTSPlayer(random.Random(8), iterations=80)).choose(game)
    second = SeatPlayer(ISMCTSPlayer(random.Random(8), iterations=80)).choose(game)
    assert first == second


def _close_call() -> DigitalHauteTension:
    """Seat 0 (lamp N) has four attack pawns on a1-a4, a straight row to S (seat 1's lamp) ending at a5."""
    game = new(2)
    for mine, theirs in zip(["a1", "a2", "a3", "a4"], ["i9", "h9", "g9", "i1"], strict=True):
        game.push({"slot": mine, "pawn": "attack"})
        game.push({"slot": theirs, "pawn": "attack"})
    return game


@pytest.mark.parametrize("level", ["heuristic", "ismcts"])
def test_a_sure_elimination_is_taken(level: str) -> None:
    game = _close_call()
    assert game.to_act == 0
    move = levels(random.Random(3), ismcts_iterations=200)[level].choose(game)
    assert move == {"slot": "a5", "pawn": "attack"}
    after = game.play(move)
    outcome = after.outcome()
    assert outcome is not None and outcome.winners == (0,)


@pytest.mark.parametrize("level", ["heuristic", "ismcts"])
def test_a_threat_to_ones_lamp_is_blocked(level: str) -> None:
    game = _close_call()
    game.push({"slot": "h1", "pawn": "attack"})  # seat 0 looks away
    # Now seat 1 to move: seat 0's pawns a1-a4 are one pawn from lighting S.
    move = levels(random.Random(3), ismcts_iterations=200)[level].choose(game)
    assert move["slot"] == "a5" and move["pawn"] == "defense"


# -- the fast position used by the searches ---------------------------------------


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10**6), st.integers(2, 4), st.booleans())
def test_the_search_position_follows_the_rules_engine(seed: int, players: int, handicap: bool) -> None:
    rng = random.Random(seed)
    layout = new(2).layout
    seats = default_seats([f"p{i}" for i in range(players)])
    plan = {seats[-1].lamp: 2} if handicap else None
    game = Game(layout, seats, first=rng.randrange(players), handicap=plan)
    board = board_of(layout)
    sim = Sim(board, [s.lamp for s in seats], game.first)
    for slot, (owner, _kind) in game.pawns.items():
        assert owner is None
        sim.place_handicap(board.index[slot])
    while not game.is_over():
        assert sim.to_move == game.to_move and not sim.over
        slot, kind = rng.choice(game.legal_moves())
        game.push(slot, kind)
        sim.push(board.index[slot], kind.value == "attack")
        assert {board.lamps[n - 1] for n in range(1, 5) if sim.lit >> n & 1} == set(game.lit)
        assert sim.out == [game.is_eliminated(i) for i in range(players)]
        for r, s in sim.hot.items():
            assert sum(1 for x in board.rows[r] if sim.att[x]) == 4 and sim.occ[s] == -1
    outcome = game.outcome()
    assert outcome is not None and sim.over
    assert set(sim.winners) == set(outcome.winners)
    assert tuple(sim.points()) == game.points()


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10**6), st.integers(2, 4))
def test_determinisations_agree_with_everything_the_seat_saw(seed: int, players: int) -> None:
    rng = random.Random(seed)
    game = new(players, seed=seed, handicap={"N": 1} if seed % 3 == 0 else {})
    pool = levels(rng)
    seated = [pool["heuristic"] if rng.random() < 0.7 else pool["random"] for _ in range(players)]
    for _ in range(rng.randrange(5, 60)):
        if game.is_over():
            break
        game.push(seated[game.to_act or 0].choose(game))
    seat = rng.randrange(players)
    info = InformationSet.from_view(game.view(seat))
    truth = game.game.pawns
    for _ in range(3):
        sim, consistent = info.determinise(rng)
        assert consistent
        board = info.board
        for slot, (owner, kind) in truth.items():
            s = board.index[slot]
            assert sim.occ[s] == (owner if owner is not None else -2)
            if owner in (seat, None):
                assert sim.att[s] == (kind.value == "attack")  # what the seat knows is kept
        for other in range(players):
            defenses = sum(1 for s, o in enumerate(sim.occ) if o == other and not sim.att[s])
            assert defenses <= DEFENSE_PAWNS
        assert {board.lamps[n - 1] for n in range(1, 5) if sim.lit >> n & 1} == set(game.game.lit)
        assert sim.out == [game.game.is_eliminated(i) for i in range(players)]


def test_the_repair_finds_the_defenses_full_dark_rows_imply() -> None:
    """All four straight rows to N are full and N stayed dark: seat 0 (N) knows its own
    defense holds one; each of the three others must hold one of seat 1's three defenses.
    Rejection sampling alone rarely draws that; the constraint-guided repair must."""
    game = new(2)
    mine = ["i5", "a1", "a2", "a3", "b1", "b2", "b3", "c1", "c2", "c3", "d1", "d2", "d3"]
    mine += ["a9", "b9", "c9", "a8", "b8", "c8", "a7"]
    theirs = [f"{c}{r}" for c in "fgh" for r in range(9, 4, -1)] + ["i9", "i8", "i7", "i6"]
    for number, slot in enumerate(mine):
        game.push({"slot": slot, "pawn": "defense" if slot == "i5" else "attack"})
        if number < len(theirs):
            kind = "defense" if theirs[number].endswith("5") else "attack"
            game.push({"slot": theirs[number], "pawn": kind})
    assert not game.is_over() and game.view(0)["lit"] == []
    info = InformationSet.from_view(game.view(0))
    board = info.board
    rng = random.Random(1)
    for _ in range(10):
        sim, consistent = info.determinise(rng)
        assert consistent and sim.lit == 0
        for column in "fgh":
            row = [board.index[f"{column}{r}"] for r in range(9, 4, -1)]
            assert sum(1 for s in row if not sim.att[s]) == 1


def test_the_arena_reports_every_level() -> None:
    match = run(2, 6, seed=3, iterations=20, progress=lambda _m: None)
    assert match.games == 6
    assert sum(t.games for t in match.tallies.values()) == 12
    text = report(2, match, 20)
    for level in ("ismcts", "heuristic", "random"):
        assert f"| {level} | 4 |" in text


def test_the_information_set_reads_the_engine_view_too() -> None:
    """Without ``lit_at`` (the engine's own player view) lamp times come from eliminations."""
    game = new(2)
    for mine, theirs in zip(["f9", "f8", "f7", "f6"], ["a1", "b1", "c1", "d1"], strict=True):
        game.push({"slot": mine, "pawn": "attack"})
        game.push({"slot": theirs, "pawn": "defense" if theirs == "a1" else "attack"})
    engine_view = player_view(game.game, 1)
    assert "lit_at" not in engine_view
    info = InformationSet.from_view(engine_view)
    assert info.me == 1 and info.stock == (19, 2) and len(info.moves) == 8
    assert info.mine == {1: False, 3: True, 5: True, 7: True}
    sim, consistent = info.determinise(random.Random(2))
    assert consistent and sim.lit == 0
    game.push({"slot": "f5", "pawn": "attack"})  # seat 0 lights its own lamp
    done = InformationSet.from_view(player_view(game.game, 1))
    node_n = done.board.lamps.index("N") + 1
    assert done.lit_at == {node_n: 9}


def _middle_game() -> tuple[DigitalHauteTension, InformationSet]:
    game = new(3, seed=4)
    player = SeatPlayer(HeuristicPlayer(random.Random(1)))
    for _ in range(12):
        game.push(player.choose(game))
    seat = game.to_act
    assert seat is not None
    return game, InformationSet.from_view(game.view(seat))


def test_ismcts_stops_at_its_budget_with_the_placement_visited_most(ticks) -> None:
    game, info = _middle_game()
    # Readings: one starts the clock, 7 come before the 7 determinisations after the first,
    # then one before each playout: 32 ran, the 33rd found the budget spent.
    timed = ISMCTSPlayer(random.Random(8), determinisations=8, budget=Budget(40, ticks))
    choice = timed.choose_from(info)
    assert (timed.last_iterations, timed.cut, ticks.readings) == (32, 1, 41)
    assert timed.last_determinisations[0] == 8
    fixed = ISMCTSPlayer(random.Random(8), determinisations=8, iterations=32)
    assert fixed.choose_from(info) == choice and fixed.cut == 0
    slot, attack = choice
    assert {"slot": info.board.slots[slot], "pawn": "attack" if attack else "defense"} in game.legal_moves()


def test_ismcts_short_of_time_plays_the_heuristics_best(ticks) -> None:
    _game, info = _middle_game()
    player = ISMCTSPlayer(random.Random(8), budget=Budget(3, ticks))
    choice = player.choose_from(info)
    assert (player.last_iterations, player.cut, player.last_determinisations[0]) == (0, 1, 3)
    best = Evaluator(info).candidates()[0]
    assert choice == (best.slot, best.attack)


def test_the_arena_seats_a_lineup_in_every_order(ticks) -> None:
    assert lineups(2, ["ismcts", "ismcts-fixed"]) == [("ismcts", "ismcts-fixed"), ("ismcts-fixed", "ismcts")]
    match = run(2, 4, seed=3, iterations=20, progress=lambda _m: None, budget=Budget(0, ticks),
                levels=["ismcts", "ismcts-fixed"])
    assert match.tallies["ismcts"].games == match.tallies["ismcts-fixed"].games == 4
    text = report(2, match, 20, Budget(0.2))
    assert "at most 0.2 s of CPU" in text and "| ismcts-fixed | ismcts | 4 |" in text


@pytest.mark.parametrize("argv", [["--lineup", "ismcts"], ["--lineup", *["random"] * 5], ["--slowdown", "0"]])
def test_the_arena_refuses_a_lineup_or_slowdown_it_cannot_play(argv: list[str]) -> None:
    with pytest.raises(SystemExit):
        arena_main([*argv, "--games", "1"])
