"""A board position written as data: which slots hold attack and defense pawns.

The format is the one the ``hautetension circuit`` command reads::

    {"attack": ["a9", "b9"], "defense": ["c3"]}

Both keys are optional (an absent key is an empty list); anything else is an
error with a one-line reason.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from games.exc import BoardFileError
from games.hautetension.layout import Layout

KINDS = ("attack", "defense")


@dataclass(frozen=True)
class Position:
    """Pawns on a board, by kind."""

    attack: frozenset[str]
    defense: frozenset[str]


def parse_position(layout: Layout, data: Any) -> Position:
    """Check a decoded board file against *layout* and return the position it describes."""
    if not isinstance(data, dict):
        raise BoardFileError('a board file is a JSON object like {"attack": [...], "defense": [...]}')
    extra = sorted(set(data) - set(KINDS))
    if extra:
        raise BoardFileError(
            f"unexpected key(s) {', '.join(map(repr, extra))}: only 'attack' and 'defense' are read"
        )
    lists: dict[str, list[str]] = {}
    for kind in KINDS:
        slots = data.get(kind, [])
        if not isinstance(slots, list) or not all(isinstance(s, str) for s in slots):
            raise BoardFileError(f"{kind!r} must be a list of slot names")
        for slot in slots:
            if slot not in layout.slot_positions:
                raise BoardFileError(f"{kind!r} lists {slot!r}, which is not a slot of board {layout.name}")
        twice = sorted({s for s in slots if slots.count(s) > 1})
        if twice:
            raise BoardFileError(f"{kind!r} lists slot(s) {', '.join(twice)} more than once")
        lists[kind] = slots
    both = sorted(set(lists["attack"]) & set(lists["defense"]))
    if both:
        raise BoardFileError(f"slot(s) {', '.join(both)} cannot hold an attack and a defense pawn at once")
    return Position(attack=frozenset(lists["attack"]), defense=frozenset(lists["defense"]))


def read_position(layout: Layout, text: str) -> Position:
    """Parse board-file text (JSON) against *layout*."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BoardFileError(f"not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})") from None
    return parse_position(layout, data)
