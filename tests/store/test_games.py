"""The lobby's games in SQLite: saved JSON, seats, join codes and hashed tokens."""

from __future__ import annotations

from pathlib import Path

import pytest

from games.frame import DigitalGame, game_class
from store.db import connect
from store.games import (
    CODE_ALPHABET,
    CODE_LENGTH,
    GameNotFoundError,
    GameStore,
    JoinError,
    SeatSpec,
    StaleGameError,
    hash_token,
)

HUMANS = [SeatSpec("human", "Ada"), SeatSpec("human", "Bob")]


@pytest.fixture
def games(tmp_path: Path) -> GameStore:
    return GameStore(connect(tmp_path / "games.db"))


def new_qttt(seed: int = 7) -> DigitalGame:
    return game_class("qttt").new(["Ada", "Bob"], seed=seed)


def test_create_and_read_back(games: GameStore) -> None:
    game = game_class("qttt").new(["Ada", "Computer"], seed=3)
    record, host = games.create(game, [SeatSpec("human", "Ada"), SeatSpec("ai", "Computer", "random")],
                                hot_seat=False)
    assert record.id == 1 and record.version == 1 and record.status == "running"
    assert record.state == game.to_json()
    assert [s.kind for s in record.seats] == ["human", "ai"] and record.seats[1].level == "random"
    human, ai = record.seats
    assert human.join_code is not None and len(human.join_code) == CODE_LENGTH
    assert set(human.join_code) <= set(CODE_ALPHABET)
    assert ai.join_code is None, "a computer seat cannot be joined"
    assert games.is_host(record.id, host) and not games.is_host(record.id, host + "x")
    assert games.get(record.id) == record
    assert games.recent() == [record]


def test_hot_seat_games_have_no_join_codes(games: GameStore) -> None:
    record, _ = games.create(new_qttt(), HUMANS, hot_seat=True)
    assert record.hot_seat and all(s.join_code is None for s in record.seats)


def test_tokens_are_stored_hashed(games: GameStore) -> None:
    record, host = games.create(new_qttt(), HUMANS, hot_seat=False)
    seat, token = games.join(record.id, record.seats[1].join_code or "")
    assert seat == 1 and games.seat_of(record.id, token) == 1
    dump = "\n".join(games.conn.iterdump())
    assert token not in dump and host not in dump
    assert hash_token(token) in dump and hash_token(host) in dump


def test_join_rules(games: GameStore) -> None:
    record, _ = games.create(new_qttt(), HUMANS, hot_seat=False)
    other, _ = games.create(new_qttt(), HUMANS, hot_seat=False)
    code0, code1 = (s.join_code or "" for s in record.seats)
    with pytest.raises(JoinError, match="does not open"):
        games.join(record.id, "zzzzzz")
    with pytest.raises(JoinError, match="does not open"):
        games.join(record.id, other.seats[0].join_code or "")  # another game's code
    seat, token = games.join(record.id, code0)
    assert games.get(record.id).version == 2, "a join wakes the screens"
    with pytest.raises(JoinError, match="already taken"):
        games.join(record.id, code0)
    with pytest.raises(JoinError, match="already plays"):
        games.join(record.id, code1, held_token=token)
    assert games.seat_of(other.id, token) is None, "a token only counts in its own game"
    assert games.seat_of(record.id, None) is None and games.seat_of(record.id, "guess") is None
    assert games.find_code(code1) == (record.id, 1) and games.find_code("nope") is None


def test_save_checks_the_version(games: GameStore) -> None:
    game = new_qttt()
    record, _ = games.create(game, HUMANS, hot_seat=True)
    game.push([0, 1])
    saved = games.save(record.id, game, expected_version=1)
    assert saved.version == 2 and saved.state["moves"] == [[0, 1]]
    game.push([2, 3])
    with pytest.raises(StaleGameError):
        games.save(record.id, game, expected_version=1)
    assert games.get(record.id).state["moves"] == [[0, 1]], "a stale save changes nothing"
    with pytest.raises(GameNotFoundError):
        games.save(99, game, expected_version=1)
    with pytest.raises(GameNotFoundError):
        games.get(99)


def test_finished_games_and_games_waiting_for_a_computer(games: GameStore) -> None:
    ai_first, _ = games.create(game_class("qttt").new(["C", "Ada"], seed=1),
                               [SeatSpec("ai", "C", "random"), SeatSpec("human", "Ada")], hot_seat=True)
    human_first, _ = games.create(new_qttt(), HUMANS, hot_seat=True)
    assert games.waiting_for_ai() == [ai_first.id]
    game = human_first.load()
    for move in ([0, 1], [0, 1], {"collapse": 0}, [3, 4], [3, 4], {"collapse": 3}, [6, 7]):
        game.push(move)
    game.push([6, 7])  # O closes 6-7; X chooses
    game.push({"collapse": 6})
    assert game.is_over()
    saved = games.save(human_first.id, game, expected_version=1)
    assert saved.status == "over" and saved.is_over()
    assert saved.load().history == game.history, "a saved game replays to the same moves"
