"""The Master level's Hamiltonian: the rules text's energy examples, and who pays."""

from __future__ import annotations

import pytest

from games.hop.exc import EnergyError


def tokens(game):
    view = game.view()
    return [p["energy"] for p in view["players"]], view["bank"]


def annotated(game, move):
    (entry,) = [m for m in game.annotated_moves() if m["move"] == move]
    return entry["energy_change"]


def test_entering_a_positive_spin_from_the_source_under_a_positive_field_earns_one(arrange):
    # "amener un électron d'une source sur un spin positif oblige à prendre une énergie"
    game = arrange(level="master", field="positive", interaction="attractive", energy=[2, 2], bank=4)
    move = {"action": "hop", "from": "a1", "spin": "up", "to": "b1"}
    assert game.energy_change(move) == -1 == annotated(game, move)
    game.push(move)
    assert tokens(game) == ([3, 2], 3)


def test_entering_a_positive_spin_needs_a_token_in_the_bank(arrange):
    game = arrange(level="master", field="positive", energy=[4, 4], bank=0)
    move = {"action": "hop", "from": "a1", "spin": "up", "to": "b1"}
    assert move not in game.legal_moves()
    with pytest.raises(EnergyError, match="bank") as refused:
        game.push(move)
    assert str(refused.value) == (
        "this hop lowers the board's energy by 1: player1 (red) must take 1 energy from the bank,"
        " and the bank is empty"
    )
    assert tokens(game) == ([4, 4], 0)


@pytest.mark.parametrize("field", ["positive", "negative"])
@pytest.mark.parametrize(("interaction", "pair"), [("attractive", -1), ("repulsive", 1)])
def test_a_pair_leaving_the_source_changes_nothing_under_the_field(arrange, field, interaction, pair):
    # "sortir une paire d'électrons depuis la source ... ne change pas l'énergie selon le champ magnétique":
    # only the interaction of the new pair counts.
    game = arrange(level="master", field=field, interaction=interaction, energy=[2, 2], bank=4)
    move = {"action": "doublon", "from": "a1", "to": "a2"}
    assert game.energy_change(move) == pair
    game.push(move)
    assert tokens(game) == ([2 - pair, 2], 4 + pair)


@pytest.mark.parametrize(
    ("field", "spin", "delta"),
    [
        ("positive", "up", 2),
        ("positive", "down", -2),
        ("negative", "up", -2),
        ("negative", "down", 2),
    ],
)
def test_a_spin_flip_involves_two_energies(arrange, field, spin, delta):
    game = arrange(level="master", field=field, energy=[2, 2], bank=4, electrons={"c3": {spin: "red"}})
    move = {"action": "spin-flip", "at": "c3", "spin": spin}
    assert annotated(game, move) == delta
    game.push(move)
    assert tokens(game) == ([2 - delta, 2], 4 + delta)


def test_a_spin_flip_the_mover_cannot_pay_is_illegal(arrange):
    game = arrange(level="master", field="positive", energy=[1, 2], bank=5, electrons={"c3": {"up": "red"}})
    move = {"action": "spin-flip", "at": "c3", "spin": "up"}
    assert move not in game.legal_moves()
    with pytest.raises(EnergyError, match="has 1") as refused:
        game.push(move)
    assert str(refused.value) == (
        "this spin-flip raises the board's energy by 2: player1 (red) must pay 2 energy to the bank and has 1"
    )


def test_forming_an_attractive_pair_earns_one(arrange):
    # "dans le cas d'une interaction attractive, créer une paire rapporte une énergie"
    game = arrange(
        level="master",
        field="positive",
        interaction="attractive",
        energy=[2, 2],
        bank=4,
        electrons={"c3": {"up": "red"}, "c4": {"down": "blue"}},
    )
    move = {"action": "hop", "from": "c3", "spin": "up", "to": "c4"}
    assert annotated(game, move) == -1
    game.push(move)
    assert tokens(game) == ([3, 2], 3)


def test_breaking_a_repulsive_pair_earns_one(arrange):
    game = arrange(
        level="master",
        field="negative",
        interaction="repulsive",
        energy=[2, 2],
        bank=4,
        electrons={"c3": {"up": "red", "down": "blue"}},
    )
    move = {"action": "hop", "from": "c3", "spin": "up", "to": "c4"}
    assert annotated(game, move) == -1


def test_moving_from_a_positive_spin_into_an_opponents_electrode_costs_one(arrange):
    # "déplacer un électron depuis un spin positif jusque dans une source adverse demande une énergie"
    game = arrange(level="master", field="positive", energy=[2, 2], bank=4, electrons={"e4": {"up": "red"}})
    move = {"action": "hop", "from": "e4", "spin": "up", "to": "e5"}
    assert annotated(game, move) == 1
    game.push(move)
    assert tokens(game) == ([1, 2], 5)
    assert game.outcome().winners == (0,)


def test_entering_the_opponents_electrode_without_energy_is_impossible(arrange):
    game = arrange(level="master", field="positive", energy=[0, 4], bank=4, electrons={"e4": {"up": "red"}})
    move = {"action": "hop", "from": "e4", "spin": "up", "to": "e5"}
    assert move not in game.legal_moves()
    with pytest.raises(EnergyError):
        game.push(move)
    assert game.outcome() is None


def test_a_cradle_balances_the_energy_of_the_electron_it_moves(arrange):
    # The last (blue, spin up) electron leaves a pair at d3 and enters e3: +1 (pair broken) ...
    game = arrange(
        level="master",
        field="positive",
        interaction="attractive",
        energy=[2, 2],
        bank=4,
        electrons={"c3": {"up": "red"}, "d3": {"up": "blue", "down": "blue"}},
    )
    assert game.energy_change({"action": "cradle", "from": "c3", "spin": "up", "to": "e3"}) == 1
    # ... and into an electrode, it also gives back its field energy (-h·s = -1 -> 0).
    game = arrange(
        level="master",
        field="positive",
        interaction="attractive",
        energy=[2, 2],
        bank=4,
        electrons={"c5": {"up": "red"}, "d5": {"up": "red"}},
    )
    assert game.energy_change({"action": "cradle", "from": "c5", "spin": "up", "to": "e5"}) == 1


def test_bachelor_ignores_energy(arrange):
    game = arrange(electrons={"c3": {"up": "red"}}, energy=[0, 0], bank=8)
    assert all(m["energy_change"] == 0 for m in game.annotated_moves())
    game.push({"action": "spin-flip", "at": "c3", "spin": "up"})
    assert tokens(game) == ([0, 0], 8)


def test_annotated_change_is_what_the_tokens_do(arrange):
    game = arrange(
        level="master",
        field="negative",
        interaction="repulsive",
        energy=[3, 1],
        bank=4,
        electrons={"b2": {"up": "red"}, "b3": {"down": "blue"}, "c2": {"up": "red", "down": "red"}},
    )
    for entry in game.annotated_moves():
        trial = game.play(entry["move"])
        before, bank = tokens(game)
        after, bank_after = tokens(trial)
        assert after[0] == before[0] - entry["energy_change"]
        assert bank_after == bank + entry["energy_change"]
        assert trial.view()["board_energy"] == game.view()["board_energy"] + entry["energy_change"]
