"""Each movement action in every direction, at the board's edges and into electrodes."""

from __future__ import annotations

import pytest

from games.hop.exc import (
    BlockedActionError,
    ImpossibleMoveError,
    NotYourElectronError,
    PlaceTakenError,
)
from games.hop.rules import Termination

DIRECTIONS = {"north": "c4", "south": "c2", "east": "d3", "west": "b3"}
BEYOND = {"north": "c5", "south": "c1", "east": "e3", "west": "a3"}


def site(game, name):  # the colours on a site, as the view shows them
    return game.view()["sites"][name]


# -- hopping -----------------------------------------------------------------


@pytest.mark.parametrize("direction", DIRECTIONS)
@pytest.mark.parametrize("spin", ["up", "down"])
def test_hop_in_every_direction_keeps_the_spin(arrange, direction, spin):
    game = arrange(electrons={"c3": {spin: "red"}})
    to = DIRECTIONS[direction]
    game.push({"action": "hop", "from": "c3", "spin": spin, "to": to})
    assert site(game, "c3") == {"up": None, "down": None}
    assert site(game, to)[spin] == "red"
    other = "down" if spin == "up" else "up"
    assert site(game, to)[other] is None


def test_hop_to_the_other_spin_does_not_exist(arrange):
    game = arrange(electrons={"c3": {"up": "red"}})
    assert {"action": "hop", "from": "c3", "spin": "up", "to": "c4"} in game.legal_moves()
    with pytest.raises(NotYourElectronError):
        game.push({"action": "hop", "from": "c3", "spin": "down", "to": "c4"})


def test_hop_onto_a_taken_spin_is_refused(arrange):
    game = arrange(
        electrons={"c3": {"up": "red"}, "c4": {"up": "blue", "down": "blue"}, "c5": {"up": "blue"}}
    )
    with pytest.raises(PlaceTakenError):
        game.push({"action": "hop", "from": "c3", "spin": "up", "to": "c4"})


def test_hop_goes_only_to_orthogonal_neighbours(arrange):
    game = arrange(electrons={"c3": {"up": "red"}})
    with pytest.raises(ImpossibleMoveError):
        game.push({"action": "hop", "from": "c3", "spin": "up", "to": "d4"})
    with pytest.raises(ImpossibleMoveError):
        game.push({"action": "hop", "from": "c3", "spin": "up", "to": "c5"})


@pytest.mark.parametrize(
    ("corner", "neighbours"),
    [
        ("a3", {"a2", "a4", "b3"}),
        ("e2", {"e1", "e3", "d2"}),
        ("c5", {"b5", "d5", "c4"}),
        ("e1", {"d1", "e2"}),
    ],
)
def test_hops_at_the_edges_stay_on_the_board(arrange, of_kind, corner, neighbours):
    game = arrange(electrons={corner: {"up": "red"}})
    assert {m["to"] for m in of_kind(game, "hop") if m["from"] == corner} == neighbours


@pytest.mark.parametrize(("to", "spin"), [("b1", "up"), ("b1", "down"), ("a2", "up"), ("a2", "down")])
def test_hop_out_of_the_own_electrode_onto_either_spin(arrange, to, spin):
    game = arrange()
    game.push({"action": "hop", "from": "a1", "spin": spin, "to": to})
    assert site(game, to)[spin] == "red"
    assert game.view()["electrodes"]["red"] == {"red": 6}


def test_hop_out_of_an_opponents_electrode_is_refused(arrange):
    game = arrange()
    with pytest.raises(NotYourElectronError):
        game.push({"action": "hop", "from": "e5", "spin": "up", "to": "e4"})


@pytest.mark.parametrize("last", ["e4", "d5"])
def test_hop_into_the_opponents_electrode_wins(arrange, last):
    game = arrange(electrons={last: {"down": "red"}})
    game.push({"action": "hop", "from": last, "spin": "down", "to": "e5"})
    outcome = game.outcome()
    assert outcome is not None and outcome.termination == Termination.ELECTRODE_REACHED
    assert outcome.winners == (0,)
    assert game.view()["electrodes"]["blue"] == {"blue": 7, "red": 1}  # it stays there


def test_hop_back_into_the_own_electrode_is_refused(arrange, of_kind):
    game = arrange(electrons={"b1": {"up": "red"}})
    assert "a1" not in {m["to"] for m in of_kind(game, "hop")}
    with pytest.raises(ImpossibleMoveError):
        game.push({"action": "hop", "from": "b1", "spin": "up", "to": "a1"})


# -- doublon hopping -----------------------------------------------------------


@pytest.mark.parametrize("direction", DIRECTIONS)
def test_doublon_in_every_direction(arrange, direction):
    game = arrange(electrons={"c3": {"up": "red", "down": "red"}})
    to = DIRECTIONS[direction]
    game.push({"action": "doublon", "from": "c3", "to": to})
    assert site(game, to) == {"up": "red", "down": "red"}
    assert site(game, "c3") == {"up": None, "down": None}


def test_doublon_from_the_electrode(arrange):
    game = arrange()
    game.push({"action": "doublon", "from": "a1", "to": "a2"})
    assert site(game, "a2") == {"up": "red", "down": "red"}
    assert game.view()["electrodes"]["red"] == {"red": 5}


def test_doublon_needs_both_destination_spins_free(arrange):
    game = arrange(electrons={"c3": {"up": "red", "down": "red"}, "c4": {"down": "blue"}})
    with pytest.raises(PlaceTakenError):
        game.push({"action": "doublon", "from": "c3", "to": "c4"})


def test_doublon_needs_two_own_electrons(arrange):
    game = arrange(electrons={"c3": {"up": "red", "down": "blue"}})
    with pytest.raises(NotYourElectronError):
        game.push({"action": "doublon", "from": "c3", "to": "c4"})


def test_doublon_at_the_edge_and_never_into_an_electrode(arrange, of_kind):
    game = arrange(electrons={"e4": {"up": "red", "down": "red"}})
    assert {m["to"] for m in of_kind(game, "doublon") if m["from"] == "e4"} == {"e3", "d4"}


# -- spin flip -------------------------------------------------------------------


@pytest.mark.parametrize(("spin", "other"), [("up", "down"), ("down", "up")])
def test_spin_flip(arrange, spin, other):
    game = arrange(electrons={"a5": {spin: "red"}})
    game.push({"action": "spin-flip", "at": "a5", "spin": spin})
    assert site(game, "a5") == {spin: None, other: "red"}


def test_spin_flip_onto_a_taken_spin_is_refused(arrange):
    game = arrange(electrons={"c3": {"up": "red", "down": "blue"}})
    with pytest.raises(PlaceTakenError):
        game.push({"action": "spin-flip", "at": "c3", "spin": "up"})


# -- quantum Newton's cradle ------------------------------------------------------


@pytest.mark.parametrize("direction", DIRECTIONS)
def test_cradle_in_every_direction_moves_the_last_electron(arrange, direction):
    first = DIRECTIONS[direction]
    game = arrange(electrons={"c3": {"up": "red"}, first: {"up": "blue"}})
    game.push({"action": "cradle", "from": "c3", "spin": "up", "to": BEYOND[direction]})
    assert site(game, "c3")["up"] == "red"  # the striker stays, its momentum goes through
    assert site(game, first)["up"] is None
    assert site(game, BEYOND[direction])["up"] == "blue"


def test_cradle_pushes_the_last_of_a_longer_line(arrange):
    game = arrange(
        electrons={
            "a2": {"down": "red"},
            "b2": {"down": "blue"},
            "c2": {"down": "red"},
            "d2": {"down": "blue"},
        }
    )
    game.push({"action": "cradle", "from": "a2", "spin": "down", "to": "e2"})
    row = [site(game, s)["down"] for s in ("a2", "b2", "c2", "d2", "e2")]
    assert row == ["red", "blue", "red", None, "blue"]


def test_cradle_against_the_edge_is_impossible(arrange, of_kind):
    game = arrange(
        electrons={"c4": {"up": "red"}, "c5": {"up": "blue"}, "d3": {"up": "red"}, "e3": {"up": "blue"}}
    )
    assert of_kind(game, "cradle") == []
    with pytest.raises(ImpossibleMoveError):
        game.push({"action": "cradle", "from": "c4", "spin": "up", "to": "c5"})


def test_cradle_follows_the_spin_of_the_striker(arrange, of_kind):
    game = arrange(electrons={"c3": {"up": "red"}, "c4": {"down": "blue"}})
    assert of_kind(game, "cradle") == []


def test_cradle_pushes_own_electron_into_the_opponents_electrode(arrange):
    game = arrange(electrons={"c5": {"up": "red"}, "d5": {"up": "red"}})
    game.push({"action": "cradle", "from": "c5", "spin": "up", "to": "e5"})
    assert game.outcome() is not None and game.outcome().winners == (0,)


def test_cradle_pushes_an_opponent_back_home(arrange):
    game = arrange(electrons={"c5": {"up": "red"}, "d5": {"up": "blue"}})
    game.push({"action": "cradle", "from": "c5", "spin": "up", "to": "e5"})
    assert game.outcome() is None
    assert game.view()["electrodes"]["blue"] == {"blue": 7}


def test_cradle_that_puts_the_movers_electron_home_is_no_win(arrange):
    game = arrange(electrons={"c1": {"up": "red"}, "b1": {"up": "red"}}, turn=0)
    game.push({"action": "cradle", "from": "c1", "spin": "up", "to": "a1"})
    assert game.outcome() is None
    assert game.view()["electrodes"]["red"] == {"red": 6}


def test_cradle_from_the_electrode(arrange):
    game = arrange(electrons={"b1": {"down": "blue"}})
    game.push({"action": "cradle", "from": "a1", "spin": "down", "to": "c1"})
    assert site(game, "c1")["down"] == "blue" and site(game, "b1")["down"] is None


# -- quantum tunnel -----------------------------------------------------------------


@pytest.mark.parametrize("direction", DIRECTIONS)
def test_tunnel_in_every_direction(arrange, direction):
    first = DIRECTIONS[direction]
    game = arrange(electrons={"c3": {"down": "red"}, first: {"down": "blue"}})
    game.push({"action": "tunnel", "from": "c3", "spin": "down", "to": BEYOND[direction]})
    assert site(game, "c3")["down"] is None
    assert site(game, first)["down"] == "blue"
    assert site(game, BEYOND[direction])["down"] == "red"


def test_tunnel_lands_on_the_first_free_place_beyond(arrange):
    game = arrange(electrons={"a3": {"up": "red"}, "b3": {"up": "blue"}, "c3": {"up": "red"}})
    game.push({"action": "tunnel", "from": "a3", "spin": "up", "to": "d3"})
    assert [site(game, s)["up"] for s in ("a3", "b3", "c3", "d3", "e3")] == [None, "blue", "red", "red", None]


def test_tunnel_straight_into_the_opponents_electrode(arrange):
    game = arrange(electrons={"e2": {"up": "red"}, "e3": {"up": "blue"}, "e4": {"up": "blue"}})
    game.push({"action": "tunnel", "from": "e2", "spin": "up", "to": "e5"})
    assert game.outcome() is not None and game.outcome().winners == (0,)


def test_tunnel_out_of_the_electrode(arrange):
    game = arrange(electrons={"a2": {"up": "blue"}, "a3": {"up": "red"}})
    game.push({"action": "tunnel", "from": "a1", "spin": "up", "to": "a4"})
    assert site(game, "a4")["up"] == "red"
    assert game.view()["electrodes"]["red"] == {"red": 5}


def test_tunnel_never_ends_in_the_own_electrode_nor_off_the_board(arrange, of_kind):
    game = arrange(
        electrons={
            "c1": {"up": "red"},
            "b1": {"up": "blue"},
            "c4": {"up": "blue"},
            "c5": {"up": "blue"},
            "c3": {"up": "red"},
        }
    )
    assert {m["to"] for m in of_kind(game, "tunnel") if m["from"] in ("c1", "c3")} == set()
    with pytest.raises(ImpossibleMoveError):
        game.push({"action": "tunnel", "from": "c1", "spin": "up", "to": "a1"})


def test_blocked_action_is_refused_and_not_listed(arrange, of_kind):
    game = arrange(electrons={"c3": {"up": "red"}, "c4": {"up": "blue"}}, blocked="tunnel")
    assert of_kind(game, "tunnel") == []
    with pytest.raises(BlockedActionError):
        game.push({"action": "tunnel", "from": "c3", "spin": "up", "to": "c5"})


def test_cradle_that_pushes_an_opponent_into_the_own_electrode_loses(arrange):
    game = arrange(electrons={"c1": {"up": "red"}, "b1": {"up": "blue"}})
    game.push({"action": "cradle", "from": "c1", "spin": "up", "to": "a1"})
    assert game.outcome() is not None and game.outcome().winners == (1,)
