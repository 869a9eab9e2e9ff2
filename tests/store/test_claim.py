"""Exclusive claims (store/claim.py): one holder, named when refused, released by the kernel on death."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from store.claim import Claim, ClaimedError, claim_database, holder_of_path, lock_path

HOLD = """
import sys, time
from store.claim import claim_database
claim = claim_database(sys.argv[1])
print("held", flush=True)
time.sleep(60)
"""


def _holder_process(database: Path) -> subprocess.Popen[str]:
    proc = subprocess.Popen([sys.executable, "-c", HOLD, str(database)], stdout=subprocess.PIPE, text=True,
                            cwd=Path(__file__).resolve().parents[2])
    assert proc.stdout is not None and proc.stdout.readline() == "held\n"
    return proc


def _kill(proc: subprocess.Popen[str]) -> None:
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert proc.stdout is not None
    proc.stdout.close()


def test_a_second_claim_is_refused_naming_the_holder_then_free_again(tmp_path: Path) -> None:
    database = tmp_path / "h.db"
    first = claim_database(database)
    with pytest.raises(ClaimedError) as refused:
        claim_database(database)
    holder = refused.value.holder
    assert holder is not None and holder.pid == os.getpid()
    assert holder.started_at is not None and abs(holder.started_at - time.time()) < 24 * 3600
    message = str(refused.value)
    assert message.startswith(f"the database {database} is already in use by pid {os.getpid()}")
    assert "running since" in message
    first.release()
    claim_database(database).release()


def test_the_lock_file_is_beside_the_database_and_private(tmp_path: Path) -> None:
    with claim_database(tmp_path / "var" / "h.db") as claim:
        assert claim.path == lock_path(tmp_path / "var" / "h.db") == tmp_path / "var" / "h.db.lock"
        assert stat.S_IMODE(claim.path.stat().st_mode) == 0o600


def test_another_process_is_named_with_its_command(tmp_path: Path) -> None:
    proc = _holder_process(tmp_path / "h.db")
    try:
        with pytest.raises(ClaimedError) as refused:
            claim_database(tmp_path / "h.db")
        assert refused.value.holder is not None and refused.value.holder.pid == proc.pid
        assert "-c" in (refused.value.holder.command or "")
        assert holder_of_path(lock_path(tmp_path / "h.db")) == refused.value.holder
    finally:
        _kill(proc)


def test_kill_9_leaves_no_claim_behind(tmp_path: Path) -> None:
    _kill(_holder_process(tmp_path / "h.db"))
    assert lock_path(tmp_path / "h.db").exists()  # the file stays: it is not what claims
    assert holder_of_path(lock_path(tmp_path / "h.db")) is None
    claim_database(tmp_path / "h.db").release()


def test_a_device_file_is_claimed_without_being_created(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        Claim(tmp_path / "gpiochip0", what="the GPIO chip", create=False)
    (tmp_path / "gpiochip0").write_bytes(b"")
    os.chmod(tmp_path / "gpiochip0", 0o644)
    with (Claim(tmp_path / "gpiochip0", what="the GPIO chip", create=False),
          pytest.raises(ClaimedError, match="the GPIO chip is already in use by pid")):
        Claim(tmp_path / "gpiochip0", what="the GPIO chip", create=False)
    assert stat.S_IMODE((tmp_path / "gpiochip0").stat().st_mode) == 0o644  # not a file of ours
