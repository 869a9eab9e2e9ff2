"""The wiring wizard running on a board: the learner fed from the scanner, its progress in the database.

:class:`WiringSession` is what both ways of running the wizard share:

- **the board service** (the staff page ``/staff/wiring``, and ``hautetension
  wiring learn`` while the service runs): the ``WIRING`` command of the
  command queue starts, stops and steers it (:func:`wiring_command`), and
  every loop turn hands it the scan just made;
- **the command on its own** (no board service running): ``hautetension
  wiring learn`` opens the board itself and does the same.

While it runs, the scanner reads every channel of every multiplexer (a
contact may be wired to one the configuration does not know), and the
progress is written to the database (:class:`store.wiring.WiringProgress`)
when anything is learned, so the wizard resumes where it stopped, from either
side. The slot events the board monitor derives from the old map mean nothing
then; the service ignores them until the wizard stops.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from typing import Any

from games.hautetension.layout import Layout
from hardware.backend import BoardBackend, RawChannels
from hardware.exc import WiringError
from hardware.wiring.learner import LearnTiming, Notice, Progress, WiringLearner
from store.commands import WIRING_ACTIONS
from store.wiring import WiringProgress

VIEW_EVERY = 0.2
"""Seconds between two writes of the view when only it changed (the page reads it a few times a second)."""
ALIVE_EVERY = 2.0
"""The row is written at least this often while the wizard runs: its ``updated_at`` says it is alive."""
IN_SERVICE = "board service"
"""``running`` when the board service runs the wizard."""


class WiringSession:
    """A wiring wizard on *backend*; see the module docstring. *owner* says who runs it (``running``)."""

    def __init__(self, backend: BoardBackend, layout: Layout, *, store: WiringProgress | None, owner: str,
                 now: float, restart: bool = False, timing: LearnTiming | None = None) -> None:
        raw = backend.raw_channels
        if raw is None:
            raise WiringError(
                f"the {backend.name} board reads its channels itself, with its own map: the wiring wizard "
                "learns the map of a board the Pi scans (the gpio backend)")
        self.raw: RawChannels = raw
        self.layout = layout
        self.store = store
        self.owner = owner
        progress = None if restart else _saved_progress(store, layout)
        settings = raw.settings
        self.current = settings.slot_map(layout)
        try:
            self.learner = WiringLearner.for_board(settings, layout.slots, self.current,
                                                   timing=timing, progress=progress)
        except ValueError as exc:
            raise WiringError(f"{exc} (hautetension wiring learn --restart)") from None
        raw.read_every_channel(True)
        self._saved_view: dict[str, Any] | None = None
        self._saved_at = self._written_at = -math.inf
        self.save(now)

    def scanned(self, now: float) -> list[Notice]:
        """Feed the learner the scan just made (the scanner's levels); the notices it gave."""
        notices = self.learner.feed(self.raw.levels, now)
        if notices or now - self._saved_at >= VIEW_EVERY:
            self.save(now, only_if_changed=not notices and now - self._written_at < ALIVE_EVERY)
        return notices

    def view(self) -> dict[str, Any]:
        """The learner's view, with who runs it and the learned slots the configured map has elsewhere."""
        moved = [slot for slot, w in self.learner.progress.learned.items() if w != self.current[slot]]
        return {**self.learner.view(), "running": self.owner, "layout": self.layout.name,
                "moved": sorted(moved, key=self.layout.slots.index)}

    def save(self, now: float, *, only_if_changed: bool = False) -> None:
        """Write the progress and the view (durable when this returns)."""
        self._saved_at = now
        view = self.view()
        if self.store is None or (only_if_changed and view == self._saved_view):
            return
        self.store.save(self.layout.name, self.learner.progress.to_json(), view, running=self.owner)
        self._saved_view, self._written_at = view, now

    def redo(self, slot: str, now: float) -> None:
        try:
            self.learner.redo(self.layout.check_slot(slot), now)
        except ValueError as exc:
            raise WiringError(str(exc)) from None
        self.save(now)

    def accept_closed(self, now: float) -> list[str]:
        try:
            accepted = self.learner.accept_closed(now)
        except ValueError as exc:
            raise WiringError(str(exc)) from None
        self.save(now)
        return [str(ref) for ref in accepted]

    def close(self) -> None:
        """Stop: the scanner reads only the wired channels again; the progress stays for a resumption."""
        self.raw.read_every_channel(False)
        if self.store is not None:
            self.store.stopped()


def _saved_progress(store: WiringProgress | None, layout: Layout) -> Progress | None:
    record = store.load() if store is not None else None
    if record is None:
        return None
    if record.layout != layout.name:
        raise WiringError(f"the saved wiring progress is for layout {record.layout}, the board now has "
                          f"{layout.name}: start over (hautetension wiring learn --restart)")
    try:
        return Progress.from_json(record.progress)
    except ValueError as exc:
        raise WiringError(f"the saved wiring progress cannot be read ({exc}): start over") from None


HOLD_RANGE = (0.02, 5.0)


def _timing(payload: Mapping[str, Any], timing: LearnTiming | None) -> LearnTiming | None:
    """A start's ``hold`` (seconds the contacts must stay still), within :data:`HOLD_RANGE`."""
    hold = payload.get("hold")
    if hold is None:
        return timing
    low, high = HOLD_RANGE
    if isinstance(hold, bool) or not isinstance(hold, int | float) or not low <= hold <= high:
        raise WiringError(f"hold must be a number of seconds from {low:g} to {high:g}, not {hold!r}")
    return dataclasses.replace(timing or LearnTiming(), hold=float(hold))


def wiring_command(session: WiringSession | None, payload: Mapping[str, Any], *, backend: BoardBackend,
                   layout: Layout, store: WiringProgress | None, now: float,
                   timing: LearnTiming | None = None) -> tuple[WiringSession | None, dict[str, Any]]:
    """Carry out a ``WIRING`` command (``{"action": ..., "slot"?, "restart"?}``) in the board service:
    the session afterwards (``None``: not running) and the command's result."""
    action = payload.get("action")
    if action not in WIRING_ACTIONS:
        raise WiringError(f"the wiring action must be one of {', '.join(WIRING_ACTIONS)}, not {action!r}")
    if action == "start":
        if session is None:
            session = WiringSession(backend, layout, store=store, owner=IN_SERVICE, now=now,
                                    restart=bool(payload.get("restart")), timing=_timing(payload, timing))
        return session, {"running": True, "view": session.view()}
    if action == "reset":
        if session is not None:
            raise WiringError("the wiring wizard is running: stop it before forgetting its progress")
        return None, {"running": False, "forgotten": store.clear() if store is not None else False}
    if session is None:
        if action == "stop":
            return None, {"running": False}
        raise WiringError("the wiring wizard is not running: start it first")
    if action == "stop":
        session.close()
        return None, {"running": False}
    if action == "redo":
        session.redo(str(payload.get("slot")), now)
        return session, {"running": True, "view": session.view()}
    accepted = session.accept_closed(now)
    return session, {"running": True, "accepted": accepted, "view": session.view()}
