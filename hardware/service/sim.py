"""The simulated board's pawns, kept in a file so they outlive the service.

On a real board the pawns stay where they are when the service crashes or the
power goes: that is what recovery relies on. The virtual board lives in the
service's memory, so the service writes its pawns to a small JSON file each
time a ``SIM_SLOT`` command moves one (before moving it) and puts them back
on the virtual board at start-up. Editing that file while the service is
stopped is how one simulates "the board changed while the service was down".
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path

from games.hautetension.pawn import PawnKind


class SimBoardFile:
    """``{"a9": "attack", ...}``: the pawns on the virtual board."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)

    def load(self) -> dict[str, PawnKind]:
        """The pawns saved last time (none if the file is missing or unreadable)."""
        try:
            data = json.loads(self.path.read_text())
        except (OSError, ValueError):
            return {}
        if not isinstance(data, dict):
            return {}
        return {str(slot): PawnKind(kind) for slot, kind in data.items() if kind in ("attack", "defense")}

    def save(self, pawns: Mapping[str, PawnKind]) -> None:
        """Replace the file atomically and durably (write, fsync, rename)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(self.path.name + ".tmp")
        with tmp.open("w") as handle:
            json.dump({slot: kind.value for slot, kind in sorted(pawns.items())}, handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, self.path)


def default_sim_file(database: str | os.PathLike[str]) -> Path:
    """Where the virtual board's pawns are kept by default: next to the database."""
    database = Path(database)
    return database.with_name(database.name + ".sim-board.json")
