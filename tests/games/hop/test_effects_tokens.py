"""The token effects of the Doctorate level: vortex, microwave cavity, resistance and heat source,
the crystalline network, and the order in which tokens act after a turn."""

from __future__ import annotations

import pytest

from games.exc import IllegalMoveError
from games.hop.effects import CAVITY, HEAT_SOURCE, PENNING_TRAP, RESISTANCE, VORTEX, squares
from games.hop.exc import EnergyError
from games.hop.game import Hop

CARDS = [VORTEX, CAVITY, RESISTANCE, HEAT_SOURCE, PENNING_TRAP]
VORTEX_B2 = {"effect": "vortex", "sites": ["b2", "b3", "c3", "c2"], "turning": "clockwise"}


def defending(arrange, electrons=None, **kwargs):
    """Red (seat 0) has opened a thesis defense; the market starts with the token cards."""
    kwargs.setdefault("energy", [6, 0])
    kwargs.setdefault("bank", 2)
    game = arrange(level="doctorate", electrons=electrons or {}, **kwargs)
    market = game.state.market
    market[:] = CARDS + [c for c in market if c not in CARDS]
    del market[7:]
    game.push({"action": "thesis-defense"})
    return game


def finish_turn(game):
    """End the defense and spend the second action on an empty defense."""
    if game.state.defending:
        game.push({"end_defense": True})
    game.push({"action": "thesis-defense"})
    game.push({"end_defense": True})


def site(game, node):
    return game.view()["sites"][node]


def effects(game, name):
    return [m for m in game.legal_moves() if m.get("effect") == name]


# -- vortex -----------------------------------------------------------------------


def test_the_squares_are_the_four_cards_round_a_point_clockwise():
    game = Hop.new(["a", "b"], options={"level": "doctorate"}, seed=1)
    names = [[game.board.nodes[n] for n in q] for q in squares(game.board)]
    assert ["b2", "b3", "c3", "c2"] in names
    assert (
        len(names) == 16 - 2
    )  # the two corner squares touching an electrode hold one fewer site... still 4-cycles
    assert not any("a1" in q or "e5" in q for q in names)


def test_a_vortex_turns_every_electron_of_its_cards_after_each_turn(arrange):
    game = defending(arrange, {"b2": {"up": "red"}, "c3": {"down": "blue"}})
    game.push(VORTEX_B2)
    assert game.view()["tokens"] == [VORTEX_B2]
    finish_turn(game)
    assert site(game, "b3")["up"] == "red" and site(game, "c2")["down"] == "blue"
    assert site(game, "b2")["up"] is None
    assert game.view()["after_turn"] == [
        {"effect": "vortex", "from": "b2", "spin": "up", "to": "b3"},
        {"effect": "vortex", "from": "c3", "spin": "down", "to": "c2"},
    ]
    game.push({"block": "hop"})
    finish_turn(game)
    finish_turn(game)  # blue's two actions: its turn ends, the vortex turns again
    assert site(game, "c3")["up"] == "red" and site(game, "b2")["down"] == "blue"


def test_an_anti_vortex_turns_the_other_way(arrange):
    game = defending(arrange, {"b2": {"up": "red"}})
    game.push({**VORTEX_B2, "sites": ["b2", "b3", "c3", "c2"], "turning": "counterclockwise"})
    assert game.view()["tokens"] == [
        {"effect": "vortex", "sites": ["b2", "c2", "c3", "b3"], "turning": "counterclockwise"}
    ]
    finish_turn(game)
    assert site(game, "c2")["up"] == "red"


def test_a_vortex_keeps_the_board_energy(arrange):
    game = defending(arrange, {"b2": {"up": "red", "down": "blue"}, "c3": {"down": "blue"}})
    game.push(VORTEX_B2)
    energy = game.view()["board_energy"]
    finish_turn(game)
    assert game.view()["board_energy"] == energy


def test_a_penning_trap_holds_a_vortex_still(arrange):
    game = defending(arrange, {"b2": {"up": "red"}})
    game.push(VORTEX_B2)
    game.push({"effect": "penning-trap", "at": "c3"})
    finish_turn(game)
    assert site(game, "b2")["up"] == "red"


# -- crystalline network ------------------------------------------------------------


def test_action_tokens_never_share_a_card_nor_touch_an_electrode(arrange):
    game = defending(arrange)
    assert not [m for m in effects(game, "resistance") if "a1" in m["between"] or "e5" in m["between"]]
    assert not [m for m in effects(game, "vortex") if "a1" in m["sites"]]
    game.push(VORTEX_B2)
    with pytest.raises(IllegalMoveError):
        game.push({"effect": "resistance", "between": ["c3", "d3"]})
    with pytest.raises(IllegalMoveError):
        game.push({"effect": "microwave-cavity", "from": "c2", "to": "d2"})
    game.push({"effect": "resistance", "between": ["d3", "d4"]})
    # Heat sources and traps are not action tokens: they may sit on a vortex card.
    game.push({"effect": "heat-source", "at": "b2"})


def test_three_tokens_of_a_type_at_most(arrange):
    game = defending(arrange, energy=[8, 0], bank=0)
    game.state.tokens[:] = [
        (RESISTANCE, game.board.index[a], game.board.index[b], -1, -1)
        for a, b in (("b2", "b3"), ("c2", "c3"), ("d2", "d3"))
    ]
    assert effects(game, "resistance") == []


# -- microwave cavity -----------------------------------------------------------------


def test_a_cavity_moves_electrons_from_its_initial_card_to_its_final_one(arrange):
    game = defending(arrange, {"c3": {"up": "red", "down": "blue"}})
    game.push({"effect": "microwave-cavity", "from": "c3", "to": "c4"})
    assert game.view()["tokens"] == [{"effect": "microwave-cavity", "from": "c3", "to": "c4"}]
    finish_turn(game)
    # Both electrons move; the pair moves with them: the board's energy does not change.
    assert site(game, "c4") == {"up": "red", "down": "blue"} and site(game, "c3") == {
        "up": None,
        "down": None,
    }


def test_a_cavity_move_is_not_subject_to_the_hamiltonian(arrange):
    # c3 up -> c4 up makes a pair there (attractive: -1), but an effect's movement moves no token.
    game = defending(arrange, {"c3": {"up": "red"}, "c4": {"down": "blue"}}, energy=[3, 0], bank=5)
    game.push({"effect": "microwave-cavity", "from": "c3", "to": "c4"})  # cost 1
    finish_turn(game)
    assert site(game, "c4")["up"] == "red"
    assert game.view()["players"][0]["energy"] == 2 and game.view()["bank"] == 6  # the card only


def test_a_cavity_moves_its_electrons_even_with_an_empty_bank(arrange):
    game = defending(arrange, {"c3": {"up": "red"}, "c4": {"down": "blue"}}, energy=[8, 0], bank=0)
    game.push({"effect": "microwave-cavity", "from": "c3", "to": "c4"})
    game.state.energy[0], game.state.bank = 8, 0  # the card was paid to the bank: empty it again
    finish_turn(game)
    assert site(game, "c4")["up"] == "red" and site(game, "c3")["up"] is None
    assert game.view()["players"][0]["energy"] == 8 and game.view()["bank"] == 0


def test_a_cavity_never_puts_two_electrons_on_one_place(arrange):
    game = defending(arrange, {"c3": {"up": "red"}, "c4": {"up": "blue"}})
    game.push({"effect": "microwave-cavity", "from": "c3", "to": "c4"})
    finish_turn(game)
    assert site(game, "c3")["up"] == "red" and site(game, "c4")["up"] == "blue"
    assert game.view()["after_turn"] == []  # nothing moved


# -- resistance -----------------------------------------------------------------------


def test_crossing_a_resistance_takes_one_energy_from_the_bank(arrange):
    game = defending(arrange, {"b2": {"up": "red"}}, energy=[3, 0], bank=5, field="positive")
    game.push({"effect": "resistance", "between": ["b2", "b3"]})
    game.push({"end_defense": True})
    entry = next(m for m in game.annotated_moves() if m["move"].get("to") == "b3")
    assert entry["energy_change"] == 0 and entry["energy_paid"] == -1
    game.push({"action": "hop", "from": "b2", "spin": "up", "to": "b3"})
    # 3, less 2 for the card, plus 1 taken when crossing.
    assert game.view()["players"][0]["energy"] == 2 and game.view()["bank"] == 6


def test_a_resistance_with_an_empty_bank_forbids_the_crossing(arrange):
    game = defending(arrange, {"b2": {"up": "red"}}, energy=[8, 0], bank=0)
    game.push({"effect": "resistance", "between": ["b2", "b3"]})
    game.push({"end_defense": True})
    game.state.energy[0], game.state.bank = 8, 0
    assert not [m for m in game.legal_moves() if m.get("to") == "b3"]
    assert [m for m in game.legal_moves() if m.get("to") == "c2"]
    with pytest.raises(EnergyError) as refused:
        game.push({"action": "hop", "from": "b2", "spin": "up", "to": "b3"})
    assert str(refused.value) == (
        "this hop crosses a resistance between b2 and b3 (whoever crosses one takes 1 energy token"
        " from the bank), and the bank is empty, so nobody can pay it"
    )


# -- heat source ----------------------------------------------------------------------


def test_a_heat_source_lifts_a_down_electron_to_up(arrange):
    # Positive field: down -> up lowers the board's energy by 2; an effect moves no energy token.
    game = defending(arrange, {"c3": {"down": "blue"}}, energy=[3, 0], bank=5)
    game.push({"effect": "heat-source", "at": "c3"})  # cost 2
    finish_turn(game)
    assert site(game, "c3") == {"up": "blue", "down": None}
    assert game.view()["after_turn"] == [{"effect": "heat-source", "from": "c3", "spin": "down", "to": "c3"}]
    assert game.view()["players"][0]["energy"] == 1 and game.view()["bank"] == 7  # the card only


def test_a_heat_source_always_lifts_even_when_no_one_could_balance_it(arrange):
    # Negative field: down -> up raises the board's energy by 2, which red (no energy left) could not pay.
    game = defending(arrange, {"c3": {"down": "blue"}}, energy=[2, 0], bank=6, field="negative")
    game.push({"effect": "heat-source", "at": "c3"})  # cost 2: red has nothing left
    finish_turn(game)
    assert site(game, "c3") == {"up": "blue", "down": None}
    assert game.view()["players"][0]["energy"] == 0 and game.view()["bank"] == 8


def test_the_last_player_decides_whether_a_heat_source_exchanges_two_electrons(arrange):
    game = defending(arrange, {"c3": {"up": "red", "down": "blue"}})
    game.push({"effect": "heat-source", "at": "c3"})
    finish_turn(game)
    view = game.view()
    assert view["heat_exchange"] == "c3" and view["to_act"] == 0
    assert game.legal_moves() == [{"heat_exchange": True, "at": "c3"}, {"heat_exchange": False, "at": "c3"}]
    with pytest.raises(IllegalMoveError):
        game.push({"block": "hop"})
    game.push({"heat_exchange": True, "at": "c3"})
    assert site(game, "c3") == {"up": "blue", "down": "red"}
    assert game.view()["to_act"] == 0 and game.view()["phase"] == "block"  # red now blocks blue


def test_tokens_act_in_the_order_they_were_placed(arrange):
    # The heat source (placed first) lifts the electron, then the vortex carries it on: both move it.
    game = defending(arrange, {"b2": {"down": "red"}}, energy=[6, 0], bank=2)
    game.push({"effect": "heat-source", "at": "b2"})
    game.push(VORTEX_B2)
    finish_turn(game)
    assert site(game, "b3") == {"up": "red", "down": None}
    other = defending(arrange, {"b2": {"down": "red"}}, energy=[6, 0], bank=2)
    other.push(VORTEX_B2)
    other.push({"effect": "heat-source", "at": "b2"})
    finish_turn(other)
    assert site(other, "b3") == {"up": None, "down": "red"}  # carried off before the heat acts


# -- impurity / vacancy ------------------------------------------------------------------


def impurity(arrange, electrons=None, **kwargs):
    from games.hop.effects import IMPURITY

    kwargs.setdefault("energy", [6, 0])
    kwargs.setdefault("bank", 2)
    game = arrange(level="doctorate", electrons=electrons or {}, **kwargs)
    market = game.state.market
    market[:] = [IMPURITY] + [c for c in market if c != IMPURITY]
    del market[7:]
    game.push({"action": "thesis-defense"})
    return game


def test_a_vacancy_sends_the_cards_electrons_home_with_no_energy_change(arrange):
    game = impurity(arrange, {"c3": {"up": "red", "down": "blue"}}, energy=[3, 1], bank=4)
    game.push({"effect": "impurity-vacancy", "remove": "c3"})
    view = game.view()
    assert view["removed"] == ["c3"]
    assert view["electrodes"]["red"] == {"red": 7} and view["electrodes"]["blue"] == {"blue": 7}
    assert [p["energy"] for p in view["players"]] == [2, 1] and view["bank"] == 5  # the card only


def test_no_electron_lands_on_a_removed_card_and_lines_stop_there(arrange):
    game = impurity(arrange, {"b3": {"up": "red"}, "d3": {"up": "blue"}, "c2": {"up": "red"}})
    game.push({"effect": "impurity-vacancy", "remove": "c3"})
    game.push({"end_defense": True})
    targets = {m.get("to") for m in game.legal_moves()}
    assert "c3" not in targets
    assert {"action": "hop", "from": "b3", "spin": "up", "to": "b4"} in game.legal_moves()


def test_the_board_stays_connected_electrodes_included(arrange):
    game = impurity(arrange)
    removable = {m["remove"] for m in game.legal_moves() if "remove" in m}
    assert "c3" in removable
    game.state.removed[:] = [game.board.index["a2"]]
    # With a2 gone, b1 is the red electrode's only way out: it cannot go too.
    removable = {m["remove"] for m in game.legal_moves() if "remove" in m}
    assert "b1" not in removable and "c3" in removable
    assert {"effect": "impurity-vacancy", "add": "a2"} in game.legal_moves()


def test_at_the_start_an_impurity_adds_a_spare_site_card_next_to_the_board(arrange):
    game = impurity(arrange, {"e3": {"up": "red"}})
    adds = {m["add"] for m in game.legal_moves() if "add" in m}
    # Every free position beside a site card: column f right of e, row 0 below 1, column z left
    # of a, row 6 above 5; a0 and z1 lie beside red's electrode a1 only, f5 and e6 beside blue's e5.
    assert adds == {f"{c}0" for c in "bcde"} | {f"{c}6" for c in "abcd"} | {f"z{r}" for r in "2345"} | {
        f"f{r}" for r in "1234"
    }
    assert game.view()["spare_cards"] == 36 - 23
    name = game.view()["board"]["name"]
    game.push({"effect": "impurity-vacancy", "add": "f3"})
    view = game.view()
    assert view["board"]["nodes"]["f3"] == [5, 2] and view["board"]["name"] != name
    assert ["a3", "b3", "c3", "d3", "e3", "f3"] in view["board"]["lines"]
    assert view["sites"]["f3"] == {"up": None, "down": None} and view["spare_cards"] == 12
    game.push({"end_defense": True})
    assert {"action": "hop", "from": "e3", "spin": "up", "to": "f3"} in game.legal_moves()
    game.push({"action": "hop", "from": "e3", "spin": "up", "to": "f3"})
    assert site(game, "f3")["up"] == "red"


def test_a_grown_board_is_saved_replayed_and_taken_back():
    from games.hop.effects import IMPURITY, MARKET_COSTS

    def doctorate(seed: int) -> Hop:
        return Hop.new(["a", "b"], options={"level": "doctorate"}, seed=seed)

    # A seed that deals the impurity card on one of the four cheapest positions.
    seed = next(s for s in range(200) if IMPURITY in doctorate(s).state.market[:4])
    game = doctorate(seed)
    assert MARKET_COSTS[game.state.market.index(IMPURITY)] <= 2  # red starts with 2
    game.push({"block": "hop"})
    game.push({"action": "thesis-defense"})
    game.push({"effect": "impurity-vacancy", "add": "c0"})
    assert "c0" in game.view()["sites"] and game.board.nodes[-1] == "c0"
    assert len(game.state.place) == 2 * len(game.board.nodes)
    assert Hop.from_json(game.to_json()).view() == game.view()
    game.pop()
    assert "c0" not in game.view()["sites"] and "c0" not in game.board.index


def test_no_spare_card_once_the_box_is_empty(arrange):
    game = impurity(arrange)
    state = game.state
    # 23 site cards on the 5×5 board of two players, and 13 in the box: put them all round it.
    for x, y in [(x, -1) for x in range(5)] + [(x, 5) for x in range(4)] + [(5, y) for y in range(4)]:
        state.board = state.board.with_card(x, y)
        state.place.extend([-1, -1])
    assert len(state.board.sites) == 36 and game.view()["spare_cards"] == 0
    assert not [m for m in game.legal_moves() if "add" in m]
    state.removed.append(state.board.index["c3"])
    # The card taken away is in the box again: back on its hole, or beside the board.
    adds = [m["add"] for m in game.legal_moves() if "add" in m]
    assert adds[0] == "c3" and len(adds) > 1


def test_an_impurity_puts_a_removed_card_back(arrange):
    game = impurity(arrange, {"b2": {"up": "red"}})
    game.state.removed[:] = [game.board.index["b3"]]
    game.push({"effect": "impurity-vacancy", "add": "b3"})
    game.push({"end_defense": True})
    assert game.view()["removed"] == []
    assert {"action": "hop", "from": "b2", "spin": "up", "to": "b3"} in game.legal_moves()


def test_a_card_holding_a_token_is_not_removed(arrange):
    game = impurity(arrange)
    game.state.traps.append(game.board.index["c3"])
    assert {"effect": "impurity-vacancy", "remove": "c3"} not in game.legal_moves()


def test_a_crossing_the_bank_cannot_pay_says_who_takes_what(arrange):
    # Forming a pair on b3 (attractive: -1) across a resistance (+1 from the bank): red takes 2.
    game = defending(arrange, {"b2": {"up": "red"}, "b3": {"down": "blue"}}, energy=[8, 0], bank=0)
    game.push({"effect": "resistance", "between": ["b2", "b3"]})
    game.push({"end_defense": True})
    game.state.energy[0], game.state.bank = 7, 1
    with pytest.raises(EnergyError) as refused:
        game.push({"action": "hop", "from": "b2", "spin": "up", "to": "b3"})
    assert str(refused.value) == (
        "this hop lowers the board's energy by 1, and crosses a resistance between b2 and b3 (whoever"
        " crosses one takes 1 energy token from the bank): player1 (red) must take 2 energy from the bank,"
        " and the bank has only 1"
    )
