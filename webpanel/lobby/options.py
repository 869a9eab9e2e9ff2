"""The options of each game as controls of the lobby's form (levels, variants, dice, timers…).

Each game's options are described once here, from the engines' own lists (levels, boards, layouts,
dice modes, default actions), in the words of the rules; the lobby page draws a control for each
and its script sends what they say as the game's ``options``. The engines still check every option
(a request that bypasses the form gets their error). A game not described here (one registered
later) gets a field for its options as JSON.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from flask_babel import lazy_gettext
from flask_babel.speaklater import LazyString

from games.frame import JSON


@dataclass(frozen=True)
class Choice:
    """One value of a list (a select's option, a colour's box)."""

    value: JSON
    label: str | LazyString
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
    label: str | LazyString
    control: str
    choices: tuple[Choice, ...] = ()
    default: JSON = None
    hint: str | LazyString | None = None
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


def _hop() -> list[Option]:
    from games.hop.board import board_names, load_board
    from games.hop.game import DEFAULT_MAX_ROUNDS
    from games.hop.rules import LEVELS

    levels = {
        "bachelor": lazy_gettext("Bachelor: the movements only"),
        "master": lazy_gettext("Master: movements and energy"),
        "doctorate": lazy_gettext("Doctorate: energy and effect cards"),
    }
    boards = []
    for name in board_names():
        board = load_board(name)
        columns = len({x for x, _ in board.positions})
        rows = len({y for _, y in board.positions})
        label = lazy_gettext("%(columns)d × %(rows)d site cards", columns=columns, rows=rows)
        boards.append(Choice(name, label, players=(len(board.colours),)))
    hamiltonian = ("level", ("master", "doctorate"))
    return [
        Option("level", lazy_gettext("Level"), "select",
               tuple(Choice(level, levels.get(level, level)) for level in LEVELS), default="bachelor"),
        Option("board", lazy_gettext("Board"), "select", tuple(boards)),
        Option("field", lazy_gettext("Magnetic field card"), "select", (
            Choice("random", lazy_gettext("drawn at random")),
            Choice("positive", lazy_gettext("positive")),
            Choice("negative", lazy_gettext("negative")),
        ), default="random", shown_when=hamiltonian),
        Option("interaction", lazy_gettext("Interaction card"), "select", (
            Choice("random", lazy_gettext("drawn at random")),
            Choice("attractive", lazy_gettext("attractive")),
            Choice("repulsive", lazy_gettext("repulsive")),
        ), default="random", shown_when=hamiltonian),
        Option("max_rounds", lazy_gettext("Turns per player before a draw"), "number",
               default=DEFAULT_MAX_ROUNDS, minimum=1, maximum=999),
    ]


def _hypnosia() -> list[Option]:
    from games.hypnosia.board import available_boards, load_board
    from games.hypnosia.game import DEFAULT_MAX_ROUNDS, DICE_MODES
    from webpanel.lobby.names import COLOURS

    dice = {
        "program": lazy_gettext("rolled by the panel"),
        "entered": lazy_gettext("real dice, entered on the display or a tablet"),
    }
    colours = [c.name for c in load_board().colours]
    return [
        Option("board", lazy_gettext("Board"), "select", tuple(
            Choice(name, lazy_gettext("three circles") if name == "default" else name)
            for name in available_boards())),
        Option("dice", lazy_gettext("Dice"), "select",
               tuple(Choice(mode, dice.get(mode, mode)) for mode in DICE_MODES), default="program"),
        Option("stacks_cross", lazy_gettext("Variant: stacks may not cross bridges nor enter the centre"),
               "toggle", on=False),
        Option("colours", lazy_gettext("Colours in play"), "colours",
               tuple(Choice(c, COLOURS.get(c, c)) for c in colours),
               hint=lazy_gettext("Tick one per player, or none: the players then sit as far apart as "
                                 "they can.")),
        Option("max_rounds", lazy_gettext("Turns per player before the game ends"), "number",
               default=DEFAULT_MAX_ROUNDS, minimum=1, maximum=999),
    ]


def _hautetension() -> list[Option]:
    from games.hautetension.digital import DEFAULT_ACTIONS
    from games.hautetension.handicap import MAX_HANDICAP
    from games.hautetension.layout import DEFAULT_LAYOUT, available_layouts
    from games.hautetension.seats import default_lamps

    actions = {
        "random": lazy_gettext("a random free slot, attack or defense as the stock goes (tells nothing)"),
        "random-attack": lazy_gettext("a random free slot, an attack pawn"),
        "random-defense": lazy_gettext("a random free slot, a defense pawn"),
    }
    return [
        Option("layout", lazy_gettext("Board layout"), "select",
               tuple(Choice(name, name) for name in available_layouts()), default=DEFAULT_LAYOUT),
        Option("first", lazy_gettext("First player"), "seat",
               hint=lazy_gettext("By default the first player is drawn, as the rules do.")),
        Option("handicap", lazy_gettext("Handicap"), "handicap", maximum=MAX_HANDICAP,
               lamps={n: default_lamps(n) for n in (2, 3, 4)},
               hint=lazy_gettext("Attack pawns placed before the game on the straight rows to a strong "
                                 "player's lamp.")),
        Option("turn_timer", lazy_gettext("Seconds per move (0: no timer)"), "number",
               default=0, minimum=0, maximum=3600),
        Option("default_action", lazy_gettext("When the time runs out, the panel plays"), "select",
               tuple(Choice(a, actions.get(a, a)) for a in DEFAULT_ACTIONS), default="random",
               shown_when=("turn_timer", ()),
               hint=lazy_gettext("A pawn of a fixed kind tells everyone what a late player's pawn is.")),
    ]


def _none() -> list[Option]:
    return []


DESCRIBED = {"qttt": _none, "hop": _hop, "hypnosia": _hypnosia, "hautetension": _hautetension}
"""The games whose options have controls (Quantum tic-tac-toe has none)."""


def game_options(game: str) -> Sequence[Option] | None:
    """The controls of *game*'s options, or None for a game not described (its options as JSON)."""
    make = DESCRIBED.get(game)
    return None if make is None else make()


def form_options(games: dict[str, Any]) -> dict[str, Sequence[Option] | None]:
    return {game: game_options(game) for game in games}
