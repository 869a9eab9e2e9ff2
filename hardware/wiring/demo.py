"""The wiring wizard on the virtual board: a board wired otherwise than configured, and hands that
do as the wizard says.

:func:`scramble` wires a board the way a builder might have: the
multiplexers' signal wires swapped, each chip's inputs in another order, and
one slot's two contacts crossed. :meth:`hardware.virtual.board.VirtualBoard.rewire`
puts those wires on the virtual board, so the configuration describes a board
that is not there. :class:`SimulatedBuilder` then places and lifts pawns as
the wizard's view asks (``hautetension wiring learn --backend sim --demo``,
and the tests).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any

from games.hautetension.layout import Layout
from games.hautetension.pawn import PawnKind
from hardware.settings import ChannelRef, HardwareSettings, SlotWiring
from hardware.virtual.board import VirtualBoard


def scramble(settings: HardwareSettings, layout: Layout, *, seed: int,
             cross: bool = True) -> dict[str, SlotWiring]:
    """The configured map of *settings*, rewired: multiplexers swapped, channels permuted within
    each multiplexer, and (*cross*) one slot, chosen by *seed* like the rest, with its contacts crossed."""
    if settings.references:
        raise ValueError("scramble a board without reference channels: a slot could land on one")
    rng = random.Random(seed)
    muxes = list(range(settings.multiplexers))
    while len(muxes) > 1 and muxes == sorted(muxes):
        rng.shuffle(muxes)
    orders = []
    for _ in muxes:
        order = list(range(settings.channels_per_multiplexer))
        rng.shuffle(order)
        orders.append(order)

    def moved(ref: ChannelRef | None) -> ChannelRef:
        assert ref is not None, "scramble a fully wired board"
        mux = muxes[ref.multiplexer]
        return ChannelRef(mux, orders[mux][ref.channel])

    wiring = {slot: SlotWiring(moved(w.presence), moved(w.conduction))
              for slot, w in settings.slot_map(layout).items()}
    crossed = rng.choice(layout.slots)
    if cross:
        wiring[crossed] = SlotWiring(wiring[crossed].conduction, wiring[crossed].presence)
    return wiring


class SimulatedBuilder:
    """Hands on a virtual board doing what the wizard's view asks, one move every *pace* seconds."""

    def __init__(self, board: VirtualBoard, view: Callable[[], Mapping[str, Any]], *,
                 pace: float = 0.3) -> None:
        self.board = board
        self.view = view
        self.pace = pace
        self._last: float | None = None

    def act(self, now: float) -> str | None:
        """Make the next move if it is time; what was done, if anything."""
        if self._last is not None and now - self._last < self.pace:
            return None
        move = self._next_move(self.view())
        if move is not None:
            self._last = now
        return move

    def _next_move(self, view: Mapping[str, Any]) -> str | None:
        board = self.board
        task, slot = view.get("task"), view.get("slot")
        wanted = {"defense": PawnKind.DEFENSE, "attack": PawnKind.ATTACK}.get(str(task))
        for standing, kind in sorted(board.pawns.items()):
            if standing != slot or kind is not wanted:
                board.lift(standing)
                return f"lift the pawn from {standing}"
        if wanted is not None and slot is not None and slot not in board.pawns:
            board.place(slot, wanted)
            return f"place {'an' if wanted is PawnKind.ATTACK else 'a'} {wanted.value} pawn on {slot}"
        return None
