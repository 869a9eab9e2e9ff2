"""Superposition: the electron sits between its two spins until a movement needs its spin; then
the player who superposed it chooses, and a choice that makes the movement impossible loses it."""

from __future__ import annotations

import pytest

from games.exc import IllegalMoveError
from games.hop.effects import (
    CAVITY,
    DIFFUSION,
    HEAT_SOURCE,
    IONIZATION,
    LONG_RANGE_HOPPING,
    QUANTUM_TUNNEL,
    SUPERPOSITION,
    VORTEX,
)


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


def test_ionization_removes_a_superposed_electron_whatever_its_spin(arrange):
    game = defending(
        arrange, {"c3": {"up": "blue"}, "c4": {"up": "red"}}, cards=(SUPERPOSITION, DIFFUSION, IONIZATION)
    )
    game.push({"effect": "superposition", "at": "c3", "spin": "up"})
    game.push({"effect": "ionization", "at": "c3", "spin": "up"})
    assert game.view()["superposed"] == [] and game.view()["ionized"] == {"blue": 1}
    assert game.view()["collapse"] is None  # its position was not needed


def superposed(arrange, electrons, at, cards, owner_energy=6, **kwargs):
    """Red has superposed the electron at ``at`` and still defends, with ``cards`` to buy."""
    game = defending(arrange, electrons, cards=(SUPERPOSITION, *cards), energy=[owner_energy, 1], **kwargs)
    spin = next(iter(electrons[at]))
    game.push({"effect": "superposition", "at": at, "spin": spin})
    return game


def test_diffusion_with_a_superposed_electron_asks_its_owner_first(arrange):
    game = superposed(arrange, {"c3": {"up": "blue"}, "c4": {"down": "red"}}, "c3", (DIFFUSION,))
    # Shown on up, it may be on down: the exchange with c4's down electron is offered.
    offered = {"effect": "diffusion", "from": "c3", "spin": "down", "to": "c4"}
    assert offered in game.legal_moves()
    energy = game.view()["players"][0]["energy"]
    game.push(offered)
    assert game.view()["collapse"] == {"at": "c3", "move": offered}
    assert game.view()["to_act"] == 0 and game.view()["players"][0]["energy"] == energy - 1  # paid
    game.push({"collapse": "down", "at": "c3"})
    assert site(game, "c3")["down"] == "red" and site(game, "c4")["down"] == "blue"
    assert game.view()["superposed"] == [] and game.view()["defending"]  # the defense goes on


def test_a_choice_that_makes_the_effect_impossible_loses_it(arrange):
    game = superposed(arrange, {"c3": {"up": "blue"}, "c4": {"down": "red"}}, "c3", (DIFFUSION,))
    game.push({"effect": "diffusion", "from": "c3", "spin": "down", "to": "c4"})
    game.push({"collapse": "up", "at": "c3"})
    assert site(game, "c3") == {"up": "blue", "down": None} and site(game, "c4")["down"] == "red"
    market = {m["effect"]: m["used"] for m in game.view()["market"]}
    assert market["diffusion"] is True  # played and paid, to no effect
    assert game.view()["defending"] and game.view()["to_act"] == 0


def test_long_range_hopping_of_a_superposed_electron(arrange):
    game = superposed(arrange, {"c3": {"up": "red"}}, "c3", (LONG_RANGE_HOPPING,))
    offered = {"effect": "long-range-hopping", "from": "c3", "spin": "down", "to": "c5"}
    assert offered in game.legal_moves()
    game.push(offered)
    game.push({"collapse": "down", "at": "c3"})
    assert site(game, "c5")["down"] == "red" and site(game, "c3") == {"up": None, "down": None}


def test_long_range_hopping_onto_a_superposed_site_asks_for_its_spin(arrange):
    game = superposed(arrange, {"c5": {"up": "blue"}, "c3": {"up": "red"}}, "c5", (LONG_RANGE_HOPPING,))
    offered = {"effect": "long-range-hopping", "from": "c3", "spin": "up", "to": "c5"}
    assert offered in game.legal_moves()  # c5's up place is free if its electron is down
    game.push(offered)
    game.push({"collapse": "down", "at": "c5"})
    assert site(game, "c5") == {"up": "red", "down": "blue"}


def test_the_tunnel_card_through_a_superposed_electron(arrange):
    electrons = {"b1": {"up": "red"}, "c1": {"up": "blue"}, "d1": {"up": "blue"}}
    game = superposed(arrange, electrons, "c1", (QUANTUM_TUNNEL,))
    through = {"effect": "quantum-tunnel", "from": "b1", "spin": "up", "to": "e1"}
    assert through in game.legal_moves()
    game.push(through)
    assert game.view()["collapse"]["at"] == "c1"
    game.push({"collapse": "up", "at": "c1"})
    assert site(game, "e1")["up"] == "red" and site(game, "b1")["up"] is None
    lost = superposed(arrange, electrons, "c1", (QUANTUM_TUNNEL,))
    lost.push(through)
    lost.push({"collapse": "down", "at": "c1"})  # the line of up electrons is broken at c1
    assert site(lost, "b1")["up"] == "red" and site(lost, "e1")["up"] is None


def test_a_cavity_asks_the_owner_of_a_superposed_electron_then_moves_it(arrange):
    game = superposed(arrange, {"c3": {"up": "blue"}}, "c3", (CAVITY,))
    game.push({"effect": "microwave-cavity", "from": "c3", "to": "c4"})
    game.push({"end_defense": True})
    game.push({"action": "thesis-defense"})
    game.push({"end_defense": True})  # red's turn ends: the cavity needs the electron's spin
    view = game.view()
    assert view["to_act"] == 0 and view["collapse"] == {"at": "c3", "move": None}
    assert game.legal_moves() == [{"collapse": "up", "at": "c3"}, {"collapse": "down", "at": "c3"}]
    game.push({"collapse": "down", "at": "c3"})
    assert site(game, "c4")["down"] == "blue" and site(game, "c3") == {"up": None, "down": None}
    moved = {"effect": "microwave-cavity", "from": "c3", "spin": "down", "to": "c4"}
    assert game.view()["after_turn"] == [moved]
    assert game.view()["to_act"] == 0 and game.view()["phase"] == "block"  # red now blocks blue


def test_a_heat_source_asks_the_owner_of_a_superposed_electron_then_lifts_it(arrange):
    game = superposed(arrange, {"c3": {"down": "blue"}}, "c3", (HEAT_SOURCE,))
    game.push({"effect": "heat-source", "at": "c3"})
    game.push({"end_defense": True})
    game.push({"action": "thesis-defense"})
    game.push({"end_defense": True})
    assert game.view()["collapse"] == {"at": "c3", "move": None}
    game.push({"collapse": "down", "at": "c3"})
    assert site(game, "c3") == {"up": "blue", "down": None}


def test_a_vortex_carries_a_superposed_electron_still_superposed(arrange):
    game = defending(arrange, {"b2": {"down": "blue"}}, cards=(SUPERPOSITION, VORTEX))
    game.push({"effect": "superposition", "at": "b2", "spin": "down"})
    game.push({"effect": "vortex", "sites": ["b2", "b3", "c3", "c2"], "turning": "clockwise"})
    game.push({"end_defense": True})
    game.push({"action": "thesis-defense"})
    game.push({"end_defense": True})
    assert game.view()["superposed"] == [{"at": "b3", "owner": 0, "shown_on": "down"}]
