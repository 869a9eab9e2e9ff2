"""The lobby's games in SQLite: saved JSON, seats, join codes and hashed tokens."""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path

import pytest

from games.frame import DigitalGame, game_class
from store.db import MIGRATIONS, connect
from store.games import (
    CODE_ALPHABET,
    CODE_LENGTH,
    GameEndedError,
    GameNotFoundError,
    GameStore,
    JoinError,
    OpenGameLimits,
    SeatSpec,
    StaleGameError,
    TooManyGamesError,
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


# -- how games end, and how many may be open -----------------------------------------------------


def test_the_head_is_a_game_without_its_moves(games: GameStore) -> None:
    record, _ = games.create(new_qttt(), HUMANS, hot_seat=False)
    head = games.head(record.id)
    assert (head.version, head.updated_at, head.status) == (record.version, record.updated_at, "running")
    with pytest.raises(GameNotFoundError):
        games.head(99)


def test_the_host_abandons_an_open_game_once(games: GameStore) -> None:
    record, host = games.create(new_qttt(), HUMANS, hot_seat=False)
    abandoned = games.abandon(record.id)
    assert abandoned.status == "abandoned" and not abandoned.is_open() and not abandoned.is_over()
    assert abandoned.version == record.version + 1, "the pages following it learn"
    assert abandoned.ended_because() == "the game was abandoned by its host"
    with pytest.raises(GameEndedError, match="abandoned"):
        games.abandon(record.id)
    game = record.load()
    game.push([0, 1])
    with pytest.raises(GameEndedError, match="abandoned"):
        games.save(record.id, game, expected_version=abandoned.version)
    with pytest.raises(GameEndedError, match="abandoned"):
        games.join(record.id, record.seats[0].join_code or "")
    assert games.get(record.id) == abandoned, "refusals change nothing"
    with pytest.raises(GameNotFoundError):
        games.abandon(99)


def test_a_finished_game_cannot_be_abandoned(games: GameStore) -> None:
    record, _ = games.create(new_qttt(), HUMANS, hot_seat=True)
    game = record.load()
    for move in ([0, 1], [0, 1], {"collapse": 0}, [3, 4], [3, 4], {"collapse": 3}, [6, 7], [6, 7],
                 {"collapse": 6}):
        game.push(move)
    games.save(record.id, game, expected_version=1)
    with pytest.raises(GameEndedError, match="over"):
        games.abandon(record.id)


def test_games_nobody_touched_expire(games: GameStore) -> None:
    idle, _ = games.create(new_qttt(1), HUMANS, hot_seat=False)
    busy, _ = games.create(new_qttt(2), HUMANS, hot_seat=False)
    done, _ = games.create(new_qttt(3), HUMANS, hot_seat=False)
    games.abandon(done.id)
    games.conn.execute("UPDATE digital_games SET updated_at = updated_at - 7200 WHERE id IN (?, ?)",
                       (idle.id, done.id))
    cutoff = time.time() - 3600
    assert games.expire_idle(before=cutoff, game_id=busy.id) == [], "only idle games"
    assert games.expire_idle(before=cutoff) == [idle.id], "an ended game stays as it ended"
    expired = games.get(idle.id)
    assert expired.status == "expired" and expired.version == idle.version + 1
    assert games.get(done.id).status == "abandoned" and games.get(busy.id).is_open()
    assert games.expire_idle(before=cutoff) == []


def test_open_games_are_capped_in_total_and_per_device(games: GameStore) -> None:
    limits = OpenGameLimits(total=3, per_device=2)
    first, _ = games.create(new_qttt(), HUMANS, hot_seat=False, creator="10.0.0.5", limits=limits)
    games.create(new_qttt(), HUMANS, hot_seat=False, creator="10.0.0.5", limits=limits)
    with pytest.raises(TooManyGamesError, match="this device has 2 open games") as refused:
        games.create(new_qttt(), HUMANS, hot_seat=False, creator="10.0.0.5", limits=limits)
    assert refused.value.per_device
    games.create(new_qttt(), HUMANS, hot_seat=False, creator="10.0.0.6", limits=limits)
    with pytest.raises(TooManyGamesError, match="the lobby is full") as full:
        games.create(new_qttt(), HUMANS, hot_seat=False, creator="10.0.0.7", limits=limits)
    assert not full.value.per_device
    staff = OpenGameLimits(total=3, per_device=None)
    with pytest.raises(TooManyGamesError, match="full"):
        games.create(new_qttt(), HUMANS, hot_seat=False, creator="10.0.0.5", limits=staff)
    assert games.count_open() == 3 and games.count_open(creator="10.0.0.5") == 2
    games.abandon(first.id)  # an ended game does not count
    again, _ = games.create(new_qttt(), HUMANS, hot_seat=False, creator="10.0.0.5", limits=limits)
    assert again.creator == "10.0.0.5" and games.count_open() == 3
    assert games.create(new_qttt(), HUMANS, hot_seat=False)[0].id, "no limits given: none applied"


def test_a_version_4_database_keeps_its_games_and_seats(tmp_path: Path) -> None:
    """Migration 5 rebuilds the games tables (a wider status check, the creator): nothing is lost."""
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA foreign_keys = ON")
    for number, script in enumerate(MIGRATIONS[:4], 1):
        for statement in script.split(";"):
            if statement.strip():
                conn.execute(statement)
        conn.execute(f"PRAGMA user_version = {number}")
    state = json.dumps(new_qttt().to_json())
    for game_id, status in ((1, "running"), (2, "over")):
        conn.execute("INSERT INTO digital_games (id, game, created_at, updated_at, version, hot_seat,"
                     " host_hash, status, state) VALUES (?, 'qttt', 1.0, 2.0, 3, 0, ?, ?, ?)",
                     (game_id, hash_token(f"host{game_id}"), status, state))
        conn.execute("INSERT INTO digital_game_seats (game_id, seat, kind, name, join_code, token_hash)"
                     " VALUES (?, 0, 'human', 'Ada', ?, ?)", (game_id, f"code{game_id}", hash_token("t")))
        conn.execute("INSERT INTO digital_game_seats (game_id, seat, kind, level, name)"
                     " VALUES (?, 1, 'ai', 'random', 'Bob')", (game_id,))
    conn.close()
    games = GameStore(connect(path))
    old = games.get(1)
    assert (old.version, old.status, old.creator, old.updated_at) == (3, "running", None, 2.0)
    assert old.is_host("host1") and old.seat_of("t") == 0 and old.seats[1].level == "random"
    assert games.get(2).is_over() and games.find_code("code2") == (2, 0)
    new, _ = games.create(new_qttt(), HUMANS, hot_seat=False)
    assert new.id == 3, "ids go on from the old table's"
    games.abandon(1)
    with pytest.raises(sqlite3.IntegrityError):  # the seats still belong to a game
        games.conn.execute("INSERT INTO digital_game_seats (game_id, seat, kind, name) VALUES (99, 0,"
                           " 'human', 'X')")
