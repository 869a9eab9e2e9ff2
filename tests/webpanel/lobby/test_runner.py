"""The computer-player runner on its own: bounded thinking, resuming, stopping."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

from games.frame import DigitalGame, RandomPlayer, game_class
from store.db import connect
from store.games import GameStore, SeatSpec
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


def test_thinking_is_bounded_and_games_finish(tmp_path: Path) -> None:
    database = tmp_path / "games.db"
    games = GameStore(connect(database))
    ids = [games.create(game_class("qttt").new(["A", "B"], seed=n), COMPUTERS, hot_seat=False)[0].id
           for n in range(3)]
    runner = AiRunner(database, player_factory=lambda game, level, rng: SlowPlayer(), max_thinking=1)
    try:
        for gid in ids:
            runner.poke(gid, version=1)
        assert all(runner.wait_idle(gid, 60) for gid in ids)
    finally:
        runner.close()
    assert SlowPlayer.most == 1, "one search at a time"
    assert all(games.get(gid).is_over() for gid in ids)


def test_a_closed_runner_saves_nothing(tmp_path: Path) -> None:
    database = tmp_path / "games.db"
    games = GameStore(connect(database))
    gid = games.create(game_class("qttt").new(["A", "B"], seed=1), COMPUTERS, hot_seat=False)[0].id
    runner = AiRunner(database)
    runner.close()
    runner.poke(gid, version=1)
    assert not runner.is_thinking(gid)
    assert games.get(gid).version == 1
