"""The child processes of ``run`` and ``event demo``: real processes, real signals."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from hautetension.children import Children, Stopped

# Writes its name to the file when it gets SIGTERM, then exits; says it is ready by creating <file>.<name>.
SAYS_ITS_NAME = textwrap.dedent(
    """
    import pathlib, signal, sys, time
    name, out = sys.argv[1], pathlib.Path(sys.argv[2])
    def bye(signum, frame):
        with out.open("a") as f:
            f.write(name + "\\n")
        sys.exit(0)
    signal.signal(signal.SIGTERM, bye)
    pathlib.Path(f"{out}.{name}").touch()
    while True:
        time.sleep(0.05)
    """
)

IGNORES_SIGTERM = "import signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\ntime.sleep(60)\n"


def _wait_for(path: Path, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.02)


def test_the_first_child_that_stops_is_named_with_its_status() -> None:
    children = Children()
    try:
        children.start("sleeper", [sys.executable, "-c", "import time; time.sleep(60)"])
        children.start("quitter", [sys.executable, "-c", "raise SystemExit(3)"])
        assert children.wait_for_first_to_stop(interval=0.02) == Stopped("quitter", 3)
    finally:
        children.stop(timeout=5)


def test_children_stop_last_started_first(tmp_path: Path) -> None:
    said = tmp_path / "said"
    children = Children()
    for name in ("broker", "server", "board"):
        children.start(name, [sys.executable, "-c", SAYS_ITS_NAME, name, str(said)])
        _wait_for(tmp_path / f"said.{name}")
    assert children.first_stopped() is None

    children.stop(timeout=10)

    assert said.read_text().split() == ["board", "server", "broker"]


def test_a_child_that_ignores_its_signal_is_killed(tmp_path: Path) -> None:
    children = Children()
    child = children.start("stubborn", [sys.executable, "-c", IGNORES_SIGTERM])
    time.sleep(0.3)  # let it install its handler: a SIGTERM before that would simply end it
    children.stop(timeout=0.5)
    assert child.returncode == -signal.SIGKILL


def test_output_goes_to_the_given_file(tmp_path: Path) -> None:
    log = tmp_path / "child.log"
    children = Children()
    with log.open("ab") as output:
        talker = "import sys; print('out'); print('err', file=sys.stderr)"
        child = children.start("talker", [sys.executable, "-c", talker], output=output)
    child.wait(timeout=10)
    assert log.read_text().split() == ["out", "err"]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the parent-death signal is Linux's prctl")
def test_children_get_sigterm_when_their_parent_is_killed(tmp_path: Path) -> None:
    """A ``kill -9`` of ``hautetension run`` must not leave its board service running on its own."""
    said = tmp_path / "said"
    parent = textwrap.dedent(
        f"""
        import sys, time
        from hautetension.children import Children
        Children().start("orphan", [sys.executable, "-c", {SAYS_ITS_NAME!r}, "orphan", {str(said)!r}])
        time.sleep(60)
        """
    )
    process = subprocess.Popen([sys.executable, "-c", parent], cwd=Path(__file__).parents[2])
    try:
        _wait_for(tmp_path / "said.orphan")
        os.kill(process.pid, signal.SIGKILL)
        process.wait(timeout=10)
        deadline = time.monotonic() + 10
        while not said.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert said.read_text().split() == ["orphan"]
    finally:
        if process.poll() is None:
            process.kill()
