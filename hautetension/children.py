"""The child processes of a command that starts several of them (``run``, ``event demo``).

Both commands start their processes, watch them until one stops (or Ctrl-C),
then stop the others in the reverse order of their start: what started last
depends on what started first (the panel on the board service's database, the
boards on the broker), so it goes first.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import IO

PR_SET_PDEATHSIG = 1


def die_with_parent() -> None:
    """In a child: get SIGTERM when the parent dies, even by ``kill -9`` (Linux), so nothing it
    started keeps running on its own."""
    if sys.platform.startswith("linux"):
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def own_session_dying_with_parent() -> None:
    """In a child: out of the terminal's process group as well, so Ctrl-C reaches only the parent,
    which then stops the children in order."""
    os.setsid()
    die_with_parent()


@dataclass(frozen=True)
class Stopped:
    """A child that stopped on its own."""

    name: str
    status: int


class Children:
    """Named child processes, stopped in the reverse order of their start."""

    def __init__(self, *, preexec_fn: Callable[[], None] = die_with_parent) -> None:
        self._preexec_fn = preexec_fn
        self._running: dict[str, subprocess.Popen[bytes]] = {}

    def start(
        self, name: str, command: Sequence[str], *, output: IO[bytes] | None = None
    ) -> subprocess.Popen[bytes]:
        """Start ``command`` as the child called ``name``; ``output`` takes its stdout and stderr."""
        child = subprocess.Popen(
            list(command),
            stdout=output,
            stderr=subprocess.STDOUT if output is not None else None,
            preexec_fn=self._preexec_fn,
        )
        self._running[name] = child
        return child

    def pid(self, name: str) -> int:
        return self._running[name].pid

    def first_stopped(self) -> Stopped | None:
        """The first child (in start order) that has stopped, if any."""
        for name, child in self._running.items():
            if child.poll() is not None:
                return Stopped(name, child.returncode)
        return None

    def wait_for_first_to_stop(self, *, interval: float = 0.5) -> Stopped:
        """Block until a child stops (Ctrl-C or SIGTERM, turned into KeyboardInterrupt, ends it sooner)."""
        while True:
            stopped = self.first_stopped()
            if stopped is not None:
                return stopped
            time.sleep(interval)

    def stop(self, *, signal_for: Callable[[str], int] = lambda _name: signal.SIGTERM,
             timeout: float = 10.0) -> None:
        """Stop every child still running, the last started first; one that does not stop within
        ``timeout`` seconds of its signal is killed."""
        for name, child in reversed(list(self._running.items())):
            if child.poll() is not None:
                continue
            child.send_signal(signal_for(name))
            try:
                child.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
