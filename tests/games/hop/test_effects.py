"""Each effect card of the Doctorate level, alone and in combination."""

from __future__ import annotations

import pytest

from games.exc import IllegalMoveError
from games.hop.effects import (
    DEAD_SHORT,
    DIFFUSION,
    IONIZATION,
    LONG_RANGE_HOPPING,
    MOBILITY_EDGE,
    PENNING_TRAP,
    QUANTUM_TUNNEL,
    ZERO_POINT_ENERGY,
)
from games.hop.rules import ELECTRONS


def defending(arrange, cards, **kwargs):
    """Red (seat 0) has just opened a thesis defense with ``cards`` on the cheapest positions."""
    kwargs.setdefault("energy", [6, 1])
    kwargs.setdefault("bank", 1)
    game = arrange(level="doctorate", **kwargs)
    rest = [
        c
        for c in (
            MOBILITY_EDGE,
            ZERO_POINT_ENERGY,
            DEAD_SHORT,
            IONIZATION,
            DIFFUSION,
            PENNING_TRAP,
            LONG_RANGE_HOPPING,
            QUANTUM_TUNNEL,
        )
        if c not in cards
    ]
    game.state.market[:] = (list(cards) + rest)[:7]
    game.push({"action": "thesis-defense"})
    return game


def effects(game, name):
    return [m for m in game.legal_moves() if m.get("effect") == name]


def site(game, node):
    return game.view()["sites"][node]


# -- ionization ---------------------------------------------------------------


def test_ionization_eliminates_an_opposing_electron_for_good(arrange):
    game = defending(arrange, [IONIZATION], electrons={"c3": {"up": "blue"}, "b1": {"up": "red"}})
    assert effects(game, "ionization") == [{"effect": "ionization", "at": "c3", "spin": "up"}]
    board_energy = game.view()["board_energy"]
    game.push({"effect": "ionization", "at": "c3", "spin": "up"})
    view = game.view()
    assert site(game, "c3")["up"] is None
    assert view["ionized"] == {"blue": 1}
    assert game.state.electrons(1) == ELECTRONS - 1
    assert view["board_energy"] != board_energy  # effects are not subject to the Hamiltonian
    assert view["players"][0]["energy"] == 5 and view["bank"] == 2


def test_ionization_cannot_hit_an_own_electron(arrange):
    game = defending(arrange, [IONIZATION], electrons={"b1": {"up": "red"}})
    with pytest.raises(IllegalMoveError):
        game.push({"effect": "ionization", "at": "b1", "spin": "up"})


# -- dead short and zero-point energy ------------------------------------------


def test_dead_short_steals_one_energy(arrange):
    game = defending(arrange, [DEAD_SHORT], energy=[3, 2], bank=3)
    game.push({"effect": "dead-short", "player": 1})
    view = game.view()
    assert [p["energy"] for p in view["players"]] == [3, 1]  # paid 1, stole 1
    assert view["bank"] == 4


def test_dead_short_needs_a_target_with_energy(arrange):
    game = defending(arrange, [DEAD_SHORT], energy=[3, 0], bank=5)
    assert effects(game, "dead-short") == []


def test_zero_point_energy_makes_every_other_player_pay_one(arrange):
    game = defending(arrange, [ZERO_POINT_ENERGY], players=3, energy=[2, 1, 0], bank=5)
    game.push({"effect": "zero-point-energy"})
    view = game.view()
    assert [p["energy"] for p in view["players"]] == [1, 0, 0]  # a player with nothing pays nothing
    assert view["bank"] == 7


# -- mobility edge -------------------------------------------------------------


def test_mobility_edge_gives_one_more_movement_action(arrange):
    game = defending(arrange, [MOBILITY_EDGE], electrons={"b2": {"up": "red"}})
    game.push({"effect": "mobility-edge"})
    assert game.view()["extra_actions"] == 1
    game.push({"end_defense": True})
    game.push({"action": "hop", "from": "b2", "spin": "up", "to": "b3"})
    # The defense was the first action, the hop the second: the edge gives a third.
    assert game.view()["turn"] == 0 and game.view()["phase"] == "second"
    game.push({"action": "hop", "from": "b3", "spin": "up", "to": "b4"})
    assert game.view()["turn"] == 1 and game.view()["extra_actions"] == 0


# -- quantum tunnel ------------------------------------------------------------


def test_quantum_tunnel_effect_crosses_a_line_without_the_hamiltonian(arrange):
    game = defending(
        arrange, [QUANTUM_TUNNEL], electrons={"b1": {"up": "red"}, "c1": {"up": "blue"}, "d1": {"up": "blue"}}
    )
    before = game.view()
    game.push({"effect": "quantum-tunnel", "from": "b1", "spin": "up", "to": "e1"})
    after = game.view()
    assert site(game, "e1")["up"] == "red" and site(game, "b1")["up"] is None
    assert after["players"][0]["energy"] == before["players"][0]["energy"] - 1  # the card, nothing else


def test_quantum_tunnel_effect_can_reach_an_opposing_electrode(arrange):
    game = defending(arrange, [QUANTUM_TUNNEL], electrons={"e3": {"up": "red"}, "e4": {"up": "blue"}})
    game.push({"effect": "quantum-tunnel", "from": "e3", "spin": "up", "to": "e5"})
    assert game.outcome().winners == (0,)


# -- diffusion -------------------------------------------------------------------


def test_diffusion_exchanges_two_neighbouring_electrons_of_the_same_spin(arrange):
    game = defending(arrange, [DIFFUSION], electrons={"c3": {"down": "red"}, "c4": {"down": "blue"}})
    assert effects(game, "diffusion") == [{"effect": "diffusion", "from": "c3", "spin": "down", "to": "c4"}]
    game.push({"effect": "diffusion", "from": "c3", "spin": "down", "to": "c4"})
    assert site(game, "c3")["down"] == "blue" and site(game, "c4")["down"] == "red"


def test_diffusion_needs_two_colours_on_the_same_spin(arrange):
    game = defending(
        arrange, [DIFFUSION], electrons={"c3": {"down": "red"}, "c4": {"up": "blue"}, "b3": {"down": "red"}}
    )
    assert effects(game, "diffusion") == []


# -- long-range hopping --------------------------------------------------------


def test_long_range_hopping_jumps_two_sites_over_an_occupied_one(arrange):
    game = defending(
        arrange, [LONG_RANGE_HOPPING], electrons={"b2": {"up": "red"}, "c2": {"up": "blue", "down": "blue"}}
    )
    game.push({"effect": "long-range-hopping", "from": "b2", "spin": "up", "to": "d2"})
    assert site(game, "d2")["up"] == "red" and site(game, "b2")["up"] is None


def test_long_range_hopping_needs_a_free_place_on_a_site(arrange):
    game = defending(arrange, [LONG_RANGE_HOPPING], electrons={"c4": {"up": "red"}, "c2": {"up": "blue"}})
    targets = {m["to"] for m in effects(game, "long-range-hopping")}
    assert targets == {"a4", "e4"}  # c2 is taken; c6 is off the board
    game = defending(arrange, [LONG_RANGE_HOPPING], electrons={"e3": {"up": "red"}})
    assert {m["to"] for m in effects(game, "long-range-hopping")} == {
        "e1",
        "c3",
    }  # never into e5, the electrode


# -- Penning trap ----------------------------------------------------------------


def test_penning_trap_lets_electrons_in_but_not_out(arrange):
    game = defending(arrange, [PENNING_TRAP], electrons={"c3": {"up": "red"}, "b2": {"up": "red"}})
    game.push({"effect": "penning-trap", "at": "c3"})
    assert game.view()["tokens"] == [{"effect": "penning-trap", "at": "c3"}]
    game.push({"end_defense": True})
    moves = game.legal_moves()
    assert not [m for m in moves if m.get("from") == "c3"]
    assert {"action": "spin-flip", "at": "c3", "spin": "up"} in moves  # it stays on its site
    game.push({"action": "hop", "from": "b2", "spin": "up", "to": "b3"})
    game.push({"block": "hop"})
    # Blue's turn; the trap stays: red's electron cannot leave it on red's next turn either.
    assert game.state.traps == [game.board.index["c3"]]


def test_an_electron_can_enter_a_trapped_site(arrange):
    game = defending(arrange, [PENNING_TRAP], electrons={"c2": {"up": "red"}})
    game.push({"effect": "penning-trap", "at": "c3"})
    game.push({"end_defense": True})
    game.push({"action": "hop", "from": "c2", "spin": "up", "to": "c3"})
    assert site(game, "c3")["up"] == "red"


def test_penning_traps_are_three_and_only_on_sites(arrange):
    game = defending(arrange, [PENNING_TRAP])
    with pytest.raises(IllegalMoveError):
        game.push({"effect": "penning-trap", "at": "a1"})  # an electrode
    game.state.traps[:] = [game.board.index[n] for n in ("b2", "c3", "d4")]
    assert effects(game, "penning-trap") == []


def test_a_trapped_electron_is_not_diffused_nor_long_range_hopped(arrange):
    game = defending(
        arrange,
        [DIFFUSION, LONG_RANGE_HOPPING],
        electrons={"c3": {"up": "red"}, "c4": {"up": "blue"}},
        energy=[7, 0],
        bank=1,
    )
    game.state.traps.append(game.board.index["c3"])
    assert effects(game, "diffusion") == []
    assert effects(game, "long-range-hopping") == []


def test_long_range_hopping_may_land_on_a_trapped_site(arrange):
    # « Les électrons peuvent entrer sur le site, mais aucun électron ne peut en sortir ».
    game = defending(arrange, [LONG_RANGE_HOPPING], electrons={"c3": {"up": "red"}})
    game.state.traps.append(game.board.index["e3"])
    assert {"effect": "long-range-hopping", "from": "c3", "spin": "up", "to": "e3"} in game.legal_moves()
    game.push({"effect": "long-range-hopping", "from": "c3", "spin": "up", "to": "e3"})
    assert site(game, "e3")["up"] == "red"
    game.push({"end_defense": True})
    assert not [m for m in game.legal_moves() if m.get("from") == "e3"]  # and it cannot leave
