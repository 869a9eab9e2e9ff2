"""The options of a digital game, declared once as data.

A game lists what it may be asked for in :attr:`DigitalGame.known_options
<games.frame.DigitalGame.known_options>`: each :class:`Option` says its kind,
its default, its bounds or its allowed values, and the sentence a refused
value gets. That one declaration is what the game checks players' options
against (:func:`check_options`, the frame's ``check_options``), and what the
lobby documents as its API's JSON schema and draws as its form's controls
(webpanel/lobby/schemas.py and webpanel/lobby/options.py, which keep the
panel's own words for each option).

An option's allowed values and its default may depend on the table: the
number of players and the options declared before it (:class:`Table`). A
|Hop> board is for as many players as sit down, Hypnosia's colours are the
chosen board's (``depends_on="board"``), and |Hop>'s Hamiltonian cards exist
only from the Master level on (``only_with=("level", ("master",
"doctorate"))``): otherwise they are null.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from games.exc import BadOptionsError


class Kind(enum.Enum):
    """What an option's value is."""

    CHOICE = "choice"
    """One of the allowed values (text)."""
    WHOLE = "whole"
    """A whole number within the bounds."""
    NUMBER = "number"
    """A number within the bounds, whole or not (seconds)."""
    FLAG = "flag"
    """True or false."""
    SEAT = "seat"
    """A seat number, or null: as the rules draw it."""
    COLOURS = "colours"
    """As many different allowed values as there are players (empty: the game's own choice)."""
    PAWNS = "pawns"
    """A count from 0 to the maximum for each allowed value (a lamp: its handicap pawns; empty: none)."""

    @property
    def is_empty_default(self) -> bool:
        """Whether an empty value (null, false, 0, "", [], {}) means the default, as for a list or a map."""
        return self in (Kind.COLOURS, Kind.PAWNS)


@dataclass(frozen=True)
class Table:
    """What an option's allowed values and default may depend on."""

    players: int
    chosen: Mapping[str, Any]
    """The options declared before it, checked."""


@dataclass(frozen=True)
class Option:
    """One option of a game: its kind, default, bounds or values, and the sentence a refused value gets.

    ``choices`` and ``default`` may be functions of the :class:`Table` (the
    number of players, the options checked before); ``depends_on`` then names
    the option before it they read (None: they read only the number of
    players). ``refusal`` is formatted with ``value`` (what was sent),
    ``choices`` (the allowed values, with commas), ``either`` (them, joined by
    "or"), ``players``, ``last_seat`` and ``maximum``.
    """

    name: str
    kind: Kind
    refusal: str
    default: Any | Callable[[Table], Any] = None
    choices: Sequence[str] | Callable[[Table], Sequence[str]] = ()
    minimum: float | None = None
    maximum: float | None = None
    only_with: tuple[str, tuple[str, ...]] | None = None
    """(another option, some of its values): this one exists only while the other has one of them;
    otherwise it is null (left out)."""
    depends_on: str | None = None
    about: str = ""
    """What the option means, for the API's documentation (English)."""

    @property
    def governed_by(self) -> str | None:
        """The option before it whose value changes what this one accepts, if any."""
        return self.only_with[0] if self.only_with else self.depends_on

    def allowed(self, table: Table) -> list[str]:
        return list(self.choices(table) if callable(self.choices) else self.choices)

    def default_for(self, table: Table) -> Any:
        return self.default(table) if callable(self.default) else self.default

    def is_on(self, table: Table) -> bool:
        """Whether the option exists at this table (see ``only_with``)."""
        return self.only_with is None or table.chosen.get(self.only_with[0]) in self.only_with[1]

    def check(self, options: Mapping[str, Any], table: Table) -> Any:
        """The option's value in *options*, checked (its default when left out), or BadOptionsError."""
        if not self.is_on(table):
            if options.get(self.name) is not None:
                assert self.only_with is not None
                other, values = self.only_with
                raise BadOptionsError(
                    f"{self.name} goes only with {other} {' or '.join(values)}: leave it out"
                )
            return None
        if self.kind.is_empty_default:
            value = options.get(self.name) or self.default_for(table)
        else:
            value = options.get(self.name, self.default_for(table))
        choices = self.allowed(table)
        if not _KINDS[self.kind](self, value, choices, table.players):
            raise BadOptionsError(self.refusal.format(
                value=value, choices=", ".join(choices), either=" or ".join(choices), players=table.players,
                last_seat=table.players - 1, maximum=_number_text(self.maximum),
            ))
        if self.kind is Kind.COLOURS:
            return sorted(value, key=choices.index)  # seats follow the order of the allowed values
        if self.kind is Kind.PAWNS:
            return {key: count for key, count in value.items() if count}
        return value


def check_options(
    game: str, declared: Sequence[Option], options: Mapping[str, Any], players: int
) -> dict[str, Any]:
    """Every declared option of *options*, checked and completed, in the order declared."""
    names = sorted(option.name for option in declared)
    unknown = ", ".join(sorted(set(options) - set(names)))
    if unknown and not declared:
        raise BadOptionsError(f"{game} takes no options (got {unknown})")
    if unknown:
        raise BadOptionsError(f"{game} has no option {unknown} (options: {', '.join(names)})")
    checked: dict[str, Any] = {}
    for option in declared:
        checked[option.name] = option.check(options, Table(players, checked))
    return checked


def _number_text(number: float | None) -> str:
    return "" if number is None else f"{number:g}"


def _is_whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _within(option: Option, value: Any) -> bool:
    # Comparisons as the checks always made them: a bound is passed only by a value beyond it.
    too_low = option.minimum is not None and value < option.minimum
    too_high = option.maximum is not None and value > option.maximum
    return not (too_low or too_high)


def _choice(option: Option, value: Any, choices: list[str], players: int) -> bool:
    return isinstance(value, str) and value in choices


def _whole(option: Option, value: Any, choices: list[str], players: int) -> bool:
    return _is_whole(value) and _within(option, value)


def _number(option: Option, value: Any, choices: list[str], players: int) -> bool:
    return (_is_whole(value) or isinstance(value, float)) and _within(option, value)


def _flag(option: Option, value: Any, choices: list[str], players: int) -> bool:
    return isinstance(value, bool)


def _seat(option: Option, value: Any, choices: list[str], players: int) -> bool:
    return value is None or (_is_whole(value) and 0 <= value < players)


def _colours(option: Option, value: Any, choices: list[str], players: int) -> bool:
    return (
        isinstance(value, list)
        and len(value) == players
        and len(set(map(str, value))) == len(value)
        and all(isinstance(v, str) and v in choices for v in value)
    )


def _pawns(option: Option, value: Any, choices: list[str], players: int) -> bool:
    return isinstance(value, Mapping) and all(
        isinstance(key, str) and _whole(option, count, choices, players) for key, count in value.items()
    )


_KINDS: dict[Kind, Callable[[Option, Any, list[str], int], bool]] = {
    Kind.CHOICE: _choice,
    Kind.WHOLE: _whole,
    Kind.NUMBER: _number,
    Kind.FLAG: _flag,
    Kind.SEAT: _seat,
    Kind.COLOURS: _colours,
    Kind.PAWNS: _pawns,
}
"""Whether a value is one of its kind, within the option's bounds and values (for that many players)."""
