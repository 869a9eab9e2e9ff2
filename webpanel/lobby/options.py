"""The options of each game as controls of the lobby's form (levels, variants, dice, timers…).

A game declares its options once (``known_options``, games/options.py): their kinds, defaults,
bounds and values. The form draws a control for each declared option, in the order declared, with
the panel's own words for it (:data:`DESCRIBED`: a label, a hint, a name for each value, in the
words of the rules); the lobby page's script sends what the controls say as the game's
``options``, and the game checks them as it checks any request. A game the panel has no words for
(one registered later) gets a field for its options as JSON.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeAlias

from flask_babel import lazy_gettext
from flask_babel.speaklater import LazyString

from games.frame import JSON, DigitalGame, game_class
from games.options import Kind, Table
from games.options import Option as Declared

Label: TypeAlias = str | LazyString


@dataclass(frozen=True)
class Choice:
    """One value of a list (a select's option, a colour's box)."""

    value: JSON
    label: Label
    players: tuple[int, ...] = ()
    """The player counts it is offered for (empty: any)."""

    @property
    def json(self) -> str:
        return json.dumps(self.value)


@dataclass(frozen=True)
class Option:
    """A game option as a control of the form.

    ``control``: ``select`` (one of ``choices``), ``number`` (``minimum``–``maximum``), ``toggle``
    (a box: ``on`` when ticked, else the option is left out), ``colours`` (boxes, as many ticked as
    there are players, or none for the game's own choice), ``handicap`` (pawns per lamp of the seats,
    ``lamps`` by player count) or ``seat`` (a seat number, or left out for the rules' draw).
    ``shown_when`` = (another option, its values): the control is offered, and sent, only while the
    other one has one of those values (no values: while it is not 0).
    """

    key: str
    label: Label
    control: str
    choices: tuple[Choice, ...] = ()
    default: JSON = None
    hint: Label | None = None
    minimum: int = 0
    maximum: int = 0
    on: JSON = True
    shown_when: tuple[str, tuple[JSON, ...]] | None = None
    lamps: dict[int, tuple[str, ...]] = field(default_factory=dict)

    @property
    def default_json(self) -> str:
        return json.dumps(self.default)

    @property
    def shown_when_json(self) -> str:
        return json.dumps(list(self.shown_when)) if self.shown_when else ""

    @property
    def lamps_json(self) -> str:
        return json.dumps(self.lamps)


CONTROLS = {
    Kind.CHOICE: "select", Kind.WHOLE: "number", Kind.NUMBER: "number", Kind.FLAG: "toggle",
    Kind.SEAT: "seat", Kind.COLOURS: "colours", Kind.PAWNS: "handicap",
}
"""The control that gives an option of each kind."""


@dataclass(frozen=True)
class Words:
    """The panel's words for one option, and what only its control needs besides the declaration.

    ``values`` names the option's values (a value without a name shows as itself); ``maximum`` bounds
    a number control where the game sets no bound; ``shown_when`` shows (and sends) the control only
    with another option's values, where the game does not say so itself (``only_with``); ``lamps``
    gives a handicap control each seat's lamp, by number of players.
    """

    label: Label
    hint: Label | None = None
    values: Mapping[str, Label] | Callable[[str], Label] = field(default_factory=dict)
    maximum: int = 0
    shown_when: tuple[str, tuple[JSON, ...]] | None = None
    lamps: Callable[[], dict[int, tuple[str, ...]]] | None = None

    def value_label(self, value: str) -> Label:
        if callable(self.values):
            return self.values(value)
        return self.values.get(value, value)


def _hop_board(name: str) -> Label:
    from games.hop.board import load_board

    board = load_board(name)
    columns = len({x for x, _ in board.positions})
    rows = len({y for _, y in board.positions})
    return lazy_gettext("%(columns)d × %(rows)d site cards", columns=columns, rows=rows)


def _hypnosia_colours(colour: str) -> Label:
    from webpanel.lobby.names import COLOURS

    return COLOURS.get(colour, colour)


def _seat_lamps() -> dict[int, tuple[str, ...]]:
    from games.hautetension.seats import default_lamps

    return {n: default_lamps(n) for n in (2, 3, 4)}


HAMILTONIAN_CARD = {"random": lazy_gettext("drawn at random")}
DEFAULT_ACTIONS = {
    "random": lazy_gettext("a random free slot, attack or defense as the stock goes (tells nothing)"),
    "random-attack": lazy_gettext("a random free slot, an attack pawn"),
    "random-defense": lazy_gettext("a random free slot, a defense pawn"),
}
DESCRIBED: dict[str, dict[str, Words]] = {
    "qttt": {},
    "hop": {
        "level": Words(lazy_gettext("Level"), values={
            "bachelor": lazy_gettext("Bachelor: the movements only"),
            "master": lazy_gettext("Master: movements and energy"),
            "doctorate": lazy_gettext("Doctorate: energy and effect cards"),
        }),
        "board": Words(lazy_gettext("Board"), values=_hop_board),
        "field": Words(lazy_gettext("Magnetic field card"), values={
            **HAMILTONIAN_CARD,
            "positive": lazy_gettext("positive"),
            "negative": lazy_gettext("negative"),
        }),
        "interaction": Words(lazy_gettext("Interaction card"), values={
            **HAMILTONIAN_CARD,
            "attractive": lazy_gettext("attractive"),
            "repulsive": lazy_gettext("repulsive"),
        }),
        "max_rounds": Words(lazy_gettext("Turns per player before a draw"), maximum=999),
    },
    "hypnosia": {
        "board": Words(lazy_gettext("Board"), values={"default": lazy_gettext("three circles")}),
        "dice": Words(lazy_gettext("Dice"), values={
            "program": lazy_gettext("rolled by the panel"),
            "entered": lazy_gettext("real dice, entered on the display or a tablet"),
        }),
        "stacks_cross": Words(lazy_gettext("Variant: stacks may not cross bridges nor enter the centre")),
        "colours": Words(lazy_gettext("Colours in play"), values=_hypnosia_colours,
                         hint=lazy_gettext("Tick one per player, or none: the players then sit as far apart "
                                           "as they can.")),
        "max_rounds": Words(lazy_gettext("Turns per player before the game ends"), maximum=999),
    },
    "hautetension": {
        "layout": Words(lazy_gettext("Board layout")),
        "first": Words(lazy_gettext("First player"),
                       hint=lazy_gettext("By default the first player is drawn, as the rules do.")),
        "handicap": Words(lazy_gettext("Handicap"), lamps=_seat_lamps,
                          hint=lazy_gettext("Attack pawns placed before the game on the straight rows to a "
                                            "strong player's lamp.")),
        "turn_timer": Words(lazy_gettext("Seconds per move (0: no timer)"), maximum=3600),
        "default_action": Words(
            lazy_gettext("When the time runs out, the panel plays"),
            values=DEFAULT_ACTIONS,
            shown_when=("turn_timer", ()),
            hint=lazy_gettext("A pawn of a fixed kind tells everyone what a late player's pawn is."),
        ),
    },
}
"""The games whose options have controls, with the panel's words for each option (Quantum
tic-tac-toe has none)."""


def _choices(cls: type[DigitalGame], option: Declared, words: Words) -> tuple[Choice, ...]:
    """The option's values, each offered for the player counts it is allowed for (empty: any)."""
    offered: dict[str, list[int]] = {}
    counts = range(cls.min_players, cls.max_players + 1)
    ruler = next((o for o in cls.known_options if o.name == option.governed_by), None)
    for players in counts:
        table = Table(players, {})
        if ruler is not None:  # the values the other option's default allows
            table = Table(players, {ruler.name: ruler.default_for(table)})
        for value in option.allowed(table):
            offered.setdefault(value, []).append(players)
    return tuple(
        Choice(value, words.value_label(value), players=() if len(seats) == len(counts) else tuple(seats))
        for value, seats in offered.items()
    )


def control(cls: type[DigitalGame], option: Declared, words: Words) -> Option:
    """The form's control of one declared option."""
    default = None if callable(option.default) else option.default
    return Option(
        option.name,
        words.label,
        CONTROLS[option.kind],
        _choices(cls, option, words),
        default=default,
        hint=words.hint,
        minimum=int(option.minimum or 0),
        maximum=int(option.maximum if option.maximum is not None else words.maximum),
        on=not default,  # a box ticked says what its option is not by default
        shown_when=words.shown_when or option.only_with,
        lamps=words.lamps() if words.lamps else {},
    )


def game_options(game: str) -> Sequence[Option] | None:
    """The controls of *game*'s options, or None for a game not described (its options as JSON)."""
    words = DESCRIBED.get(game)
    if words is None:
        return None
    cls = game_class(game)
    return [control(cls, option, words.get(option.name, Words(option.name))) for option in cls.known_options]


def form_options(games: dict[str, Any]) -> dict[str, Sequence[Option] | None]:
    return {game: game_options(game) for game in games}
