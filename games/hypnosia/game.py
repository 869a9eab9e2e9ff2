"""Hypnosia on the games frame: options, move notation, readable errors, views.

Moves are JSON values (docs/hypnosia.md has the full notation):

* ``{"roll": [a, b]}`` — the chance actor's move: the two dice. In a game
  whose dice are rolled by the program (option ``"dice": "program"``, the
  default) the only legal roll is the one drawn from the game's seed and the
  number of rolls so far, so a replay gives the same dice; with
  ``"dice": "entered"`` any roll of real dice may be entered.
* ``{"die": 0 | 1 | "sum", "pawn": "red2"}`` — move one pawn by one die or by
  the sum of both; add ``"stack": true`` to move the pawn's whole stack and
  ``"cross": true`` to cross the bridge the pawn stands on.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Final, Literal, NotRequired, TypeAlias, TypedDict

from games.frame import CHANCE, JSON, BadOptionsError, DigitalGame, Move, Outcome
from games.hypnosia.board import CENTRE, DEFAULT_BOARD, PAWNS_PER_COLOUR, Board, available_boards, load_board
from games.hypnosia.exc import (
    BridgeError,
    CaptureError,
    DiceError,
    DieUsedError,
    NotationError,
    NotYourPawnError,
    PawnOffBoardError,
    StackError,
    StartLaneError,
    WaitForDiceError,
)
from games.hypnosia.rules import (
    CAPTURED,
    CENTRE_PLACES,
    ROLLS,
    SUM,
    Phase,
    Position,
    Problem,
    Step,
    Termination,
)
from games.options import Kind, Option, Table


class RollMove(TypedDict):
    """The chance actor's move: the two dice."""

    roll: list[int]


class StepMove(TypedDict):
    """A pawn moved by one die (0 or 1) or by their sum, alone or with its stack, across a bridge or not."""

    die: int | Literal["sum"]
    pawn: str
    stack: NotRequired[bool]
    cross: NotRequired[bool]


HypnosiaMove: TypeAlias = RollMove | StepMove
"""A move in Hypnosia's notation (what :meth:`Hypnosia.legal_moves` lists and the history keeps)."""

DICE_MODES = ("program", "entered")
DEFAULT_MAX_ROUNDS = 300
"""Turn limit per player: games between sensible players end far sooner (docs/hypnosia.md)."""

_SPREAD = {2: (0, 3), 3: (0, 2, 4), 4: (0, 1, 3, 4), 5: (0, 1, 2, 3, 4), 6: (0, 1, 2, 3, 4, 5)}
"""Default colours of a six-colour board: players sit as far apart as they can."""


def spread_colours(board: Board, players: int) -> list[str]:
    """The colours in play when the players do not choose: as far apart as they can sit."""
    colours = len(board.colours)
    if players > colours:
        raise BadOptionsError(f"this board has {colours} colours, not enough for {players} players")
    picks = _SPREAD[players] if colours == 6 else tuple(range(players))
    return [board.colours[i].name for i in picks]


def _board_colours(table: Table) -> list[str]:
    return [c.name for c in load_board(table.chosen["board"]).colours]


OPTIONS: Final = (
    Option(
        "board",
        Kind.CHOICE,
        "the board option names a board: there is no board {value!r} (boards: {choices})",
        default=DEFAULT_BOARD,
        # Only a shipped board, never a path: a player must not make the server read files.
        choices=lambda table: available_boards(),
    ),
    Option("dice", Kind.CHOICE, "dice are {either}, not {value!r}", default="program", choices=DICE_MODES),
    Option(
        "stacks_cross",
        Kind.FLAG,
        "stacks_cross is true (stacks may cross bridges) or false (the variant)",
        default=True,
    ),
    Option(
        "colours",
        Kind.COLOURS,
        "colours must name {players} different colours of the board ({choices}), not {value!r}",
        default=lambda table: spread_colours(load_board(table.chosen["board"]), table.players),
        choices=_board_colours,
        depends_on="board",
    ),
    Option(
        "max_rounds",
        Kind.WHOLE,
        "max_rounds is a whole number of rounds, at least 1, not {value!r}",
        default=DEFAULT_MAX_ROUNDS,
        minimum=1,
    ),
)
"""Hypnosia's options: the board, the dice, the bridges variant, the colours in play, the turn limit."""


def program_roll(seed: int, number: int) -> tuple[int, int]:
    """The program's dice for chance event ``number`` of the game with ``seed``."""
    rng = random.Random(f"hypnosia/{seed}/{number}")
    return rng.randint(1, 6), rng.randint(1, 6)


class Hypnosia(DigitalGame):
    """A game of Hypnosia for 2 to 6 players (four pawns each, two dice)."""

    name: ClassVar[str] = "hypnosia"
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 6
    known_options: ClassVar[tuple[Option, ...]] = OPTIONS

    def __init__(
        self, players: Sequence[str], *, options: Mapping[str, JSON] | None = None, seed: int | None = None
    ) -> None:
        super().__init__(players, options=options, seed=seed)
        self.board: Board = load_board(self.options["board"])
        self._restart()

    def _start(self) -> Position:
        names = [c.name for c in self.board.colours]
        colours = tuple(sorted(names.index(c) for c in self.options["colours"]))
        # Seats follow the board's order of play; options["colours"] only picks which colours play.
        return Position(
            self.board,
            colours,
            stacks_cross=self.options["stacks_cross"],
            max_turns=self.options["max_rounds"] * len(self.players),
        )

    def _restart(self) -> None:
        self.position = self._start()
        self.scores_by_turn: list[list[int]] = [self._scores()]
        """Every seat's score at the start and after each turn (the result screen's chart)."""

    def _scores(self) -> list[int]:
        return [self.position.score(s) for s in range(self.position.seats)]

    # -- names --------------------------------------------------------------

    def colour_of(self, seat: int) -> str:
        return self.board.colours[self.position.colours[seat]].name

    def seat_of_colour(self, colour: str) -> int:
        return [self.colour_of(s) for s in range(self.position.seats)].index(colour)

    def pawn_name(self, pawn: int) -> str:
        return f"{self.colour_of(pawn // PAWNS_PER_COLOUR)}{pawn % PAWNS_PER_COLOUR + 1}"

    def pawn_number(self, name: str) -> int:
        for pawn in range(self.position.seats * PAWNS_PER_COLOUR):
            if self.pawn_name(pawn) == name:
                return pawn
        raise NotYourPawnError(f"there is no pawn {name!r} in this game")

    def where(self, pawn: int) -> str:
        square = self.position.pos[pawn]
        return "captured" if square == CAPTURED else self.board.squares[square]

    # -- the frame ------------------------------------------------------------

    @property
    def to_act(self) -> int | None:
        phase = self.position.phase
        if phase == Phase.OVER:
            return None
        return self.position.seat if phase == Phase.MOVE else CHANCE

    def legal_moves(self) -> list[HypnosiaMove]:
        position = self.position
        if position.phase in (Phase.OPENING, Phase.ROLL):
            if self.options["dice"] == "program":
                return [{"roll": list(self.program_roll())}]
            return [{"roll": [a, b]} for a in range(1, 7) for b in range(1, 7)]
        return [self.step_to_move(s) for s in position.legal()]

    def program_roll(self) -> tuple[int, int]:
        """The dice the program rolls for the next chance event."""
        return program_roll(self.seed, self.position.rolls)

    @staticmethod
    def chance_outcomes() -> list[tuple[RollMove, float]]:
        """The distinct rolls and their probabilities (what a computer player reckons with)."""
        return [({"roll": [a, b]}, p) for (a, b), p in ROLLS]

    def step_to_move(self, step: Step) -> StepMove:
        move: StepMove = {
            "die": "sum" if step.die == SUM else step.die,
            "pawn": self.pawn_name(step.pawn),
        }
        if step.stack:
            move["stack"] = True
        if step.cross:
            move["cross"] = True
        return move

    def _apply(self, move: Move) -> HypnosiaMove:
        """Apply a roll or a pawn move; the history keeps it in the notation of :meth:`legal_moves`."""
        turns = self.position.turns
        if isinstance(move, dict) and "roll" in move:
            self._apply_roll(move)
            applied: HypnosiaMove = {"roll": list(move["roll"])}
        else:
            step = self.parse_step(move)
            self.check_step(step)
            self.position.play(step)
            applied = self.step_to_move(step)
        if self.position.turns != turns or self.position.phase == Phase.OVER:
            self.scores_by_turn.append(self._scores())  # a turn ended (or the game, with a full centre)
        return applied

    def _apply_roll(self, move: dict[str, Any]) -> None:
        roll = move.get("roll")
        if set(move) != {"roll"} or not isinstance(roll, list) or len(roll) != 2:
            raise NotationError('a roll is written {"roll": [a, b]}')
        if not all(isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= 6 for v in roll):
            raise DiceError(f"a die shows 1 to 6, not {roll!r}")
        if self.position.phase == Phase.MOVE:
            raise WaitForDiceError(
                f"{self.players[self.position.seat]} must move a pawn before the next roll"
            )
        if self.options["dice"] == "program" and tuple(roll) != self.program_roll():
            raise DiceError("the program rolls the dice in this game; they cannot be entered")
        self.position.roll(roll[0], roll[1])

    def parse_step(self, move: Move) -> Step:
        """Read a pawn move in the notation, or raise NotationError / NotYourPawnError."""
        shape = '{"die": 0 | 1 | "sum", "pawn": "red1", "stack": true?, "cross": true?}'
        if not isinstance(move, dict) or not {"die", "pawn"} <= set(move) <= {
            "die",
            "pawn",
            "stack",
            "cross",
        }:
            raise NotationError(f'a move is written {shape} or {{"roll": [a, b]}}, not {move!r}')
        die, pawn, stack, cross = (
            move["die"],
            move["pawn"],
            move.get("stack", False),
            move.get("cross", False),
        )
        if die not in (0, 1, "sum") or isinstance(die, bool):
            raise NotationError(f'"die" is 0, 1 or "sum", not {die!r}')
        if not isinstance(pawn, str) or not isinstance(stack, bool) or not isinstance(cross, bool):
            raise NotationError(f"a move is written {shape}, not {move!r}")
        number = self.pawn_number(pawn)
        if stack:  # a stack is named by either of its pawns; the engine names it by the first
            here = self.position.occ[self.position.pos[number]] if self.position.is_on_board(number) else ()
            number = min(here) if len(here) == 2 else number
        return Step(SUM if die == "sum" else int(die), number, stack, cross)

    def check_step(self, step: Step) -> None:
        """Raise the specific error that says why ``step`` is not legal now (nothing if it is)."""
        position = self.position
        if position.phase != Phase.MOVE:
            raise WaitForDiceError("roll the dice first")
        seat = position.seat
        name = self.pawn_name(step.pawn)
        if position.owner(step.pawn) != seat:
            raise NotYourPawnError(f"{name} is not {self.players[seat]}'s pawn ({self.colour_of(seat)})")
        if step.die == SUM and (position.used[0] or position.used[1]):
            raise DieUsedError("the sum takes both dice, and one has already been played")
        if step.die != SUM and position.used[step.die]:
            raise DieUsedError(f"the die showing {position.dice[step.die]} has already been played")
        value = position.value(step)
        target = position.destination(step.pawn, value, stack=step.stack, cross=step.cross)
        if isinstance(target, Problem):
            raise self._problem(target, step, value)

    def _problem(self, problem: Problem, step: Step, value: int) -> Exception:
        name = self.pawn_name(step.pawn)
        position = self.position
        square = position.pos[step.pawn]
        if problem is Problem.OFF_BOARD:
            place = "has been captured" if square == CAPTURED else "is already in the centre"
            return PawnOffBoardError(f"{name} {place}")
        if problem is Problem.NOT_A_STACK:
            return StackError(f'{name} is not in a stack; move it without "stack"')
        if problem is Problem.START_SHORT:
            need = self.board.lane[square]
            return StartLaneError(
                f"{name} needs at least {need} to leave its start square and reach the "
                f"outer circle, not {value}"
            )
        if problem is Problem.NOT_A_BRIDGE:
            return BridgeError(
                f"{name} is on {self.board.squares[square]}, which is not a bridge; "
                "a pawn must stop on a bridge before crossing it"
            )
        if problem is Problem.CENTRE_NEEDS_ONE:
            return BridgeError(f"entering the centre takes a die of exactly 1, not {value}")
        if problem is Problem.STACK_MAY_NOT_CROSS:
            return StackError(
                "in this game stacks may not cross bridges nor enter the centre: "
                "move one pawn of the stack first"
            )
        target = (self.board.cross if step.cross else self.board.step)[square][value]
        where = self.board.squares[target]
        if problem is Problem.STACK_TOO_HIGH:
            held = "your stack" if len(position.occ[target]) == 2 else "your pawn"
            return StackError(f"{where} already holds {held}; a stack has two pawns at most")
        return CaptureError(f"{where} holds an enemy stack; only a stack can capture a stack")

    def outcome(self) -> Outcome | None:
        position = self.position
        if position.termination is None:
            return None
        winners = position.winners()
        if len(winners) == position.seats:
            winners = ()
        return Outcome(
            position.termination, winners, tuple(float(position.score(s)) for s in range(position.seats))
        )

    # -- views ----------------------------------------------------------------

    def view(self, seat: int | None = None) -> dict[str, JSON]:
        """Everything on the table (Hypnosia hides nothing), plus the legal moves of ``seat`` if it acts.

        The seed is left out: with it the program's future dice could be computed.
        """
        position = self.position
        seats = range(position.seats)
        view: dict[str, JSON] = {
            "game": self.name,
            "board": self.board.name,
            "options": dict(self.options),
            "players": [
                {
                    "name": self.players[s],
                    "colour": self.colour_of(s),
                    "score": position.score(s),
                    "captures": position.captures[s],
                    "centre_points": position.centre_points(s),
                    "on_board": position.on_board(s),
                    "in_centre": position.in_centre(s),
                    "captured": position.captured(s),
                }
                for s in seats
            ],
            "phase": position.phase.name.lower(),
            "to_act": self.to_act,
            "pawns": {self.pawn_name(p): self.where(p) for p in range(len(position.pos))},
            "stacks": [[self.pawn_name(p) for p in sorted(here)] for here in position.occ if len(here) == 2],
            "centre": [self.pawn_name(p) for p in position.arrivals],
            "centre_places_left": max(0, CENTRE_PLACES - len(position.arrivals)),
            "dice": None
            if position.phase != Phase.MOVE
            else {"values": list(position.dice), "used": list(position.used)},
            "lost_dice": list(position.lost),
            "opening": [[{"seat": s, "roll": [a, b]} for s, a, b in rnd] for rnd in position.opening_rolls],
            "rolling": self._rolling(),
            "turns": position.turns,
            "scores_by_turn": [list(scores) for scores in self.scores_by_turn],
            "outcome": None,
        }
        outcome = self.outcome()
        if outcome is not None:
            view["outcome"] = outcome.to_json()
        if seat is not None and seat == self.to_act:
            view["legal_moves"] = self.legal_moves()
        return view

    def _rolling(self) -> int | None:
        """The seat whose dice the next chance event rolls."""
        position = self.position
        if position.phase == Phase.OPENING:
            return position.opening[0]
        return position.seat if position.phase == Phase.ROLL else None

    def __repr__(self) -> str:
        return (
            f"<Hypnosia {len(self.players)} players, {len(self.history)} moves, {self.position.phase.name}>"
        )


__all__ = ["CENTRE", "Hypnosia", "Termination", "program_roll"]
