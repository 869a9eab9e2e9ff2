"""Exclusive claims: one board service per database, per board.

The board service claims its database (a lock file beside it,
``<database>.lock``) and its board (the GPIO chip's device, the serial port,
the simulated board's file) for its whole life; ``hautetension restore``
claims the database while it puts a backup back. A second claimant is
refused with :class:`ClaimedError`, which names the holder: its pid, what it
runs and since when.

A claim is an ``flock`` lock: the kernel drops it when the process that holds
it dies, however it dies (``kill -9``, a power cut: a lock lives in memory),
so a claim left behind never blocks a restart, and the lock file itself
means nothing once its holder is gone (it is not a pid file). ``flock``
locks belong to the open file, not to the process, so a process that opened
the same file twice conflicts with itself too, which is what the tests use;
and unlike ``fcntl`` locks they are not dropped when some library of the
same process opens and closes the same device. Who holds a lock is read from
``/proc/locks`` (Linux), its start time and command line from ``/proc/<pid>``.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import time
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from store.files import create_private, private_folder

EX_CLAIMED = 75
"""Exit status of a program refused because another holds its claim (sysexits' EX_TEMPFAIL: it
works once the other one stops). The board service's unit does not restart on it."""


@dataclass(frozen=True)
class Holder:
    """The process holding a claim, as far as ``/proc`` tells."""

    pid: int
    started_at: float | None
    command: str | None

    def describe(self) -> str:
        """``pid 1234 (hautetension board --backend sim, running since 2025-03-01 14:02:11)``"""
        details = []
        if self.command:
            details.append(self.command)
        if self.started_at is not None:
            since = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(self.started_at))
            details.append(f"running since {since}")
        return f"pid {self.pid}" + (f" ({', '.join(details)})" if details else "")


class ClaimedError(RuntimeError):
    """Another process holds the claim; ``holder`` says who (None if ``/proc`` does not say)."""

    def __init__(self, message: str, *, path: Path, holder: Holder | None) -> None:
        super().__init__(message)
        self.path = path
        self.holder = holder


class Claim:
    """An exclusive claim on *path*, held until :meth:`release` (or the end of a ``with`` block).

    *what* names the thing claimed in the refusal's message. With *create*
    (lock files) the file is created private if missing; without (device
    files) it must exist."""

    def __init__(self, path: str | os.PathLike[str], *, what: str, create: bool = True) -> None:
        self.path = Path(path)
        self.what = what
        if create:
            self._fd: int | None = create_private(self.path, exclusive=False)
        else:
            self._fd = os.open(self.path, os.O_RDONLY | os.O_CLOEXEC | os.O_NOCTTY | os.O_NONBLOCK)
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = holder_of(self._fd)
            self.release()
            who = holder.describe() if holder else "another process (its pid cannot be read here)"
            raise ClaimedError(f"{self.what} is already in use by {who}", path=self.path,
                               holder=holder) from None
        except BaseException:
            self.release()
            raise

    @property
    def is_held(self) -> bool:
        return self._fd is not None

    def release(self) -> None:
        """Give the claim up (closing the file drops the lock)."""
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)

    close = release

    def __enter__(self) -> Claim:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.release()


def lock_path(database: str | os.PathLike[str]) -> Path:
    """The lock file of a database: ``<database>.lock`` beside it."""
    database = Path(database)
    return database.with_name(database.name + ".lock")


def claim_database(database: str | os.PathLike[str]) -> Claim:
    """Claim *database* for a board service (or a restore); :class:`ClaimedError` if another holds it."""
    database = Path(database)
    private_folder(database.parent)
    return Claim(lock_path(database), what=f"the database {database}")


# -- who holds a lock ---------------------------------------------------------------


def holder_of(fd: int) -> Holder | None:
    """The process holding an ``flock`` write lock on the file open as *fd* (Linux's ``/proc/locks``)."""
    return _holder(os.fstat(fd))


def holder_of_path(path: str | os.PathLike[str]) -> Holder | None:
    """The process holding an ``flock`` write lock on *path* (None: nobody, or nobody ``/proc`` names),
    found without opening it (opening a serial port may reset the device behind it)."""
    try:
        return _holder(os.stat(path))
    except OSError:
        return None


def _holder(st: os.stat_result) -> Holder | None:
    try:
        lines = Path("/proc/locks").read_text().splitlines()
    except OSError:
        return None
    exact: int | None = None
    same_inode: int | None = None
    for line in lines:
        fields = line.split()
        if len(fields) < 6 or fields[1] != "FLOCK" or fields[3] != "WRITE":
            continue  # "->" lines wait for a lock; POSIX and OFD locks are not claims
        try:
            pid = int(fields[4])
            major, minor, inode = fields[5].split(":")
            device = (int(major, 16), int(minor, 16))
        except ValueError:
            continue
        if int(inode) != st.st_ino:
            continue
        if device == (os.major(st.st_dev), os.minor(st.st_dev)):
            exact = pid
            break
        same_inode = same_inode or pid  # overlay file systems report the layer's device
    holder = exact or same_inode
    if not holder:
        return None
    return Holder(holder, _started_at(holder), _command(holder))


def _started_at(pid: int) -> float | None:
    with contextlib.suppress(OSError, ValueError, IndexError):
        stat = Path(f"/proc/{pid}/stat").read_text()
        ticks = int(stat[stat.rindex(")") + 2:].split()[19])  # field 22, counted after the name
        boot = next(int(line.split()[1]) for line in Path("/proc/stat").read_text().splitlines()
                    if line.startswith("btime "))
        return boot + ticks / os.sysconf("SC_CLK_TCK")
    return None


def _command(pid: int) -> str | None:
    with contextlib.suppress(OSError):
        words = Path(f"/proc/{pid}/cmdline").read_bytes().rstrip(b"\0").split(b"\0")
        text = " ".join(word.decode(errors="replace") for word in words if word)
        if " -m hautetension " in f" {text} ":
            text = "hautetension " + text.split(" -m hautetension ", 1)[1]
        elif "/hautetension " in text:
            text = "hautetension " + text.split("/hautetension ", 1)[1]
        return (text[:157] + "...") if len(text) > 160 else text or None
    return None
