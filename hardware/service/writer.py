"""Writing the journal when the database may refuse: nothing is lost, no command is left without an answer.

The board service writes every journal entry, the board state, its heartbeat
and every command's answer through a :class:`JournalWriter`. When the
database cannot be written (its folder or the SD card became read-only, the
disk is full, an I/O error, a lock held longer than the busy timeout), the
writer does not raise into the scan loop, which would stop the lamps and
leave the command that was being carried out pending for ever. It keeps what
it could not write in memory, in order, says so once in the log and in the
service's status (naming the database and the reason), and tries again every
:data:`RETRY_S`; the lamps keep following the board meanwhile.

What was decided, for commands: while the database cannot be written the
service takes no new command (carrying one out is acknowledging it, and an
acknowledgement must be durable). A command already carried out is answered
as soon as writing works again, after the journal entries that record what it
did. Once writing works again, commands that had waited longer than the
service's stale limit are failed, the reason naming the outage (whoever sent
them has stopped waiting), and the others are carried out as usual.

If more than :data:`LIMIT` entries pile up, the writer gives up
(:class:`JournalWriteError`): the service stops, saying how many entries are
lost, and recovery compares the board with the journal at the next start.
"""

from __future__ import annotations

import contextlib
import logging
import sqlite3
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from store.commands import Commands
from store.journal import Journal, JournalEntry
from store.journal_payloads import BoardStatePrivate, BoardStatePublic

RETRY_S = 1.0
"""How often writing is tried again while the database refuses it."""

LIMIT = 10_000
"""Entries kept in memory at most (a busy game writes a few per move) before the service gives up."""

log = logging.getLogger(__name__)


class JournalWriteError(RuntimeError):
    """The database refused writes for so long that the entries waiting in memory passed :data:`LIMIT`."""


@dataclass(frozen=True)
class WriteFault:
    """Since when (wall clock) the database refuses writes, and why."""

    since: float
    reason: str

    def describe(self, until: float | None = None) -> str:
        start = time.strftime("%H:%M:%S", time.localtime(self.since))
        end = f" to {time.strftime('%H:%M:%S', time.localtime(until))}" if until is not None else ""
        return f"from {start}{end}: {self.reason}"


@dataclass(frozen=True)
class _Batch:
    entries: tuple[JournalEntry, ...]
    game_id: int | None


@dataclass(frozen=True)
class _Answer:
    command_id: int
    result: Mapping[str, Any] | None
    error: str | None
    payload: Mapping[str, Any] | None


def is_write_fault(exc: BaseException) -> bool:
    """Whether *exc* says the database cannot be written now (not a bug in the statement)."""
    return isinstance(exc, sqlite3.OperationalError) or type(exc) is sqlite3.DatabaseError


class JournalWriter:
    """The journal, board state and command answers of one service, written in order, held while refused."""

    def __init__(
        self,
        journal: Journal,
        commands: Commands | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
        on_written: Callable[[Sequence[JournalEntry]], None] | None = None,
    ) -> None:
        self.journal = journal
        self.commands = commands
        self.clock = clock
        self.on_written = on_written or (lambda entries: None)
        self.fault: WriteFault | None = None
        self.writes = 0
        self._batches: deque[_Batch] = deque()
        self._answers: deque[_Answer] = deque()
        self._state: tuple[BoardStatePublic, BoardStatePrivate | None] | None = None
        self._next_try = 0.0
        self._ended: tuple[WriteFault, float] | None = None
        conn = journal.conn
        self.database = _database_file(conn) if isinstance(conn, sqlite3.Connection) else "the database"

    @property
    def waiting(self) -> int:
        """Entries and answers not written yet."""
        return sum(len(batch.entries) for batch in self._batches) + len(self._answers)

    @property
    def is_blocked(self) -> bool:
        """True while something waits to be written (no new command is taken meanwhile)."""
        return bool(self._batches or self._answers or self.fault)

    def write(
        self,
        entries: Sequence[JournalEntry],
        *,
        game_id: int | None,
        state_public: BoardStatePublic,
        state_private: BoardStatePrivate | None,
    ) -> bool:
        """Write *entries* and the board state after whatever waits; False if they wait too."""
        self._batches.append(_Batch(tuple(entries), game_id))
        self._state = (state_public, state_private)
        if self.waiting > LIMIT:
            raise JournalWriteError(
                f"{self.waiting} journal entries could not be written to {self.database} "
                f"({self.fault.describe() if self.fault else 'refused'}): stopping; the board is compared "
                "with the journal at the next start"
            )
        if self.fault is not None and self.clock() < self._next_try:
            return False
        return self.flush()

    def answer(
        self, command_id: int, *, result: Mapping[str, Any] | None = None, error: str | None = None,
        payload: Mapping[str, Any] | None = None,
    ) -> bool:
        """Mark a command done (*result*) or failed (*error*), after what waits; False if it waits too."""
        self._answers.append(_Answer(command_id, result, error, payload))
        if self.fault is not None and self.clock() < self._next_try:
            return False
        return self.flush()

    def health(self, report: Mapping[str, Any]) -> None:
        """The heartbeat: not written while entries or answers wait (they go first, at their pace).

        With nothing else waiting it is also what finds out that writing works again."""
        if self._batches or self._answers:
            self.retry()
            return
        if self.fault is not None and self.clock() < self._next_try:
            return
        try:
            self.journal.write_health(report)
        except sqlite3.Error as exc:
            if not is_write_fault(exc):
                raise
            self._failed(exc)
            return
        if self.fault is not None:
            self._recovered()

    def retry(self) -> bool:
        """Try again if it is time to and something waits; True when nothing waits any more."""
        if not self.is_blocked:
            return True
        if self.clock() < self._next_try or not (self._batches or self._answers):
            return False  # only a heartbeat failed: the next heartbeat tries again
        return self.flush()

    def flush(self) -> bool:
        """Write everything that waits, oldest first; True when all of it is written."""
        wrote = False
        try:
            while self._batches:
                batch = self._batches[0]
                last = len(self._batches) == 1
                state = self._state if last else None
                self.journal.append_many(batch.entries, game_id=batch.game_id,
                                         state_public=state[0] if state else None,
                                         state_private=state[1] if state else None)
                self._batches.popleft()
                self.writes += 1
                wrote = True
                self.on_written(batch.entries)
            while self._answers:
                self._write_answer(self._answers[0])
                self._answers.popleft()
                wrote = True
        except sqlite3.Error as exc:
            if not is_write_fault(exc):
                raise
            self._failed(exc)
            return False
        if self.fault is not None and wrote:
            self._recovered()
        return self.fault is None

    def take_ended(self) -> tuple[WriteFault, float] | None:
        """The outage that has just ended (and when), once: the service fails the commands it made wait."""
        ended, self._ended = self._ended, None
        return ended

    def _write_answer(self, answer: _Answer) -> None:
        assert self.commands is not None
        if answer.error is None:
            self.commands.complete(answer.command_id, answer.result, payload=answer.payload)
        else:
            self.commands.fail(answer.command_id, answer.error, payload=answer.payload)

    def _failed(self, exc: sqlite3.Error) -> None:
        conn = self.journal.conn
        if conn.in_transaction:  # a COMMIT that failed leaves the transaction open
            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
        self._next_try = self.clock() + RETRY_S
        if self.fault is None:
            self.fault = WriteFault(time.time(), str(exc))
            log.warning(
                "cannot write to the database %s (%s): is the disk full, or have its folder or the SD card "
                "become read-only? The lamps keep following the board; what happens is kept in memory and "
                "written as soon as the database can be written again (tried every %g s); no command is "
                "taken meanwhile", self.database, exc, RETRY_S)

    def _recovered(self) -> None:
        assert self.fault is not None
        now = time.time()
        log.warning("the database %s can be written again (it could not %s); everything kept meanwhile "
                    "is written", self.database, self.fault.describe(now))
        self._ended = (self.fault, now)
        self.fault = None

    def status(self) -> str | None:
        """One line for systemd's status while writes wait, else None."""
        if self.fault is None:
            return None
        return (f"cannot write to {self.database} ({self.fault.reason}): {self.waiting} entries waiting; "
                "lamps still follow the board")


def _database_file(conn: sqlite3.Connection) -> str:
    with contextlib.suppress(sqlite3.Error):
        for _seq, name, file in conn.execute("PRAGMA database_list"):
            if name == "main":
                return str(file) or "the database"
    return "the database"
