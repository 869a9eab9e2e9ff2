"""Computer seats move on the server, one background thread per game.

After a human move (or at creation, when a computer starts) the lobby *pokes*
the runner. The runner's thread, with its own database connection, reads the
game, asks the seat's computer player for a move (outside any transaction:
a search may take a while), then saves the move only if nobody changed the
game meanwhile, and goes on while computers are to act. A panel restart
loses nothing: the game is on disk, and the next look at it pokes again.

A computer player that fails (a bug, a move the engine refuses) is logged
and its game says so (the details only in the log: they might tell what a
seat must not know); it is retried only after the game changes.
"""

from __future__ import annotations

import logging
import random
import threading
from collections.abc import Callable
from pathlib import Path

from games.frame import CHANCE, DigitalGame, Player, ai_player
from store.db import connect
from store.games import GameRecord, GameStore, StaleGameError

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


def computer_to_act(record: GameRecord, game: DigitalGame) -> str | None:
    """The level of the computer seat to act, or None when a human (or nobody) acts."""
    seat = game.to_act
    if seat is None or not 0 <= seat < len(record.seats):
        return None
    spec = record.seats[seat]
    return spec.level if spec.is_ai else None


class AiRunner:
    """Runs the computer seats of the lobby's games."""

    def __init__(
        self, database: Path, *, player_factory: Callable[[str, str, random.Random], Player] | None = None,
        max_thinking: int = 2,
    ) -> None:
        self.database = database
        # Searches are CPU-bound: a few at once, the others wait their turn (the Pi has few cores).
        self._slots = threading.BoundedSemaphore(max_thinking)
        self.player_factory = player_factory or (lambda game, level, rng: ai_player(game, level, rng=rng))
        self._lock = threading.Condition()
        self._busy: set[int] = set()
        self._failed: dict[int, tuple[int, str]] = {}
        self._closed = False

    # -- what the views use --------------------------------------------------------

    def poke(self, game_id: int, *, version: int) -> None:
        """Make sure the game's computer seats get to move (no-op if already running)."""
        with self._lock:
            if self._closed or game_id in self._busy:
                return
            failed = self._failed.get(game_id)
            if failed is not None and failed[0] == version:
                return  # the same position failed already: wait for a change
            self._busy.add(game_id)
        threading.Thread(target=self._run, args=(game_id,), name=f"lobby-ai-{game_id}", daemon=True).start()

    def is_thinking(self, game_id: int) -> bool:
        with self._lock:
            return game_id in self._busy

    def failure(self, game_id: int) -> str | None:
        with self._lock:
            failed = self._failed.get(game_id)
        return None if failed is None else failed[1]

    def wait_idle(self, game_id: int, timeout: float) -> bool:
        """Wait until no computer of the game is thinking; False after ``timeout``."""
        with self._lock:
            return self._lock.wait_for(lambda: game_id not in self._busy, timeout)

    def close(self, timeout: float = 5.0) -> None:
        """Stop taking work and wait for running threads (which save nothing more)."""
        with self._lock:
            self._closed = True
            self._lock.wait_for(lambda: not self._busy, timeout)

    # -- the thread ------------------------------------------------------------------

    def _run(self, game_id: int) -> None:
        conn = None
        try:
            conn = connect(self.database)
            self._play(GameStore(conn), game_id)
        except Exception:  # the thread must always release the game
            log.exception("computer player of game %s failed", game_id)
        finally:
            if conn is not None:
                conn.close()
            with self._lock:
                self._busy.discard(game_id)
                self._lock.notify_all()

    def _play(self, store: GameStore, game_id: int) -> None:
        players: dict[str, Player] = {}
        while not self._closed:
            record = store.get(game_id)
            game = record.load()
            level = computer_to_act(record, game)
            if level is None or record.is_over():
                return
            if level not in players:
                players[level] = self.player_factory(record.game, level, move_rng(game))
            try:
                with self._slots:
                    move = players[level].choose(game)
                game.push(move)
                settle_chance(game)
            except Exception:
                # The details go to the log only: a move or a reason may say what a seat must not know.
                seat = game.to_act
                log.exception("computer seat %s of game %s could not move", seat, game_id)
                reason = f"the computer player of seat {seat} failed (see the panel's log)"
                with self._lock:
                    self._failed[game_id] = (record.version, reason)
                return
            if self._closed:
                return
            try:
                store.save(game_id, game, expected_version=record.version)
            except StaleGameError:
                continue  # the game changed under us (an undo, a restart): think again
            with self._lock:
                self._failed.pop(game_id, None)
