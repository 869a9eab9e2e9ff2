"""Digital games in the shared database: the lobby's games and their seats.

A game is kept as its saved JSON (:meth:`games.frame.DigitalGame.to_json`:
players, options, seed and move list), replayed on loading, with a version
number bumped by every change so that pages and streams can tell they are
behind. Each seat is a human or a computer player (with its level).

A game is *open* while it runs; it ends when its rules say so (``over``),
when its host abandons it (``abandoned``) or when nobody has moved in it or
joined it for a while (``expired``). Open games are capped, in total and per
creating device (:class:`OpenGameLimits`), so that nobody can fill the
database; games that ended do not count.

Secrets: a human seat is taken by a device through a short *join code*
(shown as a link and a QR code on the display); the device then holds the
seat's *token*, and the game's creator holds the *host token* (which lets
the display play every human seat of a hot-seat game and see the join
codes). Only SHA-256 hashes of tokens are stored: a copy of the database
does not let anyone act for a seat.
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import json
import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from games.frame import DigitalGame, game_class
from store.db import transaction
from store.dialect import Connection, Record
from store.move_requests import MoveRequests

SeatKind = Literal["human", "ai"]
GameStatus = Literal["running", "over", "abandoned", "expired"]
OPEN = "running"
ENDED_WORDS = {"over": "the game is over", "abandoned": "the game was abandoned by its host",
               "expired": "the game expired: nobody played it for too long"}
"""How a player is told that a game which ended takes no more moves or joins."""

CODE_ALPHABET = "23456789abcdefghjkmnpqrstuvwxyz"
"""Join codes avoid look-alike characters (0/o, 1/l/i) so they can be typed from the screen."""
CODE_LENGTH = 6


class GameStoreError(Exception):
    """Base class of the game store's errors; messages are for the player."""


class GameNotFoundError(GameStoreError, LookupError):
    """No game with that id."""


class StaleGameError(GameStoreError, RuntimeError):
    """The game changed since it was read (another move came first)."""


class JoinError(GameStoreError, ValueError):
    """A join code that does not give a seat (unknown, used, or the device already sits)."""


class GameEndedError(GameStoreError, RuntimeError):
    """The game is over, abandoned or expired: it takes no more moves, joins or abandoning."""


class TooManyGamesError(GameStoreError, RuntimeError):
    """Creating a game would pass a cap on open games (``per_device``: the creating device's own)."""

    def __init__(self, message: str, *, per_device: bool) -> None:
        super().__init__(message)
        self.per_device = per_device


@dataclass(frozen=True)
class OpenGameLimits:
    """How many games may be open (running) at once: in all, and per creating device
    (``per_device`` None: no cap of its own, e.g. for staff)."""

    total: int
    per_device: int | None


@dataclass(frozen=True)
class SeatSpec:
    """Who plays a seat, as the lobby asks for it."""

    kind: SeatKind
    name: str
    level: str | None = None


@dataclass(frozen=True)
class SeatRecord:
    seat: int
    kind: SeatKind
    name: str
    level: str | None
    join_code: str | None
    token_hash: str | None = field(default=None, repr=False)

    @property
    def joined(self) -> bool:
        return self.token_hash is not None

    @property
    def is_ai(self) -> bool:
        return self.kind == "ai"


@dataclass(frozen=True)
class GameRecord:
    """One stored game: its saved JSON and its seats."""

    id: int
    game: str
    created_at: float
    updated_at: float
    version: int
    hot_seat: bool
    status: str
    state: dict[str, Any]
    seats: tuple[SeatRecord, ...]
    host_hash: str = field(default="", repr=False)
    creator: str | None = None
    """The address of the device that created the game (None: made before it was kept)."""

    def load(self) -> DigitalGame:
        """The game, rebuilt by replaying its moves."""
        return game_class(self.game).from_json(self.state)

    def is_open(self) -> bool:
        """Whether the game is still played (not over, abandoned nor expired)."""
        return self.status == OPEN

    def is_over(self) -> bool:
        """Whether the game ended by its rules (it has an outcome)."""
        return self.status == "over"

    def ended_because(self) -> str:
        """Why a game that ended takes nothing more, in the player's words."""
        return ENDED_WORDS.get(self.status, "the game is not running")

    @property
    def moves(self) -> int:
        return len(self.state.get("moves", []))

    # The record holds this version's token hashes: who a request is can be told without a query.
    def seat_of(self, token: str | None) -> int | None:
        """The seat a token holds in this game, or None (no token, or not one of this game's)."""
        if not token:
            return None
        wanted = hash_token(token)
        found = None
        for seat in self.seats:  # every seat compared: the time does not say which one matched
            if seat.token_hash is not None and hmac.compare_digest(seat.token_hash, wanted):
                found = seat.seat
        return found

    def is_host(self, token: str | None) -> bool:
        return bool(token) and bool(self.host_hash) and hmac.compare_digest(self.host_hash,
                                                                          hash_token(token or ""))


@dataclass(frozen=True)
class GameHead:
    """What a one-row read tells of a game: enough to know whether a copy in memory is current."""

    id: int
    version: int
    updated_at: float
    status: str


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def new_token() -> str:
    return secrets.token_urlsafe(24)


def _new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


class GameStore:
    """The lobby's games on one database connection."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn

    # -- creating and reading ---------------------------------------------------

    def create(
        self, game: DigitalGame, seats: Sequence[SeatSpec], *, hot_seat: bool, creator: str | None = None,
        limits: OpenGameLimits | None = None,
    ) -> tuple[GameRecord, str]:
        """Store a new game; returns it and the host token (the only time the token exists in clear).

        With *limits*, a game that would pass a cap on open games is refused
        (:class:`TooManyGamesError`): counted and created in one transaction,
        so that concurrent requests cannot overshoot together.
        """
        if len(seats) != len(game.players):
            raise ValueError(f"{len(seats)} seats for {len(game.players)} players")
        host_token = new_token()
        now = time.time()
        with transaction(self.conn):
            if limits is not None:
                self._check_room(creator, limits)
            row = self.conn.execute(
                "INSERT INTO digital_games"
                " (game, created_at, updated_at, version, hot_seat, host_hash, status, state, creator)"
                " VALUES (?, ?, ?, 1, ?, ?, ?, ?, ?) RETURNING id",
                (game.name, now, now, int(hot_seat), hash_token(host_token), _status(game),
                 json.dumps(game.to_json()), creator),
            ).fetchone()
            game_id = int(row[0])
            for number, spec in enumerate(seats):
                code = self._unused_code() if spec.kind == "human" and not hot_seat else None
                self.conn.execute(
                    "INSERT INTO digital_game_seats (game_id, seat, kind, level, name, join_code)"
                    " VALUES (?, ?, ?, ?, ?, ?)",
                    (game_id, number, spec.kind, spec.level, spec.name, code),
                )
        return self.get(game_id), host_token

    def _check_room(self, creator: str | None, limits: OpenGameLimits) -> None:
        if limits.per_device is not None and creator is not None:
            mine = self.count_open(creator=creator)
            if mine >= limits.per_device:
                raise TooManyGamesError(
                    f"this device has {mine} open games already (at most {limits.per_device}): "
                    "finish or abandon one first", per_device=True)
        if self.count_open() >= limits.total:
            raise TooManyGamesError(
                f"the lobby is full ({limits.total} open games): try again when one ends", per_device=False)

    def count_open(self, *, creator: str | None = None) -> int:
        """Games still running: all of them, or those *creator* made."""
        if creator is None:
            row = self.conn.execute("SELECT COUNT(*) FROM digital_games WHERE status = ?", (OPEN,)).fetchone()
        else:
            row = self.conn.execute("SELECT COUNT(*) FROM digital_games WHERE status = ? AND creator = ?",
                                    (OPEN, creator)).fetchone()
        return int(row[0])

    def _unused_code(self) -> str:
        while True:
            code = _new_code()
            taken = self.conn.execute("SELECT 1 FROM digital_game_seats WHERE join_code = ?",
                                      (code,)).fetchone()
            if taken is None:
                return code

    def get(self, game_id: int) -> GameRecord:
        row = self.conn.execute("SELECT * FROM digital_games WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            raise GameNotFoundError(f"there is no game {game_id}")
        return self._record(row)

    def recent(self, *, limit: int = 50) -> list[GameRecord]:
        """The newest games first."""
        rows = self.conn.execute("SELECT * FROM digital_games ORDER BY id DESC LIMIT ?", (limit,)).fetchall()
        return [self._record(row) for row in rows]

    def version(self, game_id: int) -> int:
        """The game's version (a one-row read, for streams)."""
        return self.head(game_id).version

    def head(self, game_id: int) -> GameHead:
        """The game's version, last change and status, without its moves or seats (a one-row read)."""
        row = self.conn.execute("SELECT version, updated_at, status FROM digital_games WHERE id = ?",
                                (game_id,)).fetchone()
        if row is None:
            raise GameNotFoundError(f"there is no game {game_id}")
        return GameHead(id=game_id, version=int(row[0]), updated_at=float(row[1]), status=str(row[2]))

    def waiting_for_ai(self) -> list[int]:
        """Running games whose seat to act is a computer (after a restart, they resume)."""
        found = []
        for record in (self.get(int(row[0])) for row in
                       self.conn.execute("SELECT id FROM digital_games WHERE status = 'running'").fetchall()):
            to_act = record.load().to_act
            if to_act is not None and 0 <= to_act < len(record.seats) and record.seats[to_act].is_ai:
                found.append(record.id)
        return found

    def _record(self, row: Record) -> GameRecord:
        seats = self.conn.execute(
            "SELECT seat, kind, level, name, join_code, token_hash FROM digital_game_seats"
            " WHERE game_id = ? ORDER BY seat", (row["id"],),
        ).fetchall()
        return GameRecord(
            id=int(row["id"]), game=row["game"], created_at=float(row["created_at"]),
            updated_at=float(row["updated_at"]), version=int(row["version"]), hot_seat=bool(row["hot_seat"]),
            status=row["status"], state=json.loads(row["state"]), host_hash=row["host_hash"],
            creator=row["creator"],
            seats=tuple(
                SeatRecord(seat=int(s["seat"]), kind=s["kind"], name=s["name"], level=s["level"],
                           join_code=s["join_code"], token_hash=s["token_hash"])
                for s in seats
            ),
        )

    # -- changing ----------------------------------------------------------------

    def save(self, game_id: int, game: DigitalGame, *, expected_version: int,
             request_id: str | None = None, played_on: GameRecord | None = None) -> GameRecord:
        """Store the game after a move, if nobody changed it since ``expected_version``; with the move's
        *request_id*, remembered with it (:mod:`store.move_requests`: the same id again is not played).

        *played_on* is the record the move was played against, if the caller has it: the saved record is
        then that one with what was written, not read back (its seats, host and creator cannot have
        changed: any other change makes a new version, and the write required this one).
        """
        requests = MoveRequests(self.conn) if request_id is not None else None
        state, status, now = json.dumps(game.to_json()), _status(game), time.time()
        with transaction(self.conn):
            cursor = self.conn.execute(
                "UPDATE digital_games SET state = ?, status = ?, version = version + 1, updated_at = ?"
                " WHERE id = ? AND version = ? AND status = ?",
                (state, status, now, game_id, expected_version, OPEN),
            )
            if cursor.rowcount != 1:
                self._refuse_change(game_id)
                raise StaleGameError("the game moved on meanwhile: reload it and try again")
            if requests is not None and request_id is not None:
                requests.record(game_id, request_id, expected_version + 1)
        if played_on is None or played_on.id != game_id or played_on.version != expected_version:
            return self.get(game_id)
        # The state as a read would give it back (JSON turns tuples into lists).
        return dataclasses.replace(played_on, state=json.loads(state), status=status,
                                   version=expected_version + 1, updated_at=now)

    def _refuse_change(self, game_id: int) -> None:
        """Raise GameNotFoundError or GameEndedError when that is why a game cannot change."""
        head = self.head(game_id)
        if head.status != OPEN:
            raise GameEndedError(ENDED_WORDS.get(head.status, "the game is not running"))

    def abandon(self, game_id: int) -> GameRecord:
        """End an open game without a result (its host gave it up)."""
        with transaction(self.conn):
            cursor = self.conn.execute(
                "UPDATE digital_games SET status = 'abandoned', version = version + 1, updated_at = ?"
                " WHERE id = ? AND status = ?", (time.time(), game_id, OPEN))
            if cursor.rowcount != 1:
                self._refuse_change(game_id)
        return self.get(game_id)

    def expire_idle(self, *, before: float, game_id: int | None = None) -> list[int]:
        """End every open game (or only *game_id*) whose last move or join came before *before*;
        returns their ids. Each gets a new version, so that the pages following it learn."""
        where = " AND id = ?" if game_id is not None else ""
        only = (game_id,) if game_id is not None else ()
        idle = self.conn.execute(f"SELECT 1 FROM digital_games WHERE status = ? AND updated_at < ?{where}"
                                 " LIMIT 1", (OPEN, before, *only)).fetchone()
        if idle is None:
            return []  # the usual case: no write lock taken for nothing
        params: tuple[Any, ...] = (time.time(), OPEN, before, *only)
        with transaction(self.conn):
            rows = self.conn.execute(
                "UPDATE digital_games SET status = 'expired', version = version + 1, updated_at = ?"
                f" WHERE status = ? AND updated_at < ?{where} RETURNING id", params).fetchall()
        return sorted(int(row[0]) for row in rows)

    def join(self, game_id: int, code: str, *, held_token: str | None = None) -> tuple[int, str]:
        """Take the seat ``code`` opens; returns (seat, token). The code is used up.

        ``held_token`` is a seat token the device already holds for this game:
        a device plays one seat per game.
        """
        with transaction(self.conn):
            self._refuse_change(game_id)
            if held_token is not None and self._seat_of(game_id, held_token) is not None:
                raise JoinError("this device already plays a seat of this game")
            row = self.conn.execute(
                "SELECT seat, token_hash FROM digital_game_seats WHERE game_id = ? AND join_code = ?",
                (game_id, code),
            ).fetchone()
            if row is None:
                raise JoinError("this join code does not open a seat of this game")
            if row["token_hash"] is not None:
                raise JoinError("this seat is already taken by another device")
            token = new_token()
            self.conn.execute(
                "UPDATE digital_game_seats SET token_hash = ?, joined_at = ? WHERE game_id = ? AND seat = ?",
                (hash_token(token), time.time(), game_id, row["seat"]),
            )
            self._touch(game_id)
        return int(row["seat"]), token

    def give_to_computer(self, game_id: int, seats: Sequence[int], level: str) -> GameRecord:
        """Let a computer player (*level*) play these human seats from now on (an open game).

        Pseudo-players for the seats of players who never came, or who left: the
        seat's join code and the token of the device that held it stop working.
        """
        with transaction(self.conn):
            self._refuse_change(game_id)
            record = self.get(game_id)
            for number in seats:
                if not 0 <= number < len(record.seats) or record.seats[number].is_ai:
                    raise JoinError(f"seat {number} is not a human seat of this game")
            for number in seats:
                self.conn.execute(
                    "UPDATE digital_game_seats SET kind = 'ai', level = ?, join_code = NULL,"
                    " token_hash = NULL WHERE game_id = ? AND seat = ?", (level, game_id, number))
            self._touch(game_id)
        return self.get(game_id)

    def new_join_code(self, game_id: int, seat: int) -> str:
        """A new way into a human seat (its player lost the device, or the link): a new join code;
        the old code and the token of the device that held the seat stop working."""
        with transaction(self.conn):
            self._refuse_change(game_id)
            record = self.get(game_id)
            if not 0 <= seat < len(record.seats) or record.seats[seat].is_ai or record.hot_seat:
                raise JoinError(f"seat {seat} is not a human seat of this game joined by a link")
            code = self._unused_code()
            self.conn.execute(
                "UPDATE digital_game_seats SET join_code = ?, token_hash = NULL, joined_at = NULL"
                " WHERE game_id = ? AND seat = ?", (code, game_id, seat))
            self._touch(game_id)
        return code

    def _touch(self, game_id: int) -> None:
        """Who sits is part of what every screen shows: a new version wakes them."""
        self.conn.execute("UPDATE digital_games SET version = version + 1, updated_at = ? WHERE id = ?",
                          (time.time(), game_id))

    def find_code(self, code: str) -> tuple[int, int] | None:
        """(game id, seat) of a join code, or None."""
        row = self.conn.execute("SELECT game_id, seat FROM digital_game_seats WHERE join_code = ?",
                                (code,)).fetchone()
        return None if row is None else (int(row[0]), int(row[1]))

    # -- tokens -------------------------------------------------------------------

    def seat_of(self, game_id: int, token: str | None) -> int | None:
        """The seat a token holds in this game, or None (no token, or not one of this game's)."""
        if not token:
            return None
        return self._seat_of(game_id, token)

    def _seat_of(self, game_id: int, token: str) -> int | None:
        wanted = hash_token(token)
        for row in self.conn.execute("SELECT seat, token_hash FROM digital_game_seats WHERE game_id = ?"
                                     " AND token_hash IS NOT NULL", (game_id,)):
            if hmac.compare_digest(row["token_hash"], wanted):
                return int(row["seat"])
        return None

    def is_host(self, game_id: int, token: str | None) -> bool:
        if not token:
            return False
        row = self.conn.execute("SELECT host_hash FROM digital_games WHERE id = ?", (game_id,)).fetchone()
        return row is not None and hmac.compare_digest(row[0], hash_token(token))


def _status(game: DigitalGame) -> str:
    return "over" if game.is_over() else "running"
