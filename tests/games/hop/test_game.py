"""|Hop> on the games frame: registry, notation errors, saving and taking back."""

from __future__ import annotations

import json
import random

import pytest

from games.frame import AI_LEVELS, GAMES, SavedGameError, ai_player, game_class
from games.hop.effects import EFFECT_NAMES, EFFECT_TITLES
from games.hop.exc import NotationError, NotYourElectronError
from games.hop.game import Hop
from games.hop.rules import ACTION_NAMES, ACTION_TITLES


def test_registered_with_its_levels():
    assert game_class("hop") is Hop and GAMES["hop"] is Hop
    assert set(AI_LEVELS["hop"]) == {"random", "greedy", "mcts", "expert"}
    game = Hop.new(["a", "b"], seed=2)
    for level in AI_LEVELS["hop"]:
        assert ai_player("hop", level, rng=random.Random(1)).choose(game) in game.legal_moves()


@pytest.mark.parametrize(
    "move",
    [
        "hop",
        ["a1", "b1"],
        {"action": "jump", "from": "a1", "to": "b1"},
        {"action": "hop", "from": "a1", "to": "b1"},  # spin missing
        {"action": "hop", "from": "z9", "spin": "up", "to": "b1"},
        {"action": "hop", "from": "a1", "spin": "sideways", "to": "b1"},
        {"action": "spin-flip", "from": "b1", "spin": "up"},
        {"pass": "yes"},
    ],
)
def test_notation_errors_name_the_problem(move):
    game = Hop.new(["a", "b"], seed=2)
    game.push({"block": "tunnel"})
    with pytest.raises(NotationError):
        game.push(move)
    assert game.history == [{"block": "tunnel"}]  # nothing lost


def test_moving_an_opponents_electron_is_refused(arrange):
    game = arrange(electrons={"c3": {"up": "blue"}})
    with pytest.raises(NotYourElectronError, match="red"):
        game.push({"action": "hop", "from": "c3", "spin": "up", "to": "c4"})


def test_save_load_and_take_back():
    game = Hop.new(["ann", "bob"], options={"level": "master"}, seed=11)
    rng = random.Random(4)
    for _ in range(25):
        game.push(rng.choice(game.legal_moves()))
    saved = json.loads(json.dumps(game.to_json()))
    again = Hop.from_json(saved)
    assert again.view() == game.view()
    last = game.pop()
    assert last == saved["moves"][-1] and len(game.history) == 24
    assert game.view()["history"] == saved["moves"][:-1]
    game.push(last)
    assert game.view() == again.view()


def test_a_save_with_an_illegal_move_is_refused():
    game = Hop.new(["ann", "bob"], seed=11)
    data = game.to_json()
    data["moves"] = [{"block": "tunnel"}, {"action": "hop", "from": "e5", "spin": "up", "to": "e4"}]
    with pytest.raises(SavedGameError, match="move 2"):
        Hop.from_json(data)


def test_the_view_shows_every_legal_move_with_its_energy_change():
    game = Hop.new(
        ["ann", "bob"], options={"level": "master", "field": "positive", "interaction": "repulsive"}, seed=1
    )
    game.push({"block": "cradle"})
    view = game.view()
    assert [entry["move"] for entry in view["legal_moves"]] == game.legal_moves()
    changes = {json.dumps(e["move"], sort_keys=True): e["energy_change"] for e in view["legal_moves"]}
    assert (
        changes[json.dumps({"action": "hop", "from": "a1", "spin": "up", "to": "b1"}, sort_keys=True)] == -1
    )
    assert (
        changes[json.dumps({"action": "hop", "from": "a1", "spin": "down", "to": "b1"}, sort_keys=True)] == 1
    )
    assert changes[json.dumps({"action": "doublon", "from": "a1", "to": "b1"}, sort_keys=True)] == 1
    assert view["hamiltonian"] == {"field": "positive", "interaction": "repulsive"}
    assert view["blocked"] == "cradle" and view["to_act"] == 0
    json.dumps(view)  # the panel sends it as it is


def test_the_view_names_every_action_and_effect_card_it_can_show():
    doctorate = Hop.new(["ann", "bob"], options={"level": "doctorate", "field": "positive",
                                                 "interaction": "attractive"}, seed=1)
    titles = doctorate.view()["titles"]
    assert set(titles) == set(doctorate.view()["movement_board"]) | set(EFFECT_NAMES.values())
    assert titles["spin-flip"] == "Spin flip" and titles["impurity-vacancy"] == "Impurity / vacancy"
    assert set(ACTION_TITLES) == set(ACTION_NAMES) and set(EFFECT_TITLES) == set(EFFECT_NAMES)
    assert all(isinstance(t, str) and t and t[0].isupper() for t in titles.values())
    bachelor = Hop.new(["ann", "bob"], seed=1).view()
    assert bachelor["titles"] == {"hop": "Hop", "doublon": "Doublon", "spin-flip": "Spin flip",
                                  "cradle": "Cradle", "tunnel": "Tunnel"}
