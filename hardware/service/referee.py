"""The referee: follows a physical game from the debounced slot events.

The board cannot see colours, so the referee attributes each new pawn to the
player whose turn it is and lets the rules engine (:class:`Game`) decide the
rest: stock, eliminations, the end of the game and the points. It never
accepts silently what it cannot attribute; instead it opens an *anomaly* on
that slot, which stays open until the board matches the game again there.
While any anomaly is open the game is *paused*: nobody has the turn and new
pawns are not attributed (docs/board-service.md, "Physical game").

The referee does no I/O. Each handler returns the journal entries it
produced (:class:`~store.journal.JournalEntry`: kind, public, private); the
service writes them with the board state in one transaction. Public payloads never carry a pawn's kind
nor anything derived from it; kinds go to ``private``.
"""

from __future__ import annotations

import dataclasses
import enum
import secrets
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from games.exc import NoPawnLeftError, SetupError
from games.hautetension.circuit import evaluate
from games.hautetension.game import Game
from games.hautetension.layout import Layout
from games.hautetension.pawn import PawnKind
from games.hautetension.reported import ReportedGame
from games.hautetension.setup import GameSetup
from games.hautetension.views import public_view
from hardware.service.pregame import PregameCheck
from store import journal_payloads as payloads
from store.journal import JournalEntry, JournalKind


class AnomalyKind(enum.Enum):
    """Why a slot does not match the game (public names, as the panel shows them)."""

    OUT_OF_TURN = "out-of-turn"
    """A pawn placed while nobody has the turn (game paused or over)."""
    TWO_PAWNS = "two-pawns"
    """A second pawn within one turn (less than ``min_turn`` after the last one)."""
    LIFTED = "lifted"
    """A pawn of the game was lifted."""
    CHANGED = "changed"
    """The pawn standing in a game's slot is not the one the game has there."""
    REFUSED = "refused"
    """The rules engine refused the pawn for the player to move."""
    NO_GAME = "no-game"
    """A pawn placed while no game is running."""
    HANDICAP = "handicap"
    """A handicap pawn the game expects is not on the board yet."""
    CHANGED_WHILE_DOWN = "changed-while-down"
    """The board differs from the journal after a restart."""


@dataclass(frozen=True)
class Anomaly:
    kind: AnomalyKind
    slot: str
    at: float
    """Unix time when it was noticed."""
    message: str

    def to_public(self) -> payloads.Anomaly:
        return {"kind": self.kind.value, "slot": self.slot, "at": round(self.at, 3), "message": self.message}

    @classmethod
    def from_public(cls, data: Mapping[str, Any]) -> Anomaly:
        return cls(AnomalyKind(data["kind"]), str(data["slot"]), float(data["at"]), str(data["message"]))


class GameStatus(enum.Enum):
    RUNNING = "running"
    OVER = "over"
    ABANDONED = "abandoned"


@dataclass
class BoardGame:
    """The game the board is following, with its journal id and setup."""

    id: int
    game: Game
    setup: dict[str, Any]
    status: GameStatus = GameStatus.RUNNING
    check: PregameCheck | None = None
    """The pre-game check (None: the game had none, e.g. set up before it existed)."""
    assignment: str | None = None
    """The event's table assignment the game was started from (its result goes to that table)."""
    confirmed: set[int] = field(default_factory=set)
    """Seats that agreed to the result of the finished game (an event's game only)."""

    @property
    def is_running(self) -> bool:
        return self.status is GameStatus.RUNNING

    @property
    def is_checking(self) -> bool:
        """Running, but waiting for its pre-game check: nobody plays yet."""
        return self.is_running and self.check is not None and not self.check.is_done


@dataclass
class LampState:
    lit: frozenset[str]
    test: bool
    safe: bool

    def to_public(self) -> payloads.Lamps:
        return {"lit": sorted(self.lit), "test": self.test, "safe": self.safe}


@dataclass
class Referee:
    """The physical board, the game it follows, and what does not match."""

    layout: Layout
    min_turn: float = 1.0
    """Seconds: a pawn confirmed sooner than this after the last accepted one is a second
    pawn in the same turn (0 disables the check)."""
    clock: Callable[[], float] = time.time
    board: dict[str, PawnKind] = field(default_factory=dict)
    current: BoardGame | None = None
    anomalies: dict[str, Anomaly] = field(default_factory=dict)
    faults: dict[str, payloads.Fault] = field(default_factory=dict)
    scanner_faulted: bool = False
    button_held: bool = False
    lamp_test: bool = False
    last_accepted_at: float | None = None
    """Monotonic time of the last accepted placement's confirmation."""
    last_accepted_slot: str | None = None
    sensed_lamps: frozenset[str] = frozenset()
    """The lamps with a current-feedback input (the backend says which): the pre-game check reads them."""

    # -- what the board shows -------------------------------------------------

    def attack_slots(self) -> frozenset[str]:
        return frozenset(slot for slot, kind in self.board.items() if kind is PawnKind.ATTACK)

    def lamps(self) -> LampState:
        """The lamps as the original wires would light them (all off if the scanner is faulted)."""
        if self.scanner_faulted:
            return LampState(frozenset(), test=False, safe=True)
        test = self.button_held or self.lamp_test
        lit = evaluate(self.layout, self.attack_slots(), button=test).lit
        return LampState(lit, test=test, safe=False)

    @property
    def running(self) -> BoardGame | None:
        return self.current if self.current is not None and self.current.is_running else None

    def is_paused(self) -> bool:
        return self.running is not None and bool(self.anomalies)

    def to_move(self) -> int | None:
        game = self.running
        if game is None or self.anomalies or game.is_checking:
            return None
        return game.game.to_move

    def public_state(self, backend: str) -> payloads.BoardStatePublic:
        """The board state contract read by the panel (docs/board-service.md)."""
        owners = self.current.game.pawns if self.current is not None else {}
        return {
            "layout": self.layout.name,
            "backend": backend,
            "game": self._public_game(),
            "pawns": {
                slot: {"owner": owners[slot][0] if slot in owners and self._matches(slot) else None}
                for slot in self.layout.slots
                if slot in self.board
            },
            "lamps": self.lamps().to_public(),
            "button": self.button_held,
            "paused": self.is_paused(),
            "anomalies": [
                a.to_public() for a in sorted(self.anomalies.values(), key=lambda a: (a.at, a.slot))
            ],
            "faults": list(self.faults.values()),
            "scanner_faulted": self.scanner_faulted,
        }

    def private_state(self) -> payloads.BoardStatePrivate:
        return {
            "board": {slot: kind.value for slot, kind in sorted(self.board.items())},
            "game": self.current.game.to_json() if self.current is not None else None,
            "lamp_test": self.lamp_test,
        }

    def _public_game(self) -> payloads.GameState | None:
        if self.current is None:
            return None
        game = self.current.game
        view = public_view(game)
        if self.current.is_checking:
            view["to_move"] = None  # nobody plays before the pre-game check is over
        public: payloads.GameState = {
            "id": self.current.id,
            "status": self.current.status.value,
            "view": view,
            "points": list(game.points()) if game.is_over() else None,
            "check": self.current.check.to_public() if self.current.check is not None else None,
        }
        if self.current.assignment is not None:
            public["assignment"] = self.current.assignment
            public["confirmed"] = sorted(self.current.confirmed)
        return public

    def _matches(self, slot: str) -> bool:
        expected = self.current.game.pawns.get(slot) if self.current is not None else None
        return expected is not None and self.board.get(slot) is expected[1]

    # -- slot events ----------------------------------------------------------

    def pawn_placed(self, slot: str, kind: PawnKind, at: float) -> list[JournalEntry]:
        """A pawn is now confirmed in *slot*; *at* is the monotonic confirmation time."""
        self.board[slot] = kind
        entries = [JournalEntry(JournalKind.SLOT, {"slot": slot, "event": "placed"}, {"kind": kind.value})]
        game = self.running
        if game is not None and slot in game.game.pawns:
            entries += self._recheck(slot)
        elif slot in self.anomalies:
            pass  # an unattributed pawn's slot stays as reported
        elif game is None:
            entries += self._open(slot, AnomalyKind.NO_GAME, self._no_game_message(slot))
        elif self.scanner_faulted:
            entries += self._open(
                slot,
                AnomalyKind.OUT_OF_TURN,
                f"a pawn was placed on {slot} while the scanner is faulted; it was not attributed: lift it",
            )
        elif game.is_checking:
            entries += self._open(
                slot,
                AnomalyKind.OUT_OF_TURN,
                f"a pawn was placed on {slot} before the pre-game check is over; it was not attributed:"
                " lift it",
            )
        elif self.anomalies:
            entries += self._open(
                slot,
                AnomalyKind.OUT_OF_TURN,
                f"a pawn was placed on {slot} while the game is paused"
                f" ({self._pause_reason()}); it was not attributed: lift it",
            )
        elif (
            self.min_turn > 0
            and self.last_accepted_at is not None
            and at - self.last_accepted_at < self.min_turn
        ):
            entries += self._open(
                slot,
                AnomalyKind.TWO_PAWNS,
                f"a second pawn on {slot} {at - self.last_accepted_at:.1f} s after the pawn on"
                f" {self.last_accepted_slot}: one pawn per turn; lift it",
            )
        else:
            entries += self._attribute(game, slot, kind, at)
        return entries

    def pawn_lifted(self, slot: str) -> list[JournalEntry]:
        self.board.pop(slot, None)
        entries: list[JournalEntry] = [JournalEntry(JournalKind.SLOT, {"slot": slot, "event": "lifted"})]
        return entries + self._recheck(slot)

    def _attribute(self, board_game: BoardGame, slot: str, kind: PawnKind, at: float) -> list[JournalEntry]:
        game = board_game.game
        player = game.to_move
        assert player is not None  # a running game always has a player to move
        try:
            placement = game.push(slot, kind)
        except NoPawnLeftError:
            # Worded without the kind: which kind ran out is the player's secret.
            name = game.seats[player].name
            return self._open(
                slot,
                AnomalyKind.REFUSED,
                f"the pawn on {slot} cannot be one of {name}'s remaining pawns: lift it",
            )
        self.last_accepted_at = at
        self.last_accepted_slot = slot
        entries: list[JournalEntry] = [
            JournalEntry(
                JournalKind.PLACEMENT,
                {
                    "game": board_game.id,
                    "slot": slot,
                    "player": player,
                    "move": len(game.history),
                    "lit": sorted(placement.lit),
                    "eliminated": list(placement.eliminated),
                    "to_move": game.to_move,
                },
                {"kind": kind.value},
            )
        ]
        if game.is_over():
            entries += self._finish(board_game, GameStatus.OVER)
        return entries

    def _finish(self, board_game: BoardGame, status: GameStatus) -> list[JournalEntry]:
        board_game.status = status
        game = board_game.game
        outcome = game.outcome()
        public: payloads.GameEnd = {
            "game": board_game.id,
            "status": "over" if status is GameStatus.OVER else "abandoned",
            "players": [seat.name for seat in game.seats],
            "moves": len(game.history),
        }
        if status is GameStatus.OVER and outcome is not None:
            public["outcome"] = outcome.to_dict()
            # The lamp order, as a tournament keeps it: seats put out together, and who placed that pawn.
            public["lightings"] = [
                {"seats": list(p.eliminated), "by": p.player} for p in game.history if p.eliminated
            ]
            # The game's public record and the points it claims (layout, players, first, handicap,
            # placements, points), for an event server to check and score itself
            # (games/hautetension/reported.py): what everyone at the table saw, never a pawn's kind.
            public = {**public, **ReportedGame.of_game(game).to_json()}
        if board_game.assignment is not None:
            public["assignment"] = board_game.assignment
        # A finished game leaves its pawns on the board: lifting them is clearing up.
        self.anomalies = {
            slot: a for slot, a in self.anomalies.items() if slot in self.board and slot not in game.pawns
        }
        return [JournalEntry(JournalKind.GAME_END, public)]

    # -- anomalies ------------------------------------------------------------

    def _recheck(self, slot: str) -> list[JournalEntry]:
        """Open, change or close the anomaly of *slot* after its pawn changed."""
        game = self.running
        expected = game.game.pawns.get(slot) if game is not None else None
        present = self.board.get(slot)
        old = self.anomalies.get(slot)
        if expected is None:
            if present is None and old is not None:
                return self._close(slot, f"{slot} is empty again")
            return []
        if present is expected[1]:
            return self._close(slot, f"the pawn on {slot} is back") if old is not None else []
        owner = self._owner_name(expected[0])
        if present is None:
            if old is not None and old.kind in (
                AnomalyKind.LIFTED,
                AnomalyKind.HANDICAP,
                AnomalyKind.CHANGED_WHILE_DOWN,
            ):
                return []
            return self._open(
                slot,
                AnomalyKind.LIFTED,
                f"{owner} pawn on {slot} was lifted: put it back to resume the game",
                replace=True,
            )
        return self._open(
            slot,
            AnomalyKind.CHANGED,
            f"the pawn on {slot} is not the one {owner} placed there: put the right pawn back",
            replace=True,
        )

    def _owner_name(self, owner: int | None) -> str:
        if owner is None or self.current is None:
            return "the handicap"
        return f"{self.current.game.seats[owner].name}'s"

    def _open(
        self, slot: str, kind: AnomalyKind, message: str, *, replace: bool = False
    ) -> list[JournalEntry]:
        if slot in self.anomalies and not replace:
            return []
        anomaly = Anomaly(kind, slot, self.clock(), message)
        self.anomalies[slot] = anomaly
        return [JournalEntry(JournalKind.ANOMALY, anomaly.to_public())]

    def _close(self, slot: str, message: str) -> list[JournalEntry]:
        old = self.anomalies.pop(slot, None)
        if old is None:
            return []
        resolved: payloads.AnomalyResolved = {"kind": old.kind.value, "slot": slot, "message": message}
        entries = [JournalEntry(JournalKind.ANOMALY_RESOLVED, resolved)]
        if self.running is not None and not self.anomalies:
            resumed: payloads.GameResumed = {"game": self.running.id, "to_move": self.running.game.to_move}
            entries.append(JournalEntry(JournalKind.GAME_RESUMED, resumed))
        return entries

    def _pause_reason(self) -> str:
        return "; ".join(
            f"{a.kind.value} on {a.slot}" for a in sorted(self.anomalies.values(), key=lambda a: a.at)
        )

    def _no_game_message(self, slot: str) -> str:
        if self.current is not None and self.current.status is GameStatus.OVER:
            return f"a pawn was placed on {slot} after the end of the game: lift it"
        return f"a pawn was placed on {slot} while no game is running: lift it"

    # -- faults and the button -----------------------------------------------

    def fault(self, key: str, public: payloads.Fault) -> list[JournalEntry]:
        """A fault is open (the service decides separately whether the scanner as a whole is faulted)."""
        self.faults[key] = public
        return [JournalEntry(JournalKind.FAULT, public)]

    def fault_cleared(self, key: str, public: payloads.Fault) -> list[JournalEntry]:
        self.faults.pop(key, None)
        return [JournalEntry(JournalKind.FAULT_CLEARED, public)]

    def button(self, held: bool, at: float | None = None) -> list[JournalEntry]:
        """The test button (*at*: monotonic time of the event; the pre-game check times the hold)."""
        self.button_held = held
        entries = [JournalEntry(JournalKind.BUTTON, {"held": held})]
        check = self.checking
        if check is not None and at is not None:
            entries += check.button(held, at)
        return entries

    # -- the pre-game check ---------------------------------------------------------------------

    @property
    def checking(self) -> PregameCheck | None:
        """The pre-game check the running game waits for, if any."""
        game = self.running
        return game.check if game is not None and game.is_checking else None

    def lamp_currents(self, readings: Mapping[str, bool]) -> None:
        """Lamp-current readings taken while the test button is held (for the pre-game check)."""
        check = self.checking
        if check is not None:
            check.currents(readings)

    def pregame_confirm(self, not_lit: list[str]) -> list[JournalEntry]:
        """The players' answer on the display: the lamps (without current feedback) they did not see
        light. Raises :class:`~hardware.service.pregame.CheckRefused` when there is nothing to confirm."""
        return self._check_or_refuse().confirm(not_lit)

    def pregame_skip(self) -> list[JournalEntry]:
        """Staff skip the pre-game check."""
        return self._check_or_refuse().skip()

    def _check_or_refuse(self) -> PregameCheck:
        check = self.checking
        if check is None:
            raise SetupError("no game is waiting for its pre-game check")
        return check

    # -- games ----------------------------------------------------------------

    def new_game(self, game_id: int, payload: Mapping[str, Any]) -> list[JournalEntry]:
        """Start a game from a NEW_GAME payload (the rules are :class:`GameSetup`'s); raise
        :class:`SetupError` saying why not (every problem of the payload at once)."""
        if self.running is not None:
            raise SetupError(f"game {self.running.id} is still running: abandon it first")
        if self.board:
            raise SetupError(f"the board is not empty ({', '.join(sorted(self.board))}): clear it first")
        if self.lamp_test:
            self.lamp_test = False
        chosen = GameSetup.from_payload(payload, lamps=self.layout.lamps)
        if chosen.first == "draw" and chosen.seed is None:
            chosen = dataclasses.replace(chosen, seed=secrets.randbits(32))  # kept: the draw can be checked
        assignment = _assignment_id(payload.get("assignment"))
        game = chosen.start(self.layout)
        setup = chosen.to_record()
        self.current = BoardGame(game_id, game, setup, assignment=assignment)
        check = PregameCheck(game_id, self.layout.lamps, self.sensed_lamps & frozenset(self.layout.lamps))
        self.current.check = check
        self.anomalies = {}
        self.last_accepted_at = None
        self.last_accepted_slot = None
        public: payloads.GameStart = {
            "game": game_id,
            "players": [{"name": s.name, "colour": s.colour, "lamp": s.lamp} for s in game.seats],
            "first": game.first,
            "drawn": chosen.first == "draw",
            "handicap": dict(game.handicap),
            "layout": self.layout.name,
        }
        if assignment is not None:
            public["assignment"] = assignment
        entries: list[JournalEntry] = [JournalEntry(JournalKind.GAME_START, public, {"setup": setup})]
        if not chosen.pregame_check:
            entries += check.skip(by=chosen.skipped_by)
        for slot in sorted(game.pawns):
            entries += self._open(
                slot, AnomalyKind.HANDICAP, f"place the handicap attack pawn on {slot} before the first move"
            )
        return entries

    def abandon(self) -> list[JournalEntry]:
        game = self.running
        if game is None:
            raise SetupError("no game is running")
        return self._finish(game, GameStatus.ABANDONED)

    def confirm_result(self, seats: Sequence[int], *, by: str) -> list[JournalEntry]:
        """Seats (players at the board, or staff for them) agree to the finished game's result."""
        game = self.current
        if game is None or game.assignment is None:
            raise SetupError("only a game started from an event's table has a result to confirm")
        if game.status is not GameStatus.OVER:
            raise SetupError(f"game {game.id} is {game.status.value}: there is no result to confirm")
        if by not in ("player", "staff"):
            raise SetupError('by is "player" or "staff"')
        count = len(game.game.seats)
        if not seats or any(type(s) is not int or not 0 <= s < count for s in seats):
            raise SetupError(f"seats are numbers from 0 to {count - 1}")
        new = sorted(set(seats) - game.confirmed)
        if not new:
            return []  # agreed already: tapping twice changes nothing
        game.confirmed |= set(new)
        public: payloads.ResultConfirmed = {
            "game": game.id, "seats": new, "by": "player" if by == "player" else "staff",
            "confirmed": sorted(game.confirmed),
        }
        return [JournalEntry(JournalKind.RESULT_CONFIRMED, public)]

    def set_lamp_test(self, on: bool) -> list[JournalEntry]:
        if on and self.running is not None:
            raise SetupError(
                f"game {self.running.id} is running: the lamp test would light its players' lamps"
            )
        self.lamp_test = on
        return [JournalEntry(JournalKind.LAMP_TEST, {"on": on})]


def _assignment_id(value: Any) -> str | None:
    """The event's table assignment a game is started from (an id the event server made), if any."""
    if value is None:
        return None
    if not isinstance(value, str) or not 1 <= len(value) <= 64 or not value.isalnum():
        raise SetupError("assignment must be the id of an event's table assignment (1-64 letters and digits)")
    return value
