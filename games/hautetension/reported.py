"""A game as a board reports it to an event server: checked move by move, its points derived.

An event server authenticates its boards but never believes them. A board
ends a game with its public record (docs/event-network.md, ``game-end``): the
layout, the players in seat order, who played first, the handicap, and every
placement as everyone at the table saw it — the slot, the seat that placed the
pawn, the lamps that placement lit, the seats it put out — with the points the
board claims. :func:`judge` replays that record with the rules anyone can
follow without knowing the pawns' kinds (:class:`games.hautetension.record.PublicGame`):
turn order, free slots, the handicap pawns, each seat's pawns within its
allowance, who a lamp puts out, that the game ended exactly when the rules end
it. A lamp is taken as the board reports it (whether a pawn conducts is its
owner's secret), but only where it could have lit: the placement must close a
row whose five slots all hold a pawn, and the lamp must be joined to the
battery by such rows. The points are then computed from the lamps by the
project's own scoring (:func:`games.hautetension.outcome.tournament_points`),
and a claim that differs is refused: the board's number is never the result.

:meth:`ReportedGame.from_json` is the one reader of that record: a points list
holding anything but whole numbers of a possible score, a seat that does not
exist, a slot name of a thousand characters, cannot be represented.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypedDict

from games.exc import GameError
from games.hautetension.circuit import lit_lamps
from games.hautetension.game import Game
from games.hautetension.handicap import MAX_HANDICAP
from games.hautetension.layout import Layout, available_layouts, load_layout
from games.hautetension.outcome import MAX_GAME_POINTS, Lighting, Placement, tournament_points
from games.hautetension.pawn import ATTACK_PAWNS, DEFENSE_PAWNS, PawnKind
from games.hautetension.record import Move, PublicGame
from games.hautetension.seats import DEFAULT_COLOURS, MAX_PLAYERS, MIN_PLAYERS, Seat, default_lamps

MAX_PLACEMENTS = MAX_PLAYERS * (ATTACK_PAWNS + DEFENSE_PAWNS)
"""No game has more placements than every seat's pawns (a board has fewer slots anyway)."""
MAX_TEXT = 64
"""Longest name, slot or lamp read from a board (a player's name is at most 24 characters)."""


class ReportedPlacementData(TypedDict):
    """A :class:`ReportedPlacement` as a ``game-end`` carries it."""

    slot: str
    player: int
    lit: list[str]
    eliminated: list[int]


class ReportedGameData(TypedDict):
    """A :class:`ReportedGame` as a ``game-end`` carries it (what :meth:`ReportedGame.from_json` reads)."""

    layout: str
    players: list[str]
    first: int
    handicap: dict[str, int]
    placements: list[ReportedPlacementData]
    points: list[int]


class ReportedGameError(GameError, ValueError):
    """A board's game that cannot be read, or cannot have been played as reported (the message says why,
    for staff)."""


@dataclass(frozen=True)
class ReportedPlacement:
    """One placement as everyone at the table saw it."""

    slot: str
    player: int
    """The seat that placed the pawn."""
    lit: tuple[str, ...] = ()
    """Lamps this placement lit."""
    eliminated: tuple[int, ...] = ()
    """Seats it put out."""

    def to_json(self) -> ReportedPlacementData:
        return {
            "slot": self.slot,
            "player": self.player,
            "lit": list(self.lit),
            "eliminated": list(self.eliminated),
        }


@dataclass(frozen=True)
class ReportedGame:
    """A finished game's public record as its board reports it, with the points the board claims."""

    layout: str
    players: tuple[str, ...]
    """Names in seat order (clockwise: the turn order); seat *i* owns the *i*-th default lamp."""
    first: int
    handicap: tuple[tuple[str, int], ...]
    """Lamp → handicap attack pawns, lamps in order, none with 0."""
    placements: tuple[ReportedPlacement, ...]
    points: tuple[int, ...]
    """What the board claims each seat scored."""

    @classmethod
    def from_json(cls, body: Any) -> ReportedGame:
        """Read the record from a ``game-end`` row's body; :class:`ReportedGameError` says what is wrong
        (the first problem). A body of an older board, without its placements, is refused by name."""
        if not isinstance(body, Mapping):
            raise ReportedGameError("a game end is an object")
        if "placements" not in body:
            raise ReportedGameError(
                "the board's software is older than the event server's: its game end lists no placements,"
                " so its points cannot be checked (update the board's software)"
            )
        layout = _text(body.get("layout"), "layout")
        if layout not in available_layouts():
            raise ReportedGameError(f"the game names layout {layout!r}, which the event server does not know")
        raw_players = body.get("players")
        if not isinstance(raw_players, list) or not MIN_PLAYERS <= len(raw_players) <= MAX_PLAYERS:
            raise ReportedGameError(f"players are a list of {MIN_PLAYERS} to {MAX_PLAYERS} names")
        players = tuple(_text(p, "a player's name") for p in raw_players)
        seats = len(players)
        first = _whole(body.get("first"), "first", seats - 1)
        raw_handicap = body.get("handicap", {})
        if not isinstance(raw_handicap, Mapping) or len(raw_handicap) > MAX_PLAYERS:
            raise ReportedGameError("the handicap is an object {lamp: pawns}")
        handicap = tuple(
            sorted(
                (_text(lamp, "a handicap lamp"), _whole(n, "a handicap", MAX_HANDICAP))
                for lamp, n in raw_handicap.items()
            )
        )
        raw_placements = body.get("placements")
        if not isinstance(raw_placements, list) or len(raw_placements) > MAX_PLACEMENTS:
            raise ReportedGameError(f"placements are a list of at most {MAX_PLACEMENTS}")
        placements = tuple(_placement(p, number, seats) for number, p in enumerate(raw_placements, 1))
        raw_points = body.get("points")
        if not isinstance(raw_points, list) or len(raw_points) != seats:
            raise ReportedGameError(f"the points are a list of {seats} whole numbers, one a seat")
        points = tuple(_whole(p, "points", MAX_GAME_POINTS) for p in raw_points)
        return cls(layout, players, first, tuple((lamp, n) for lamp, n in handicap if n), placements, points)

    @classmethod
    def of_game(cls, game: Game) -> ReportedGame:
        """The public record of a game played with the engine (what a board reports when it ends)."""
        return cls(
            game.layout.name,
            tuple(seat.name for seat in game.seats),
            game.first,
            tuple(sorted((lamp, n) for lamp, n in game.handicap.items() if n)),
            tuple(
                ReportedPlacement(p.slot, p.player, tuple(sorted(p.lit)), tuple(p.eliminated))
                for p in game.history
            ),
            game.points(),
        )

    def to_json(self) -> ReportedGameData:
        """The record as a ``game-end`` row carries it (what :meth:`from_json` reads)."""
        return {
            "layout": self.layout,
            "players": list(self.players),
            "first": self.first,
            "handicap": dict(self.handicap),
            "placements": [p.to_json() for p in self.placements],
            "points": list(self.points),
        }

    @property
    def lamps(self) -> tuple[str, ...]:
        """The lamps the seats own (a board seats its players on the default lamps)."""
        return default_lamps(len(self.players))


@dataclass(frozen=True)
class Verdict:
    """What a reported game's placements give, computed by the event server."""

    points: tuple[int, ...]
    lightings: tuple[Lighting, ...]


def judge(game: ReportedGame) -> Verdict:
    """Replay *game*'s placements under the rules, derive its points and compare them with the board's
    claim; raise :class:`ReportedGameError` with the first thing that does not hold."""
    layout = load_layout(game.layout)  # a shipped layout: from_json accepts no other name
    seats = [
        Seat(name, lamp, colour)
        for name, lamp, colour in zip(game.players, game.lamps, DEFAULT_COLOURS, strict=False)
    ]
    try:
        setup = Game(layout, seats, first=game.first, handicap=dict(game.handicap) or None)
    except GameError as exc:
        raise ReportedGameError(f"the game cannot be set up as reported: {exc}") from None
    public = PublicGame(setup)
    for number, placement in enumerate(game.placements, 1):
        move = Move(number, None, placement.player, placement.slot, placement.lit, placement.eliminated)
        try:
            public.play(move, number)
        except GameError as exc:
            raise ReportedGameError(f"placement {number}: {getattr(exc, 'problem', exc)}") from None
        if placement.lit:
            _could_light(layout, public.taken, placement, number)
    if not public.is_over():
        raise ReportedGameError(
            f"the rules do not end the game after these {len(game.placements)} placements:"
            " the board ended it early"
        )
    scored = [
        Placement(p.slot, PawnKind.ATTACK, p.player, frozenset(p.lit), tuple(sorted(p.eliminated)))
        for p in game.placements
    ]
    points = tournament_points(len(game.players), scored)
    if points != game.points:
        raise ReportedGameError(
            f"the board claims points {list(game.points)}, but its placements give {list(points)}"
        )
    lightings = tuple(Lighting(p.eliminated, p.player) for p in scored if p.eliminated)
    return Verdict(points, lightings)


def check_table(
    game: ReportedGame,
    *,
    players: Sequence[str],
    first: int,
    lamps: Sequence[str],
    handicap: Mapping[str, int],
) -> None:
    """Raise :class:`ReportedGameError` unless *game* was set up as the table the event server assigned:
    the same players in the same seats (so the same turn order and lamps), the same first player, the
    same handicap pawns."""
    if list(game.players) != list(players):
        raise ReportedGameError(f"the board seated {list(game.players)}, but the table seats {list(players)}")
    if list(game.lamps) != list(lamps):
        raise ReportedGameError(f"the board's seats own lamps {list(game.lamps)}, the table's {list(lamps)}")
    if game.first != first:
        raise ReportedGameError(
            f"{game.players[game.first]} played first on the board, but the table has {players[first]} start"
        )
    wanted = tuple(sorted((lamp, n) for lamp, n in handicap.items() if n))
    if game.handicap != wanted:
        raise ReportedGameError(f"the board's handicap is {dict(game.handicap)}, the table's {dict(wanted)}")


def _could_light(layout: Layout, taken: set[str], placement: ReportedPlacement, number: int) -> None:
    """A lamp can light on a placement only through rows whose five slots all hold a pawn, one of them
    through the slot just filled (which pawns conduct is secret: every pawn is counted as one that may)."""
    full = {row.id for row in layout.rows if all(slot in taken for slot in row.slots)}
    if not any(layout.rows[i].id in full for i in layout.rows_of_slot[placement.slot]):
        raise ReportedGameError(
            f"placement {number} on {placement.slot} lit {' '.join(placement.lit)}, but it fills no row"
        )
    reachable = lit_lamps(layout, full)
    beyond = sorted(set(placement.lit) - reachable)
    if beyond:
        raise ReportedGameError(
            f"placement {number} lit {' '.join(beyond)}, which no row of pawns joins to the battery"
        )


def _placement(value: Any, number: int, seats: int) -> ReportedPlacement:
    if not isinstance(value, Mapping):
        raise ReportedGameError(f"placement {number} is an object {{slot, player, lit, eliminated}}")
    lit, out = value.get("lit", []), value.get("eliminated", [])
    if not isinstance(lit, list) or not isinstance(out, list) or len(lit) > 4 or len(out) > seats:
        raise ReportedGameError(f"placement {number}: lit and eliminated are short lists")
    return ReportedPlacement(
        _text(value.get("slot"), f"placement {number}'s slot"),
        _whole(value.get("player"), f"placement {number}'s player", seats - 1),
        tuple(_text(lamp, f"placement {number}'s lamp") for lamp in lit),
        tuple(_whole(seat, f"placement {number}'s eliminated seat", seats - 1) for seat in out),
    )


def _text(value: Any, what: str) -> str:
    if not isinstance(value, str) or not 1 <= len(value) <= MAX_TEXT:
        raise ReportedGameError(f"{what} is a text of 1 to {MAX_TEXT} characters")
    return value


def _whole(value: Any, what: str, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= high:
        raise ReportedGameError(f"{what} is a whole number from 0 to {high}")
    return value
