"""An idle board service: no lamp or status work without news, the commands table read when written."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from store.commands import CommandKind, Commands, CommandStatus
from store.db import connect
from tests.hardware.helpers import Rig


@pytest.fixture
def rig(tmp_path: Path) -> Any:
    r = Rig(tmp_path)
    yield r
    r.close()


def _counted(obj: Any, name: str) -> list[int]:
    calls = [0]
    original = getattr(obj, name)

    def counting(*args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        return original(*args, **kwargs)

    setattr(obj, name, counting)
    return calls


def test_an_idle_step_does_not_work_out_the_lamps(rig: Rig) -> None:
    rig.run(0.1)
    lamps = _counted(rig.service.referee, "lamps")
    rig.run(2.0)  # 400 steps, nothing happening
    assert lamps == [0]
    rig.place("d4")  # news: the referee is asked again
    assert lamps[0] >= 1


def test_the_commands_table_is_read_when_written_not_every_interval(rig: Rig, tmp_path: Path) -> None:
    rig.run(0.1)
    reads = _counted(rig.commands, "pending")
    rig.run(2.0)  # 100 command intervals of 20 ms; two heartbeats written meanwhile
    assert reads[0] <= 40, reads
    # A command from another process (the panel's own connection) is still carried out at once.
    panel = Commands(connect(tmp_path / "board.db"))
    try:
        command_id = panel.submit(CommandKind.LAMP_TEST, {"on": True})
        rig.run(0.05)
        command = panel.get(command_id)
        assert command is not None and command.status is CommandStatus.DONE
    finally:
        panel.conn.close()
