"""The tournament's data: phases, statuses, the events a store keeps, results, tables, rounds, standings."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple, NotRequired, TypeAlias, TypedDict

from games.hautetension.outcome import Lighting, LightingData
from tournaments.exc import RoundError

MIN_PLAYERS = 4
"""The final is a four-player affair; fewer players make no tournament."""
FINAL_SIZE = 4


class Phase(enum.StrEnum):
    """How a round's tables were made (a string in events and JSON: ``"drawn"``, …)."""

    DRAWN = "drawn"
    """Rounds 1 and 2: tables and first players drawn from the seed."""
    STANDINGS = "standings"
    """Seated by the general standings; a player whose lamp lights first is out."""
    FINAL = "final"
    """The final: no elimination."""


class Status(enum.StrEnum):
    """A player's status in the general standings (a string in JSON and CSV: ``"in"``, …)."""

    IN = "in"
    """Still in contention."""
    OUT = "out"
    """Eliminated."""
    WITHDRAWN = "withdrawn"
    FINALIST = "finalist"
    WINNER = "winner"


# -- events: what a store keeps -------------------------------------------------


class ResultData(TypedDict):
    """A table's result as events carry it (:meth:`Result.to_dict`)."""

    points: list[int]
    lightings: list[LightingData] | None
    source: dict[str, Any]


class TableData(TypedDict):
    """One table of a round as events carry it (:meth:`Table.to_dict`)."""

    table: int
    seats: list[int]
    first: int
    lamps: list[str]
    handicap: dict[str, int]
    handicap_lead: int
    handicap_over: list[int]


class RoundData(TypedDict):
    """A round's tables as events carry them (:meth:`Round.to_dict`)."""

    round: int
    phase: Phase
    tables: list[TableData]
    eliminated: list[int]
    spared: list[int]
    finalists: list[int]


class RegisterEvent(TypedDict):
    kind: Literal["register"]
    player: int
    name: str


class WithdrawEvent(TypedDict):
    kind: Literal["withdraw"]
    player: int


class RoundEvent(TypedDict):
    kind: Literal["round"]
    data: RoundData


class ResultEvent(TypedDict):
    kind: Literal["result"]
    round: int
    table: int
    result: ResultData
    correction: NotRequired[bool]
    """Present (True) when the entry replaces a recorded result."""
    previous: NotRequired[ResultData | None]
    """With a correction: the result it replaced, kept for the audit trail."""


TournamentEvent: TypeAlias = RegisterEvent | WithdrawEvent | RoundEvent | ResultEvent
"""Every change to a tournament: what :meth:`Tournament.apply` folds in and a store keeps."""


def result_event(
    number: int, table: int, result: Result, *, correction: bool, previous: Result | None
) -> ResultEvent:
    """The event of a table's result; a correction keeps the result it replaces."""
    event: ResultEvent = {"kind": "result", "round": number, "table": table, "result": result.to_dict()}
    if correction:
        event["correction"] = True
        event["previous"] = None if previous is None else previous.to_dict()
    return event


def entry_kind(event: TournamentEvent) -> str:
    """What an audit trail calls the entry: its kind, or "correction" for a corrected result."""
    if event["kind"] == "result" and event.get("correction"):
        return "correction"
    return event["kind"]


# -- data model -------------------------------------------------------------


@dataclass(frozen=True)
class Result:
    """A table's game: points per seat, and how they were obtained."""

    points: tuple[int, ...]
    lightings: tuple[Lighting, ...] | None
    """Lamp order when entered by hand (None for an imported total)."""
    source: Mapping[str, Any]
    """Where it came from: ``{"kind": "tablet"}`` or ``{"kind": "board", "game_id": …}``."""

    def to_dict(self) -> ResultData:
        return {
            "points": list(self.points),
            "lightings": None if self.lightings is None else [x.to_dict() for x in self.lightings],
            "source": dict(self.source),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Result:
        lightings = data.get("lightings")
        return cls(
            points=tuple(int(p) for p in data["points"]),
            lightings=None if lightings is None else tuple(Lighting.from_dict(x) for x in lightings),
            source=dict(data.get("source") or {"kind": "tablet"}),
        )


@dataclass(frozen=True)
class Table:
    """One game of a round: who sits where (clockwise), who starts, lamps and handicap."""

    number: int
    seats: tuple[int, ...]
    """Player ids, clockwise: the turn order."""
    first: int
    """Seat (index into ``seats``) that plays first."""
    lamps: tuple[str, ...]
    handicap: Mapping[str, int] = field(default_factory=dict)
    """Lamp → attack pawns placed on its direct rows before play (the lamps of the table's best)."""
    handicap_lead: int = 0
    """Why: the carriers' lead in points over the table's next-best player when the round was made."""
    handicap_over: tuple[int, ...] = ()
    """The next-best player(s) that lead is counted over."""

    def to_dict(self) -> TableData:
        return {
            "table": self.number,
            "seats": list(self.seats),
            "first": self.first,
            "lamps": list(self.lamps),
            "handicap": dict(self.handicap),
            "handicap_lead": self.handicap_lead,
            "handicap_over": list(self.handicap_over),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Table:
        return cls(
            number=int(data["table"]),
            seats=tuple(int(p) for p in data["seats"]),
            first=int(data["first"]),
            lamps=tuple(str(x) for x in data["lamps"]),
            handicap={str(k): int(v) for k, v in dict(data.get("handicap") or {}).items()},
            handicap_lead=int(data.get("handicap_lead", 0)),
            handicap_over=tuple(int(p) for p in data.get("handicap_over", ())),
        )

    def seat_of(self, player: int) -> int:
        return self.seats.index(player)

    def carriers(self) -> tuple[int, ...]:
        """The players who carry handicap pawns (their lamps are in :attr:`handicap`)."""
        return tuple(p for p, lamp in zip(self.seats, self.lamps, strict=True) if lamp in self.handicap)


@dataclass(frozen=True)
class Round:
    number: int
    phase: Phase
    tables: tuple[Table, ...]
    eliminated: tuple[int, ...] = ()
    """Players put out by the previous round's first lamps when this round was made."""
    spared: tuple[int, ...] = ()
    """Players whose lamp lit first in the previous round, kept in so that four players remain."""
    finalists: tuple[int, ...] = ()
    """Set on the final's rounds: the finalists in standings order at the start of the final."""

    def players(self) -> tuple[int, ...]:
        return tuple(p for table in self.tables for p in table.seats)

    def table(self, number: int) -> Table:
        for table in self.tables:
            if table.number == number:
                return table
        raise RoundError(f"round {self.number} has no table {number}", code="no_such_table", table=number)

    def to_dict(self) -> RoundData:
        return {
            "round": self.number,
            "phase": self.phase,
            "tables": [t.to_dict() for t in self.tables],
            "eliminated": list(self.eliminated),
            "spared": list(self.spared),
            "finalists": list(self.finalists),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Round:
        return cls(
            number=int(data["round"]),
            phase=Phase(data["phase"]),
            tables=tuple(Table.from_dict(t) for t in data["tables"]),
            eliminated=tuple(int(p) for p in data.get("eliminated", ())),
            spared=tuple(int(p) for p in data.get("spared", ())),
            finalists=tuple(int(p) for p in data.get("finalists", ())),
        )


@dataclass(frozen=True)
class GameLine:
    """One game in a player's history."""

    round: int
    table: int
    seat: int
    points: int | None
    """None while the table's result is not in."""


@dataclass(frozen=True)
class Standing:
    """A player's line in the general standings."""

    place: int
    player: int
    name: str
    points: int
    games: tuple[GameLine, ...]
    status: Status
    out_in_round: int | None
    """Round whose first lamp put the player out."""
    lot: float
    """The seeded draw that breaks ties on points."""
    out_at_table: int | None = None
    """The table of that round where the player's lamp lit first."""
    note: str = ""
    """Why the player is out, withdrawn or spared, in English words (empty for the others); the
    fields below are the same facts for a page to say in its own language."""
    out_as_stood: bool = False
    """Put out by a result as it stood when the next round was made (a correction since then
    says their lamp did not light first; who played a round already made is history)."""
    spared_in_round: int | None = None
    """Round whose first lamp would have put the player out, had four not been needed for the final."""
    spared_at_table: int | None = None
    withdrew_in_round: int | None = None
    """Rounds made when the player withdrew (0: before round 1); None if they did not."""


class Contenders(NamedTuple):
    """After a round: who plays on, who its first lamps put out, and who they spared to make four."""

    active: list[int]
    out: tuple[int, ...] = ()
    spared: tuple[int, ...] = ()
