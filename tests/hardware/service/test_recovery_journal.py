"""Recovery reads the journal through its one reader: what it cannot read stops it, naming the entry
and why (the game would not be the one played); an older version's entries replay."""

from __future__ import annotations

from pathlib import Path

import pytest

from hardware.service.recovery import RecoveryError
from store.commands import CommandKind, CommandStatus
from tests.hardware.helpers import Rig


def _crash(rig: Rig) -> None:
    """Stop without the loop's clean exit, as a power cut does."""
    rig.service.backend.close()
    rig.conn.close()


def _abandoned(folder: Path) -> Rig:
    rig = Rig(folder)
    rig.new_game()
    assert rig.command(CommandKind.ABANDON_GAME).status is CommandStatus.DONE
    return rig


def test_a_placement_it_cannot_read_stops_recovery_naming_the_entry(tmp_path: Path) -> None:
    before = Rig(tmp_path)
    before.new_game()
    before.place("a9")
    before.conn.execute(
        "UPDATE journal SET public = json_remove(public, '$.player') WHERE kind = 'placement'"
    )
    placement = before.journal.last_of_kind("placement")
    assert placement is not None
    _crash(before)
    reason = r"cannot replay placement \(player is a whole number, not None\)"
    with pytest.raises(RecoveryError, match=rf"journal entry {placement.id}: {reason}"):
        Rig(tmp_path)


def test_a_game_end_it_cannot_read_stops_recovery(tmp_path: Path) -> None:
    before = _abandoned(tmp_path)
    before.conn.execute(
        "UPDATE journal SET public = json_set(public, '$.status', 'lost') WHERE kind = 'game-end'"
    )
    _crash(before)
    with pytest.raises(RecoveryError, match=r"cannot read the game's end \(status is over or abandoned"):
        Rig(tmp_path)


def test_a_game_end_without_status_an_older_version_wrote_ends_the_game(tmp_path: Path) -> None:
    before = _abandoned(tmp_path)
    before.conn.execute(
        "UPDATE journal SET public = json_remove(public, '$.status') WHERE kind = 'game-end'"
    )
    _crash(before)
    after = Rig(tmp_path)
    recovery = after.service.recovery
    assert recovery is not None and not recovery.resumed and "is over: nothing to resume" in recovery.message
    after.close()
