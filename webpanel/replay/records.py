"""Game records (docs/game-record.md) of the games the panel knows: the board's, from the journal, and
the lobby's digital Haute-Tension games, from their saved moves.

A record is built from what was kept when it is asked for, the same text every time (the journal and
a finished game's moves never change), so there is no second copy to fall out of step. The public
record is built from public journal payloads only; the pawn kinds (the private payloads, or the
digital game itself) are read only for the reveal, once every player consented
(:mod:`webpanel.replay.consent`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from games.hautetension.digital import DigitalHauteTension
from games.hautetension.game import Game
from games.hautetension.layout import DEFAULT_LAYOUT, Layout, load_layout
from games.hautetension.outcome import Termination
from games.hautetension.record import (
    Anomaly,
    CheckFailed,
    CheckResult,
    GameRecord,
    LampCheck,
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
from store.games import GameRecord as StoredGame
from store.journal import Entry, Journal, JournalKind

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
    entries = journal.game_entries(game_id)
    start = next((e for e in entries if e.kind is JournalKind.GAME_START), None)
    if start is None:
        raise NoRecordError(f"there is no board game {game_id}")
    layout = load_layout(str(start.public.get("layout") or _board_layout(journal, start) or DEFAULT_LAYOUT))
    players = tuple(
        Player(str(p.get("name")), str(p.get("lamp")), str(p.get("colour"))) for p in start.public["players"]
    )
    lines: list[Line] = []
    kinds: list[str] = []
    check: PregameCheck | None = None
    end: Entry | None = None
    for entry in entries:
        at = _tenths(start.at, entry.at)
        public = entry.public
        if entry.kind is JournalKind.PLACEMENT and isinstance(public.get("move"), int):
            lines.append(Move(int(public["move"]), at, int(public["player"]), str(public["slot"]),
                              tuple(sorted(public.get("lit") or ())), tuple(public.get("eliminated") or ())))
            kinds.append(str((entry.private or {}).get("kind", "")))
        elif entry.kind in (JournalKind.ANOMALY, JournalKind.ANOMALY_RESOLVED) and public.get("slot"):
            kind = Anomaly if entry.kind is JournalKind.ANOMALY else Resolved
            lines.append(kind(at, str(public.get("kind") or "anomaly"), str(public["slot"])))
        elif entry.kind is JournalKind.GAME_RESUMED and isinstance(public.get("to_move"), int):
            lines.append(Resumed(at, int(public["to_move"])))
        elif entry.kind is JournalKind.PREGAME_CHECK:
            check = _check(public, at)
            if check.result is CheckResult.FAILED:
                lines.append(CheckFailed(at, tuple(str(lamp) for lamp in public.get("failed") or ())))
        elif entry.kind is JournalKind.GAME_END:
            end = entry
    if check is not None and check.result is CheckResult.FAILED and end is not None:
        check = PregameCheck(CheckResult.NOT_DONE, check.tenths, check.lamps)
    if check is None and "pregame_check" in ((start.private or {}).get("setup") or {}):
        check = PregameCheck(CheckResult.NOT_DONE, None, ())
    record = GameRecord(
        event=EVENT, site=EVENT, started_at=int(start.at), board=_backend(journal, start) or "?",
        game=f"board/{game_id}", layout=layout.name, players=players,
        first=int(start.public.get("first") or 0),
        drawn=bool(start.public.get("drawn")), handicap=tuple(sorted(dict(start.public.get("handicap") or {})
                                                                     .items())),
        check=check, lines=tuple(lines), result=_result(end),
    )
    known = all(kind in ("attack", "defense") for kind in kinds)
    return KeptGame(record, tuple(kinds) if known else None, layout, end is not None)


def _tenths(start: float, at: float) -> int:
    return max(0, int(round((at - start) * 10)))


def _check(public: Mapping[str, Any], at: int) -> PregameCheck:
    lamps = public.get("lamps") or {}
    found = tuple((str(lamp), LampCheck(str(what))) for lamp, what in lamps.items() if what in set(LampCheck))
    result = CheckResult(str(public["result"]))
    by = public.get("by") if result is CheckResult.SKIPPED else None
    return PregameCheck(result, at, found, by if by in SKIPPED_BY else None)


def _result(end: Entry | None) -> Result:
    if end is None:
        return Result(Status.RUNNING)
    if end.public.get("status") != "over":
        return Result(Status.ABANDONED)
    outcome = end.public.get("outcome") or {}
    points = end.public.get("points")
    return Result(Status.OVER, tuple(int(w) for w in outcome.get("winners") or ()),
                  Termination[str(outcome["termination"])] if outcome.get("termination") else None,
                  tuple(int(p) for p in points) if isinstance(points, list) else None)


def _service_start(journal: Journal, start: Entry) -> Entry | None:
    found = journal.newest(before_id=start.id, kinds=[JournalKind.SERVICE_START], limit=1)
    return found[0] if found else None


def _backend(journal: Journal, start: Entry) -> str | None:
    service = _service_start(journal, start)
    backend = service.public.get("backend") if service is not None else None
    return str(backend) if backend else None


def _board_layout(journal: Journal, start: Entry) -> str | None:
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

