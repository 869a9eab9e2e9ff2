"""Superposition: the electron sits between its two spins until a movement needs its spin; then
the player who superposed it chooses, and a choice that makes the movement impossible loses it."""

from __future__ import annotations

import pytest

from games.exc import IllegalMoveError
from games.hop.effects import DIFFUSION, IONIZATION, SUPERPOSITION, VORTEX


def defending(arrange, electrons, cards=(SUPERPOSITION,), **kwargs):
    kwargs.setdefault("energy", [6, 1])
    kwargs.setdefault("bank", 1)
    game = arrange(level="doctorate", electrons=electrons, **kwargs)
    market = game.state.market
    market[:] = list(cards) + [c for c in market if c not in cards]
    del market[7:]
    game.push({"action": "thesis-defense"})
    return game


def site(game, node):
    return game.view()["sites"][node]


def test_superposing_an_electron(arrange):
    game = defending(arrange, {"c3": {"up": "blue"}, "b2": {"up": "red", "down": "red"}})
    offered = [m for m in game.legal_moves() if m.get("effect") == "superposition"]
    assert {"effect": "superposition", "at": "c3", "spin": "up"} in offered
    assert not [m for m in offered if m["at"] == "b2"]  # a full site has no spin to be between
    game.push({"effect": "superposition", "at": "c3", "spin": "up"})
    assert game.view()["superposed"] == [{"at": "c3", "owner": 0, "shown_on": "up"}]


def test_the_owner_moving_it_chooses_the_spin_and_the_move_goes_on(arrange):
    game = defending(arrange, {"c3": {"up": "red"}})
    game.push({"effect": "superposition", "at": "c3", "spin": "up"})
    game.push({"end_defense": True})
    # Either spin may be tried: the electron is both until it is known.
    assert {"action": "hop", "from": "c3", "spin": "down", "to": "c2"} in game.legal_moves()
    game.push({"action": "hop", "from": "c3", "spin": "down", "to": "c2"})
    assert game.view()["collapse"] == {
        "at": "c3",
        "move": {"action": "hop", "from": "c3", "spin": "down", "to": "c2"},
    }
    assert game.legal_moves() == [{"collapse": "up", "at": "c3"}, {"collapse": "down", "at": "c3"}]
    game.push({"collapse": "down", "at": "c3"})
    assert site(game, "c2")["down"] == "red" and game.view()["superposed"] == []
    assert game.view()["turn"] == 1  # the hop was red's second action


def test_a_choice_that_makes_the_move_impossible_loses_it(arrange):
    game = defending(arrange, {"c3": {"up": "red"}, "b2": {"up": "red"}})
    game.push({"effect": "superposition", "at": "c3", "spin": "up"})
    game.push({"end_defense": True})
    game.push({"action": "hop", "from": "c3", "spin": "down", "to": "c2"})
    game.push({"collapse": "up", "at": "c3"})
    assert site(game, "c3") == {"up": "red", "down": None} and site(game, "c2") == {"up": None, "down": None}
    assert game.view()["turn"] == 1  # the action was spent


def test_another_player_entering_its_site_waits_for_the_owner(arrange):
    game = defending(arrange, {"c3": {"up": "blue"}, "c2": {"down": "blue"}})
    game.push({"effect": "superposition", "at": "c3", "spin": "up"})
    game.push({"end_defense": True})
    game.push({"action": "thesis-defense"})
    game.push({"end_defense": True})
    game.push({"block": "doublon"})
    # Blue hops into c3's free down place: red, the owner, decides where the electron is.
    game.push({"action": "hop", "from": "c2", "spin": "down", "to": "c3"})
    assert game.view()["to_act"] == 0
    with pytest.raises(IllegalMoveError):
        game.push({"action": "hop", "from": "c3", "spin": "up", "to": "c4"})
    game.push({"collapse": "down", "at": "c3"})
    assert site(game, "c3") == {"up": None, "down": "blue"} and site(game, "c2")["down"] == "blue"  # lost
    assert game.view()["to_act"] == 1 and game.view()["phase"] == "second"


def test_effects_are_not_aimed_at_a_superposed_electron_but_ionization_removes_it(arrange):
    game = defending(
        arrange, {"c3": {"up": "blue"}, "c4": {"up": "red"}}, cards=(SUPERPOSITION, DIFFUSION, IONIZATION)
    )
    game.push({"effect": "superposition", "at": "c3", "spin": "up"})
    assert not [m for m in game.legal_moves() if m.get("effect") == "diffusion"]
    game.push({"effect": "ionization", "at": "c3", "spin": "up"})
    assert game.view()["superposed"] == [] and game.view()["ionized"] == {"blue": 1}


def test_a_vortex_carries_a_superposed_electron_still_superposed(arrange):
    game = defending(arrange, {"b2": {"down": "blue"}}, cards=(SUPERPOSITION, VORTEX))
    game.push({"effect": "superposition", "at": "b2", "spin": "down"})
    game.push({"effect": "vortex", "sites": ["b2", "b3", "c3", "c2"], "turning": "clockwise"})
    game.push({"end_defense": True})
    game.push({"action": "thesis-defense"})
    game.push({"end_defense": True})
    assert game.view()["superposed"] == [{"at": "b3", "owner": 0, "shown_on": "down"}]
