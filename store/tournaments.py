"""Tournaments in the shared database, kept as the list of their events.

A tournament is its settings plus the events the engine
(:mod:`tournaments.tournament`) produced: registrations, withdrawals,
rounds, results and corrections. Loading a tournament replays them. Every
write happens in one ``BEGIN IMMEDIATE`` transaction that re-reads the
events, checks the command against the current state and appends one row, so
two tablets entering the same table cannot both succeed, and a committed
entry survives a power cut (the database runs with ``synchronous=FULL``).

Nothing is ever deleted: undo marks the last entry as undone (who and when),
and a correction is a new entry that keeps the previous value, so the audit
trail shows every value a result ever had.

A tablet sends a request id with each entry; the same id sent again (the
page was re-submitted after a lost answer or a power cut) returns the entry
already recorded instead of recording it twice.
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from games.exc import GameError
from games.hautetension.outcome import Lighting
from games.hautetension.record import Status
from store.db import transaction
from store.dialect import Connection, Record, placeholders
from store.journal import Entry, Journal, JournalKind
from store.journal_game import Ended, read_game, read_game_end
from tournaments.exc import ResultError, TournamentError
from tournaments.model import Result, ResultEvent, TournamentEvent, entry_kind
from tournaments.points import game_points
from tournaments.tournament import Tournament

if TYPE_CHECKING:
    from store.backup import RollingBackups

Command = Callable[[Tournament], TournamentEvent]
"""A function that applies one change to a tournament and returns the event."""


class TournamentNotFoundError(LookupError):
    """No tournament has that id."""


class BoardGameError(GameError, ValueError):
    """A board game cannot be attached to that table."""


@dataclass(frozen=True)
class TournamentInfo:
    id: int
    name: str
    created_at: float
    settings: dict[str, Any]
    event: str | None = None
    """The event it belongs to (:mod:`store.season`), if any."""
    counts: bool = True
    """Whether it counts for the general ranking (a friendly or demonstration tournament does not)."""


@dataclass(frozen=True)
class AuditEntry:
    """One entry of a tournament's history, undone or not."""

    id: int
    at: float
    actor: str
    kind: str
    """register, withdraw, round, result or correction."""
    event: TournamentEvent
    request_id: str | None
    undone_at: float | None
    undone_by: str | None

    @property
    def is_undone(self) -> bool:
        return self.undone_at is not None


@dataclass(frozen=True)
class Recorded:
    entry: AuditEntry
    duplicate: bool
    """True when the request id had already been recorded: nothing new was written."""


@dataclass(frozen=True)
class BoardGame:
    """A game the board service finished (its journal "game-end" entry)."""

    game_id: int
    journal_id: int
    at: float
    players: tuple[str, ...]
    points: tuple[int, ...]
    lightings: tuple[Lighting, ...] | None
    """Lamp order rebuilt from the game's placements, when the journal still has them."""


INSERT_AT_ONCE = 1000
"""Entries one statement stores (or looks up by request id) at most."""


class Tournaments:
    """Every tournament of the database, on one connection."""

    def __init__(self, conn: Connection, *, backups: RollingBackups | None = None) -> None:
        self.conn = conn
        self.backups = backups
        """Copied to at every round made (the pairings, and everything entered before them)."""

    # -- tournaments --------------------------------------------------------------

    def create(
        self,
        name: str,
        *,
        seed: int | str | None = None,
        handicap: bool = False,
        handicap_step: int | None = None,
        event: str | None = None,
        counts: bool = True,
        late_entries: bool = False,
    ) -> TournamentInfo:
        """A new tournament; *event* (an event of :class:`store.season.Calendar`, which must exist) and
        *counts* (for the general ranking) are how the season sees it."""
        name = " ".join(str(name).split())
        if not name:
            raise TournamentError("a tournament needs a name", code="tournament_name_missing")
        if len(name) > 80:
            raise TournamentError(
                "a tournament's name is at most 80 characters", code="tournament_name_too_long", maximum=80
            )
        options: dict[str, Any] = {"seed": str(seed if seed is not None else secrets.randbelow(10**9))}
        options["handicap"] = bool(handicap)
        if handicap_step is not None:
            options["handicap_step"] = int(handicap_step)
        if late_entries:
            options["late_entries"] = True
        settings = Tournament.replay(options, []).settings()  # validates the options
        now = time.time()
        with transaction(self.conn):
            row = self.conn.execute(
                "INSERT INTO tournaments (name, created_at, settings, event, counts) VALUES (?, ?, ?, ?, ?)"
                " RETURNING id",
                (name, now, json.dumps(settings), event, int(counts)),
            ).fetchone()
        return TournamentInfo(int(row[0]), name, now, settings, event, counts)

    def all(self) -> list[TournamentInfo]:
        rows = self.conn.execute(f"SELECT {_INFO_COLUMNS} FROM tournaments ORDER BY id DESC")
        return [_info(row) for row in rows]

    def get(self, tournament_id: int) -> TournamentInfo:
        row = self.conn.execute(
            f"SELECT {_INFO_COLUMNS} FROM tournaments WHERE id = ?", (tournament_id,)
        ).fetchone()
        if row is None:
            raise TournamentNotFoundError(f"there is no tournament {tournament_id}")
        return _info(row)

    def load(self, tournament_id: int) -> Tournament:
        """The tournament as its entries (not undone) make it."""
        info = self.get(tournament_id)
        events = [e.event for e in self.audit(tournament_id) if not e.is_undone]
        return Tournament.replay(info.settings, events)

    # -- entries ------------------------------------------------------------------

    def record(
        self, tournament_id: int, command: Command, *, actor: str, request_id: str | None = None
    ) -> Recorded:
        """Apply *command* to the tournament and store the event it makes, durably and once."""
        with transaction(self.conn):
            recorded = self.record_within(tournament_id, command, actor=actor, request_id=request_id)
        self._copy_rounds(tournament_id, [recorded])
        return recorded

    def record_within(
        self, tournament_id: int, command: Command, *, actor: str, request_id: str | None = None
    ) -> Recorded:
        """:meth:`record` inside a transaction the caller holds (to write more in the same commit; a
        round made this way is not copied to the rolling backups: the caller's commit is not yet made)."""
        if request_id is not None:
            existing = self._by_request(tournament_id, request_id)
            if existing is not None:
                return Recorded(existing, duplicate=True)
        tournament = self.load(tournament_id)
        return self._insert(tournament_id, command(tournament), actor, request_id)

    def record_each(
        self, tournament_id: int, entries: Sequence[tuple[Command, str, str | None]]
    ) -> list[Recorded | Exception]:
        """Several ``(command, actor, request_id)`` in one transaction: the tournament loaded once, each
        command applied to it as the ones before left it, one commit (a round's results from the boards).
        An entry the tournament refuses has its error as its outcome; the others go on."""
        # Each outcome: what was there already, the error, or (new event's index, whether it repeats it).
        decided: list[Recorded | Exception | tuple[int, bool]] = []
        with transaction(self.conn):
            tournament = self.load(tournament_id)
            # The request ids already recorded, and the new events, in one statement each (a round's
            # results from a hundred boards are not two hundred round trips to PostgreSQL).
            earlier = self._by_requests(tournament_id, [r for _, _, r in entries if r is not None])
            new: list[tuple[TournamentEvent, str, str | None]] = []
            made: dict[str, int] = {}
            for command, actor, request_id in entries:
                if request_id is not None and request_id in earlier:
                    decided.append(Recorded(earlier[request_id], duplicate=True))
                    continue
                if request_id is not None and request_id in made:
                    decided.append((made[request_id], True))
                    continue
                try:
                    event = command(tournament)  # the engine checks before it changes anything
                except (GameError, ValueError, KeyError) as exc:
                    decided.append(exc)
                    continue
                if request_id is not None:
                    made[request_id] = len(new)
                decided.append((len(new), False))
                new.append((event, actor, request_id))
            written = self._insert_each(tournament_id, new)
        outcomes = [
            Recorded(written[o[0]], duplicate=o[1]) if isinstance(o, tuple) else o for o in decided
        ]
        self._copy_rounds(tournament_id, [o for o in outcomes if isinstance(o, Recorded)])
        return outcomes

    def _insert(
        self, tournament_id: int, event: TournamentEvent, actor: str, request_id: str | None
    ) -> Recorded:
        (entry,) = self._insert_each(tournament_id, [(event, actor, request_id)])
        return Recorded(entry, duplicate=False)

    def _insert_each(
        self, tournament_id: int, events: Sequence[tuple[TournamentEvent, str, str | None]]
    ) -> list[AuditEntry]:
        """Store *events* (``(event, actor, request_id)``) in one statement (per thousand); their entries.
        Inside the write transaction the ids count up in the order given: sorted, they are in that order."""
        now = time.time()
        entries: list[AuditEntry] = []
        for i in range(0, len(events), INSERT_AT_ONCE):
            some = events[i : i + INSERT_AT_ONCE]
            rows = self.conn.execute(
                "INSERT INTO tournament_events (tournament_id, at, actor, kind, payload, request_id)"
                f" VALUES {placeholders(len(some), 6)} RETURNING id",
                [
                    value
                    for event, actor, request_id in some
                    for value in (tournament_id, now, actor, entry_kind(event), _payload(event), request_id)
                ],
            )
            ids = sorted(int(row[0]) for row in rows)
            entries += [
                AuditEntry(id_, now, actor, entry_kind(event), event, request_id, None, None)
                for id_, (event, actor, request_id) in zip(ids, some, strict=True)
            ]
        return entries

    def _copy_rounds(self, tournament_id: int, recorded: Sequence[Recorded]) -> None:
        """A backup for each round just made: after the commit, so that the copy holds it."""
        if self.backups is None:
            return
        for done in recorded:
            if done.entry.kind == "round" and not done.duplicate:
                number = cast(dict[str, Any], done.entry.event).get("data", {}).get("round", "")
                self.backups.take("round", f"t{tournament_id}-r{number}")

    def undo(self, tournament_id: int, *, actor: str) -> AuditEntry:
        """Mark the last entry not yet undone as undone; it stays in the audit trail."""
        with transaction(self.conn):
            self.get(tournament_id)
            row = self.conn.execute(
                "SELECT id FROM tournament_events WHERE tournament_id = ? AND undone_at IS NULL"
                " ORDER BY id DESC LIMIT 1",
                (tournament_id,),
            ).fetchone()
            if row is None:
                raise TournamentError("nothing to undo", code="nothing_to_undo")
            self.conn.execute(
                "UPDATE tournament_events SET undone_at = ?, undone_by = ? WHERE id = ?",
                (time.time(), actor, row["id"]),
            )
            undone = self._entry(int(row["id"]))
        return undone

    def audit(self, tournament_id: int) -> list[AuditEntry]:
        """Every entry, oldest first, undone ones included."""
        rows = self.conn.execute(
            "SELECT * FROM tournament_events WHERE tournament_id = ? ORDER BY id", (tournament_id,)
        )
        return [_audit(row) for row in rows]

    def find_request(self, tournament_id: int, request_id: str) -> AuditEntry | None:
        """The entry recorded under *request_id*, if any."""
        return self._by_request(tournament_id, request_id)

    def _by_requests(self, tournament_id: int, request_ids: Sequence[str]) -> dict[str, AuditEntry]:
        """The entries recorded under any of *request_ids*, by request id."""
        found: dict[str, AuditEntry] = {}
        wanted = list(dict.fromkeys(request_ids))
        for i in range(0, len(wanted), INSERT_AT_ONCE):
            some = wanted[i : i + INSERT_AT_ONCE]
            rows = self.conn.execute(
                "SELECT * FROM tournament_events WHERE tournament_id = ?"
                f" AND request_id IN ({placeholders(len(some))})",
                [tournament_id, *some],
            )
            found.update((entry.request_id, entry) for entry in map(_audit, rows) if entry.request_id)
        return found

    def _by_request(self, tournament_id: int, request_id: str) -> AuditEntry | None:
        row = self.conn.execute(
            "SELECT * FROM tournament_events WHERE tournament_id = ? AND request_id = ?",
            (tournament_id, request_id),
        ).fetchone()
        return None if row is None else _audit(row)

    def _entry(self, entry_id: int) -> AuditEntry:
        return _audit(
            self.conn.execute("SELECT * FROM tournament_events WHERE id = ?", (entry_id,)).fetchone()
        )

    # -- games from the board -----------------------------------------------------

    def finished_board_games(self, *, limit: int = 50) -> list[BoardGame]:
        """Games the board service played to the end, latest first."""
        rows = self.conn.execute(
            "SELECT id, at, game_id, public FROM journal WHERE kind = ? ORDER BY id DESC LIMIT ?",
            (JournalKind.GAME_END, limit),
        ).fetchall()
        games = [self._board_game(row) for row in rows]
        return [g for g in games if g is not None]

    def board_game(self, game_id: int) -> BoardGame:
        rows = self.conn.execute(
            "SELECT id, at, game_id, public FROM journal WHERE kind = ? ORDER BY id DESC",
            (JournalKind.GAME_END,),
        ).fetchall()
        for row in rows:
            game = self._board_game(row)
            if game is not None and game.game_id == game_id:
                return game
        raise BoardGameError(
            f"board game {game_id} is not a finished game", code="board_game_unfinished", game=game_id
        )

    def _board_game(self, row: Record) -> BoardGame | None:
        """The finished game a ``game-end`` row tells of; None for an abandoned game, or an entry this
        program cannot read (it is not offered)."""
        end = _game_end(row)
        if end is None or end.status is not Status.OVER or end.points is None or end.players is None:
            return None
        if len(end.points) != len(end.players):
            return None
        return BoardGame(
            game_id=end.game,
            journal_id=end.entry,
            at=end.at,
            players=end.players,
            points=end.points,
            lightings=self._board_lightings(end.game, end.points),
        )

    def _board_lightings(self, game_id: int, points: tuple[int, ...]) -> tuple[Lighting, ...] | None:
        """The lamp order from the game's placements, when every one of them reads and they give the
        engine's points."""
        try:
            game = read_game(Journal(self.conn).game_entries(game_id))
        except ValueError:
            return None  # a payload that is not JSON
        if not game.moves or game.skipped_of(JournalKind.PLACEMENT):
            return None  # placements missing or unreadable: the engine's points stand alone
        lightings = game.lightings()
        try:
            return lightings if game_points(len(points), lightings) == points else None
        except ResultError:
            return None

    def attach_board_game(
        self,
        tournament_id: int,
        round_number: int,
        table_number: int,
        game_id: int,
        *,
        actor: str,
        request_id: str | None = None,
        correction: bool = False,
    ) -> Recorded:
        """Record a table's result from a finished board game (its points, as the engine computed them)."""
        game = self.board_game(game_id)

        def command(t: Tournament) -> ResultEvent:
            for (r, n), result in t.results.items():
                same_game = (
                    result.source.get("kind") == "board" and result.source.get("game_id") == game.game_id
                )
                if same_game and (r, n) != (round_number, table_number):
                    raise BoardGameError(
                        f"board game {game.game_id} is already the result of round {r} table {n}",
                        code="board_game_used",
                        game=game.game_id,
                        round=r,
                        table=n,
                    )
            table = t.round(round_number).table(table_number)
            names = [t.names[p] for p in table.seats]
            order, mapping = seat_order(names, game.players)
            points = [game.points[i] for i in order]
            lightings = None
            if game.lightings is not None:
                where = {board: seat for seat, board in enumerate(order)}
                lightings = [
                    Lighting(seats=tuple(where[s] for s in x.seats), by=None if x.by is None else where[x.by])
                    for x in game.lightings
                ]
            source = {
                "kind": "board",
                "game_id": game.game_id,
                "journal_id": game.journal_id,
                "seats": mapping,
            }
            return t.import_result(
                round_number, table_number, points, source=source, lightings=lightings, correction=correction
            )

        return self.record(tournament_id, command, actor=actor, request_id=request_id)


def seat_order(table_names: list[str], board_names: tuple[str, ...]) -> tuple[list[int], str]:
    """For each table seat, the board seat that player sat at; and whether names or seat order decided.

    Names decide when the board game's seats carry exactly the table's
    players' names (in any order); otherwise players sat in the order the
    pairing sheet gives, so table seat i is board seat i.
    """
    if len(table_names) != len(board_names):
        raise BoardGameError(
            f"the board game had {len(board_names)} players but the table seats {len(table_names)}",
            code="board_game_size",
            players=len(board_names),
            seats=len(table_names),
        )
    folded = [n.casefold() for n in board_names]
    if sorted(n.casefold() for n in table_names) == sorted(folded) and len(set(folded)) == len(folded):
        return [folded.index(n.casefold()) for n in table_names], "names"
    return list(range(len(table_names))), "order"


_INFO_COLUMNS = "id, name, created_at, settings, event, counts"


def _info(row: Record) -> TournamentInfo:
    return TournamentInfo(
        int(row["id"]),
        str(row["name"]),
        float(row["created_at"]),
        json.loads(row["settings"]),
        row["event"],
        bool(row["counts"]),
    )


def _payload(event: TournamentEvent) -> str:
    return json.dumps(event, sort_keys=True)


def _audit(row: Record) -> AuditEntry:
    return AuditEntry(
        id=int(row["id"]),
        at=float(row["at"]),
        actor=str(row["actor"]),
        kind=str(row["kind"]),
        # Written by record() from an event the engine checked: replaying it checks it again.
        event=cast(TournamentEvent, json.loads(row["payload"])),
        request_id=row["request_id"],
        undone_at=row["undone_at"],
        undone_by=row["undone_by"],
    )


def _game_end(row: Record) -> Ended | None:
    """A ``game-end`` row read (None: its payload is not JSON, or not one this program can read)."""
    try:
        public = json.loads(row["public"])
    except (TypeError, ValueError):
        return None
    entry = Entry(int(row["id"]), float(row["at"]), JournalKind.GAME_END,
                  None if row["game_id"] is None else int(row["game_id"]), public, None)
    end = read_game_end(entry)
    return end if isinstance(end, Ended) else None


def result_of(event: TournamentEvent) -> Result | None:
    """The result an entry recorded (None for entries that are not results)."""
    return Result.from_dict(event["result"]) if event["kind"] == "result" else None
