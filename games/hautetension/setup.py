"""Setting up a game on the physical board: who plays, in which colour, who starts, the handicap.

One set of rules for every way such a game is set up. The staff page
(``webpanel/staff.py``) checks a request with it before it queues the
``NEW_GAME`` command; the board service checks the command with it again
before it starts the game (a command may come from the terminal too,
``hautetension game new``). Every problem is reported at once.

- 2 to 4 players, clockwise (that is the turn order), each a name and a pawn
  colour, or just a name (the colours then go red, blue, black, white in seat
  order). A name has 1 to 24 printable characters; a colour is one of
  :data:`COLOURS` or ``#rrggbb``. No two players have the same name or the same
  colour, compared without case: "Ana" and "ana" are one player to the table.
- Lamps are the default lamps of that many players (DESIGN §3).
- ``handicap``: lamp → 0 to 3 attack pawns placed before play (0: none).
- ``first``: a seat number, or ``"draw"`` for the rules' draw, made from
  ``seed`` (a whole number; the service draws one at random when none is given,
  and keeps it, so the draw can be checked afterwards).
- ``pregame_check``: ``"ask"`` (the default: every lamp must light while the
  players hold the test button before play) or ``"skip"`` (staff skip it; the
  journal, the record and the replay say so).
- ``skipped_by``: who skips it, ``"staff"`` (the default) or ``"demo"`` (the
  demo game ``make run`` starts by itself: nobody is at the board to hold the
  button). The staff page's request cannot say it (webpanel/staff.py takes
  only the fields above).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal

from games.exc import GameError, GameSetupError, SetupError
from games.hautetension.draw import draw_first_player
from games.hautetension.game import Game
from games.hautetension.handicap import MAX_HANDICAP
from games.hautetension.layout import Layout
from games.hautetension.seats import DEFAULT_COLOURS, MAX_PLAYERS, MIN_PLAYERS, Seat, default_lamps

COLOURS = ("red", "blue", "black", "white", "green", "yellow", "orange", "purple")
"""The pawn colours by name; any ``#rrggbb`` is a colour too."""
HEX_COLOUR = re.compile(r"^#[0-9a-fA-F]{6}$")
MAX_NAME = 24
LAMPS = ("N", "E", "S", "W")
"""The lamps a handicap may name, unless the board's layout says otherwise."""
MAX_SEED = 2**63 - 1
PLAYER_FIELDS = frozenset({"name", "colour"})
PREGAME_CHECK = ("ask", "skip")
SKIPPED_BY = ("staff", "demo")
"""Who may skip the pre-game check: staff, or the demo game of ``make run``."""

First = int | Literal["draw"]


@dataclass(frozen=True)
class PlayerSetup:
    """One player at the table: a name and the colour of their pawns."""

    name: str
    colour: str


@dataclass(frozen=True)
class GameSetup:
    """A checked game setup (build it with :meth:`from_payload`)."""

    players: tuple[PlayerSetup, ...]
    first: First = 0
    seed: int | None = None
    handicap: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))
    """Lamp → handicap attack pawns; lamps without a handicap are left out."""
    pregame_check: bool = True
    """Whether the lamps are checked before play (hardware/service/pregame.py)."""
    skipped_by: str = "staff"
    """Who skipped the check when it is skipped (:data:`SKIPPED_BY`)."""

    @classmethod
    def from_payload(
        cls, payload: Mapping[str, Any], *, lamps: Sequence[str] = LAMPS, first: First = 0
    ) -> GameSetup:
        """Check a ``NEW_GAME`` payload; raise :class:`GameSetupError` listing every problem.

        *lamps* are the lamps a handicap may name (the board's layout); *first* is who starts when
        the payload does not say."""
        problems: list[str] = []
        players = _players(payload.get("players"), problems)
        count = len(players) if players else MAX_PLAYERS
        chosen = payload.get("first", first)
        if chosen != "draw":
            chosen = _whole(chosen, 'first (or "draw")', count - 1, problems)
        seed = payload.get("seed")
        if seed is not None:
            seed = _whole(seed, "seed", MAX_SEED, problems)
        handicap = _handicap(payload.get("handicap"), lamps, problems)
        check = payload.get("pregame_check", "ask")
        if check not in PREGAME_CHECK:
            problems.append('pregame_check must be "ask" or "skip"')
        skipped_by = payload.get("skipped_by", "staff")
        if skipped_by not in SKIPPED_BY:
            problems.append('skipped_by must be "staff" or "demo"')
        if problems:
            raise GameSetupError(problems)
        return cls(tuple(players), chosen, seed, MappingProxyType(handicap), check == "ask",
                   skipped_by if check == "skip" else "staff")

    @property
    def seats(self) -> tuple[Seat, ...]:
        """The players with the lamps they own, clockwise."""
        lamps = default_lamps(len(self.players))
        return tuple(Seat(name=p.name, lamp=lamp, colour=p.colour)
                     for p, lamp in zip(self.players, lamps, strict=True))

    @property
    def first_seat(self) -> int:
        """The seat that plays first (the draw needs the seed)."""
        if self.first != "draw":
            return self.first
        if self.seed is None:
            raise SetupError('the draw for the first player needs a seed')
        return draw_first_player(len(self.players), self.seed)

    def start(self, layout: Layout) -> Game:
        """The empty game this setup describes on *layout* (its handicap pawns to be placed)."""
        try:
            return Game(layout, self.seats, first=self.first_seat, handicap=dict(self.handicap) or None)
        except GameError as exc:
            raise SetupError(str(exc)) from None

    def to_payload(self) -> dict[str, Any]:
        """The ``NEW_GAME`` command's payload (what :meth:`from_payload` reads back)."""
        payload: dict[str, Any] = {
            "players": [{"name": p.name, "colour": p.colour} for p in self.players],
            "first": self.first,
        }
        if self.seed is not None:
            payload["seed"] = self.seed
        if self.handicap:
            payload["handicap"] = dict(self.handicap)
        if not self.pregame_check:
            payload["pregame_check"] = "skip"
            if self.skipped_by != "staff":
                payload["skipped_by"] = self.skipped_by
        return payload

    def to_record(self) -> dict[str, Any]:
        """The setup as the journal keeps it: the payload plus the seat that was drawn."""
        return {
            "players": [{"name": p.name, "colour": p.colour} for p in self.players],
            "first": self.first,
            "first_seat": self.first_seat,
            "seed": self.seed,
            "handicap": dict(self.handicap),
            "pregame_check": "ask" if self.pregame_check else "skip",
        }

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> GameSetup:
        """The setup a journal's ``game-start`` kept, as it was accepted then (not checked again:
        an older version may have accepted what these rules refuse, and the game must replay). A game
        set up before the pre-game check existed had none."""
        players = tuple(PlayerSetup(str(p["name"]), str(p["colour"])) for p in record["players"])
        handicap = {str(lamp): int(n) for lamp, n in (record.get("handicap") or {}).items() if n}
        check = record.get("pregame_check", "skip") == "ask"
        return cls(players, int(record["first_seat"]), None, MappingProxyType(handicap), check)


def _players(value: Any, problems: list[str]) -> list[PlayerSetup]:
    if not isinstance(value, list) or not MIN_PLAYERS <= len(value) <= MAX_PLAYERS:
        problems.append(f"players must be a list of {MIN_PLAYERS} to {MAX_PLAYERS} players")
        return []
    players = [_player(index, player, problems) for index, player in enumerate(value)]
    named = [p for p in players if p is not None]
    if len(named) < len(players):
        return []
    if len({p.name.casefold() for p in named}) != len(named):
        problems.append("players must have different names")
    if len({p.colour.casefold() for p in named}) != len(named):
        problems.append("players must have different colours")
    return named


def _player(index: int, value: Any, problems: list[str]) -> PlayerSetup | None:
    where = f"players[{index}]"
    if isinstance(value, str):
        value = {"name": value}
    if not isinstance(value, Mapping):
        problems.append(f"{where} must be an object with a name and a colour (or just a name)")
        return None
    before = len(problems)
    unknown = sorted(str(key) for key in set(value) - PLAYER_FIELDS)
    if unknown:
        problems.append(f"{where}: unknown field(s): {', '.join(unknown)}")
    name = value.get("name")
    if not isinstance(name, str) or not name.strip() or len(name.strip()) > MAX_NAME:
        problems.append(f"{where}.name must be 1 to {MAX_NAME} characters")
    elif any(not ch.isprintable() for ch in name):
        problems.append(f"{where}.name must not contain control characters")
    colour = value.get("colour", DEFAULT_COLOURS[index % len(DEFAULT_COLOURS)])
    if not isinstance(colour, str) or not (colour in COLOURS or HEX_COLOUR.match(colour)):
        problems.append(f"{where}.colour must be one of {', '.join(COLOURS)} or #rrggbb")
    if len(problems) > before:
        return None
    assert isinstance(name, str) and isinstance(colour, str)
    return PlayerSetup(name.strip(), colour)


def _whole(value: Any, what: str, high: int, problems: list[str]) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= high:
        problems.append(f"{what} must be a whole number from 0 to {high}")
        return 0
    return value


def _handicap(value: Any, lamps: Sequence[str], problems: list[str]) -> dict[str, int]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        problems.append("handicap must be an object {lamp: pawns}")
        return {}
    handicap = {}
    for lamp, count in value.items():
        if lamp not in lamps:
            problems.append(f"handicap: unknown lamp {str(lamp)[:8]!r} (lamps: {', '.join(lamps)})")
            continue
        count = _whole(count, f"handicap.{lamp}", MAX_HANDICAP, problems)
        if count:
            handicap[str(lamp)] = count
    return handicap
