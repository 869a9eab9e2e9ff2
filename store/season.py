"""A federation's season: the events its tournaments belong to, and which tournaments count.

An **event** is what ``[central] event`` names (``paris-2026``: the id the
boards carry in their topics), with what people call it: a name, a place, and
its first and last days. A tournament belongs to at most one event, and
**counts** for the general ranking or not: a friendly game night or a
demonstration tournament (``hautetension event demo``) is played like any
other but leaves the ranking alone.

A tournament made on the event server belongs to that server's event (made
here, named after its id, the first time); the tournaments of a database made
before events existed count and belong to no event. Staff change both, and
every creation or change is in the audit trail (who, when, the values before
and after), as the player registry's are.
"""

from __future__ import annotations

import datetime
import json
import re
import time
from dataclasses import asdict, dataclass
from typing import Any

from store.db import transaction
from store.dialect import Connection, Record
from store.tournaments import Tournaments

EVENT_ID = re.compile(r"^[a-z0-9-]{1,40}$")
"""An event's id: the rule ``[central] event`` follows (protocol.NAME)."""
MAX_EVENT_NAME = 80
MAX_EVENT_PLACE = 60


class _Keep:
    """What a change leaves as it is (a field the caller did not give)."""

    def __repr__(self) -> str:
        return "KEEP"


KEEP: Any = _Keep()


class SeasonError(ValueError):
    """An event or a tournament's place in the season that cannot be written as asked (the message
    says why)."""


class EventNotFoundError(LookupError):
    """No event has that id."""


class EventExistsError(SeasonError):
    """The season has an event of that id already."""


class EventDatesError(SeasonError):
    """An event's last day would come before its first."""


@dataclass(frozen=True)
class Event:
    id: str
    name: str
    place: str
    starts_on: str | None
    """Its first day (ISO ``YYYY-MM-DD``), if known."""
    ends_on: str | None
    """Its last day, if known (never before the first)."""
    created_at: float

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "place": self.place,
            "starts_on": self.starts_on,
            "ends_on": self.ends_on,
        }


@dataclass(frozen=True)
class SeasonAudit:
    id: int
    at: float
    actor: str
    kind: str
    """event (an event made or changed) or tournament (its event or whether it counts changed)."""
    subject: str
    """The event's id, or the tournament's id (as text)."""
    before: dict[str, Any] | None
    after: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


_EVENT_COLUMNS = "id, name, place, starts_on, ends_on, created_at"
_AUDIT_WRITTEN = "at, actor, kind, subject, before, after"
_AUDIT_COLUMNS = f"id, {_AUDIT_WRITTEN}"


class Calendar:
    """The season's events and the tournaments' places in it, on one connection."""

    def __init__(self, conn: Connection, *, clock: Any = time.time) -> None:
        self.conn = conn
        self.clock = clock

    # -- reading -----------------------------------------------------------------------------

    def events(self) -> list[Event]:
        """Every event, the latest first (by first day; events without dates last, by id)."""
        rows = self.conn.execute(f"SELECT {_EVENT_COLUMNS} FROM season_events").fetchall()
        events = [_event(row) for row in rows]
        events.sort(key=lambda e: e.id)
        events.sort(key=lambda e: e.starts_on or "", reverse=True)
        return events

    def get(self, event_id: str) -> Event:
        row = self.conn.execute(
            f"SELECT {_EVENT_COLUMNS} FROM season_events WHERE id = ?", (event_id,)
        ).fetchone()
        if row is None:
            raise EventNotFoundError(f"there is no event {event_id[:40]!r}")
        return _event(row)

    def counted(self, event: str | None = None) -> set[int]:
        """The tournaments the general ranking counts (of one event, with *event*)."""
        if event is None:
            rows = self.conn.execute("SELECT id FROM tournaments WHERE counts = 1").fetchall()
        else:
            rows = self.conn.execute(
                "SELECT id FROM tournaments WHERE counts = 1 AND event = ?", (event,)
            ).fetchall()
        return {int(row[0]) for row in rows}

    def audit(self, *, limit: int = 200) -> list[SeasonAudit]:
        """The newest entries of the audit trail first."""
        rows = self.conn.execute(
            f"SELECT {_AUDIT_COLUMNS} FROM season_audit ORDER BY id DESC LIMIT ?", (limit,)
        ).fetchall()
        return [_audit(row) for row in rows]

    # -- changing ----------------------------------------------------------------------------

    def create(
        self,
        event_id: object,
        *,
        name: object = None,
        place: object = None,
        starts_on: object = None,
        ends_on: object = None,
        actor: str,
    ) -> Event:
        """A new event (its name: its id when none is given)."""
        if not isinstance(event_id, str) or not EVENT_ID.match(event_id):
            raise SeasonError("an event's id is 1 to 40 characters among a-z, 0-9 and '-'")
        values = _values(event_id if name is None else name, place, starts_on, ends_on)
        with transaction(self.conn):
            if self._find(event_id) is not None:
                raise EventExistsError(f"there is an event {event_id!r} already")
            return self._create(event_id, values, actor)

    def ensure(self, event_id: str, *, name: str | None = None, actor: str) -> Event:
        """The event, made (named *name*, else after its id) if the season does not have it yet."""
        with transaction(self.conn):
            found = self._find(event_id)
            if found is not None:
                return found
            return self._create(event_id, _values(name or event_id), actor)

    def edit(
        self,
        event_id: str,
        *,
        name: object = KEEP,
        place: object = KEEP,
        starts_on: object = KEEP,
        ends_on: object = KEEP,
        actor: str,
    ) -> Event:
        """Change an event's name, place or dates (:data:`KEEP` keeps one; None clears a place or a
        date)."""
        with transaction(self.conn):
            before = self.get(event_id)
            values = _values(
                before.name if name is KEEP else name,
                before.place if place is KEEP else place,
                before.starts_on if starts_on is KEEP else starts_on,
                before.ends_on if ends_on is KEEP else ends_on,
            )
            self.conn.execute(
                "UPDATE season_events SET name = ?, place = ?, starts_on = ?, ends_on = ? WHERE id = ?",
                (*values, event_id),
            )
            after = self.get(event_id)
            if after != before:
                self._log(actor, "event", event_id, before.to_json(), after.to_json())
        return after

    def place(
        self, tournament_id: int, *, event: object = KEEP, counts: object = KEEP, actor: str
    ) -> dict[str, Any]:
        """Put a tournament in an event (None: in none) and say whether it counts for the general
        ranking (:data:`KEEP` keeps either); the tournament's place in the season as it is now."""
        if counts is not KEEP and not isinstance(counts, bool):
            raise SeasonError("counts is true or false")
        if event is not KEEP and event is not None and not isinstance(event, str):
            raise SeasonError("event is an event's id, or null for none")
        with transaction(self.conn):
            info = Tournaments(self.conn).get(tournament_id)
            before = _placed(info.event, info.counts)
            new_event = info.event if event is KEEP else event
            if isinstance(new_event, str):
                self.get(new_event)
            after = _placed(new_event, info.counts if counts is KEEP else bool(counts))
            if after != before:
                self.conn.execute(
                    "UPDATE tournaments SET event = ?, counts = ? WHERE id = ?",
                    (after["event"], int(after["counts"]), tournament_id),
                )
                self._log(actor, "tournament", str(tournament_id), before, after)
        return {"tournament": tournament_id, **after}

    # -- helpers -----------------------------------------------------------------------------

    def _find(self, event_id: str) -> Event | None:
        try:
            return self.get(event_id)
        except EventNotFoundError:
            return None

    def _create(self, event_id: str, values: tuple[str, str, str | None, str | None], actor: str) -> Event:
        self.conn.execute(
            f"INSERT INTO season_events ({_EVENT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)",
            (event_id, *values, self.clock()),
        )
        event = self.get(event_id)
        self._log(actor, "event", event_id, None, event.to_json())
        return event

    def _log(
        self, actor: str, kind: str, subject: str, before: dict[str, Any] | None, after: dict[str, Any]
    ) -> None:
        self.conn.execute(
            f"INSERT INTO season_audit ({_AUDIT_WRITTEN}) VALUES (?, ?, ?, ?, ?, ?)",
            (
                self.clock(),
                actor,
                kind,
                subject,
                None if before is None else json.dumps(before, sort_keys=True),
                json.dumps(after, sort_keys=True),
            ),
        )


def _placed(event: str | None, counts: bool) -> dict[str, Any]:
    return {"event": event, "counts": bool(counts)}


def _values(
    name: object, place: object = None, starts_on: object = None, ends_on: object = None
) -> tuple[str, str, str | None, str | None]:
    first, last = _day(starts_on, "first day"), _day(ends_on, "last day")
    if first is not None and last is not None and last < first:
        raise EventDatesError("an event's last day cannot come before its first")
    return (
        _text(name, "name", MAX_EVENT_NAME, required=True),
        _text(place, "place", MAX_EVENT_PLACE),
        first,
        last,
    )


def _text(value: object, what: str, longest: int, *, required: bool = False) -> str:
    if value is None:
        value = ""
    if not isinstance(value, str):
        raise SeasonError(f"an event's {what} is text")
    text = " ".join(value.split())
    if required and not text:
        raise SeasonError(f"an event needs a {what}")
    if len(text) > longest:
        raise SeasonError(f"an event's {what} is at most {longest} characters")
    if not text.isprintable():
        raise SeasonError(f"an event's {what} must not contain control characters")
    return text


def _day(value: object, what: str) -> str | None:
    """A date as ISO ``YYYY-MM-DD`` (None or "": not known)."""
    if value is None or value == "":
        return None
    if not isinstance(value, str) or len(value) != 10:
        raise SeasonError(f"an event's {what} is a date written YYYY-MM-DD")
    try:
        return datetime.datetime.strptime(value, "%Y-%m-%d").date().isoformat()
    except ValueError:
        raise SeasonError(f"an event's {what} is a date written YYYY-MM-DD, not {value!r}") from None


def _event(row: Record) -> Event:
    return Event(
        id=str(row[0]),
        name=str(row[1]),
        place=str(row[2]),
        starts_on=row[3],
        ends_on=row[4],
        created_at=float(row[5]),
    )


def _audit(row: Record) -> SeasonAudit:
    return SeasonAudit(
        id=int(row[0]),
        at=float(row[1]),
        actor=str(row[2]),
        kind=str(row[3]),
        subject=str(row[4]),
        before=None if row[5] is None else json.loads(row[5]),
        after=json.loads(row[6]),
    )

