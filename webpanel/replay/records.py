"""Game records (docs/game-record.md) of the games the panel knows: the board's, from the journal, and
the lobby's digital Haute-Tension games, from their saved moves.

A record is built from what was kept when it is asked for, the same text every time (the journal and
a finished game's moves never change), so there is no second copy to fall out of step. The public
record is built from public journal payloads only; the pawn kinds (the private payloads, or the
digital game itself) are read only for the reveal, once every player consented
(:mod:`webpanel.replay.consent`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from games.hautetension.digital import DigitalHauteTension
from games.hautetension.game import Game
from games.hautetension.layout import DEFAULT_LAYOUT, Layout, load_layout
from games.hautetension.record import (
    Anomaly,
    CheckFailed,
    CheckResult,
    GameRecord,
    Line,
    Move,
    Player,
    PregameCheck,
    Resolved,
    Result,
    Resumed,
    Reveal,
    Status,
    record_of_game,
)
from games.hautetension.setup import SKIPPED_BY
from store import journal_game
from store.games import GameRecord as StoredGame
from store.journal import Journal, JournalKind
from store.journal_game import read_game

EVENT = "?"
"""What the Event and Site headers say when nothing names them (PGN's convention)."""


class NoRecordError(LookupError):
    """No game with that id (or not a game of Haute-Tension)."""


@dataclass(frozen=True)
class KeptGame:
    """A game's record and, kept apart, what only the reveal may use."""

    record: GameRecord
    """The public record: no reveal section."""
    kinds: tuple[str, ...] | None
    """Each move's pawn kind, in order (None: unknown, e.g. a journal without them)."""
    layout: Layout
    is_over: bool

    def revealed(self, consented_at: float) -> GameRecord:
        """The record with its reveal section (call only once every player consented)."""
        if self.kinds is None:
            return self.record
        defense: list[list[str]] = [[] for _ in self.record.players]
        for move, kind in zip(self.record.moves, self.kinds, strict=True):
            if kind == "defense":
                defense[move.player].append(move.slot)
        return _with_reveal(self.record, Reveal(int(consented_at), tuple(tuple(d) for d in defense)))

    def game(self) -> Game | None:
        """The game itself, pawn kinds included (for the reveal and the analysis only)."""
        if self.kinds is None:
            return None
        return self.revealed(0).to_game(self.layout)


def _with_reveal(record: GameRecord, reveal: Reveal) -> GameRecord:
    return replace(record, reveal=reveal)


# -- the board's games --------------------------------------------------------------------------------


def board_game(journal: Journal, game_id: int) -> KeptGame:
    """The record of board game *game_id* from the journal (running, over or abandoned)."""
    game = read_game(journal.game_entries(game_id))
    start = game.start
    if start is None:
        unreadable = game.skipped_of(JournalKind.GAME_START)
        reason = f": its start cannot be read ({unreadable[0].reason})" if unreadable else ""
        raise NoRecordError(f"there is no board game {game_id}{reason}")
    layout = load_layout(start.layout or _board_layout(journal) or DEFAULT_LAYOUT)
    record = GameRecord(
        event=EVENT, site=EVENT, started_at=int(start.at), board=_backend(journal, start.entry) or "?",
        game=f"board/{game_id}", layout=layout.name,
        players=tuple(Player(seat.name, seat.lamp, seat.colour) for seat in start.players),
        first=start.first, drawn=start.drawn, handicap=start.handicap, check=_check(game, start),
        lines=tuple(line for event in game.events if (line := _line(event, start.at)) is not None),
        result=_result(game.end),
    )
    return KeptGame(record, _kinds(game), layout, game.end is not None)


def _kinds(game: journal_game.JournalGame) -> tuple[str, ...] | None:
    """Each move's pawn kind, for the reveal (None: the journal does not keep every one)."""
    kinds = tuple(move.kind for move in game.moves if move.kind is not None)
    return kinds if len(kinds) == len(game.moves) else None


def _tenths(start: float, at: float) -> int:
    return max(0, int(round((at - start) * 10)))


def _line(event: journal_game.Event, start: float) -> Line | None:
    """What the record's timeline says of a game's event (a check's verdict: only when it failed)."""
    at = _tenths(start, event.at)
    if isinstance(event, journal_game.Placed):
        return Move(event.move, at, event.player, event.slot, event.lit, event.eliminated)
    if isinstance(event, journal_game.Opened):
        return Anomaly(at, event.what, event.slot)
    if isinstance(event, journal_game.Resolved):
        return Resolved(at, event.what, event.slot)
    if isinstance(event, journal_game.Resumed):
        return Resumed(at, event.player)
    return CheckFailed(at, event.failed) if event.result is CheckResult.FAILED else None


def _check(game: journal_game.JournalGame, start: journal_game.Start) -> PregameCheck | None:
    """The pre-game check as the record's header says it: its last verdict (a game that ended while it
    failed never had its check done), or not done for a game set up with one and no verdict yet."""
    if not game.verdicts:
        asked = start.setup is not None and "pregame_check" in start.setup
        return PregameCheck(CheckResult.NOT_DONE, None, ()) if asked else None
    last = game.verdicts[-1]
    at = _tenths(start.at, last.at)
    if last.result is CheckResult.FAILED and game.end is not None:
        return PregameCheck(CheckResult.NOT_DONE, at, last.lamps)
    by = last.by if last.result is CheckResult.SKIPPED and last.by in SKIPPED_BY else None
    return PregameCheck(last.result, at, last.lamps, by)


def _result(end: journal_game.Ended | None) -> Result:
    if end is None:
        return Result(Status.RUNNING)
    if end.status is not Status.OVER:
        return Result(Status.ABANDONED)
    return Result(Status.OVER, end.winners, end.termination, end.points)


def _backend(journal: Journal, start: int) -> str | None:
    """The board's backend when the game started: its last ``service-start`` before entry *start*."""
    found = journal.newest(before_id=start, kinds=[JournalKind.SERVICE_START], limit=1)
    backend = found[0].public.get("backend") if found else None
    return str(backend) if backend else None


def _board_layout(journal: Journal) -> str | None:
    """The layout of a game started before game-start entries named it: the board's, when it started."""
    state = journal.state()
    layout = state.public.get("layout") if state is not None else None
    return str(layout) if layout else None


def board_games(journal: Journal, *, limit: int = 50) -> list[int]:
    """The board's latest games, newest first."""
    return [int(e.game_id) for e in journal.newest(kinds=[JournalKind.GAME_START], limit=limit)
            if e.game_id is not None]


# -- the lobby's games ---------------------------------------------------------------------------------


def lobby_game(stored: StoredGame) -> KeptGame:
    """The record of a digital Haute-Tension game of the lobby (its moves carry no times)."""
    if stored.game != DigitalHauteTension.name:
        raise NoRecordError(f"game {stored.id} is a game of {stored.game}: only Haute-Tension has a record")
    digital = stored.load()
    assert isinstance(digital, DigitalHauteTension)
    game = digital.game
    over = not stored.is_open()  # over by the rules, or abandoned by its host, or expired
    record = record_of_game(
        game, event=EVENT, site=EVENT, started_at=stored.created_at, board="digital",
        name=f"lobby/{stored.id}", drawn=digital.options.get("first") is None,
        status=None if game.is_over() or not over else Status.ABANDONED,
    )
    names = tuple(Player(seat.name, p.lamp, p.colour) for seat, p in zip(stored.seats, record.players,
                                                                           strict=True))
    record = replace(record, players=names)
    return KeptGame(record, tuple(p.kind.value for p in game.history), game.layout, over)

