"""A link loop supervised: started again, with back-off, whenever it ends without being told to stop.

The event server's ingest must never silently die (docs/event-network.md,
"Supervision"): whatever ends its loop — an error nobody foresaw, a loop that
returned — is recorded (:attr:`Supervisor.last_error`), and the loop runs
again after a pause that doubles each time (from :data:`FIRST_PAUSE_S` to
:data:`LAST_PAUSE_S`) and starts over once the loop has run well for a while.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from uplink.client import LinkLoop

log = logging.getLogger(__name__)

FIRST_PAUSE_S = 0.5
"""The pause before the first restart (one failure may be a moment's: try again soon)."""
LAST_PAUSE_S = 30.0
"""The longest pause between restarts (a loop failing at once on each start is not spun)."""
HEALTHY_S = 60.0
"""A loop that ran this long before it ended starts again after the first pause, not the last one."""


class Supervisor:
    """Runs *loop* in a thread of its own (``name``), again after any end, until :meth:`stop`."""

    def __init__(
        self,
        loop: LinkLoop,
        *,
        name: str = "ingest",
        first_pause: float = FIRST_PAUSE_S,
        last_pause: float = LAST_PAUSE_S,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.loop = loop
        self.name = name
        self.first_pause = first_pause
        self.last_pause = last_pause
        self.clock = clock
        self.restarts = 0
        self.running = False
        """The loop is running now (not ended, not waiting to start again)."""
        self.last_error: str | None = None
        self.last_error_at: float | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def alive(self) -> bool:
        return self.running and self._thread is not None and self._thread.is_alive()

    def start(self) -> Supervisor:
        self._stop.clear()
        self._thread = threading.Thread(target=self._supervise, name=self.name, daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def _supervise(self) -> None:
        pause = self.first_pause
        while not self._stop.is_set():
            started = time.monotonic()
            self.running = True
            try:
                self.loop.run(self._stop)
            except Exception as exc:  # whatever it was, the loop is started again
                self._ended(f"{type(exc).__name__}: {exc}"[:500])
                log.exception("the %s loop failed: starting it again in %.1f s", self.name, pause)
            else:
                if self._stop.is_set():
                    break
                self._ended("the loop ended by itself")
                log.error("the %s loop ended by itself: starting it again in %.1f s", self.name, pause)
            finally:
                self.running = False
            if time.monotonic() - started >= HEALTHY_S:
                pause = self.first_pause
            if self._stop.wait(pause):
                break
            self.restarts += 1
            pause = min(pause * 2, self.last_pause)

    def _ended(self, error: str) -> None:
        self.last_error, self.last_error_at = error, self.clock()
