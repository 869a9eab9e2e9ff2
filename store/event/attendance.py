"""The players in the hall: each one's own link, who checked in, and the results they say are wrong.

Each registered player of a tournament has one link at a time: an unguessable
*token* (their page's address, printed as a QR code on their badge) and a
short *code* (printed under it, typed at the door when the QR cannot be
scanned). Staff issue a new link when a badge is lost; the old one ends at
once.

Check-in is the event server's own state, not a tournament event: it says who
stands in the hall now, which the tournament's record does not need (a round
event carries its seating whatever decided it) and which must not move with an
undo of a result. Staff pass it to the tournament when they make a round
(:meth:`tournaments.tournament.Tournament.next_round`'s ``absent``). A player
stays checked in from round to round until they or staff say they left; a
tournament where nobody checked in seats every player, as before check-in
existed.

A player who says their table's result is wrong leaves a *flag*, with a word,
for staff's list of results that need them.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from store.db import transaction
from store.dialect import Connection
from store.event import sql

CODE_LETTERS = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
"""A badge's code: letters and digits nobody reads one for another (no O and 0, no I and 1)."""
CODE_LENGTH = 6
TOKEN_BYTES = 24
"""A link's token: 192 random bits, like a seat's link."""
MAX_WORD = 200
"""The most characters of what a player says of a wrong result."""
MAX_TOKEN = 64
"""The longest token a link has (read as a path segment: longer ones are not looked up)."""


class AttendanceError(ValueError):
    """The operation cannot be done now (the message says why)."""


@dataclass(frozen=True)
class PlayerLink:
    token: str
    tournament_id: int
    player: int
    code: str
    issued_at: float
    issued_by: str
    ended_at: float | None

    @property
    def is_live(self) -> bool:
        return self.ended_at is None


@dataclass(frozen=True)
class Presence:
    """Whether a player said they are in the hall, or staff marked them absent."""

    player: int
    here: bool
    at: float
    by: str


@dataclass(frozen=True)
class ResultFlag:
    """A player's word that their table's result is wrong."""

    id: int
    tournament_id: int
    round: int
    table: int
    player: int
    word: str
    at: float
    seen_at: float | None
    seen_by: str | None

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "tournament": self.tournament_id,
            "round": self.round,
            "table": self.table,
            "player": self.player,
            "word": self.word,
            "at": round(self.at, 3),
            "seen": self.seen_at is not None,
        }


def _link(row: Any) -> PlayerLink:
    return PlayerLink(
        str(row[0]), int(row[1]), int(row[2]), str(row[3]), float(row[4]), str(row[5]), row[6]
    )


def _flag(row: Any) -> ResultFlag:
    return ResultFlag(
        int(row[0]), int(row[1]), int(row[2]), int(row[3]), int(row[4]), str(row[5]), float(row[6]),
        row[7], row[8],
    )


def clean_code(text: str) -> str:
    """What was typed at the door as a code: its letters and digits, upper case (« ab3-k7q » is AB3K7Q)."""
    return "".join(c for c in text.upper() if c.isascii() and c.isalnum())[: CODE_LENGTH * 2]


class PlayerLinks:
    """The players' own links, on one connection."""

    def __init__(self, conn: Connection, *, clock: Callable[[], float] = time.time) -> None:
        self.conn = conn
        self.clock = clock

    def by_token(self, token: str) -> PlayerLink | None:
        """The link of this token, live or ended (None: no such token)."""
        if not token or len(token) > MAX_TOKEN:
            return None
        row = self.conn.execute(sql.LINK_BY_TOKEN, (token,)).fetchone()
        return None if row is None else _link(row)

    def by_code(self, tournament_id: int, code: str) -> PlayerLink | None:
        """The live link with this badge code in the tournament (None: no such code)."""
        cleaned = clean_code(code)
        if len(cleaned) != CODE_LENGTH:
            return None
        row = self.conn.execute(sql.LINK_BY_CODE, (tournament_id, cleaned)).fetchone()
        return None if row is None else _link(row)

    def of_tournament(self, tournament_id: int) -> dict[int, PlayerLink]:
        """Player → their live link."""
        return {link.player: link for link in map(_link, self.conn.execute(sql.LINKS_OF, (tournament_id,)))}

    def issue(self, tournament_id: int, player: int, *, actor: str) -> PlayerLink:
        """A new link for the player; their old one (if any) ends now."""
        with transaction(self.conn):
            self.conn.execute(sql.LINK_END, (self.clock(), tournament_id, player))
            return self._add(tournament_id, player, actor)

    def ensure(self, tournament_id: int, players: Iterable[int], *, actor: str) -> dict[int, PlayerLink]:
        """Every one of *players* with a live link (issued now for those without); player → link."""
        with transaction(self.conn):
            links = self.of_tournament(tournament_id)
            for player in players:
                if player not in links:
                    links[player] = self._add(tournament_id, player, actor)
        return links

    def _add(self, tournament_id: int, player: int, actor: str) -> PlayerLink:
        taken = {link.code for link in self.of_tournament(tournament_id).values()}
        code = _new_code()
        while code in taken:  # one in a billion: draw again rather than meet the unique index
            code = _new_code()
        token = secrets.token_urlsafe(TOKEN_BYTES)
        now = self.clock()
        self.conn.execute(sql.LINK_ADD, (token, tournament_id, player, code, now, actor))
        return PlayerLink(token, tournament_id, player, code, now, actor, None)


def _new_code() -> str:
    return "".join(secrets.choice(CODE_LETTERS) for _ in range(CODE_LENGTH))


class Attendance:
    """Who is in the hall, per tournament, on one connection."""

    def __init__(self, conn: Connection, *, clock: Callable[[], float] = time.time) -> None:
        self.conn = conn
        self.clock = clock

    def of_tournament(self, tournament_id: int) -> dict[int, Presence]:
        rows = self.conn.execute(sql.ATTENDANCE_OF, (tournament_id,)).fetchall()
        return {int(r[0]): Presence(int(r[0]), bool(r[1]), float(r[2]), str(r[3])) for r in rows}

    def mark(self, tournament_id: int, player: int, *, here: bool, by: str) -> Presence:
        """The player is in the hall (*here*: a check-in) or not (they left, or staff marked them absent)."""
        now = self.clock()
        with transaction(self.conn):
            self.conn.execute(sql.ATTENDANCE_SET, (tournament_id, player, int(here), now, by))
        return Presence(player, here, now, by)

    def absent(self, tournament_id: int, players: Iterable[int]) -> tuple[list[int], list[int]]:
        """Of *players*: those not checked in (missing) and those marked absent, each in order. Nobody
        is either while nobody of the tournament checked in: check-in is not in use there."""
        known = self.of_tournament(tournament_id)
        if not any(p.here for p in known.values()):
            return [], []
        missing = [p for p in players if p not in known]
        away = [p for p in players if p in known and not known[p].here]
        return missing, away


class ResultFlags:
    """The results players flagged as wrong, on one connection."""

    def __init__(self, conn: Connection, *, clock: Callable[[], float] = time.time) -> None:
        self.conn = conn
        self.clock = clock

    def add(self, tournament_id: int, round_number: int, table: int, player: int, word: str) -> ResultFlag:
        word = " ".join(str(word).split())[:MAX_WORD]
        if not word:
            raise AttendanceError("say in a word what is wrong with the result")
        now = self.clock()
        with transaction(self.conn):
            row = self.conn.execute(
                sql.FLAG_ADD + " RETURNING id", (tournament_id, round_number, table, player, word, now)
            ).fetchone()
        return ResultFlag(int(row[0]), tournament_id, round_number, table, player, word, now, None, None)

    def unseen(self) -> list[ResultFlag]:
        return [_flag(r) for r in self.conn.execute(sql.FLAGS_UNSEEN)]

    def of_player(self, tournament_id: int, player: int) -> list[ResultFlag]:
        return [_flag(r) for r in self.conn.execute(sql.FLAGS_OF_PLAYER, (tournament_id, player))]

    def seen(self, flag: int, *, actor: str) -> bool:
        """Staff read the flag (and acted on the result, or not); False: no such flag not yet seen."""
        with transaction(self.conn):
            return self.conn.execute(sql.FLAG_SEEN, (self.clock(), actor, flag)).rowcount > 0
