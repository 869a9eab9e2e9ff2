"""What each journal entry carries: one :class:`~typing.TypedDict` per :class:`JournalKind` payload, and
the board state's.

The board service writes these (the referee, the pre-game check, the service loop and recovery build
them, and mypy checks every key and type); docs/board-service.md ("Journal entries", "The board state
contract") lists them for people and points here. They are typed dicts rather than dataclasses because
a payload *is* its JSON: the journal stores it as written (sorted keys), the outbox sends that text to
the event server, and two placements that differ only in their secret write byte-identical public
payloads. A dataclass would add a conversion on every write and a second shape to keep in step.

A type says what this version writes, not what is on disk: journals are kept across versions, so a
reader never trusts a stored payload's shape. The readers of a game's entries go through
:mod:`store.journal_game`, which reads what older versions wrote too and skips, saying why, what it
cannot read; the public board view (:mod:`store.board_view`) keeps its own allow-list.

Public payloads never carry a pawn's kind nor anything derived from it; kinds are in the private ones.
"""

# No ``from __future__ import annotations``: ``NotRequired`` must be seen when the class is made, so
# that ``__required_keys__`` and ``__optional_keys__`` are right (the contract's tests read them).
from typing import Any, Literal, NotRequired, TypedDict

from games.hautetension.outcome import LightingData, OutcomeData
from games.hautetension.reported import ReportedPlacementData

PawnKindName = str
"""A pawn's kind as a private payload says it: ``attack`` or ``defense`` (a
:class:`games.hautetension.pawn.PawnKind`'s value)."""


# -- the service ------------------------------------------------------------------------------------


class ServiceStart(TypedDict):
    pid: int
    backend: str
    resumed: bool
    game: int | None
    """The game recovery found (running or not), if any."""
    changed_while_down: list[str]
    """Slots that differ from what the journal last saw."""
    message: str


class ServiceStartPrivate(TypedDict):
    board: dict[str, PawnKindName]
    """The board as read at start-up: slot → kind."""


class ServiceStop(TypedDict):
    pid: int


class Scanner(TypedDict):
    faulted: bool
    message: str


class CommandRefused(TypedDict):
    command: int
    """The command's id."""
    kind: str
    """The command's kind (``NEW_GAME``…)."""
    reason: str


class SelfTest(TypedDict):
    ok: bool | None
    checks: int
    """How many checks ran (the report itself is the command's answer)."""


# -- slots, placements, lamps ---------------------------------------------------------------------


class Slot(TypedDict):
    slot: str
    event: Literal["placed", "lifted"]


class SlotPrivate(TypedDict):
    kind: PawnKindName


class Placement(TypedDict):
    game: int
    slot: str
    player: int
    """The seat that placed the pawn (the one whose turn it was)."""
    move: int
    """1 for the game's first placement."""
    lit: list[str]
    """Lamps lit after it (sorted)."""
    eliminated: list[int]
    """Seats it put out."""
    to_move: int | None


class PlacementPrivate(TypedDict):
    kind: PawnKindName


class Lamps(TypedDict):
    lit: list[str]
    test: bool
    """The button is held or a lamp test runs: every lamp is lit."""
    safe: bool
    """The scanner is faulted: every lamp is off."""


class LampTest(TypedDict):
    on: bool


class Button(TypedDict):
    held: bool


class ButtonLongPress(TypedDict):
    selftest: str
    """``run``, or ``refused: a game is running``."""


# -- anomalies and faults -------------------------------------------------------------------------


class Anomaly(TypedDict):
    kind: str
    """An anomaly kind's public name (``lifted``, ``two-pawns``…)."""
    slot: str
    at: float
    message: str


class AnomalyResolved(TypedDict):
    kind: str
    slot: str
    message: str


class Fault(TypedDict):
    """A ``fault`` or ``fault-cleared`` (a cleared fault has no ``channel`` nor ``scanner_faulted``)."""

    kind: str
    message: str
    slot: str | None
    multiplexer: int | None
    at: float
    channel: NotRequired[int | None]
    scanner_faulted: NotRequired[bool]


# -- games ----------------------------------------------------------------------------------------


class Seat(TypedDict):
    name: str
    colour: str
    lamp: str


class GameStart(TypedDict):
    game: int
    players: list[Seat]
    first: int
    """The seat that plays first."""
    drawn: bool
    """Whether that seat was drawn."""
    handicap: dict[str, int]
    """Lamp → handicap attack pawns."""
    layout: str
    """Older journals lack it: the board's layout then."""
    assignment: NotRequired[str]
    """The event's table the game was started from."""


class GameStartPrivate(TypedDict):
    setup: dict[str, Any]
    """:meth:`games.hautetension.setup.GameSetup.to_record`: what recovery sets the game up from."""


class GameResumed(TypedDict):
    game: int
    to_move: int | None


class PregameVerdict(TypedDict):
    """A ``pregame-check`` entry: one verdict of the check."""

    game: int
    result: Literal["passed", "failed", "skipped"]
    lamps: dict[str, str]
    """Lamp → ``current``, ``seen``, ``failed`` or ``unchecked``."""
    failed: list[str]
    by: str
    """``current``, ``players``, ``staff`` or ``demo``."""
    attempt: int
    held_s: NotRequired[float]


class GameEnd(TypedDict):
    """A ``game-end``. Over (not abandoned), it also carries the outcome, the lamp order and the game's
    public record (:class:`games.hautetension.reported.ReportedGame`: layout, first, handicap,
    placements, points), which an event server checks and scores itself."""

    game: int
    status: Literal["over", "abandoned"]
    players: list[str]
    """Names in seat order (older journals: ``{"name": …}`` objects, as in ``game-start``)."""
    moves: int
    """How many placements the game had."""
    outcome: NotRequired[OutcomeData]
    lightings: NotRequired[list[LightingData]]
    layout: NotRequired[str]
    first: NotRequired[int]
    handicap: NotRequired[dict[str, int]]
    placements: NotRequired[list[ReportedPlacementData]]
    points: NotRequired[list[int]]
    assignment: NotRequired[str]


class ResultConfirmed(TypedDict):
    game: int
    seats: list[int]
    """The seats agreeing now."""
    by: Literal["player", "staff"]
    confirmed: list[int]
    """Every seat that agreed so far."""


PublicPayload = (
    ServiceStart | ServiceStop | Scanner | CommandRefused | SelfTest | Slot | Placement | Lamps | LampTest
    | Button | ButtonLongPress | Anomaly | AnomalyResolved | Fault | GameStart | GameResumed
    | PregameVerdict | GameEnd | ResultConfirmed
)
"""Any entry's public payload."""

PrivatePayload = ServiceStartPrivate | SlotPrivate | PlacementPrivate | GameStartPrivate
"""Any entry's private payload."""



# -- the board state ------------------------------------------------------------------------------


class CheckState(TypedDict):
    """The pre-game check as the display shows it."""

    status: Literal["waiting", "holding", "confirm", "failed", "passed", "skipped"]
    lamps: dict[str, str]
    sensed: list[str]
    """The lamps with a current-feedback input."""
    ask: list[str]
    """The lamps the players confirm (while ``confirm``)."""
    failed: list[str]
    short: bool
    """The last hold was too short to tell."""
    attempts: int


class PawnState(TypedDict):
    owner: int | None
    """The seat, when the pawn is the game's pawn in that slot."""


class GameState(TypedDict):
    id: int
    status: Literal["running", "over", "abandoned"]
    view: dict[str, Any]
    """:func:`games.hautetension.views.public_view`: seats, moves, lit lamps, never a kind."""
    points: list[int] | None
    check: CheckState | None
    assignment: NotRequired[str]
    confirmed: NotRequired[list[int]]


class BoardStatePublic(TypedDict):
    """``board_state.public``: what the panel, the uplink and the game command read."""

    layout: str
    backend: str
    game: GameState | None
    pawns: dict[str, PawnState]
    lamps: Lamps
    button: bool
    paused: bool
    anomalies: list[Anomaly]
    faults: list[Fault]
    scanner_faulted: bool


class BoardStatePrivate(TypedDict):
    """``board_state.private``: for recovery and the staff slot test only."""

    board: dict[str, PawnKindName]
    game: dict[str, Any] | None
    """:meth:`games.hautetension.game.Game.to_json`."""
    lamp_test: bool
