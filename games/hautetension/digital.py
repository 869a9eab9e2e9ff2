"""Haute-Tension on the :mod:`games.frame` protocol: the digital game.

Moves are ``{"slot": "e9", "pawn": "attack"}`` (or ``"defense"``): the player
to act places one of their own pawns. Options (all optional):

- ``layout``: a shipped layout name (default ``pinwheel-80``);
- ``handicap``: ``{lamp: 1..3}`` attack pawns placed before play on those
  lamps' direct rows;
- ``first``: the seat that plays first; by default it is drawn from the
  game's seed with the rules' draw;
- ``turn_timer``: seconds a player has for a move (0: no timer, the default);
- ``default_action``: what :meth:`DigitalHauteTension.default_move` plays when
  the timer runs out: ``"random"`` (a random free slot and a kind drawn in
  proportion to the player's stock, the default), ``"random-attack"`` or
  ``"random-defense"`` (the other kind when none of that one is left).

The host enforces the timer and pushes :meth:`default_move` on expiry.

Secrecy: ``view(seat)`` is the engine's player view (only that seat's own
pawn kinds and stock), ``view(None)`` the public view (no kind at all).
:meth:`legal_moves` and :meth:`default_move` tell the kinds the player to act
still holds: they are for that player (or its computer player) only, as are
error messages about a pawn kind. ``to_json()`` holds every kind: storage
only. With ``default_action`` ``"random-attack"`` or ``"random-defense"``,
anyone who can tell a move timed out can guess its kind; ``"random"`` gives
nothing away.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import ClassVar, Final, Literal, TypedDict

from games.exc import GameError, GameOverError
from games.frame import JSON, BadMoveError, BadOptionsError, DigitalGame, Move, Outcome, register_game
from games.hautetension.ai import AI_LEVELS
from games.hautetension.draw import draw_first_player
from games.hautetension.game import Game
from games.hautetension.handicap import MAX_HANDICAP
from games.hautetension.layout import DEFAULT_LAYOUT, available_layouts, load_layout
from games.hautetension.pawn import PawnKind
from games.hautetension.seats import default_seats
from games.hautetension.setup import LAMPS
from games.hautetension.views import player_view, public_view
from games.options import Kind, Option

DEFAULT_ACTIONS: Final = ("random", "random-attack", "random-defense")

OPTIONS: Final = (
    Option(
        "layout",
        Kind.CHOICE,
        "layout must be one of {choices}, not {value!r}",
        default=DEFAULT_LAYOUT,
        choices=lambda table: available_layouts(),
    ),
    Option(
        "first",
        Kind.SEAT,
        "first must be a seat number from 0 to {last_seat}, not {value!r}",
        about="The seat that plays first; null: drawn.",
    ),
    Option(
        "handicap",
        Kind.PAWNS,
        "handicap maps a lamp to 0-{maximum} pawns, not {value!r}",
        default={},
        choices=LAMPS,  # the game refuses a lamp its layout does not have
        minimum=0,
        maximum=MAX_HANDICAP,
        about="Lamp -> attack pawns placed before play.",
    ),
    Option(
        "turn_timer",
        Kind.NUMBER,
        "turn_timer is a number of seconds (0: none), not {value!r}",
        default=0,
        minimum=0,
        about="Seconds per turn (0: none).",
    ),
    Option(
        "default_action",
        Kind.CHOICE,
        "default_action must be one of {choices}, not {value!r}",
        default="random",
        choices=DEFAULT_ACTIONS,
        about="What the timer plays for a seat that ran out of time.",
    ),
)
"""The options of digital Haute-Tension: the layout, the first player (drawn unless chosen), the
handicap by lamp, the turn timer and what it plays for a seat out of time."""


def parse_move(move: Move) -> tuple[str, PawnKind]:
    """Read ``{"slot": ..., "pawn": "attack" | "defense"}``; BadMoveError names what is wrong."""
    if not isinstance(move, Mapping) or set(move) != {"slot", "pawn"}:
        raise BadMoveError(f'a move is {{"slot": "e9", "pawn": "attack" or "defense"}}, not {move!r}')
    slot, pawn = move["slot"], move["pawn"]
    if not isinstance(slot, str):
        raise BadMoveError(f"a slot is named like 'e9', not {slot!r}")
    if pawn not in ("attack", "defense"):
        raise BadMoveError(f"a pawn is 'attack' or 'defense', not {pawn!r}")
    return slot, PawnKind(pawn)


class PlacementMove(TypedDict):
    """A move of digital Haute-Tension: a pawn of a kind on a slot."""

    slot: str
    pawn: Literal["attack", "defense"]


def move_json(slot: str, kind: PawnKind) -> PlacementMove:
    return {"slot": slot, "pawn": "attack" if kind == PawnKind.ATTACK else "defense"}


class DigitalHauteTension(DigitalGame):
    """A game of Haute-Tension for 2-4 players over the network (see ``docs/digital-hautetension.md``)."""

    name: ClassVar[str] = "hautetension"
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 4
    hidden_information: ClassVar[bool] = True  # pawn kinds: no hot seat (the bluff would die)
    known_options: ClassVar[tuple[Option, ...]] = OPTIONS

    def __init__(
        self, players: Sequence[str], *, options: Mapping[str, JSON] | None = None, seed: int | None = None
    ) -> None:
        super().__init__(players, options=options, seed=seed)
        self.layout = load_layout(self.options["layout"])
        self.seats = default_seats(self.players)
        first = self.options["first"]
        self.first: int = draw_first_player(len(self.players), self.seed) if first is None else first
        self._restart()

    def _restart(self) -> None:
        try:
            self.game = Game(
                self.layout, self.seats, first=self.first, handicap=self.options["handicap"] or None
            )
        except GameError as exc:
            raise BadOptionsError(str(exc)) from exc

    # -- state ---------------------------------------------------------------

    @property
    def to_act(self) -> int | None:
        return self.game.to_move

    def legal_moves(self) -> list[PlacementMove]:
        """Every placement of the player to act. Tells which kinds they hold: theirs only."""
        return [move_json(slot, kind) for slot, kind in self.game.legal_moves()]

    def _apply(self, move: Move) -> None:
        slot, kind = parse_move(move)
        if slot not in self.layout.slot_positions:
            raise BadMoveError(f"there is no slot {slot!r} on {self.layout.name}")
        self.game.push(slot, kind)

    def outcome(self) -> Outcome | None:
        result = self.game.outcome()
        if result is None:
            return None
        return Outcome(result.termination, result.winners, tuple(float(p) for p in self.game.points()))

    def view(self, seat: int | None = None) -> dict[str, JSON]:
        """The seat's player view, or the public view for a spectator (``None``).

        Both add ``lit_at`` (lamp -> number of the placement that lit it, 0 for
        handicap pawns: everyone sees lamps light) and the ``turn_timer``.
        """
        if seat is None:
            view = public_view(self.game)
        else:
            if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < len(self.players):
                raise BadOptionsError(f"there is no seat {seat!r}")
            view = player_view(self.game, seat)
        view["lit_at"] = self.lit_at()
        view["turn_timer"] = {
            "seconds": self.options["turn_timer"],
            "default_action": self.options["default_action"],
        }
        return view

    def lit_at(self) -> dict[str, int]:
        lit: dict[str, int] = {lamp: 0 for lamp in self.game.lit}
        for number, placement in enumerate(self.game.history, 1):
            for lamp in placement.lit:
                lit[lamp] = number
        return lit

    # -- the turn timer ----------------------------------------------------------

    def default_move(self) -> PlacementMove:
        """The move played for the player to act when their time runs out (uses the game's seeded rng)."""
        seat = self.game.to_move
        if seat is None:
            raise GameOverError("the game is over: there is no move to play")
        attack, defense = self.game.stock(seat)
        action = self.options["default_action"]
        if action == "random-attack":
            kind = PawnKind.ATTACK if attack else PawnKind.DEFENSE
        elif action == "random-defense":
            kind = PawnKind.DEFENSE if defense else PawnKind.ATTACK
        else:
            kind = PawnKind.ATTACK if self.rng.randrange(attack + defense) < attack else PawnKind.DEFENSE
        return move_json(self.rng.choice(self.game.free_slots()), kind)

    # -- copies ------------------------------------------------------------------

    def copy(self) -> DigitalHauteTension:
        clone = DigitalHauteTension.__new__(DigitalHauteTension)
        clone.__dict__.update(self.__dict__)
        clone.options = dict(self.options)
        clone.history = list(self.history)
        clone.rng = type(self.rng)()
        clone.rng.setstate(self.rng.getstate())
        clone.game = self.game.copy()
        return clone

    def points(self) -> tuple[int, ...]:
        """Tournament points of each seat (as if the game stopped now before its end)."""
        return self.game.points()


register_game(DigitalHauteTension, ai_levels=AI_LEVELS)
