"""The frame every digital game implements.

One small protocol, in the spirit of python-chess: a game is created from its
players, options and a seed; it lists the legal moves of the seat to act,
``push`` applies a move (a JSON-able value) or raises a specific
:class:`~games.exc.IllegalMoveError` with a readable reason, ``pop`` takes it
back, ``outcome`` says how it ended, ``view`` shows a seat (or a spectator)
what it may see, and ``to_json``/``from_json`` save a whole game as its
players, options, seed and move list, replayed on loading. A game declares
the options it takes as data (:attr:`DigitalGame.known_options`,
:mod:`games.options`), which it checks them against.

Computer players implement :class:`Player` (``choose(game) -> move``) and are
listed per game and level in :data:`AI_LEVELS`.
"""

from __future__ import annotations

import abc
import copy
import enum
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Final, Protocol, Self, TypeAlias

from games.budget import Budget, TimedLevel
from games.exc import BadOptionsError as BadOptionsError  # raised by the options, as it always was
from games.exc import GameError, GameOverError, IllegalMoveError
from games.options import Option, check_options

JSON: TypeAlias = Any
"""A value made of dicts, lists, strings, numbers, booleans and None."""

Move: TypeAlias = JSON
"""A move as a player sends it: any JSON value, which the game reads and checks.

Each game types the moves it lists and records in its own notation: ``HopMove``
(games/hop/game.py), ``HypnosiaMove`` (games/hypnosia/game.py),
``PlacementMove`` (games/hautetension/digital.py); Quantum tic-tac-toe's are
lists of squares or ``{"collapse": square}`` (games/qttt/game.py)."""

CHANCE: Final = -1
"""The actor of a chance event (dice, a draw from a deck).

A game whose :attr:`DigitalGame.to_act` is ``CHANCE`` lists the possible
outcomes as its legal moves; the caller pushes one (rolled with the game's
seeded :attr:`DigitalGame.rng`, or entered from real dice).
"""


class UnknownGameError(GameError, LookupError):
    """No game is registered under that name."""

    def __init__(self, name: str) -> None:
        self.name = name
        super().__init__(f"there is no game called {name!r} (known: {', '.join(sorted(GAMES)) or 'none'})")


class BadMoveError(IllegalMoveError):
    """A move that is not written in the game's notation."""


class SavedGameError(GameError, ValueError):
    """A saved game that cannot be loaded (bad JSON shape or an illegal move)."""


@dataclass(frozen=True)
class Outcome:
    """How a game ended: python-chess's ``Outcome``, for any number of seats.

    ``termination`` is a member of the game's own Termination enum;
    ``winners`` lists the winning seats (empty for a draw); ``scores`` holds
    per-seat points when the game keeps score.
    """

    termination: enum.Enum
    winners: tuple[int, ...] = ()
    scores: tuple[float, ...] | None = None

    @property
    def draw(self) -> bool:
        return not self.winners

    def to_json(self) -> dict[str, JSON]:
        return {
            "termination": self.termination.value,
            "winners": list(self.winners),
            "draw": self.draw,
            "scores": None if self.scores is None else list(self.scores),
        }


class DigitalGame(abc.ABC):
    """Base class of the digital games.

    Subclasses set :attr:`name`, implement the abstract methods, and keep all
    their state derivable from (players, options, seed, history) so that
    :meth:`from_json` can rebuild a game by replaying it.
    """

    name: ClassVar[str]
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 2
    hidden_information: ClassVar[bool] = False
    """True when a seat holds secrets of its own (e.g. hidden pawn kinds): such a
    game is never played hot seat, as everyone at the screen would see them."""
    known_options: ClassVar[tuple[Option, ...]] = ()
    """The options the game takes, declared once (games.options): what :meth:`check_options` checks,
    and what the lobby documents and draws as controls. Empty: the game takes no options."""

    def __init__(
        self, players: Sequence[str], *, options: Mapping[str, JSON] | None = None, seed: int | None = None
    ) -> None:
        players = list(players)
        if not self.min_players <= len(players) <= self.max_players:
            raise BadOptionsError(
                f"{self.name} is played by {self.min_players}-{self.max_players} players, not {len(players)}"
            )
        self.players: tuple[str, ...] = tuple(players)
        self.options: dict[str, JSON] = self.check_options(dict(options or {}))
        self.seed: int = seed if seed is not None else random.SystemRandom().randrange(2**32)
        self.rng = random.Random(self.seed)
        self.history: list[Move] = []

    @classmethod
    def new(
        cls, players: Sequence[str], *, options: Mapping[str, JSON] | None = None, seed: int | None = None
    ) -> Self:
        """Start a game; the same players, options and seed give the same game."""
        return cls(players, options=options, seed=seed)

    def check_options(self, options: dict[str, JSON]) -> dict[str, JSON]:
        """The options checked against :attr:`known_options` and completed with their defaults."""
        return check_options(self.name, self.known_options, options, len(self.players))

    # -- state ----------------------------------------------------------

    @property
    @abc.abstractmethod
    def to_act(self) -> int | None:
        """The seat that must move next, :data:`CHANCE`, or None when over."""

    @abc.abstractmethod
    def legal_moves(self) -> list[Move]:
        """Every move the actor may push now (empty when the game is over)."""

    @abc.abstractmethod
    def _apply(self, move: Move) -> Move | None:
        """Check ``move`` and apply it, or raise an IllegalMoveError; no history.

        May return the move in the game's normal notation, which the history
        records instead of the move as given (e.g. a tuple becomes a list).
        """

    @abc.abstractmethod
    def _restart(self) -> None:
        """Reset the state to the start of the game (history aside)."""

    @abc.abstractmethod
    def outcome(self) -> Outcome | None:
        """How the game ended, or None while it goes on."""

    @abc.abstractmethod
    def view(self, seat: int | None = None) -> dict[str, JSON]:
        """What ``seat`` may see (None: a spectator), as JSON."""

    # -- moves ----------------------------------------------------------

    def is_over(self) -> bool:
        return self.outcome() is not None

    def is_legal(self, move: Move) -> bool:
        try:
            self.play(move)
        except IllegalMoveError:
            return False
        return True

    def push(self, move: Move) -> None:
        """Apply a move, or raise a specific IllegalMoveError and change nothing."""
        if self.is_over():
            raise GameOverError("the game is over")
        normal = self._apply(move)
        self.history.append(copy.deepcopy(move if normal is None else normal))

    def play(self, move: Move) -> Self:
        """A new game with ``move`` applied; this one is unchanged."""
        game = self.copy()
        game.push(move)
        return game

    def pop(self) -> Move:
        """Take back the last move (replays the rest from the start)."""
        if not self.history:
            raise IndexError("no move to take back")
        moves = self.history[:-1]
        last = self.history[-1]
        self._replay(moves)
        return last

    def copy(self) -> Self:
        return copy.deepcopy(self)

    def _replay(self, moves: Sequence[Move]) -> None:
        self.rng = random.Random(self.seed)
        self.history = []
        self._restart()
        for move in moves:
            self.push(move)

    # -- saving ---------------------------------------------------------

    def to_json(self) -> dict[str, JSON]:
        return {
            "game": self.name,
            "players": list(self.players),
            "options": copy.deepcopy(self.options),
            "seed": self.seed,
            "moves": copy.deepcopy(self.history),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, JSON]) -> Self:
        """Rebuild a saved game by replaying its moves; a bad save raises SavedGameError."""
        try:
            players, options, seed, moves = data["players"], data["options"], data["seed"], data["moves"]
        except (KeyError, TypeError) as exc:
            raise SavedGameError(f"a saved game needs players, options, seed and moves ({exc})") from exc
        if data.get("game", cls.name) != cls.name:
            raise SavedGameError(f"this is a saved {data.get('game')!r} game, not {cls.name!r}")
        if not isinstance(moves, list) or not isinstance(players, list):
            raise SavedGameError("players and moves must be lists")
        if not (options is None or isinstance(options, dict)):
            raise SavedGameError("the options must be a JSON object")
        if not (seed is None or isinstance(seed, int)):
            raise SavedGameError("the seed must be an integer")
        try:
            game = cls.new(players, options=options, seed=seed)
        except BadOptionsError as exc:
            raise SavedGameError(f"the saved players or options are refused: {exc}") from exc
        for number, move in enumerate(moves, 1):
            try:
                game.push(move)
            except IllegalMoveError as exc:
                raise SavedGameError(f"move {number} ({move!r}) cannot be replayed: {exc}") from exc
        return game


class Player(Protocol):
    """A computer player: picks a legal move for the seat to act."""

    def choose(self, game: DigitalGame) -> Move: ...


PlayerFactory: TypeAlias = Callable[[random.Random], Player]

GAMES: dict[str, type[DigitalGame]] = {}
"""The games by name."""

AI_LEVELS: dict[str, dict[str, PlayerFactory]] = {}
"""Per game, the computer player levels (``"random"``, ...) by name."""


def register_game(cls: type[DigitalGame], *, ai_levels: Mapping[str, PlayerFactory] | None = None) -> None:
    """List a game (and its computer levels) under its name."""
    GAMES[cls.name] = cls
    AI_LEVELS[cls.name] = dict(ai_levels or {})


def game_class(name: str) -> type[DigitalGame]:
    """The game registered as ``name`` (the shipped games are loaded on demand)."""
    if name not in GAMES:
        load_builtin_games()
    try:
        return GAMES[name]
    except KeyError:
        raise UnknownGameError(name) from None


def ai_player(
    game: str, level: str, *, rng: random.Random | None = None, budget: Budget | None = None
) -> Player:
    """A computer player of ``game`` at ``level``.

    ``budget`` replaces a searching level's own thinking time (games.budget);
    the levels that do not search ignore it.
    """
    levels = AI_LEVELS.get(game_class(game).name, {})
    if level not in levels:
        raise BadOptionsError(f"{game} has no computer level {level!r} (known: {', '.join(levels)})")
    factory = levels[level]
    if budget is not None and isinstance(factory, TimedLevel):
        timed: TimedLevel[Player] = factory
        return timed(rng or random.Random(), budget)
    return factory(rng or random.Random())


BUILTIN_GAME_MODULES: Final = ("games.qttt", "games.hypnosia", "games.hop", "games.hautetension.digital")
"""The modules of the games that ship with the project; each registers itself on import."""


def load_builtin_games() -> dict[str, type[DigitalGame]]:
    """Import the shipped games (each registers itself) and return :data:`GAMES`."""
    import importlib

    for module in BUILTIN_GAME_MODULES:
        importlib.import_module(module)
    return GAMES


class RandomPlayer:
    """Any game's weakest level: a uniformly random legal move."""

    def __init__(self, rng: random.Random | None = None) -> None:
        self.rng = rng or random.Random()

    def choose(self, game: DigitalGame) -> Move:
        moves = game.legal_moves()
        if not moves:
            raise GameOverError("the game is over")
        return self.rng.choice(moves)
