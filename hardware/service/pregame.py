"""The pre-game check: before play, every lamp must light while the test button is held.

The rules ask for it (« Avant chaque partie, on presse l'interrupteur pour
s'assurer du bon fonctionnement du plateau ») so that nobody disputes a lamp
afterwards. When a game is set up the display asks the players to hold the
test button; every lamp lights while it is held (as it always does). Then:

* a lamp with a current-feedback input passes when it drew current during
  the hold, and fails when it did not (a bulb, a fuse, a driver to look at);
* the lamps without one are confirmed by the players on the display (« we saw
  them light »), or reported as not lit, which fails them;
* every lamp passed: the game starts. A lamp that failed stops it from
  starting, and the display says which lamp to look at; holding the button
  again checks again.

Staff may skip the check (at setup, or while it waits). The verdict of every
attempt is journaled (``pregame-check``) with its time, and the game record and
the replay show it at the top. The check reads only lamps, never slots: it
tells nothing of the pawns.

:class:`PregameCheck` does no I/O: the referee hands it the button's events
(with their monotonic times) and the lamp-current readings the service takes
while the button is held, and writes what it returns to the journal.
"""

from __future__ import annotations

import enum
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from store.journal import JournalEntry, JournalKind
from store.journal_game import Verdict, read_verdict
from store.journal_payloads import CheckState, PregameVerdict

MIN_HOLD_S = 0.5
"""A hold shorter than this gives no verdict: a lamp's current feedback needs time to settle (50 ms by
default, ``lamp_feedback_ms``), and a tap is not a look at the lamps."""


class CheckStatus(enum.Enum):
    """Where the check is (the panel shows each one; docs/board-service.md)."""

    WAITING = "waiting"
    """Hold the test button."""
    HOLDING = "holding"
    """The button is held: every lamp is lit, their currents are read."""
    CONFIRM = "confirm"
    """The players say whether they saw the lamps without current feedback light."""
    FAILED = "failed"
    """A lamp did not light: look at it, then hold the button again."""
    PASSED = "passed"
    SKIPPED = "skipped"


_VERDICTS: dict[CheckStatus, Literal["passed", "failed", "skipped"]] = {
    CheckStatus.PASSED: "passed", CheckStatus.FAILED: "failed", CheckStatus.SKIPPED: "skipped",
}
"""The statuses a verdict ends in, as its journal entry says them."""


class CheckRefused(ValueError):
    """A players' answer or a skip the check cannot take now (the message says why)."""


@dataclass
class PregameCheck:
    """One game's pre-game check."""

    game: int
    lamps: tuple[str, ...]
    """Every lamp of the board, in the layout's order."""
    sensed: frozenset[str] = frozenset()
    """The lamps with a current-feedback input."""
    status: CheckStatus = CheckStatus.WAITING
    found: dict[str, str] = field(default_factory=dict)
    """Lamp → what the last verdict found: ``current``, ``seen``, ``failed`` or ``unchecked``."""
    failed: tuple[str, ...] = ()
    attempts: int = 0
    short: bool = False
    """The last hold was too short to tell."""
    _held_since: float | None = None
    _drew: set[str] = field(default_factory=set)

    @property
    def is_done(self) -> bool:
        """Passed or skipped: the game may start."""
        return self.status in (CheckStatus.PASSED, CheckStatus.SKIPPED)

    @property
    def unsensed(self) -> tuple[str, ...]:
        """The lamps the players must confirm."""
        return tuple(lamp for lamp in self.lamps if lamp not in self.sensed)

    # -- what happens at the board ----------------------------------------------------------------

    def button(self, held: bool, at: float) -> list[JournalEntry]:
        """The test button was pressed or released (*at*: monotonic seconds)."""
        if self.is_done:
            return []
        if held:
            self.status = CheckStatus.HOLDING
            self._held_since = at
            self._drew = set()
            self.short = False
            return []
        if self.status is not CheckStatus.HOLDING or self._held_since is None:
            return []
        held_for = at - self._held_since
        self._held_since = None
        if held_for < MIN_HOLD_S:
            self.status = CheckStatus.FAILED if self.failed else CheckStatus.WAITING
            self.short = True
            return []
        dark = tuple(lamp for lamp in self.lamps if lamp in self.sensed and lamp not in self._drew)
        found = {lamp: "current" for lamp in self.sensed}
        if dark:
            found.update({lamp: "failed" for lamp in dark})
            found.update({lamp: "unchecked" for lamp in self.unsensed})
            return self._verdict(CheckStatus.FAILED, found, dark, by="current", held_for=held_for)
        if self.unsensed:
            self.found = found
            self.status = CheckStatus.CONFIRM
            return []
        return self._verdict(CheckStatus.PASSED, found, (), by="current", held_for=held_for)

    def currents(self, readings: Mapping[str, bool]) -> None:
        """Lamp-current readings taken while the button is held (lamps with feedback only)."""
        if self.status is CheckStatus.HOLDING:
            self._drew.update(lamp for lamp, drawing in readings.items() if drawing and lamp in self.sensed)

    def confirm(self, not_lit: Collection[str]) -> list[JournalEntry]:
        """The players' answer after a hold: *not_lit* are the lamps they did not see light (none: all
        of them lit)."""
        if self.status is not CheckStatus.CONFIRM:
            raise CheckRefused(
                "hold the test button first: the players confirm the lamps after they saw them lit"
                if not self.is_done else f"the pre-game check of game {self.game} is over"
            )
        unknown = sorted(set(not_lit) - set(self.unsensed))
        if unknown:
            raise CheckRefused(
                f"the players confirm only the lamps without current feedback ({', '.join(self.unsensed)}),"
                f" not {', '.join(unknown)}"
            )
        dark = tuple(lamp for lamp in self.lamps if lamp in set(not_lit))
        found = dict(self.found)
        found.update({lamp: "failed" if lamp in dark else "seen" for lamp in self.unsensed})
        status = CheckStatus.FAILED if dark else CheckStatus.PASSED
        return self._verdict(status, found, dark, by="players")

    def skip(self, by: str = "staff") -> list[JournalEntry]:
        """Skip the check (journaled as skipped, with who skipped it: ``staff``, or ``demo`` for the
        demo game of ``make run``; the record and the replay say so)."""
        if self.is_done:
            raise CheckRefused(f"the pre-game check of game {self.game} is over already")
        found = {lamp: "unchecked" for lamp in self.lamps}
        return self._verdict(CheckStatus.SKIPPED, found, self.failed, by=by)

    def _verdict(
        self, status: CheckStatus, found: dict[str, str], failed: Sequence[str], *, by: str,
        held_for: float | None = None,
    ) -> list[JournalEntry]:
        self.status = status
        self.found = {lamp: found.get(lamp, "unchecked") for lamp in self.lamps}
        self.failed = tuple(failed)
        if status is not CheckStatus.SKIPPED:
            self.attempts += 1
        public: PregameVerdict = {
            "game": self.game,
            "result": _VERDICTS[status],
            "lamps": dict(self.found),
            "failed": list(self.failed),
            "by": by,
            "attempt": self.attempts,
        }
        if held_for is not None:
            public["held_s"] = round(held_for, 2)
        return [JournalEntry(JournalKind.PREGAME_CHECK, public)]

    # -- the board state and recovery ----------------------------------------------------------------

    def to_public(self) -> CheckState:
        """What the display shows (part of the game in the board state)."""
        return {
            "status": self.status.value,
            "lamps": {lamp: self.found.get(lamp, "unchecked") for lamp in self.lamps},
            "sensed": sorted(self.sensed),
            "ask": list(self.unsensed) if self.status is CheckStatus.CONFIRM else [],
            "failed": list(self.failed),
            "short": self.short,
            "attempts": self.attempts,
        }

    def replay(self, verdict: Verdict | Mapping[str, Any]) -> None:
        """Take back a verdict the journal holds (after a restart): as :mod:`store.journal_game` read it,
        or its public payload (:class:`~store.journal_game.Unreadable`, a ``ValueError``, if it cannot
        be read)."""
        if not isinstance(verdict, Verdict):
            verdict = read_verdict(verdict)
        self.status = CheckStatus(verdict.result.value)
        self.found = {lamp: found.value for lamp, found in verdict.lamps}
        self.failed = verdict.failed
        self.attempts = verdict.attempt or self.attempts
