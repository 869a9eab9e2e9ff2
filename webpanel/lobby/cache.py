"""Games kept loaded in memory, so that looking at a game does not replay it.

A stored game is its move list (``store/games.py``): loading one replays
every move through the engine, 26 ms for a 200-move Hypnosia game, and every
move makes every open page look again. The panel keeps each game it loaded
as one :class:`LoadedGame` per version: the record read from the database,
the game rebuilt from it, and the answers already computed from that
version (each seat's state, a replay position, a board page's data), as
bytes ready to send.

Why it always answers what a fresh replay would:

* An entry is found only by the game's id *and* its version and last change
  as a one-row read finds them now (:meth:`GameStore.head`): a move, a join,
  an abandon or an expiry, by this process or another, makes a new version.
* The game object of an entry is never changed: readers compute under the
  entry's lock (engines may fill caches of their own while they answer) and
  anyone who needs to play on takes a :meth:`LoadedGame.copy`.
* A newer version is built from the older entry's game by pushing the moves
  recorded since, as stored (exactly what a replay pushes), when the stored
  game extends it; otherwise it is replayed.

Secrecy: a stored answer is keyed by everything of the caller that shapes it
(its seat, whether it is the host): one seat's view is never another's.
Entries are evicted by their number and their moves only (public facts),
never by the size of an answer, which the secret pawn kinds could sway.

Memory is bounded: at most ``max_games`` games and ``max_moves`` moves in
all (an entry alone longer than that is not kept), and at most
:data:`MAX_ANSWERS` answers per game.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

from games.frame import DigitalGame
from store.games import GameRecord, GameStore

T = TypeVar("T")

MAX_ANSWERS = 16
"""Answers kept per game version: every seat's, the host's and a spectator's live state, a few
replay positions and board page data. The oldest makes room (a few seats, a few pages)."""


class LoadedGame:
    """One version of one game: its record, the game rebuilt from it, and answers computed from it."""

    __slots__ = ("record", "_game", "_lock", "_answers", "_looked", "computed")

    def __init__(self, record: GameRecord, game: DigitalGame, *, lock: threading.Lock | None = None) -> None:
        self.record = record
        self._game = game
        self._lock = lock or threading.Lock()  # shared with an older version holding the same game
        self._answers: OrderedDict[Hashable, Any] = OrderedDict()
        self._looked = False
        self.computed = 0
        """Answers computed from this version (not served as stored): a count for tests and benchmarks."""

    def first_look(self) -> bool:
        """True the first time it is asked of this version, then False (what needs doing once per version)."""
        with self._lock:
            looked, self._looked = self._looked, True
            return not looked

    @property
    def moves(self) -> int:
        return len(self._game.history)

    def read(self, compute: Callable[[DigitalGame], T]) -> T:
        """*compute* on the game, which it must not change (under the lock: engines are not thread-safe)."""
        with self._lock:
            return compute(self._game)

    def answer(self, key: Hashable, compute: Callable[[DigitalGame], T]) -> T:
        """The value *key* names, computed by *compute* on the game the first time only.

        *key* must hold everything the value depends on besides this version of the game (the
        caller's seat and rights, for a view): a value is shared by every request with that key.
        """
        with self._lock:
            if key in self._answers:
                self._answers.move_to_end(key)
                value: T = self._answers[key]
                return value
            value = compute(self._game)
            self.computed += 1
            self._answers[key] = value
            while len(self._answers) > MAX_ANSWERS:
                self._answers.popitem(last=False)
            return value

    def copy(self) -> DigitalGame:
        """A game of one's own to play on."""
        with self._lock:
            return self._game.copy()


class GameCache:
    """The loaded games of one panel (shared by its request threads and its computer players)."""

    def __init__(self, *, max_games: int, max_moves: int) -> None:
        self.max_games = max_games
        self.max_moves = max_moves
        self._entries: OrderedDict[int, LoadedGame] = OrderedDict()
        self._moves = 0
        self._lock = threading.Lock()
        self.loads = 0
        """Games rebuilt by a full replay (a count for tests and benchmarks)."""

    def load(self, store: GameStore, game_id: int) -> LoadedGame:
        """The game as stored now: from memory when its version is there, else read (and kept).

        Raises :class:`~store.games.GameNotFoundError` for an unknown id.
        """
        head = store.head(game_id)
        with self._lock:
            entry = self._entries.get(game_id)
            if entry is not None and (entry.record.version, entry.record.updated_at) == \
                    (head.version, head.updated_at):
                self._entries.move_to_end(game_id)
                return entry
        return self.put(store.get(game_id))

    def put(self, record: GameRecord) -> LoadedGame:
        """Keep *record* (just read or saved) as the game's current version, and return it."""
        with self._lock:
            older = self._entries.get(record.id)
        if older is not None and (older.record.version, older.record.updated_at) == \
                (record.version, record.updated_at):
            return older
        if older is not None and older.record.moves == record.moves and _extends(older.record, record):
            # A join (or an end without a move): the same game, one lock for the object both hold.
            entry = LoadedGame(record, older._game, lock=older._lock)
        else:
            entry = LoadedGame(record, self._advance(older, record))
        if self.max_games > 0:
            self._keep(entry)
        return entry

    def played(self, record: GameRecord, game: DigitalGame) -> LoadedGame:
        """Keep *game*, just saved as *record* (a move played on a :meth:`LoadedGame.copy`), as the game's
        current version: the next look at it neither reads it back nor replays the move.

        The caller hands *game* over: from now on it is read under the entry's lock only.
        """
        entry = LoadedGame(record, game)
        if self.max_games > 0:
            self._keep(entry)
        return entry

    def _advance(self, older: LoadedGame | None, record: GameRecord) -> DigitalGame:
        """The game of *record*: the older version's game with the moves played since, else a replay."""
        if older is not None and _extends(older.record, record):
            game = older.copy()
            try:
                for move in record.state["moves"][older.record.moves:]:
                    game.push(move)
            except Exception:  # whatever went wrong, the replay below says it properly
                pass
            else:
                return game
        self.loads += 1
        return record.load()

    def _keep(self, entry: LoadedGame) -> None:
        with self._lock:
            kept = self._entries.get(entry.record.id)
            if kept is not None and kept.record.created_at == entry.record.created_at \
                    and kept.record.version > entry.record.version:
                return  # a newer version came first (another thread): keep it
            replaced = self._entries.pop(entry.record.id, None)
            if replaced is not None:
                self._moves -= replaced.moves
            if entry.moves > self.max_moves:
                return  # longer than the whole budget: served, not kept
            self._entries[entry.record.id] = entry
            self._moves += entry.moves
            while len(self._entries) > self.max_games or self._moves > self.max_moves:
                _id, evicted = self._entries.popitem(last=False)
                self._moves -= evicted.moves

    def forget(self, game_id: int) -> None:
        with self._lock:
            entry = self._entries.pop(game_id, None)
            if entry is not None:
                self._moves -= entry.moves

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)

    @property
    def moves(self) -> int:
        """Moves held in all the games kept."""
        with self._lock:
            return self._moves


def _extends(older: GameRecord, newer: GameRecord) -> bool:
    """Whether *newer* is *older* with moves added (same game, players, options and seed)."""
    if older.id != newer.id or older.game != newer.game or older.created_at != newer.created_at:
        return False
    before, after = older.state, newer.state
    if any(before.get(key) != after.get(key) for key in ("players", "options", "seed")):
        return False
    moves = after.get("moves")
    return isinstance(moves, list) and moves[:older.moves] == before.get("moves")
