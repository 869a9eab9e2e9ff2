"""A game of Haute-Tension: seats, turns, pawns, eliminations and the result.

The game keeps a :class:`~games.hautetension.circuit.Circuit` and updates it
one pawn at a time, so a placement costs a few row counters, not a full
evaluation. :meth:`Game.push` and :meth:`Game.pop` follow python-chess: a
stack of placements that can be undone exactly.
"""

from __future__ import annotations

from bisect import insort
from collections.abc import Mapping, Sequence
from typing import Any

from games.exc import (
    GameError,
    GameOverError,
    IllegalMoveError,
    NoPawnLeftError,
    NothingToUndoError,
    NotYourTurnError,
    SetupError,
    SlotTakenError,
)
from games.hautetension.circuit import Circuit
from games.hautetension.draw import draw_first_player
from games.hautetension.handicap import handicap_plan
from games.hautetension.layout import Layout, available_layouts, load_layout, parse_layout
from games.hautetension.outcome import Elimination, Outcome, Placement, Termination, tournament_points
from games.hautetension.pawn import ATTACK_PAWNS, DEFENSE_PAWNS, PawnKind
from games.hautetension.seats import Seat, check_player_count

Pawn = tuple[int | None, PawnKind]
"""Who owns a pawn (None for a handicap pawn) and its kind."""


class Game:
    """One game on one board.

    *seats* are listed clockwise, which is the turn order; *first* is the seat
    that plays first. *handicap* maps a lamp to 1–3 attack pawns placed before
    play on that lamp's direct rows (see :mod:`games.hautetension.handicap`);
    handicap pawns belong to nobody.
    """

    def __init__(
        self,
        layout: Layout,
        seats: Sequence[Seat],
        *,
        first: int = 0,
        handicap: Mapping[str, int] | None = None,
    ) -> None:
        check_player_count(len(seats))
        _check_lamps(layout, seats)
        if not 0 <= first < len(seats):
            raise SetupError(f"first player must be a seat number from 0 to {len(seats) - 1}, not {first}")
        self.layout = layout
        self.seats: tuple[Seat, ...] = tuple(seats)
        self.first = first
        self.handicap: dict[str, int] = dict(handicap or {})
        self._owner_of_lamp = {seat.lamp: index for index, seat in enumerate(self.seats)}
        self._slot_index = layout.slot_index
        self._pawns: dict[str, Pawn] = {}
        # Kept in reading order as pawns come and go, so that free_slots() is a
        # copy, not a scan of the 80 slots (a random playout asks every turn).
        self._free = list(layout.slots)
        self._stock = [[ATTACK_PAWNS, DEFENSE_PAWNS] for _ in self.seats]
        self._out = [False] * len(self.seats)
        self._clockwise = (*range(1, len(self.seats)), 0)
        """The seat after each seat, clockwise."""
        self._history: list[Placement] = []
        self._eliminated: list[Elimination] = []
        self._circuit = Circuit(layout)
        for slots in handicap_plan(layout, self.handicap).values() if self.handicap else ():
            for slot in slots:
                self._pawns[slot] = (None, PawnKind.ATTACK)
                self._free.remove(slot)
                self._circuit.add_attack(slot)
        self._outcome: Outcome | None = None
        self._to_move: int | None = first
        self._settle(last_player=first - 1)

    @classmethod
    def with_drawn_order(
        cls,
        layout: Layout,
        seats: Sequence[Seat],
        *,
        seed: int | str | None = None,
        handicap: Mapping[str, int] | None = None,
    ) -> Game:
        """A game whose first player is drawn as the rules describe (see :mod:`games.hautetension.draw`)."""
        return cls(layout, seats, first=draw_first_player(len(seats), seed), handicap=handicap)

    # -- state ---------------------------------------------------------------

    @property
    def to_move(self) -> int | None:
        """Seat of the player who places the next pawn, or None once the game is over."""
        return self._to_move

    @property
    def lit(self) -> frozenset[str]:
        return self._circuit.lit

    @property
    def closed_rows(self) -> frozenset[str]:
        """Closed rows. Secret: they tell which pawns conduct; views never show them."""
        return self._circuit.closed_rows

    @property
    def pawns(self) -> Mapping[str, Pawn]:
        """Slot → (owner seat or None for a handicap pawn, kind). Secret: kinds are private."""
        return dict(self._pawns)

    @property
    def history(self) -> tuple[Placement, ...]:
        return tuple(self._history)

    @property
    def eliminated(self) -> tuple[Elimination, ...]:
        """Eliminations in the order the lamps lit."""
        return tuple(self._eliminated)

    def is_eliminated(self, player: int) -> bool:
        return self._out[self._check_seat(player)]

    def stock(self, player: int) -> tuple[int, int]:
        """(attack pawns left, defense pawns left) of a seat. Secret to that player."""
        attack, defense = self._stock[self._check_seat(player)]
        return (attack, defense)

    def pawns_left(self, player: int) -> int:
        """How many pawns a seat has left, of either kind (public: everyone can count them)."""
        attack, defense = self._stock[self._check_seat(player)]
        return attack + defense

    def owner_of(self, lamp: str) -> int | None:
        """Seat that owns *lamp*, or None for a lamp nobody owns."""
        return self._owner_of_lamp.get(lamp)

    def free_slots(self) -> list[str]:
        """Free slots in reading order."""
        return self._free[:]

    def legal_kinds(self) -> list[PawnKind]:
        """Kinds the player to move may still place (none once the game is over)."""
        if self._to_move is None:
            return []
        attack, defense = self._stock[self._to_move]
        if attack and defense:  # nearly every turn: no filtering to do
            return [_ATTACK, _DEFENSE]
        return [_ATTACK] if attack else [_DEFENSE] if defense else []

    def legal_moves(self) -> list[tuple[str, PawnKind]]:
        """Every (slot, kind) the player to move may place, slots in reading order."""
        kinds = self.legal_kinds()
        return [(slot, kind) for slot in self.free_slots() for kind in kinds]

    def is_over(self) -> bool:
        return self._outcome is not None

    def outcome(self) -> Outcome | None:
        return self._outcome

    def points(self) -> tuple[int, ...]:
        """Tournament points of each seat; before the end, as if the game stopped now."""
        return tournament_points(len(self.seats), self._history)

    # -- moves ---------------------------------------------------------------

    def push(self, slot: str, kind: PawnKind | str, *, player: int | None = None) -> Placement:
        """Place a pawn for the player to move (or check that it is *player*'s turn)."""
        # The hot path of every playout and replay. The checks come first, in
        # this order, each with its own error; they cost a few dict lookups.
        mover = self._to_move
        if mover is None:
            raise GameOverError("the game is over: no more pawns can be placed")
        if player is not None and player != mover:
            raise NotYourTurnError(
                f"it is not {self._seat_label(player)}'s turn: {self._seat_label(mover)} plays now"
            )
        # Identity tests rather than a dict keyed by kind: hashing an Enum
        # member is a Python-level call.
        if kind is not _ATTACK and kind is not _DEFENSE:
            kind = _pawn_kind(kind)
        if slot not in self._slot_index:
            self.layout.check_slot(slot)  # raises UnknownSlotError
        pawns = self._pawns
        if slot in pawns:
            raise SlotTakenError(f"slot {slot} already holds a pawn")
        stock = self._stock[mover]
        stock_index = 0 if kind is _ATTACK else 1
        if not stock[stock_index]:
            raise NoPawnLeftError(f"{self._seat_label(mover)} has no {kind.value} pawn left")

        stock[stock_index] -= 1
        pawns[slot] = (mover, kind)
        self._free.remove(slot)
        lit = self._circuit.add_attack(slot) if stock_index == 0 else _NO_LAMPS
        eliminated = self._eliminate(lit, mover) if lit else ()
        # What Placement(...) does, without the Python-level __new__ a named
        # tuple adds (0.12 µs against 0.21 µs, timeit): 3 % of a playout.
        placement = _new_placement(Placement, (slot, kind, mover, lit, eliminated))
        self._history.append(placement)
        if lit or not self._free:
            self._settle(last_player=mover)
            return placement
        # Nothing lit, so nobody left the game and the lamps are as they were:
        # of _compute_outcome's checks only "no pawn left" can end the game
        # now, and finding who plays next answers it. Skipping the full check
        # on the placements that light nothing (96 % of them in random games),
        # and trying the next seat before the clockwise search, took deciding
        # what comes next from half of push's time to a tenth (cProfile of
        # bench/hautetension_engine.py's games).
        following = self._clockwise[mover]
        left = self._stock[following]
        if self._out[following] or not (left[0] or left[1]):
            next_player = self._next_player(mover)
            if next_player is None:
                self._settle(last_player=mover)
                return placement
            following = next_player
        self._to_move = following
        return placement

    def pop(self) -> Placement:
        """Undo the last placement exactly and return it."""
        if not self._history:
            raise NothingToUndoError("no placement to undo")
        placement = self._history.pop()
        del self._pawns[placement.slot]
        insort(self._free, placement.slot, key=self._slot_index.__getitem__)
        self._stock[placement.player][_STOCK_INDEX[placement.kind]] += 1
        if placement.kind is PawnKind.ATTACK:
            self._circuit.remove_attack(placement.slot)
        for player in placement.eliminated:
            self._out[player] = False
        del self._eliminated[len(self._eliminated) - len(placement.eliminated) :]
        self._outcome = None
        self._to_move = placement.player
        return placement

    def copy(self) -> Game:
        """An independent copy (for computer players that search ahead)."""
        clone = Game.__new__(Game)
        clone.__dict__.update(self.__dict__)
        clone.handicap = dict(self.handicap)
        clone._pawns = dict(self._pawns)
        clone._free = self._free[:]
        clone._stock = [list(s) for s in self._stock]
        clone._out = list(self._out)
        clone._history = list(self._history)
        clone._eliminated = list(self._eliminated)
        clone._circuit = self._circuit.copy()
        return clone

    # -- storage (what players see is in views.py) -----------------------------

    def to_json(self) -> dict[str, Any]:
        """The whole game, pawn kinds included, for storage (not for players' eyes)."""
        data: dict[str, Any] = {
            "layout": self.layout.name,
            "seats": [{"name": s.name, "lamp": s.lamp, "colour": s.colour} for s in self.seats],
            "first": self.first,
            "handicap": dict(self.handicap),
            "moves": [[p.slot, p.kind.value] for p in self._history],
        }
        if self.layout.name not in available_layouts() or load_layout(self.layout.name) != self.layout:
            data["layout_data"] = self.layout.to_dict()
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Game:
        """Rebuild a game written by :meth:`to_json`, replaying every placement."""
        try:
            layout_data = data.get("layout_data")
            layout = (
                parse_layout(layout_data) if layout_data is not None else load_layout(str(data["layout"]))
            )
            seats = [
                Seat(name=str(s["name"]), lamp=str(s["lamp"]), colour=str(s["colour"])) for s in data["seats"]
            ]
            game = cls(layout, seats, first=int(data.get("first", 0)), handicap=data.get("handicap") or None)
            moves = [(str(slot), str(kind)) for slot, kind in data.get("moves", [])]
        except (KeyError, TypeError, ValueError) as exc:
            if isinstance(exc, GameError):
                raise
            raise SetupError(f"not a saved Haute-Tension game: {exc}") from None
        for slot, kind in moves:
            game.push(slot, kind)
        return game

    # -- internals -----------------------------------------------------------

    def _eliminate(self, lit: frozenset[str], mover: int) -> tuple[int, ...]:
        """Put out the players whose lamps *lit* has just lit; return their seats."""
        out = self._owners_of(lit)
        move = len(self._history) + 1
        for player_out in out:
            self._out[player_out] = True
            self._eliminated.append(Elimination(player_out, self.seats[player_out].lamp, move, mover))
        return out

    def _settle(self, *, last_player: int) -> None:
        """Decide whether the game is over and, if not, whose turn it is."""
        self._outcome = self._compute_outcome()
        self._to_move = None if self._outcome else self._next_player(last_player)

    def _compute_outcome(self) -> Outcome | None:
        remaining = tuple(i for i, out in enumerate(self._out) if not out)
        if not remaining:
            # Allied lamps lit together: the players they eliminated finish level.
            return Outcome(Termination.SIMULTANEOUS_ELIMINATION, self._history[-1].eliminated)
        if len(remaining) == 1:
            return Outcome(Termination.LAST_PLAYER_STANDING, remaining)
        if len(self.layout.lamps) - len(self._circuit.lit) < 2:
            return Outcome(Termination.FEWER_THAN_TWO_UNLIT_LAMPS, remaining)
        if not self._free:
            return Outcome(Termination.NO_FREE_SLOT, remaining)
        if not any(self._has_pawns(i) for i in remaining):
            return Outcome(Termination.NO_PAWN_LEFT, remaining)
        return None

    def _owners_of(self, lamps: frozenset[str]) -> tuple[int, ...]:
        return tuple(sorted(p for p in (self._owner_of_lamp.get(lamp) for lamp in lamps) if p is not None))

    def _has_pawns(self, player: int) -> bool:
        attack, defense = self._stock[player]
        return attack + defense > 0

    def _next_player(self, after: int) -> int | None:
        """Next seat clockwise still in the game with a pawn left, or None if there is none."""
        out, stock = self._out, self._stock
        n = len(out)
        candidate = after
        for _ in range(n):
            candidate = candidate + 1 if candidate + 1 < n else 0
            if not out[candidate] and (stock[candidate][0] or stock[candidate][1]):
                return candidate
        return None

    def _check_seat(self, player: int) -> int:
        if not 0 <= player < len(self.seats):
            raise SetupError(f"there is no seat {player} (seats 0 to {len(self.seats) - 1})")
        return player

    def _seat_label(self, player: int) -> str:
        if 0 <= player < len(self.seats):
            return self.seats[player].name
        return f"seat {player}"

    def __repr__(self) -> str:
        return f"<Game {self.layout.name} seats={[s.name for s in self.seats]} moves={len(self._history)}>"


_STOCK_INDEX = {PawnKind.ATTACK: 0, PawnKind.DEFENSE: 1}
_ATTACK, _DEFENSE = PawnKind.ATTACK, PawnKind.DEFENSE
_NO_LAMPS: frozenset[str] = frozenset()
_new_placement = tuple.__new__


def _pawn_kind(kind: PawnKind | str) -> PawnKind:
    if isinstance(kind, PawnKind):
        return kind
    try:
        return PawnKind(kind)
    except ValueError:
        raise IllegalMoveError(f"a pawn is 'attack' or 'defense', not {kind!r}") from None


def _check_lamps(layout: Layout, seats: Sequence[Seat]) -> None:
    lamps = [seat.lamp for seat in seats]
    unknown = [lamp for lamp in lamps if lamp not in layout.lamp_positions]
    if unknown:
        raise SetupError(
            f"lamp(s) {', '.join(unknown)} are not on board {layout.name} ({', '.join(layout.lamps)})"
        )
    if len(set(lamps)) != len(lamps):
        raise SetupError("two players cannot own the same lamp")
