"""A board game as its journal tells it: the one reader of a game's entries.

The board service writes a game's entries (:mod:`store.journal_payloads`); three readers need the game
back: the replay (its record, :mod:`webpanel.replay.records`), the tournaments (a finished game's
players, points and lamp order, :mod:`store.tournaments`) and recovery (the setup, the placements with
their kinds, the pre-game check's verdicts, the seats that agreed, :mod:`hardware.service.recovery`).
:func:`read_game` reads the entries once into typed values they all take.

Journals are kept across versions, so what is on disk is never trusted to have this version's shape.
Each entry is read field by field: what older versions wrote is read as they wrote it (a ``game-start``
without its layout, a ``game-end`` naming its players as ``{"name": …}`` objects or without its
status); an entry that cannot be read is skipped, never raised, and listed in
:attr:`JournalGame.skipped` with the reason, so a reader that must not go on without it (recovery
replaying placements) says which entry and why.

Private payloads (pawn kinds, the setup) are read into separate fields: a reader that shows the
game to players takes only the public ones.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from games.hautetension.outcome import Lighting, Termination
from games.hautetension.record import CheckResult, LampCheck, Status
from store.journal import Entry, JournalKind

PAWN_KINDS = ("attack", "defense")
LAMP_CHECKS = tuple(c.value for c in LampCheck)


class Unreadable(ValueError):
    """A payload's field this program cannot read (the message names it)."""


@dataclass(frozen=True)
class Skipped:
    """An entry of the game that could not be read."""

    entry: int
    """Its journal id."""
    kind: JournalKind
    reason: str


@dataclass(frozen=True)
class StartSeat:
    name: str
    lamp: str
    colour: str


@dataclass(frozen=True)
class Start:
    """The game's ``game-start``."""

    entry: int
    at: float
    players: tuple[StartSeat, ...]
    first: int
    drawn: bool
    handicap: tuple[tuple[str, int], ...]
    """Lamp → handicap pawns, by lamp."""
    layout: str | None
    """None: the entry predates layouts in ``game-start`` (the board's layout then)."""
    assignment: str | None
    setup: Mapping[str, Any] | None
    """Private: the setup recovery starts the game again from (None: not kept)."""


@dataclass(frozen=True)
class Placed:
    """A ``placement``: a pawn accepted into the game."""

    entry: int
    at: float
    move: int
    player: int
    slot: str
    lit: tuple[str, ...]
    eliminated: tuple[int, ...]
    kind: str | None
    """Private: ``attack`` or ``defense`` (None: not kept, or not a kind)."""


@dataclass(frozen=True)
class Opened:
    """An ``anomaly``: a slot that does not match the game."""

    entry: int
    at: float
    what: str
    slot: str


@dataclass(frozen=True)
class Resolved:
    """An ``anomaly-resolved``."""

    entry: int
    at: float
    what: str
    slot: str


@dataclass(frozen=True)
class Resumed:
    """A ``game-resumed``: the last anomaly closed, *player* to move."""

    entry: int
    at: float
    player: int


@dataclass(frozen=True)
class Verdict:
    """A ``pregame-check``: one verdict of the pre-game check."""

    entry: int
    at: float
    result: CheckResult
    """Passed, failed or skipped."""
    lamps: tuple[tuple[str, LampCheck], ...]
    failed: tuple[str, ...]
    by: str | None
    attempt: int | None


@dataclass(frozen=True)
class Ended:
    """The game's ``game-end``."""

    entry: int
    at: float
    game: int
    status: Status
    """Over or abandoned (an entry without a status is over: the first versions wrote none)."""
    players: tuple[str, ...] | None
    """Names in seat order (None: unreadable)."""
    points: tuple[int, ...] | None
    """The points the engine gave (over only; None: not given or unreadable)."""
    winners: tuple[int, ...]
    termination: Termination | None


Event = Placed | Opened | Resolved | Resumed | Verdict
"""What happens during a game, as the replay's timeline shows it."""


@dataclass(frozen=True)
class JournalGame:
    """One game's entries, read."""

    start: Start | None
    """None: the journal has no readable ``game-start`` for it."""
    events: tuple[Event, ...]
    """Placements, anomalies, resumes and the check's verdicts, in journal order."""
    end: Ended | None
    """None: the game is still running (or its end is unreadable: see :attr:`skipped`)."""
    confirmed: frozenset[int]
    """The seats that agreed to the result (an event's game)."""
    skipped: tuple[Skipped, ...]

    @property
    def moves(self) -> tuple[Placed, ...]:
        return tuple(e for e in self.events if isinstance(e, Placed))

    @property
    def verdicts(self) -> tuple[Verdict, ...]:
        return tuple(e for e in self.events if isinstance(e, Verdict))

    def skipped_of(self, kind: JournalKind) -> tuple[Skipped, ...]:
        return tuple(s for s in self.skipped if s.kind is kind)

    def lightings(self) -> tuple[Lighting, ...]:
        """The lamp order: the seats each placement put out, and the seat that placed it."""
        return tuple(Lighting(m.eliminated, m.player) for m in self.moves if m.eliminated)


def read_game(entries: Iterable[Entry]) -> JournalGame:
    """Read a game's entries (oldest first, as :meth:`store.journal.Journal.game_entries` gives them);
    entries of other kinds (slots, lamps, faults…) are not the game's record and are passed over."""
    start: Start | None = None
    end: Ended | None = None
    events: list[Event] = []
    confirmed: set[int] = set()
    skipped: list[Skipped] = []
    for entry in entries:
        reader = _READERS.get(entry.kind)
        if reader is None:
            continue
        try:
            value = reader(_checked(entry))
        except Unreadable as exc:
            skipped.append(Skipped(entry.id, entry.kind, str(exc)))
            continue
        if isinstance(value, Start):
            start = start or value
        elif isinstance(value, Ended):
            end = value
        elif isinstance(value, frozenset):
            confirmed |= value
        else:
            events.append(value)
    return JournalGame(start, tuple(events), end, frozenset(confirmed), tuple(skipped))


def read_game_end(entry: Entry) -> Ended | Skipped:
    """One ``game-end`` on its own (the tournaments list finished games by their ends)."""
    try:
        return _game_end(_checked(entry))
    except Unreadable as exc:
        return Skipped(entry.id, entry.kind, str(exc))


def read_verdict(public: Mapping[str, Any]) -> Verdict:
    """One ``pregame-check`` payload on its own (no entry: id and time 0); :class:`Unreadable` says why
    it cannot be read."""
    return _verdict(_checked(Entry(0, 0.0, JournalKind.PREGAME_CHECK, None, dict(public), None)))


# -- one reader per kind -----------------------------------------------------------------------------


def _checked(entry: Entry) -> Entry:
    if not isinstance(entry.public, Mapping):
        raise Unreadable(f"its public payload is an object, not {_shown(entry.public)}")
    return entry


def _game_start(entry: Entry) -> Start:
    public = entry.public
    players = _list(public, "players")
    private = entry.private
    setup = private.get("setup") if isinstance(private, Mapping) else None
    return Start(
        entry.id, entry.at,
        players=tuple(_start_seat(p) for p in players),
        first=_int(public.get("first") or 0, "first"),
        drawn=bool(public.get("drawn")),
        handicap=_handicap(public.get("handicap")),
        layout=_text_or_none(public.get("layout")),
        assignment=_text_or_none(public.get("assignment")),
        setup=setup if isinstance(setup, Mapping) else None,
    )


def _start_seat(value: Any) -> StartSeat:
    """A seat of ``game-start``: an object with a name, a lamp and a colour (a bare name is read too: its
    lamp and colour are then unknown, ``?``)."""
    if isinstance(value, Mapping):
        return StartSeat(str(value.get("name")), str(value.get("lamp")), str(value.get("colour")))
    if isinstance(value, str):
        return StartSeat(value, "?", "?")
    raise Unreadable(f"a player is an object with a name, a lamp and a colour, not {_shown(value)}")


def _handicap(value: Any) -> tuple[tuple[str, int], ...]:
    if not value:
        return ()
    if not isinstance(value, Mapping):
        raise Unreadable(f"handicap is an object (lamp: pawns), not {_shown(value)}")
    return tuple(sorted((str(lamp), _int(n, "handicap")) for lamp, n in value.items()))


def _placement(entry: Entry) -> Placed:
    public = entry.public
    private = entry.private
    kind = private.get("kind") if isinstance(private, Mapping) else None
    return Placed(
        entry.id, entry.at,
        move=_int(public.get("move"), "move"),
        player=_int(public.get("player"), "player"),
        slot=_text(public.get("slot"), "slot"),
        lit=tuple(sorted(str(lamp) for lamp in _list(public, "lit", missing_is_empty=True))),
        eliminated=_ints(_list(public, "eliminated", missing_is_empty=True), "eliminated"),
        kind=kind if kind in PAWN_KINDS else None,
    )


def _anomaly(entry: Entry) -> Opened | Resolved:
    public = entry.public
    what = str(public.get("kind") or "anomaly")
    slot = _text(public.get("slot"), "slot")
    return (Opened if entry.kind is JournalKind.ANOMALY else Resolved)(entry.id, entry.at, what, slot)


def _resumed(entry: Entry) -> Resumed:
    return Resumed(entry.id, entry.at, _int(entry.public.get("to_move"), "to_move"))


def _verdict(entry: Entry) -> Verdict:
    public = entry.public
    result = public.get("result")
    if result not in (CheckResult.PASSED, CheckResult.FAILED, CheckResult.SKIPPED):
        raise Unreadable(f"result is passed, failed or skipped, not {_shown(result)}")
    lamps = public.get("lamps")
    found = tuple(
        (str(lamp), LampCheck(what)) for lamp, what in (lamps.items() if isinstance(lamps, Mapping) else ())
        if what in LAMP_CHECKS
    )
    by = public.get("by")
    attempt = public.get("attempt")
    return Verdict(
        entry.id, entry.at, CheckResult(result), found,
        failed=tuple(str(lamp) for lamp in _list(public, "failed", missing_is_empty=True)),
        by=by if isinstance(by, str) else None,
        attempt=attempt if _is_int(attempt) else None,
    )


def _game_end(entry: Entry) -> Ended:
    public = entry.public
    status = public.get("status", "over")
    if status not in (Status.OVER, Status.ABANDONED):
        raise Unreadable(f"status is over or abandoned, not {_shown(status)}")
    game = entry.game_id if entry.game_id is not None else _int(public.get("game"), "game")
    outcome = public.get("outcome") or {}
    if not isinstance(outcome, Mapping):
        outcome = {}
    termination = outcome.get("termination")
    return Ended(
        entry.id, entry.at, game, Status(status),
        players=_end_players(public.get("players")),
        points=_points(public.get("points")),
        winners=_ints(outcome.get("winners") or (), "winners"),
        termination=Termination[termination]
        if isinstance(termination, str) and termination in Termination.__members__ else None,
    )


def _end_players(value: Any) -> tuple[str, ...] | None:
    """Names, as docs/board-service.md gives them; also ``game-start``'s ``{"name": …}`` objects."""
    if not isinstance(value, list):
        return None
    names = []
    for player in value:
        if isinstance(player, Mapping):
            if "name" not in player:
                return None
            player = player["name"]
        names.append(str(player))
    return tuple(names)


def _points(value: Any) -> tuple[int, ...] | None:
    if not isinstance(value, list) or not all(_is_int(p) for p in value):
        return None
    return tuple(value)


def _confirmed(entry: Entry) -> frozenset[int]:
    return frozenset(_ints(_list(entry.public, "seats", missing_is_empty=True), "seats"))


Read = Start | Event | Ended | frozenset[int]

_READERS: dict[JournalKind, Callable[[Entry], Read]] = {
    JournalKind.GAME_START: _game_start,
    JournalKind.PLACEMENT: _placement,
    JournalKind.ANOMALY: _anomaly,
    JournalKind.ANOMALY_RESOLVED: _anomaly,
    JournalKind.GAME_RESUMED: _resumed,
    JournalKind.PREGAME_CHECK: _verdict,
    JournalKind.GAME_END: _game_end,
    JournalKind.RESULT_CONFIRMED: _confirmed,
}


# -- fields ---------------------------------------------------------------------------------------------


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _int(value: Any, name: str) -> int:
    if not _is_int(value):
        raise Unreadable(f"{name} is a whole number, not {_shown(value)}")
    return int(value)


def _ints(values: Iterable[Any], name: str) -> tuple[int, ...]:
    return tuple(_int(v, name) for v in values)


def _text(value: Any, name: str) -> str:
    if not isinstance(value, str) or not value:
        raise Unreadable(f"{name} is a text, not {_shown(value)}")
    return value


def _text_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _list(public: Mapping[str, Any], name: str, *, missing_is_empty: bool = False) -> Sequence[Any]:
    value = public.get(name)
    if value is None and missing_is_empty:
        return ()
    if not isinstance(value, list):
        raise Unreadable(f"{name} is a list, not {_shown(value)}")
    return value


def _shown(value: Any) -> str:
    """A value in a reason, cut short (a payload on disk may hold anything)."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
