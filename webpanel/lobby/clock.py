"""The lobby's game watch: turn timers, and tournament results of digital tables.

A game whose options set a ``turn_timer`` (digital Haute-Tension) gives the
human seat to act that many seconds from the game's last change (a move or a
join). When they run out, the watch plays the game's ``default_move()`` for
that seat, saved like any move (only if nobody moved meanwhile), then wakes
the computer players. The clock runs only for a seat that has been joined:
an empty seat is never played for.

A game created for a tournament table (``webpanel/lobby/tables.py``,
``store/tournament_tables.py``) is watched too: when it ends its points are
entered into the tournament, even if the last move was a computer's and no
page is looking.

One thread per panel, started by the first game that needs it and ended when
no game needs it any more (or when the panel closes). After a panel restart,
the first look at a game watches it again: nothing is lost, the clock then
counts from the game's last change as saved in the database.

Secrecy: the default move is chosen by the game (``"random"`` draws the kind
in proportion to the seat's stock); the log says only that a seat ran out of
time, never the move.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from pathlib import Path
from typing import Any

from flask import current_app

from games.frame import DigitalGame
from store.db import open_database
from store.games import GameNotFoundError, GameRecord, GameStore, StaleGameError
from store.tournament_tables import TournamentTables
from webpanel.db import get_db
from webpanel.lobby.runner import AiRunner, computer_to_act, settle_chance

log = logging.getLogger(__name__)

TICK_SECONDS = 0.2
"""How often the watch looks at its games (a timer fires at most this late)."""

_start_lock = threading.Lock()


def turn_timer(record: GameRecord) -> float:
    """The game's seconds per move (0: no timer), read from its saved options."""
    options = record.state.get("options") if isinstance(record.state, dict) else None
    value = options.get("turn_timer") if isinstance(options, dict) else None
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value < math.inf:
        return 0.0  # none, or nonsense (NaN, infinity) that must never fire at once
    return float(value)


class GameWatch:
    """Plays the default move of a human seat whose time ran out; enters finished tables' results."""

    def __init__(self, database: Path, *, runner: AiRunner, stopped: Any, tick: float = TICK_SECONDS) -> None:
        self.database = database
        self.runner = runner
        self._stopped = stopped  # a callable: True once the panel closes
        self.tick = tick
        self._lock = threading.Lock()
        self._games: set[int] = set()
        self._checked: dict[int, int] = {}  # game -> version already found needing nothing
        self._thread: threading.Thread | None = None

    def watch(self, game_id: int) -> None:
        with self._lock:
            self._games.add(game_id)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="lobby-watch", daemon=True)
                self._thread.start()

    def watching(self) -> set[int]:
        with self._lock:
            return set(self._games)

    def _run(self) -> None:
        conn = None  # one connection for the thread's life, not one per tick (files and schema checks)
        try:
            while not self._stopped():
                with self._lock:
                    games = sorted(self._games)
                    if not games:
                        self._thread = None
                        return
                try:
                    conn = conn or open_database(self.database)
                    for game_id in games:
                        if not self.check(conn, game_id):
                            with self._lock:
                                self._games.discard(game_id)
                                self._checked.pop(game_id, None)
                except Exception:  # the watch must go on for the other games, on a new connection
                    log.exception("the lobby's game watch failed")
                    if conn is not None:
                        conn.close()
                        conn = None
                time.sleep(self.tick)
            with self._lock:
                self._thread = None
        finally:
            if conn is not None:
                conn.close()

    def check(self, conn: Any, game_id: int) -> bool:
        """Act on one game if its time is up or it ended; False when it needs no more watching."""
        store = GameStore(conn)
        try:
            record = store.get(game_id)
        except GameNotFoundError:
            return False
        if not record.is_open():
            if record.is_over():
                TournamentTables(conn).enter_result(game_id)
            return False  # over, abandoned or expired
        seconds = turn_timer(record)
        if seconds <= 0:
            return TournamentTables(conn).is_pending(game_id)
        if time.time() - record.updated_at < seconds or self._checked.get(game_id) == record.version:
            return True
        game = record.load()
        if not self._time_is_up_for(record, game):
            self._checked[game_id] = record.version
            return True
        self.play_default(store, record, game)
        return True

    @staticmethod
    def _time_is_up_for(record: GameRecord, game: DigitalGame) -> bool:
        seat = game.to_act
        if seat is None or not 0 <= seat < len(record.seats) or not hasattr(game, "default_move"):
            return False
        return not record.seats[seat].is_ai and record.seats[seat].joined

    def play_default(self, store: GameStore, record: GameRecord, game: DigitalGame) -> None:
        seat = game.to_act
        game.push(game.default_move())  # type: ignore[attr-defined]
        settle_chance(game)
        try:
            saved = store.save(record.id, game, expected_version=record.version, played_on=record)
        except StaleGameError:
            return  # the player moved just in time
        log.info("game %s: seat %s ran out of time, the default move was played", record.id, seat)
        if saved.is_open() and computer_to_act(saved, game.to_act) is not None:
            self.runner.poke(saved.id, version=saved.version)


def game_watch() -> GameWatch:
    """The panel's watch, made on first use (most panels never need it)."""
    with _start_lock:
        watch: GameWatch | None = current_app.extensions.get("lobby_watch")
        if watch is None:
            follower = current_app.extensions["board_follower"]
            runner: AiRunner = current_app.extensions["lobby_ai"]
            watch = GameWatch(
                current_app.config["PANEL"].database,
                runner=runner,
                stopped=lambda: follower.stopped,
                tick=float(current_app.config.get("LOBBY_WATCH_TICK", TICK_SECONDS)),
            )
            current_app.extensions["lobby_watch"] = watch
    return watch


def watch_game(record: GameRecord) -> None:
    """After any look at a game or move in it: watch it if it has a timer or feeds a tournament."""
    tables = TournamentTables(get_db())
    linked = tables.is_pending(record.id)
    if not record.is_open():
        if linked and record.is_over():
            tables.enter_result(record.id)
        return
    if turn_timer(record) > 0 or linked:
        game_watch().watch(record.id)
