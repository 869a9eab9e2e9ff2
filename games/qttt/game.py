"""The quantum tic-tac-toe game, on the :mod:`games.frame` protocol.

Seat 0 plays X (the odd moves 1, 3, 5, 7, 9), seat 1 plays O (the even
moves). Nothing is hidden: every seat and spectator sees the same view.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from typing import ClassVar, TypedDict

from games.frame import JSON, DigitalGame, Move, Outcome
from games.qttt import rules
from games.qttt.exc import (
    CollapseFirstError,
    CollapseSquareError,
    LastSquareError,
    NoCollapseError,
    NotationError,
    SameSquareError,
    SquareTakenError,
)
from games.qttt.rules import DRAW, O, X

SYMBOLS = ("X", "O")


class Termination(enum.Enum):
    LINE = "line"
    """A collapse (or X's last classical mark) completed a line."""
    FULL_GRID = "full_grid"
    """Every square holds a classical mark and no line: a draw."""


class CollapseMove(TypedDict):
    """The chooser's collapse of the cycle the last pair closed: the square its mark goes to."""

    collapse: int


QtttMove = list[int] | CollapseMove
"""What :meth:`QuantumTicTacToe.legal_moves` lists: a pair ``[a, b]``, X's last classical mark ``[a]``,
or ``{"collapse": square}``."""


def symbol(seat: int) -> str:
    return SYMBOLS[seat]


def parse_move(move: Move) -> tuple[str, tuple[int, ...]]:
    """Read a move: ``("pair", (a, b))``, ``("last", (a,))`` or ``("collapse", (a,))``.

    Raises NotationError, naming what is wrong, for anything else.
    """
    if isinstance(move, Mapping):
        if set(move) != {"collapse"}:
            raise NotationError(f'a collapse choice is {{"collapse": square}}, not {move!r}')
        return "collapse", (_square(move["collapse"]),)
    if isinstance(move, list | tuple):
        if len(move) == 2:
            return "pair", (_square(move[0]), _square(move[1]))
        if len(move) == 1:
            return "last", (_square(move[0]),)
    raise NotationError(
        f'{move!r} is not a move: play a pair [a, b], X\'s last classical mark [a], or {{"collapse": square}}'
    )


def _square(value: JSON) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 8:
        raise NotationError(
            f"{value!r} is not a square: squares are numbered 0-8 row by row from the top left"
        )
    return value


def cycle_marks(position: bytes) -> list[int]:
    """The moves whose spooky marks make the cycle the last pair of *position* closed, in move order.

    The spooky links form a forest before that pair, so its two squares are joined by exactly one
    path: the marks on it, plus the closing pair.
    """
    a, b = rules.PAIRS[position[-1] - 9]
    links = rules.spooky_links(position[:-1])
    came: dict[int, tuple[int, int] | None] = {a: None}  # square -> (previous square, mark index)
    todo = [a]
    while todo:
        here = todo.pop()
        for index, there in links[here]:
            if there not in came:
                came[there] = (here, index)
                todo.append(there)
    marks = [len(position)]
    at = b
    while (step := came.get(at)) is not None:
        at, index = step
        marks.append(index + 1)
    return sorted(marks)


def collapse_record(position: bytes, square: int) -> dict[str, JSON]:
    """The entanglement at a collapse, before it: every spooky mark ``[move, a, b]`` (the closing pair
    last), the moves of the cycle, and the square the closing mark lands on."""
    return {
        "move": len(position),
        "square": square,
        "marks": [[k, a, b] for k, a, b in rules.spooky(position)],
        "cycle": cycle_marks(position),
    }


class QuantumTicTacToe(DigitalGame):
    """A game of quantum tic-tac-toe (see ``docs/qttt.md`` for the rules as played)."""

    name: ClassVar[str] = "qttt"

    def __init__(
        self, players: Sequence[str], *, options: Mapping[str, JSON] | None = None, seed: int | None = None
    ) -> None:
        super().__init__(players, options=options, seed=seed)
        self._restart()

    def _restart(self) -> None:
        self.position = b""
        """One byte per move played (see :mod:`games.qttt.rules`)."""
        self.pending = False
        """Whether the last pair closed a cycle whose collapse is still to choose."""
        self.result: int | None = None
        """X, O or DRAW once the game is over."""
        self.collapses: list[dict[str, JSON]] = []
        """Each collapse so far, as the result screen draws it (:func:`collapse_record`)."""

    # -- state ----------------------------------------------------------

    @property
    def move_number(self) -> int:
        """The number of the next pair (or classical mark) to place."""
        return len(self.position) + 1

    @property
    def to_act(self) -> int | None:
        if self.result is not None:
            return None
        # The collapse is chosen by the player who did not close the cycle,
        # who is also the next to move: they choose, then place their pair.
        return rules.mover(len(self.position) + 1)

    def is_collapse_pending(self) -> bool:
        return self.pending

    def pending_squares(self) -> tuple[int, int] | None:
        """The two squares of the mark that closed a cycle, while its collapse waits."""
        if not self.pending:
            return None
        return rules.PAIRS[self.position[-1] - 9]

    def free_squares(self) -> list[int]:
        return rules.free_squares(self.position)

    def legal_moves(self) -> list[QtttMove]:
        if self.result is not None:
            return []
        squares = self.pending_squares()
        if squares is not None:
            return [{"collapse": s} for s in squares]
        free = self.free_squares()
        if len(free) == 1:
            return [[free[0]]]
        return [[a, b] for i, a in enumerate(free) for b in free[i + 1:]]

    def _apply(self, move: Move) -> Move:
        kind, squares = parse_move(move)
        who = symbol(rules.mover(len(self.position) + 1))  # the chooser, when a cycle waits
        pending = self.pending_squares()
        if pending is not None:
            if kind != "collapse":
                raise CollapseFirstError(
                    f"mark {len(self.position)} closed a cycle: {who} must first choose where it collapses, "
                    f'{{"collapse": {pending[0]}}} or {{"collapse": {pending[1]}}}'
                )
            (square,) = squares
            if square not in pending:
                raise CollapseSquareError(
                    f"mark {len(self.position)} is in squares {pending[0]} and {pending[1]}, not {square}"
                )
            self.collapses.append(collapse_record(self.position, square))
            self.position = rules.collapse(self.position, square)
            self.pending = False
            self.result = rules.settle(self.position)
            return {"collapse": square}
        if kind == "collapse":
            raise NoCollapseError("no cycle is waiting for a collapse")
        cells = rules.board(self.position)
        free = [s for s in rules.SQUARES if not cells[s]]
        if kind == "pair" and len(free) == 1:
            raise LastSquareError(
                f"only square {free[0]} is left: X's ninth move is the classical mark [{free[0]}]"
            )
        for s in squares:
            if cells[s]:
                owner = symbol(rules.mover(cells[s]))
                raise SquareTakenError(f"square {s} already holds the classical {owner} of move {cells[s]}")
        if kind == "last":
            if len(free) != 1:
                raise LastSquareError(
                    "a single classical mark [a] is only X's ninth move, in the last free square; "
                    "place a pair [a, b]"
                )
            self.position += bytes(squares)
            self.result = rules.settle(self.position)
            return list(squares)
        a, b = squares
        if a == b:
            raise SameSquareError(f"the two marks of a pair go in two different squares, not twice in {a}")
        closing = rules.closes_cycle(self.position, a, b)
        self.position += bytes((rules.PAIR_CODE[a][b],))
        self.pending = closing
        return [a, b]

    def outcome(self) -> Outcome | None:
        if self.result is None:
            return None
        if self.result == DRAW:
            return Outcome(Termination.FULL_GRID)
        return Outcome(Termination.LINE, winners=(self.result,))

    # -- views ----------------------------------------------------------

    def view(self, seat: int | None = None) -> dict[str, JSON]:
        """The whole board: quantum tic-tac-toe hides nothing from anyone."""
        cells = rules.board(self.position)
        squares: list[dict[str, JSON]] = []
        for s in rules.SQUARES:
            k = cells[s]
            squares.append({
                "classical": {"move": k, "symbol": symbol(rules.mover(k))} if k else None,
                "spooky": [],
            })
        for k, a, b in rules.spooky(self.position):
            for s in (a, b):
                squares[s]["spooky"].append({"move": k, "symbol": symbol(rules.mover(k)), "other": b if s == a
                                             else a})
        outcome = self.outcome()
        pending = self.pending_squares()
        to_act = self.to_act
        return {
            "game": self.name,
            "seat": seat,
            "players": list(self.players),
            "squares": squares,
            "move_number": self.move_number,
            "to_act": to_act,
            "to_act_symbol": None if to_act is None else symbol(to_act),
            "collapse": None if pending is None else {"move": len(self.position), "squares": list(pending)},
            "legal_moves": self.legal_moves(),
            "outcome": None if outcome is None else outcome.to_json(),
            "winner": symbol(self.result) if self.result in (X, O) else None,
            # Why the winner won: each player's earliest line (both, when one collapse completed lines
            # for the two of them: the lower largest move number wins).
            "lines": [
                {"symbol": symbol(player), "squares": list(squares), "latest": latest}
                for player, (squares, latest) in sorted(rules.earliest_lines(cells).items())
            ] if self.result is not None else [],
            "history": list(self.history),
            # The result screen's picture: the entanglement graph at each collapse.
            "collapses": [dict(c) for c in self.collapses],
        }

    def __repr__(self) -> str:
        return f"<QuantumTicTacToe moves={self.history!r}>"


__all__ = ["QuantumTicTacToe", "Termination", "X", "O", "DRAW", "parse_move"]
