"""Computer seats move on the server, on one small pool of worker threads fed by a queue.

After a human move (or at creation, when a computer starts) the lobby *pokes*
the runner: the game joins the queue (once, however often it is poked). A
worker takes the game at the head of the queue, reads it (from the panel's
loaded games, :mod:`webpanel.lobby.cache`), asks the seat's computer player
for one move (outside any transaction: a search may take a while), saves it
only if nobody changed the game meanwhile, and puts the game back at the end
of the queue while a computer is still to act: waiting games take turns, one
move each. However many games wait, the panel holds ``workers`` threads and
as many database connections (a worker idle for ``idle_seconds`` ends and
closes its connection; the next poke starts one again). A panel restart
loses nothing: the game is on disk, and the next look at it pokes again.

A computer player that fails (a bug, a move the engine refuses) is logged
and its game says so (the details only in the log: they might tell what a
seat must not know); it is retried only after the game changes.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path

from games.budget import Budget
from games.frame import CHANCE, DigitalGame, Player, ai_player
from store.db import open_database
from store.games import GameEndedError, GameNotFoundError, GameRecord, GameStore, StaleGameError
from webpanel.lobby.cache import GameCache

log = logging.getLogger(__name__)


def move_rng(game: DigitalGame) -> random.Random:
    """A random source fixed by the game's seed and move count: replays choose alike."""
    return random.Random(f"{game.seed}:{len(game.history)}")


def dice_entered(game: DigitalGame) -> bool:
    """Whether the game's chance events are real dice the players enter (option ``"dice": "entered"``)."""
    return game.options.get("dice") == "entered"


def settle_chance(game: DigitalGame) -> None:
    """Roll every pending chance event (dice, draws) with the game's seeded randomness.

    Entered dice are left for the players to enter on the display or a tablet.
    """
    while game.to_act == CHANCE and not dice_entered(game):
        game.push(move_rng(game).choice(game.legal_moves()))


def computer_to_act(record: GameRecord, seat: int | None) -> str | None:
    """The level of the computer seat *seat* (the seat to act), or None for a human (or nobody)."""
    if seat is None or not 0 <= seat < len(record.seats):
        return None
    spec = record.seats[seat]
    return spec.level if spec.is_ai else None


PlayerFactory = Callable[[str, str, random.Random], Player]
"""(game name, level, the move's random source) -> a computer player for one move."""


class AiRunner:
    """Runs the computer seats of the lobby's games on ``workers`` threads."""

    def __init__(
        self, database: Path, *, games: GameCache | None = None, player_factory: PlayerFactory | None = None,
        workers: int = 2, idle_seconds: float = 30.0, thinking_seconds: float | None = None,
    ) -> None:
        self.database = database
        self.games = games or GameCache(max_games=16, max_moves=10_000)
        # Searches are CPU-bound: a few at once, the others wait their turn (the Pi has few cores).
        self.workers = workers
        self.idle_seconds = idle_seconds
        # One place makes a computer player for a move; a searching level thinks at most
        # ``thinking_seconds`` (None: the level's own default, games.budget.PI_SECONDS).
        budget = Budget(thinking_seconds) if thinking_seconds is not None else None
        self.player_factory = player_factory or (
            lambda game, level, rng: ai_player(game, level, rng=rng, budget=budget)
        )
        self._lock = threading.Condition()
        self._queue: deque[int] = deque()
        self._busy: set[int] = set()  # queued or being played
        self._failed: dict[int, tuple[int, str]] = {}
        self._threads: set[threading.Thread] = set()
        self._idle = 0  # workers waiting for work
        self._closed = False

    # -- what the views use --------------------------------------------------------

    def poke(self, game_id: int, *, version: int) -> None:
        """Queue the game for its computer seats to move (no-op if it waits or plays already)."""
        with self._lock:
            if self._closed or game_id in self._busy:
                return
            failed = self._failed.get(game_id)
            if failed is not None and failed[0] == version:
                return  # the same position failed already: wait for a change
            self._busy.add(game_id)
            self._queue.append(game_id)
            if self._idle == 0 and len(self._threads) < self.workers:
                worker = threading.Thread(target=self._work, name=f"lobby-ai-{len(self._threads) + 1}",
                                          daemon=True)
                self._threads.add(worker)
                worker.start()
            self._lock.notify()

    def is_thinking(self, game_id: int) -> bool:
        with self._lock:
            return game_id in self._busy

    def failure(self, game_id: int) -> str | None:
        with self._lock:
            failed = self._failed.get(game_id)
        return None if failed is None else failed[1]

    def waiting(self) -> int:
        """Games queued or being played."""
        with self._lock:
            return len(self._busy)

    def threads(self) -> int:
        """Worker threads alive now (at most ``workers``)."""
        with self._lock:
            return len(self._threads)

    def wait_idle(self, game_id: int, timeout: float) -> bool:
        """Wait until no computer of the game is thinking; False after ``timeout``."""
        with self._lock:
            return self._lock.wait_for(lambda: game_id not in self._busy, timeout)

    def close(self, timeout: float = 5.0) -> None:
        """Stop taking work and wait for the workers (a move being searched is not saved)."""
        with self._lock:
            self._closed = True
            self._queue.clear()
            self._lock.notify_all()
            workers = set(self._threads)
        deadline = time.monotonic() + timeout
        for worker in workers:
            worker.join(max(0.0, deadline - time.monotonic()))

    # -- the workers ---------------------------------------------------------------------

    def _next(self) -> int | None:
        """The next game to play, or None when this worker should end (closed, or idle too long)."""
        with self._lock:
            self._idle += 1
            try:
                self._lock.wait_for(lambda: self._queue or self._closed, self.idle_seconds)
            finally:
                self._idle -= 1
            if self._closed or not self._queue:
                # Leave the pool under the same lock: a poke from now on starts a worker of its own.
                self._threads.discard(threading.current_thread())
                self._lock.notify_all()
                return None
            return self._queue.popleft()

    def _work(self) -> None:
        conn = None
        try:
            while (game_id := self._next()) is not None:
                again = False
                try:
                    if conn is None:
                        conn = open_database(self.database)
                    again = self._move(GameStore(conn), game_id)
                except Exception:  # the worker must always release the game
                    log.exception("computer player of game %s failed", game_id)
                with self._lock:
                    if again and not self._closed:
                        self._queue.append(game_id)  # to the back: every waiting game gets its turn
                    else:
                        self._busy.discard(game_id)
                        self._lock.notify_all()
        finally:
            if conn is not None:
                conn.close()
            with self._lock:
                self._threads.discard(threading.current_thread())
                self._lock.notify_all()

    def _move(self, store: GameStore, game_id: int) -> bool:
        """Play one computer move of the game; True when a computer is still to act after it."""
        try:
            loaded = self.games.load(store, game_id)
        except GameNotFoundError:
            return False
        record = loaded.record
        game = loaded.copy()
        level = computer_to_act(record, game.to_act)
        if level is None or not record.is_open():
            return False
        try:
            move = self.player_factory(record.game, level, move_rng(game)).choose(game)
            game.push(move)
            settle_chance(game)
        except Exception:
            # The details go to the log only: a move or a reason may say what a seat must not know.
            seat = game.to_act
            log.exception("computer seat %s of game %s could not move", seat, game_id)
            reason = f"the computer player of seat {seat} failed (see the panel's log)"
            with self._lock:
                self._failed[game_id] = (record.version, reason)
            return False
        if self._closed:
            return False
        try:
            saved = store.save(game_id, game, expected_version=record.version, played_on=record)
        except StaleGameError:
            return True  # the game changed under us (a human move, another panel): think again
        except GameEndedError:
            return False  # abandoned or expired meanwhile
        if self.games.max_games:
            self.games.put(saved)  # the pages that look next find this version ready
        with self._lock:
            self._failed.pop(game_id, None)
        return saved.is_open() and computer_to_act(saved, game.to_act) is not None
