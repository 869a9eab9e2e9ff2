"""The wiring wizard's progress, kept durably so it resumes after an interruption.

One row (the board has one wiring being learned at a time): the layout it is
for, what the learner needs to resume (``progress``: learned slots, channels
left out or seen closed), what a person sees (``view``: the task, the
problems, the closed channels), and who runs the wizard now (``running``:
``"board service"``, ``"hautetension wiring learn (pid 1234)"``, or ``NULL``
once stopped). Whoever runs the wizard writes it (the board service, or the
command when no service runs); the panel only reads it.

The progress is raw wiring (which channel is which slot's conduction): staff
information for service mode, which a running game excludes; the wizard
never runs during a game.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from store.db import transaction


@dataclass(frozen=True)
class WiringRecord:
    layout: str
    started_at: float
    updated_at: float
    progress: dict[str, Any]
    view: dict[str, Any]
    running: str | None


class WiringProgress:
    """The wizard's row on one connection."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def load(self) -> WiringRecord | None:
        row = self.conn.execute("SELECT * FROM wiring_progress WHERE id = 1").fetchone()
        if row is None:
            return None
        return WiringRecord(layout=row["layout"], started_at=float(row["started_at"]),
                            updated_at=float(row["updated_at"]), progress=json.loads(row["progress"]),
                            view=json.loads(row["view"]), running=row["running"])

    def save(self, layout: str, progress: Mapping[str, Any], view: Mapping[str, Any], *,
             running: str | None) -> None:
        """Write the progress (committed, hence durable, when this returns)."""
        now = time.time()
        with transaction(self.conn):
            self.conn.execute(
                "INSERT INTO wiring_progress (id, layout, started_at, updated_at, progress, view, running)"
                " VALUES (1, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET layout = excluded.layout,"
                " updated_at = excluded.updated_at, progress = excluded.progress, view = excluded.view,"
                " running = excluded.running",
                (layout, now, now, json.dumps(dict(progress), sort_keys=True),
                 json.dumps(dict(view), sort_keys=True), running),
            )

    def stopped(self) -> None:
        """The wizard stopped (its progress stays, to be resumed)."""
        with transaction(self.conn):
            self.conn.execute("UPDATE wiring_progress SET running = NULL, updated_at = ? WHERE id = 1",
                              (time.time(),))

    def clear(self) -> bool:
        """Forget the progress (start over); whether there was any."""
        with transaction(self.conn):
            return self.conn.execute("DELETE FROM wiring_progress WHERE id = 1").rowcount > 0
