"""The event server's player registry: one identity per person, across tournaments and events.

A registered player has a name (as on the board: at most 24 characters) and,
optionally, a club and a city, which tell apart two people of the same name.
Tournaments on the event server seat registered players: entering a player
into a tournament registers them in it under their name and records which
registered player that tournament's player is, in the same commit. Players
registered in a tournament by name only (the tournament's own page) are
linked afterwards: :meth:`Players.adopt` links each to the registered player
of that name, or registers a new one.

A person registered twice is merged by staff: the duplicate points at the
player kept (``merged_into``), everything it played counts for that player,
and nothing is deleted. Every creation, change, merge and link is in the
audit trail (who, when, the values before and after).
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass
from typing import Any

from store.db import transaction
from store.dialect import Connection
from store.event import sql
from store.tournaments import Recorded, Tournaments
from tournaments.exc import RegistrationError, TournamentError
from tournaments.names import MAX_NAME
from tournaments.names import clean_name as tournament_name_rule
from tournaments.tournament import Tournament

MAX_PLACE = 60
"""The longest club or city name."""


class PlayerError(ValueError):
    """A player that cannot be registered, changed or merged as asked."""


class PlayerNotFoundError(LookupError):
    """No registered player has that id."""


@dataclass(frozen=True)
class Player:
    id: int
    name: str
    club: str
    city: str
    created_at: float
    merged_into: int | None
    """The player this one was merged into (a duplicate), else None."""
    merged_at: float | None

    @property
    def is_merged(self) -> bool:
        return self.merged_into is not None

    @property
    def label(self) -> str:
        """The name with what tells it apart: "Ana Duval (Club de Lyon, Lyon)"."""
        where = ", ".join(part for part in (self.club, self.city) if part)
        return f"{self.name} ({where})" if where else self.name

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "club": self.club,
            "city": self.city,
            "merged_into": self.merged_into,
        }


@dataclass(frozen=True)
class PlayerAudit:
    id: int
    at: float
    actor: str
    kind: str
    """create, edit, merge (player merged into other) or link (player entered in a tournament)."""
    player: int
    other: int | None
    before: dict[str, Any] | None
    after: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Entrant:
    """A tournament's player and the registered player they are."""

    tournament_id: int
    player: int
    """The tournament's own player number."""
    name: str
    """The name they were registered under in the tournament."""
    player_id: int
    linked_at: float


@dataclass(frozen=True)
class Adopted:
    """What :meth:`Players.adopt` did with a tournament's players registered by name only."""

    linked: tuple[tuple[int, int], ...]
    """(tournament player, registered player) linked to a registered player of that name."""
    created: tuple[tuple[int, int], ...]
    """(tournament player, registered player) registered anew."""
    ambiguous: tuple[int, ...]
    """Tournament players whose name several registered players share: staff choose."""


def clean_name(value: object) -> str:
    """The tournament's own rule for a name (as on the board), with the registry's error."""
    try:
        return tournament_name_rule(value)
    except RegistrationError as exc:
        raise PlayerError(str(exc)) from None


def clean_place(value: object, what: str) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise PlayerError(f"a player's {what} is text")
    place = " ".join(value.split())
    if len(place) > MAX_PLACE:
        raise PlayerError(f"a player's {what} is at most {MAX_PLACE} characters")
    if not place.isprintable():
        raise PlayerError(f"a player's {what} must not contain control characters")
    return place


def identity(name: str, club: str, city: str) -> str:
    """What makes two registrations the same person: name, club and city, in any case."""
    return "\x1f".join(part.casefold() for part in (name, club, city))


class Players:
    """The registry, on one connection to the event's database."""

    def __init__(self, conn: Connection, *, clock: Any = time.time) -> None:
        self.conn = conn
        self.clock = clock

    # -- reading -----------------------------------------------------------------------------

    def get(self, player_id: int) -> Player:
        row = self.conn.execute(sql.PLAYER, (player_id,)).fetchone()
        if row is None:
            raise PlayerNotFoundError(f"there is no registered player {player_id}")
        return Player(*row)

    def all(self, *, merged: bool = False) -> list[Player]:
        """The registered players by name (with *merged*, the duplicates too, by id)."""
        rows = self.conn.execute(sql.PLAYERS_ALL if merged else sql.PLAYERS).fetchall()
        return [Player(*row) for row in rows]

    def kept(self, player_id: int) -> Player:
        """The player itself, or the one it was merged into."""
        player = self.get(player_id)
        return self.get(player.merged_into) if player.merged_into is not None else player

    def canonical(self) -> dict[int, int]:
        """Every registered id → the id it counts as (itself, or the one it was merged into)."""
        return {p.id: p.merged_into or p.id for p in self.all(merged=True)}

    def audit(self, player_id: int | None = None, *, limit: int = 200) -> list[PlayerAudit]:
        """The audit trail: of one player (oldest first), or the newest entries of all."""
        if player_id is None:
            rows = self.conn.execute(sql.PLAYER_AUDIT, (limit,)).fetchall()
        else:
            rows = self.conn.execute(sql.PLAYER_AUDIT_OF, (player_id, player_id)).fetchall()
        return [_audit(row) for row in rows]

    def entrants(self, tournament_id: int | None = None) -> list[Entrant]:
        """The links of one tournament's players (or of all tournaments) that still hold.

        A link holds while the tournament's player of that number still has the name it was
        made for: a registration undone, and its number reused, does not inherit the link.
        """
        held = []
        for tid, links in self.links(tournament_id).items():
            held += holding(links, Tournaments(self.conn).load(tid).names)
        return held

    def links(self, tournament_id: int | None = None) -> dict[int, list[Entrant]]:
        """Every link as written, by tournament (whether it still holds: :func:`holding`)."""
        if tournament_id is None:
            rows = self.conn.execute(sql.ENTRANTS).fetchall()
        else:
            rows = self.conn.execute(sql.ENTRANTS_OF, (tournament_id,)).fetchall()
        by_tournament: dict[int, list[Entrant]] = {}
        for row in rows:
            by_tournament.setdefault(int(row[0]), []).append(Entrant(*row))
        return by_tournament

    # -- changing ----------------------------------------------------------------------------

    def create(self, name: object, *, club: object = None, city: object = None, actor: str) -> Player:
        """Register a new player; the same name, club and city as a registered player is refused."""
        values = self._values(name, club, city)
        with transaction(self.conn):
            return self._create(values, actor)

    def _create(self, values: tuple[str, str, str], actor: str) -> Player:
        key = identity(*values)
        existing = self.conn.execute(sql.PLAYER_BY_IDENTITY, (key,)).fetchone()
        if existing is not None:
            raise PlayerError(f"{Player(*existing).label} is already registered (player {existing[0]})")
        now = self.clock()
        row = self.conn.execute(sql.PLAYER_ADD, (*values, key, now)).fetchone()
        player = self.get(int(row[0]))
        self._log(actor, "create", player.id, None, None, player.to_json())
        return player

    def edit(
        self, player_id: int, *, name: object = None, club: object = None, city: object = None, actor: str
    ) -> Player:
        """Change a player's name, club or city (None keeps it; "" clears a club or city)."""
        with transaction(self.conn):
            before = self.get(player_id)
            if before.is_merged:
                raise PlayerError(f"player {player_id} was merged into player {before.merged_into}")
            values = self._values(
                before.name if name is None else name,
                before.club if club is None else club,
                before.city if city is None else city,
            )
            key = identity(*values)
            clash = self.conn.execute(sql.PLAYER_BY_IDENTITY, (key,)).fetchone()
            if clash is not None and int(clash[0]) != player_id:
                raise PlayerError(f"{Player(*clash).label} is already registered (player {clash[0]})")
            self.conn.execute(sql.PLAYER_EDIT, (*values, key, player_id))
            after = self.get(player_id)
            if after != before:
                self._log(actor, "edit", player_id, None, before.to_json(), after.to_json())
        return after

    def merge(self, duplicate: int, into: int, *, actor: str) -> Player:
        """Merge *duplicate* into *into*: one person registered twice. Returns the player kept."""
        with transaction(self.conn):
            dup, kept = self.get(duplicate), self.get(into)
            if duplicate == into:
                raise PlayerError("a player cannot be merged into itself")
            for player in (dup, kept):
                if player.is_merged:
                    raise PlayerError(
                        f"player {player.id} was already merged into player {player.merged_into}"
                    )
            canonical, held = self.canonical(), self.entrants()
            both = {e.tournament_id for e in held if canonical.get(e.player_id) == duplicate}
            both &= {e.tournament_id for e in held if canonical.get(e.player_id) == into}
            if both:
                raise PlayerError(
                    f"{dup.label} and {kept.label} both play in tournament {min(both)}: they are two people"
                )
            self.conn.execute(sql.PLAYER_MERGE, (into, self.clock(), duplicate, duplicate))
            self._log(actor, "merge", duplicate, into, dup.to_json(), self.get(duplicate).to_json())
        return kept

    def enter(
        self, tournament_id: int, player_id: int, *, actor: str, request_id: str | None = None
    ) -> Recorded:
        """Register a registered player in a tournament, and link them, in one commit.

        The tournament knows them by their name; when another player of the tournament has
        that name already, by their name and club (or city) when that fits on the board.
        """
        with transaction(self.conn):
            player = self.get(player_id)
            if player.is_merged:
                raise PlayerError(f"player {player_id} was merged into player {player.merged_into}")
            tournaments = Tournaments(self.conn)
            recorded = tournaments.record_within(
                tournament_id,
                lambda t: t.register(_tournament_name(t, player)),
                actor=actor,
                request_id=request_id,
            )
            event = recorded.entry.event
            if recorded.duplicate and event["kind"] == "register":
                return recorded  # linked when it was first recorded, in the same commit
            if event["kind"] != "register":
                raise PlayerError(f"request {request_id!r} was another entry of the tournament")
            self._link(tournament_id, event["player"], event["name"], player_id, actor)
        return recorded

    def link(self, tournament_id: int, number: int, player_id: int, *, actor: str) -> Entrant:
        """Link a tournament's player (registered there by name) to a registered player."""
        with transaction(self.conn):
            player = self.kept(player_id)
            names = Tournaments(self.conn).load(tournament_id).names
            if number not in names:
                raise PlayerError(f"tournament {tournament_id} has no player {number}")
            return self._link(tournament_id, number, names[number], player.id, actor)

    def adopt(self, tournament_id: int, *, actor: str) -> Adopted:
        """Link every player of the tournament not linked yet (see the module docstring)."""
        linked: list[tuple[int, int]] = []
        created: list[tuple[int, int]] = []
        ambiguous: list[int] = []
        with transaction(self.conn):
            names = Tournaments(self.conn).load(tournament_id).names
            done = {e.player for e in self.entrants(tournament_id)}
            registry = self.all()
            for number, name in sorted(names.items()):
                if number in done:
                    continue
                same = [p for p in registry if p.name.casefold() == name.casefold()]
                if len(same) > 1:
                    ambiguous.append(number)
                    continue
                if same:
                    player = same[0]
                    linked.append((number, player.id))
                else:
                    player = self._create(self._values(name, None, None), actor)
                    registry.append(player)
                    created.append((number, player.id))
                self._link(tournament_id, number, name, player.id, actor)
        return Adopted(tuple(linked), tuple(created), tuple(ambiguous))

    # -- helpers -----------------------------------------------------------------------------

    def _link(self, tournament_id: int, number: int, name: str, player_id: int, actor: str) -> Entrant:
        now = self.clock()
        self.conn.execute(sql.ENTRANT_LINK, (tournament_id, number, name, player_id, now))
        self._log(
            actor,
            "link",
            player_id,
            None,
            None,
            {"tournament": tournament_id, "player": number, "name": name},
        )
        return Entrant(tournament_id, number, name, player_id, now)

    @staticmethod
    def _values(name: object, club: object, city: object) -> tuple[str, str, str]:
        return clean_name(name), clean_place(club, "club"), clean_place(city, "city")

    def _log(
        self,
        actor: str,
        kind: str,
        player: int,
        other: int | None,
        before: dict[str, Any] | None,
        after: dict[str, Any],
    ) -> None:
        self.conn.execute(
            sql.PLAYER_AUDIT_ADD,
            (
                self.clock(),
                actor,
                kind,
                player,
                other,
                None if before is None else json.dumps(before, sort_keys=True),
                json.dumps(after, sort_keys=True),
            ),
        )


def holding(links: list[Entrant], names: dict[int, str]) -> list[Entrant]:
    """The links that still hold, given the tournament's players' names now."""
    return [e for e in links if names.get(e.player, "").casefold() == e.name.casefold()]


def _tournament_name(t: Tournament, player: Player) -> str:
    taken = {n.casefold() for n in t.names.values()}
    if player.name.casefold() not in taken:
        return player.name
    for where in (player.club, player.city):
        longer = f"{player.name} ({where})"
        if where and len(longer) <= MAX_NAME and longer.casefold() not in taken:
            return longer
    raise TournamentError(
        f"a player called {player.name!r} is already registered in this tournament: change one of the"
        " names in the registry first"
    )


def _audit(row: Any) -> PlayerAudit:
    return PlayerAudit(
        id=int(row[0]),
        at=float(row[1]),
        actor=str(row[2]),
        kind=str(row[3]),
        player=int(row[4]),
        other=None if row[5] is None else int(row[5]),
        before=None if row[6] is None else json.loads(row[6]),
        after=json.loads(row[7]),
    )
