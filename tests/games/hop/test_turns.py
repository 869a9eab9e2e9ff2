"""Setup, the turn (block then two movements), passing, the turn limit and team wins."""

from __future__ import annotations

import pytest

from games.exc import GameOverError
from games.frame import BadOptionsError
from games.hop.exc import BlockedActionError, BlockError, NotationError, WrongPhaseError
from games.hop.game import Hop
from games.hop.rules import ENERGY_TOKENS, Termination

ALL = ["hop", "doublon", "spin-flip", "cradle", "tunnel"]


@pytest.mark.parametrize(
    ("players", "board", "each"),
    [
        (2, "square-5x5-2", 2),
        (3, "square-5x5-3", 1),
        (4, "square-6x6-4", 1),
    ],
)
def test_setup(players, board, each):
    game = Hop.new([f"p{k}" for k in range(players)], seed=3)
    view = game.view()
    assert game.options["board"] == board
    assert [p["energy"] for p in view["players"]] == [each] * players
    assert view["bank"] == ENERGY_TOKENS - each * players
    assert all(v == {"up": None, "down": None} for v in view["sites"].values())
    assert view["electrodes"] == {colour: {colour: 7} for colour in game.board.colours}
    assert view["board_energy"] == 0


def test_electrodes_take_the_place_of_corner_sites():
    game = Hop.new(["a", "b", "c", "d"], seed=1)
    board = game.board
    assert len(board.nodes) == 36 and len(board.sites) == 32
    assert [board.nodes[n] for n in board.electrodes] == ["a1", "a6", "f6", "f1"]
    assert board.teams == (0, 1, 0, 1)  # partners in opposite corners
    assert sorted(board.nodes[n] for n in board.neighbours[board.index["f6"]]) == ["e6", "f5"]


def test_the_player_on_the_left_blocks_first():
    game = Hop.new(["a", "b", "c"], seed=1)
    assert game.to_act == 1 and game.view()["phase"] == "block"
    assert game.legal_moves() == [{"block": name} for name in ALL]
    with pytest.raises(WrongPhaseError):
        game.push({"action": "hop", "from": "a1", "spin": "up", "to": "b1"})
    game.push({"block": "hop"})
    assert game.to_act == 0 and game.view()["blocked"] == "hop"
    with pytest.raises(BlockedActionError):
        game.push({"action": "hop", "from": "a1", "spin": "up", "to": "b1"})
    with pytest.raises(WrongPhaseError):
        game.push({"block": "tunnel"})
    game.push({"action": "doublon", "from": "a1", "to": "b1"})
    assert game.to_act == 0  # two movements per turn
    game.push({"action": "doublon", "from": "b1", "to": "c1"})  # the same action twice
    assert game.to_act == 2 and game.view()["turn"] == 1  # seat 2 blocks seat 1


def test_the_same_action_cannot_be_blocked_twice_in_a_row_for_a_player():
    game = Hop.new(["a", "b"], seed=1)
    game.push({"block": "tunnel"})
    game.push({"action": "hop", "from": "a1", "spin": "up", "to": "b1"})
    game.push({"action": "hop", "from": "b1", "spin": "up", "to": "c1"})
    game.push({"block": "tunnel"})  # a different player's turn: allowed
    game.push({"action": "hop", "from": "e5", "spin": "up", "to": "d5"})
    game.push({"action": "hop", "from": "d5", "spin": "up", "to": "c5"})
    assert {"block": "tunnel"} not in game.legal_moves()
    assert len(game.legal_moves()) == 4
    assert game.view()["not_blockable"] == "tunnel"
    with pytest.raises(BlockError, match="two turns in a row"):
        game.push({"block": "tunnel"})
    game.push({"block": "cradle"})
    game.push({"action": "hop", "from": "a1", "spin": "up", "to": "b1"})
    game.push({"action": "hop", "from": "a1", "spin": "up", "to": "a2"})
    game.push({"block": "spin-flip"})
    game.push({"action": "hop", "from": "e5", "spin": "up", "to": "d5"})
    game.push({"action": "hop", "from": "e5", "spin": "up", "to": "e4"})
    game.push({"block": "tunnel"})  # two turns later tunnel may be blocked again


def test_blocks_are_written_with_a_known_action():
    game = Hop.new(["a", "b"], seed=1)
    with pytest.raises(NotationError):
        game.push({"block": "teleport"})
    with pytest.raises(NotationError):
        game.push({"block": "hop", "extra": 1})


def test_a_player_who_cannot_move_passes(arrange):
    # Positive field, attractive pairs: leaving the electrode onto an up spin or as a pair
    # earns a token the empty bank does not have; onto a down spin costs one red does not have.
    game = arrange(level="master", field="positive", interaction="attractive", energy=[0, 8], bank=0)
    assert game.legal_moves() == [{"pass": True}]
    assert game.view()["legal_moves"] == [{"move": {"pass": True}, "energy_change": 0}]
    game.push({"pass": True})
    assert game.to_act == 0 and game.view()["phase"] == "block" and game.view()["turn"] == 1


def test_pass_is_refused_while_a_movement_is_possible(arrange):
    game = arrange()
    with pytest.raises(WrongPhaseError):
        game.push({"pass": True})


def test_turn_limit_is_a_draw():
    game = Hop.new(["a", "b"], options={"max_rounds": 1}, seed=1)
    for move in (
        {"block": "tunnel"},
        {"action": "hop", "from": "a1", "spin": "up", "to": "b1"},
        {"action": "hop", "from": "a1", "spin": "up", "to": "a2"},
        {"block": "tunnel"},
        {"action": "hop", "from": "e5", "spin": "up", "to": "d5"},
    ):
        game.push(move)
    assert game.outcome() is None
    game.push({"action": "hop", "from": "e5", "spin": "up", "to": "e4"})
    outcome = game.outcome()
    assert outcome is not None and outcome.termination == Termination.TURN_LIMIT and outcome.draw
    assert game.legal_moves() == [] and game.to_act is None
    with pytest.raises(GameOverError):
        game.push({"block": "hop"})


def test_team_wins_with_four_players(arrange):
    # red (team 0, a1) reaches green's electrode (team 1, a6): red and blue win.
    game = arrange(players=4, electrons={"a5": {"up": "red"}})
    game.push({"action": "hop", "from": "a5", "spin": "up", "to": "a6"})
    outcome = game.outcome()
    assert outcome is not None and outcome.winners == (0, 2)


def test_partners_electrode_is_no_goal(arrange, of_kind):
    # blue is red's partner: red may not hop into blue's electrode (f6) ...
    game = arrange(players=4, electrons={"f5": {"up": "red"}, "e6": {"up": "red"}, "d6": {"up": "red"}})
    assert "f6" not in {m["to"] for m in of_kind(game, "hop")}
    # ... and a red electron pushed there by a cradle stays there without winning.
    game.push({"action": "cradle", "from": "d6", "spin": "up", "to": "f6"})
    assert game.outcome() is None
    assert game.view()["electrodes"]["blue"] == {"blue": 7, "red": 1}


def test_team_of_the_other_side_wins_when_it_reaches_red(arrange):
    game = arrange(players=4, turn=3, electrons={"b1": {"down": "yellow"}})
    game.push({"action": "hop", "from": "b1", "spin": "down", "to": "a1"})
    assert game.outcome().winners == (1, 3)


def test_three_players_the_reached_player_loses(arrange):
    game = arrange(players=3, turn=0, electrons={"b5": {"up": "red"}})
    game.push({"action": "hop", "from": "b5", "spin": "up", "to": "a5"})
    assert game.outcome().winners == (0, 2)  # green lost; red and blue are safe


def test_options_are_checked():
    with pytest.raises(BadOptionsError):
        Hop.new(["a", "b"], options={"level": "professor"})
    with pytest.raises(BadOptionsError):
        Hop.new(["a", "b"], options={"board": "square-6x6-4"})
    with pytest.raises(BadOptionsError):
        Hop.new(["a", "b"], options={"board": "/etc/passwd"})
    with pytest.raises(BadOptionsError):
        Hop.new(["a", "b"], options={"field": "positive"})  # Bachelor has no Hamiltonian
    with pytest.raises(BadOptionsError):
        Hop.new(["a", "b"], options={"level": "master", "interaction": "sticky"})
    with pytest.raises(BadOptionsError):
        Hop.new(["a", "b"], options={"max_rounds": 0})
    with pytest.raises(BadOptionsError):
        Hop.new(["a"])


def test_hamiltonian_is_drawn_from_the_seed_and_saved():
    drawn = {
        (
            Hop.new(["a", "b"], options={"level": "master"}, seed=s).options["field"],
            Hop.new(["a", "b"], options={"level": "master"}, seed=s).options["interaction"],
        )
        for s in range(12)
    }
    assert len(drawn) > 1
    game = Hop.new(["a", "b"], options={"level": "master", "field": "negative"}, seed=5)
    assert game.options["field"] == "negative" and game.options["interaction"] in ("attractive", "repulsive")
    assert (
        Hop.new(["a", "b"], options={"level": "master"}, seed=5).options
        == Hop.new(["a", "b"], options={"level": "master"}, seed=5).options
    )
