"""The computer-player runner on its own: a bounded pool fed by a queue, turns, resuming, stopping."""

from __future__ import annotations

import gc
import os
import random
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from configuration import ConfigError, Section
from games.frame import DigitalGame, RandomPlayer, game_class
from store.db import connect
from store.games import GameRecord, GameStore, SeatSpec
from webpanel.config import LobbySettings
from webpanel.lobby.runner import AiRunner

COMPUTERS = [SeatSpec("ai", "A", "random"), SeatSpec("ai", "B", "random")]


class SlowPlayer:
    """A random player that takes a moment and counts how many think at once."""

    lock = threading.Lock()
    thinking = 0
    most = 0

    def choose(self, game: DigitalGame) -> Any:
        with SlowPlayer.lock:
            SlowPlayer.thinking += 1
            SlowPlayer.most = max(SlowPlayer.most, SlowPlayer.thinking)
        time.sleep(0.01)
        with SlowPlayer.lock:
            SlowPlayer.thinking -= 1
        return RandomPlayer().choose(game)


class GatedPlayer:
    """A random player that moves only once the gate opens; records the order games moved in."""

    arrived = threading.Semaphore(0)
    """Released by each search that reaches the gate."""

    def __init__(self, gate: threading.Event, order: list[int]) -> None:
        self.gate = gate
        self.order = order

    def choose(self, game: DigitalGame) -> Any:
        GatedPlayer.arrived.release()
        self.gate.wait(30)
        self.order.append(game.seed)
        return RandomPlayer().choose(game)


def computer_games(database: Path, count: int) -> list[int]:
    games = GameStore(connect(database))
    try:
        return [games.create(game_class("qttt").new(["A", "B"], seed=n), COMPUTERS, hot_seat=False)[0].id
                for n in range(count)]
    finally:
        games.conn.close()


def stored(database: Path, gid: int) -> GameRecord:
    conn = connect(database)
    try:
        return GameStore(conn).get(gid)
    finally:
        conn.close()


def open_files() -> int:
    gc.collect()  # a connection an earlier test dropped is closed now, not while we count
    return len(os.listdir("/proc/self/fd"))


def test_thinking_is_bounded_and_games_finish(tmp_path: Path) -> None:
    database = tmp_path / "games.db"
    ids = computer_games(database, 3)
    runner = AiRunner(database, player_factory=lambda game, level, rng: SlowPlayer(), workers=1)
    try:
        for gid in ids:
            runner.poke(gid, version=1)
        assert all(runner.wait_idle(gid, 60) for gid in ids)
    finally:
        runner.close()
    assert SlowPlayer.most == 1, "one search at a time"
    assert all(stored(database, gid).is_over() for gid in ids)


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="counts open files through /proc (Linux)")
def test_300_games_waiting_hold_no_more_threads_nor_files_than_the_pool(tmp_path: Path) -> None:
    """Before, each waiting game held a thread and a database connection (300 games: 381 threads,
    767 open files). Now the pool's workers are all there is, however many games wait."""
    database = tmp_path / "games.db"
    ids = computer_games(database, 300)
    gate, order = threading.Event(), []
    runner = AiRunner(database, player_factory=lambda game, level, rng: GatedPlayer(gate, order), workers=2)
    threads_before, files_before = threading.active_count(), open_files()
    try:
        for gid in ids[:10]:
            runner.poke(gid, version=1)
        for _worker in range(2):  # both workers hold a game (and their connection) at the gate
            assert GatedPlayer.arrived.acquire(timeout=30)
        threads_10, files_10 = threading.active_count(), open_files()
        for gid in ids[10:]:
            runner.poke(gid, version=1)
        for gid in ids:
            runner.poke(gid, version=1)  # poked again (every page's look): still queued once
        assert runner.waiting() == 300 and all(runner.is_thinking(gid) for gid in ids)
        threads_300, files_300 = threading.active_count(), open_files()
        assert threads_300 - threads_before == runner.threads() == 2, "the workers, nothing per game"
        assert (threads_300, files_300) == (threads_10, files_10), "flat from 10 to 300 waiting games"
        assert files_300 - files_before <= 2 * 3, "a connection (database, -wal, -shm) per worker at most"
        gate.set()
        deadline = time.monotonic() + 60
        while len(order) < 20 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert len(order) >= 20, "the queue moves on"
    finally:
        gate.set()
        runner.close(timeout=30)
    assert threading.active_count() == threads_before, "closing ends the workers"
    assert open_files() <= files_before, "and closes their connections"


def test_waiting_games_take_turns_one_move_each(tmp_path: Path) -> None:
    """One worker, three computer games: each moves once before any moves twice."""
    database = tmp_path / "games.db"
    ids = computer_games(database, 3)
    gate, order = threading.Event(), []
    runner = AiRunner(database, player_factory=lambda game, level, rng: GatedPlayer(gate, order), workers=1)
    try:
        for gid in ids:
            runner.poke(gid, version=1)
        gate.set()
        assert all(runner.wait_idle(gid, 60) for gid in ids)
    finally:
        runner.close()
    seeds = [0, 1, 2]
    assert order[:6] == seeds + seeds, f"round robin, not one game to its end: {order[:6]}"
    assert all(stored(database, gid).is_over() for gid in ids)


def test_an_idle_worker_ends_and_a_poke_starts_one_again(tmp_path: Path) -> None:
    database = tmp_path / "games.db"
    first, second = computer_games(database, 2)
    runner = AiRunner(database, workers=2, idle_seconds=0.05)
    try:
        runner.poke(first, version=1)
        assert runner.wait_idle(first, 60)
        deadline = time.monotonic() + 10
        while runner.threads() and time.monotonic() < deadline:
            time.sleep(0.01)
        assert runner.threads() == 0, "no work, no thread (nor connection)"
        runner.poke(second, version=1)
        assert runner.wait_idle(second, 60)
        assert stored(database, second).is_over()
    finally:
        runner.close()


def test_a_computer_that_fails_is_not_retried_until_the_game_changes(tmp_path: Path) -> None:
    class Broken:
        def choose(self, game: DigitalGame) -> Any:
            raise RuntimeError("a bug in the search")

    database = tmp_path / "games.db"
    (gid,) = computer_games(database, 1)
    runner = AiRunner(database, player_factory=lambda game, level, rng: Broken(), workers=1)
    try:
        runner.poke(gid, version=1)
        assert runner.wait_idle(gid, 30)
        assert runner.failure(gid) == "the computer player of seat 0 failed (see the panel's log)"
        runner.poke(gid, version=1)
        assert not runner.is_thinking(gid), "the same position is not tried again"
        runner.poke(gid, version=2)
        assert runner.wait_idle(gid, 30) and runner.failure(gid) is not None
    finally:
        runner.close()
    assert stored(database, gid).version == 1, "nothing saved"


def test_an_abandoned_game_stops_its_computers(tmp_path: Path) -> None:
    database = tmp_path / "games.db"
    (gid,) = computer_games(database, 1)
    gate, order = threading.Event(), []
    runner = AiRunner(database, player_factory=lambda game, level, rng: GatedPlayer(gate, order), workers=1)
    try:
        runner.poke(gid, version=1)
        conn = connect(database)
        GameStore(conn).abandon(gid)
        conn.close()
        gate.set()
        assert runner.wait_idle(gid, 30)
    finally:
        runner.close()
    record = stored(database, gid)
    assert record.status == "abandoned" and record.moves == 0, "the move searched meanwhile is not saved"


def test_a_closed_runner_saves_nothing(tmp_path: Path) -> None:
    database = tmp_path / "games.db"
    (gid,) = computer_games(database, 1)
    runner = AiRunner(database)
    runner.close()
    runner.poke(gid, version=1)
    assert not runner.is_thinking(gid) and runner.threads() == 0
    assert stored(database, gid).version == 1


@pytest.mark.parametrize(("thinking", "expected"), [(0.25, 0.25), (None, 1.0)])
def test_computer_seats_think_the_configured_time(
    tmp_path: Path, thinking: float | None, expected: float
) -> None:
    runner = AiRunner(tmp_path / "db.sqlite", thinking_seconds=thinking)
    try:
        player = runner.player_factory("hop", "mcts", random.Random(1))
        assert player.budget is not None and player.budget.seconds == expected  # type: ignore[attr-defined]
    finally:
        runner.close()


def _lobby(section: dict[str, Any]) -> LobbySettings:
    with Section(section, name="[lobby]", source="test") as reader:
        return LobbySettings.read(reader)


def test_the_thinking_time_setting_is_bounded() -> None:
    assert _lobby({"thinking_seconds": 2.5}).thinking_seconds == 2.5
    with pytest.raises(ConfigError, match="thinking_seconds must be more than 0"):
        _lobby({"thinking_seconds": 0})
