"""The Doctorate level: the movement board, the thesis defense and the effects market."""

from __future__ import annotations

import pytest

from games.exc import IllegalMoveError
from games.hop.effects import (
    DEAD_SHORT,
    DIFFUSION,
    EFFECT_CARDS,
    IONIZATION,
    LONG_RANGE_HOPPING,
    MARKET_COSTS,
    MOBILITY_EDGE,
    PENNING_TRAP,
    PLAYABLE,
    QUANTUM_TUNNEL,
    ZERO_POINT_ENERGY,
)
from games.hop.exc import BlockedActionError, EnergyError, ImpossibleMoveError, WrongPhaseError
from games.hop.game import Hop

MARKET = [
    ZERO_POINT_ENERGY,
    MOBILITY_EDGE,
    DEAD_SHORT,
    IONIZATION,
    DIFFUSION,
    PENNING_TRAP,
    LONG_RANGE_HOPPING,
]
"""A market in a known order: costs 1, 1, 2, 2, 3, 3, 4."""


def doctorate(arrange, **kwargs):
    game = arrange(level="doctorate", **kwargs)
    game.state.market[:] = MARKET
    return game


def names(game):
    return [card["effect"] for card in game.view()["market"]]


def test_the_doctorate_movement_board_has_the_thesis_defense_instead_of_the_tunnel():
    game = Hop.new(["a", "b"], options={"level": "doctorate"}, seed=3)
    view = game.view()
    assert view["movement_board"] == ["hop", "doublon", "spin-flip", "cradle", "thesis-defense"]
    assert {"block": "thesis-defense"} in game.legal_moves()
    assert {"block": "tunnel"} not in game.legal_moves()
    assert view["hamiltonian"]["field"] in ("positive", "negative")


def test_the_market_is_seven_playable_cards_dealt_from_the_seed():
    one = Hop.new(["a", "b"], options={"level": "doctorate"}, seed=5)
    again = Hop.new(["a", "b"], options={"level": "doctorate"}, seed=5)
    market = one.view()["market"]
    assert market == again.view()["market"]
    assert [card["cost"] for card in market] == [1, 1, 2, 2, 3, 3, 4]
    assert len({card["effect"] for card in market}) == 7
    assert all(EFFECT_CARDS[card["effect"]] in PLAYABLE for card in market)
    dealt = {
        tuple(Hop.new(["a", "b"], options={"level": "doctorate"}, seed=s).state.market) for s in range(20)
    }
    assert len(dealt) > 1  # the seed decides the deal


def test_lower_levels_have_no_market():
    assert "market" not in Hop.new(["a", "b"], options={"level": "master"}, seed=1).view()


def test_tunnel_is_not_a_movement_at_the_doctorate(arrange):
    game = doctorate(arrange, electrons={"b1": {"up": "red"}, "c1": {"up": "blue"}})
    assert not [m for m in game.legal_moves() if m.get("action") == "tunnel"]
    with pytest.raises(ImpossibleMoveError):
        game.push({"action": "tunnel", "from": "b1", "spin": "up", "to": "d1"})


def test_thesis_defense_is_exempt_from_the_hamiltonian_and_opens_a_defense(arrange):
    game = doctorate(arrange, energy=[0, 0], bank=8)
    entry = next(m for m in game.annotated_moves() if m["move"] == {"action": "thesis-defense"})
    assert entry["energy_change"] == 0
    game.push({"action": "thesis-defense"})
    assert game.view()["defending"] is True
    assert game.legal_moves() == [{"end_defense": True}]  # no energy: nothing to buy
    with pytest.raises(WrongPhaseError):
        game.push({"action": "hop", "from": "a1", "spin": "up", "to": "a2"})
    game.push({"end_defense": True})
    assert game.view()["phase"] == "second" and game.view()["defending"] is False


def test_a_blocked_thesis_defense_cannot_be_played(arrange):
    game = doctorate(arrange, blocked="thesis-defense")
    assert {"action": "thesis-defense"} not in game.legal_moves()
    with pytest.raises(BlockedActionError):
        game.push({"action": "thesis-defense"})


def test_effects_need_a_defense_and_the_doctorate(arrange):
    game = doctorate(arrange, energy=[5, 1], bank=2)
    with pytest.raises(WrongPhaseError):
        game.push({"effect": "mobility-edge"})
    master = arrange(level="master")
    with pytest.raises(ImpossibleMoveError):
        master.push({"action": "thesis-defense"})


def test_buying_pays_the_position_cost_to_the_bank_and_several_cards_may_be_bought(arrange):
    game = doctorate(arrange, energy=[5, 1], bank=2)
    game.push({"action": "thesis-defense"})
    game.push({"effect": "mobility-edge"})  # position 2, cost 1
    game.push({"effect": "zero-point-energy"})  # position 1, cost 1: blue pays 1 too
    view = game.view()
    assert view["players"][0]["energy"] == 3
    assert view["players"][1]["energy"] == 0
    assert view["bank"] == 5
    assert [c["used"] for c in view["market"]][:2] == [True, True]


def test_a_card_cannot_be_bought_twice_a_turn_nor_beyond_the_players_energy(arrange):
    game = doctorate(arrange, energy=[2, 0], bank=6)
    game.push({"action": "thesis-defense"})
    game.push({"effect": "mobility-edge"})
    with pytest.raises(ImpossibleMoveError):
        game.push({"effect": "mobility-edge"})
    with pytest.raises(EnergyError):
        game.push({"effect": "long-range-hopping", "from": "b1", "spin": "up", "to": "d1"})
    with pytest.raises(IllegalMoveError):
        game.push({"effect": "levitation"})
    assert game.view()["players"][0]["energy"] == 1  # the refused moves cost nothing


def test_after_the_turn_used_cards_go_to_the_dearest_positions_in_the_order_used(arrange):
    game = doctorate(arrange, energy=[6, 0], bank=2)
    game.push({"action": "thesis-defense"})
    game.push({"effect": "mobility-edge"})
    game.push({"effect": "zero-point-energy"})
    game.push({"end_defense": True})
    assert names(game)[:2] == ["zero-point-energy", "mobility-edge"]  # still in place during the turn
    game.push({"action": "thesis-defense"})
    game.push({"end_defense": True})
    game.push({"action": "thesis-defense"})  # the extra action of the mobility edge
    game.push({"end_defense": True})
    assert game.view()["turn"] == 1
    assert names(game) == [
        "dead-short",
        "ionization",
        "diffusion",
        "penning-trap",
        "long-range-hopping",
        "mobility-edge",
        "zero-point-energy",
    ]
    assert not any(card["used"] for card in game.view()["market"])


def test_a_turn_without_effects_leaves_the_market_as_it_is(arrange):
    game = doctorate(arrange)
    game.push({"action": "thesis-defense"})
    game.push({"end_defense": True})
    game.push({"action": "thesis-defense"})
    game.push({"end_defense": True})
    assert game.state.market == MARKET


def test_costs_follow_the_positions_and_every_card_of_the_rules_is_dealt():
    assert MARKET_COSTS == (1, 1, 2, 2, 3, 3, 4)
    assert QUANTUM_TUNNEL in PLAYABLE and len(set(PLAYABLE)) == len(EFFECT_CARDS) == 14


def test_the_collapse_and_the_heat_exchange_are_asked_only_when_due(arrange):
    game = doctorate(arrange)
    with pytest.raises(WrongPhaseError):
        game.push({"collapse": "up", "at": "c3"})
    with pytest.raises(WrongPhaseError):
        game.push({"heat_exchange": True, "at": "c3"})


def test_a_saved_doctorate_game_replays_to_the_same_position(arrange):
    game = Hop.new(["a", "b"], options={"level": "doctorate"}, seed=11)
    game.push(game.legal_moves()[0])
    game.push({"action": "thesis-defense"})
    for move in game.legal_moves():
        if "effect" in move:
            game.push(move)
            break
    assert Hop.from_json(game.to_json()).view() == game.view()


@pytest.mark.parametrize(
    "move",
    [
        {"effect": ["vortex"]},
        {"effect": "vortex", "sites": "b2", "turning": "clockwise"},
        {"effect": "penning-trap", "at": "z9"},
        {"effect": "dead-short", "player": "blue"},
        {"end_defense": "yes"},
        {"action": ["hop"], "from": "a1", "spin": "up", "to": "a2"},
        {"collapse": "sideways", "at": "c3"},
    ],
)
def test_malformed_doctorate_moves_get_a_clear_error_and_change_nothing(arrange, move):
    game = doctorate(arrange, energy=[6, 1], bank=1)
    game.push({"action": "thesis-defense"})
    before = game.view()
    with pytest.raises(IllegalMoveError) as refused:
        game.push(move)
    assert str(refused.value)
    assert game.view() == before


def test_a_position_without_the_cards_rules_says_so_instead_of_guessing(arrange):
    game = doctorate(arrange)
    assert game.state.effects is not None  # the game gives its positions the cards' rules
    bare = game.state.copy()
    bare.effects = None
    bare.defending = True
    with pytest.raises(RuntimeError, match="needs its effects"):
        bare.legal_actions()
    assert game.state.copy().effects is game.state.effects
