"""The handicap of a table: who carries attack pawns, how many, and why (rules notes, docs/tournaments.md)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

from games.hautetension.handicap import MAX_HANDICAP

DEFAULT_HANDICAP_STEP = 4
"""Points of lead over the table's next-best player per handicap pawn (4 = one game's worth)."""


class TableHandicap(NamedTuple):
    """The handicap of one table: who carries how many pawns, and why."""

    pawns: int
    """Attack pawns each carrier's lamp gets (0: no handicap at this table)."""
    carriers: tuple[int, ...]
    """The table's best players (level players share it)."""
    lead: int
    """Their lead in points over the table's next-best player."""
    over: tuple[int, ...]
    """The next-best player(s)."""


def table_handicap(points: Mapping[int, int], step: int) -> TableHandicap:
    """The handicap of a table whose players have these points (rules notes, docs/tournaments.md).

    The best players -- those with the table's most points, players level
    sharing it -- carry one attack pawn per started *step* points of lead over
    the table's next-best player, at most three: with a step of 4 (one game's
    worth), a lead of 1–4 points is one pawn, 5–8 two, 9 or more three. A
    table whose players are all level has no best player: no handicap.
    """
    top = max(points.values())
    below = [value for value in points.values() if value < top]
    if not below:
        return TableHandicap(0, (), 0, ())
    runner_up = max(below)
    lead = top - runner_up
    return TableHandicap(
        pawns=min(MAX_HANDICAP, -(-lead // step)),
        carriers=tuple(p for p, value in points.items() if value == top),
        lead=lead,
        over=tuple(p for p, value in points.items() if value == runner_up),
    )
