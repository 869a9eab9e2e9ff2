"""Recovery: rebuild the game from the journal and check it against the board.

After a crash, a ``kill -9`` or a power cut the pawns are still on the board.
The service replays the journal of the last game (its setup, then every
accepted placement, in order) through the rules engine, which gives the same
turn, eliminations and result; then it compares that game and the board it
last saw (``board_state.private``) with the board it reads now:

* the same board: the game resumes where it was, same turn, same lamps;
* exactly one new pawn, nothing else changed, the game running and not paused:
  the player to move placed it while the service was down; it is attributed
  to them like any placement (the journal says it was recovered);
* anything else: each slot that changed is a ``changed-while-down`` anomaly
  and the game stays paused until the board is put back as the journal has it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from games.exc import GameError
from games.hautetension.game import Game
from games.hautetension.pawn import PawnKind
from games.hautetension.setup import GameSetup
from hardware.service.pregame import PregameCheck
from hardware.service.referee import (
    Anomaly,
    AnomalyKind,
    BoardGame,
    GameStatus,
    Referee,
)
from store.journal import Entry, Journal, JournalEntry, JournalKind
from store.journal_game import JournalGame, Start, read_game


class RecoveryError(RuntimeError):
    """The journal cannot be replayed (it names the entry that fails)."""


def last_game(journal: Journal, referee: Referee) -> BoardGame | None:
    """The last game of the journal, replayed through the rules engine."""
    last = journal.last_of_kind(JournalKind.GAME_START)
    if last is None or last.game_id is None or last.private is None:
        return None
    read = read_game(journal.game_entries(last.game_id))
    _refuse_unreadable(read)
    start, game = _set_up_again(last, read, referee)
    board_game = BoardGame(last.game_id, game, dict(start.setup or {}), assignment=start.assignment,
                           confirmed=set(read.confirmed))
    if "pregame_check" in board_game.setup:  # a game set up before the check existed had none
        sensed = referee.sensed_lamps & frozenset(referee.layout.lamps)
        board_game.check = PregameCheck(last.game_id, referee.layout.lamps, sensed)
        for verdict in read.verdicts:
            board_game.check.replay(verdict)
    for move in read.moves:
        try:
            if move.kind is None:
                raise KeyError("kind")
            game.push(move.slot, move.kind)
        except (GameError, KeyError) as exc:
            raise RecoveryError(f"journal entry {move.entry}: cannot replay placement ({exc})") from exc
    if read.end is not None:
        board_game.status = GameStatus(read.end.status.value)
    return board_game


def _set_up_again(last: Entry, read: JournalGame, referee: Referee) -> tuple[Start, Game]:
    """The game's start and the game as its setup starts it again (*last*: its ``game-start``)."""
    try:
        if read.start is None or read.start.setup is None:
            raise ValueError("its game-start or its setup cannot be read")
        return read.start, GameSetup.from_record(read.start.setup).start(referee.layout)
    except (GameError, KeyError, TypeError, ValueError) as exc:
        raise RecoveryError(
            f"journal entry {last.id}: cannot set up game {last.game_id} again ({exc})"
        ) from exc


def _refuse_unreadable(read: JournalGame) -> None:
    """A placement or an end the journal cannot give back stops recovery: the game would not be the
    one played (the entry and the reason are in the message)."""
    for skipped in read.skipped_of(JournalKind.PLACEMENT) + read.skipped_of(JournalKind.GAME_END):
        what = "replay placement" if skipped.kind is JournalKind.PLACEMENT else "read the game's end"
        raise RecoveryError(f"journal entry {skipped.entry}: cannot {what} ({skipped.reason})")


@dataclass(frozen=True)
class Recovery:
    resumed: bool
    message: str
    changed: tuple[str, ...]
    recovered_slot: str | None


def restore(
    referee: Referee,
    journal: Journal,
    snapshot: Mapping[str, PawnKind],
    *,
    now_monotonic: float,
) -> tuple[Recovery, list[JournalEntry]]:
    """Put *referee* back where the journal left it, against the board read now."""
    state = journal.state()
    private = state.private if state is not None and state.private else {}
    public = state.public if state is not None else {}
    seen: dict[str, PawnKind] = _kinds(private.get("board", {}))
    stored = {a.slot: a for a in _anomalies(public.get("anomalies", []))}
    referee.current = last_game(journal, referee)
    referee.lamp_test = bool(private.get("lamp_test", False))
    referee.board = dict(snapshot)
    changed = tuple(sorted(s for s in set(seen) | set(snapshot) if seen.get(s) is not snapshot.get(s)))
    entries: list[JournalEntry] = []
    recovered: str | None = None

    game = referee.running
    if game is not None and not stored and _single_new_pawn(changed, seen, snapshot, game):
        recovered = changed[0]
        referee.board.pop(recovered)
        entries += referee.pawn_placed(recovered, snapshot[recovered], now_monotonic)
        changed = ()

    referee.anomalies = {}
    for slot in sorted(set(snapshot) | set(stored) | (set(game.game.pawns) if game else set())):
        anomaly = _anomaly_for(referee, slot, slot in changed, stored.get(slot))
        if anomaly is not None:
            referee.anomalies[slot] = anomaly
    if referee.running is not None and (changed or referee.lamp_test):
        referee.lamp_test = False
    for slot, anomaly in sorted(referee.anomalies.items()):
        if stored.get(slot) != anomaly:
            entries.append(JournalEntry(JournalKind.ANOMALY, anomaly.to_public()))
    for slot, old in sorted(stored.items()):
        if slot not in referee.anomalies:
            entries.append(
                JournalEntry(
                    JournalKind.ANOMALY_RESOLVED,
                    {"kind": old.kind.value, "slot": slot, "message": f"{slot} matches the game again"},
                    None,
                )
            )
    return _summary(referee, changed, recovered), entries


def _single_new_pawn(
    changed: tuple[str, ...], seen: Mapping[str, PawnKind], snapshot: Mapping[str, PawnKind], game: BoardGame
) -> bool:
    if len(changed) != 1:
        return False
    slot = changed[0]
    return slot not in seen and slot in snapshot and slot not in game.game.pawns


def _anomaly_for(referee: Referee, slot: str, changed: bool, old: Anomaly | None) -> Anomaly | None:
    game = referee.running
    expected = game.game.pawns.get(slot) if game is not None else None
    present = referee.board.get(slot)
    if expected is not None and present is expected[1]:
        return None
    if expected is None and present is None:
        return None
    finished = referee.current
    if game is None and finished is not None and slot in finished.game.pawns and present is not None:
        return None  # a pawn of the finished game, waiting to be cleared
    if changed and game is not None:
        if present is None:
            what = f"the pawn on {slot} is missing"
        elif expected is None:
            what = f"a new pawn stands on {slot}"
        else:
            what = f"the pawn on {slot} is not the one placed there"
        return Anomaly(
            AnomalyKind.CHANGED_WHILE_DOWN,
            slot,
            referee.clock(),
            f"the board changed while the board service was down: {what}; put the board back as it was",
        )
    if old is not None:
        return old
    if expected is None:
        kind = AnomalyKind.NO_GAME if game is None else AnomalyKind.OUT_OF_TURN
        return Anomaly(kind, slot, referee.clock(), f"the pawn on {slot} belongs to no game: lift it")
    if present is None:
        return Anomaly(
            AnomalyKind.LIFTED, slot, referee.clock(), f"the pawn on {slot} is missing: put it back"
        )
    return Anomaly(
        AnomalyKind.CHANGED,
        slot,
        referee.clock(),
        f"the pawn on {slot} is not the one placed there: put the right pawn back",
    )


def _summary(referee: Referee, changed: tuple[str, ...], recovered: str | None) -> Recovery:
    current = referee.current
    if current is None:
        return Recovery(False, "no game to resume", changed, recovered)
    if not current.is_running:
        return Recovery(
            False, f"game {current.id} is {current.status.value}: nothing to resume", changed, recovered
        )
    if changed:
        slots = ", ".join(changed)
        return Recovery(
            False,
            f"game {current.id} cannot resume yet: the board changed while the board service"
            f" was down ({slots}); put it back as it was",
            changed,
            recovered,
        )
    if referee.anomalies:
        return Recovery(
            False,
            f"game {current.id} is paused: {len(referee.anomalies)} open anomal"
            f"{'y' if len(referee.anomalies) == 1 else 'ies'}",
            changed,
            recovered,
        )
    to_move = current.game.to_move
    who = current.game.seats[to_move].name if to_move is not None else "nobody"
    note = (
        f" (the pawn on {recovered} placed while the service was down counts as a move)" if recovered else ""
    )
    return Recovery(True, f"game {current.id} resumed: {who} to move{note}", changed, recovered)


def _kinds(data: Any) -> dict[str, PawnKind]:
    if not isinstance(data, dict):
        return {}
    return {str(slot): PawnKind(kind) for slot, kind in data.items() if kind in ("attack", "defense")}


def _anomalies(data: Any) -> list[Anomaly]:
    result = []
    for item in data if isinstance(data, list) else []:
        try:
            result.append(Anomaly.from_public(item))
        except (KeyError, TypeError, ValueError):
            continue
    return result
