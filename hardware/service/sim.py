"""The simulated board's pawns, kept in a file so they outlive the service.

On a real board the pawns stay where they are when the service crashes or the
power goes: that is what recovery relies on. The virtual board lives in the
service's memory, so the service writes its pawns to a small JSON file each
time a ``SIM_SLOT`` command moves one (before moving it) and puts them back
on the virtual board at start-up. Editing that file while the service is
stopped is how one simulates "the board changed while the service was down".

The file says which pawns conduct: it is private (:mod:`store.files`). A file
that cannot be read, or that is not a board, stops the service at start-up
with a message naming it (:class:`~hardware.exc.SimBoardFileError`): taking
it for an empty board would tell staff to put back a board nobody moved. A
missing file is an empty board (the first start). The service claims the file
for its whole life (``<file>.lock``), like the pins of a real board.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Mapping
from pathlib import Path

from games.hautetension.pawn import PawnKind
from hardware.exc import SimBoardFileError
from store.claim import Claim
from store.files import create_private, make_private, private_folder

KINDS = {kind.value for kind in PawnKind}
WHAT_TO_DO = "fix it, or delete it to start with an empty virtual board"


class SimBoardFile:
    """``{"a9": "attack", ...}``: the pawns on the virtual board."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)

    def claim(self) -> Claim:
        """Claim the file for this service (:class:`~store.claim.ClaimedError` if another holds it)."""
        private_folder(self.path.parent)
        lock = self.path.with_name(self.path.name + ".lock")
        return Claim(lock, what=f"the simulated board's file {self.path}")

    def load(self) -> dict[str, PawnKind]:
        """The pawns saved last time (none if there is no file yet).

        Raises :class:`SimBoardFileError` if the file cannot be read or is not a board's."""
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return {}
        except (OSError, UnicodeDecodeError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            raise SimBoardFileError(
                f"{self.path}: cannot read the simulated board's pawns ({reason}): make it readable "
                "by the board service, or delete it to start with an empty virtual board"
            ) from None
        make_private(self.path)
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise SimBoardFileError(
                f"{self.path}: the simulated board's pawns are not JSON ({exc}): {WHAT_TO_DO}"
            ) from None
        if not isinstance(data, dict):
            raise SimBoardFileError(
                f"{self.path}: not a simulated board (a JSON object such as "
                f'{{"a9": "attack", "c3": "defense"}} was expected, not {type(data).__name__}): {WHAT_TO_DO}'
            )
        bad = sorted(f"{slot}: {kind!r}" for slot, kind in data.items() if kind not in KINDS)
        if bad:
            raise SimBoardFileError(
                f"{self.path}: a pawn is \"attack\" or \"defense\", not {', '.join(bad)}: {WHAT_TO_DO}"
            )
        return {str(slot): PawnKind(kind) for slot, kind in data.items()}

    def save(self, pawns: Mapping[str, PawnKind]) -> None:
        """Replace the file atomically and durably (write, fsync, rename, fsync the folder).

        Raises :class:`SimBoardFileError` (naming the file) if it cannot be written; the old file stays."""
        tmp = self.path.with_name(self.path.name + ".tmp")
        text = json.dumps({slot: kind.value for slot, kind in sorted(pawns.items())})
        try:
            private_folder(self.path.parent)
            with contextlib.suppress(FileNotFoundError):
                tmp.unlink()  # left by a write that died half-way
            fd = create_private(tmp)
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(text)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, self.path)
            _sync_folder(self.path.parent)
        except OSError as exc:
            with contextlib.suppress(OSError):
                tmp.unlink()
            raise SimBoardFileError(
                f"{self.path}: cannot save the simulated board's pawns ({exc.strerror or exc}): nothing was "
                f"moved; make {self.path.parent} writable for the board service and try again"
            ) from None


def _sync_folder(folder: Path) -> None:
    """Make a rename durable: fsync the folder that holds it."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def default_sim_file(database: str | os.PathLike[str]) -> Path:
    """Where the virtual board's pawns are kept by default: next to the database."""
    database = Path(database)
    return database.with_name(database.name + ".sim-board.json")
