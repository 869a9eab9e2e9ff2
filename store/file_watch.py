"""Waiting for another process's commit to an SQLite database, without polling (Linux inotify).

A commit in WAL mode writes the ``-wal`` file (a checkpoint, the database
file itself): :class:`FileWatch` asks the kernel to be told when either is
written, and :meth:`FileWatch.wait` sleeps until then, until a timeout, or
until :meth:`FileWatch.wake` is called from another thread. Readers never
write these files (the shared-memory index is written through ``mmap``,
which inotify does not report), so a reader is not woken by its own reads.

Where inotify is not available (another system, no ``libc``), :func:`open_watch`
returns ``None`` and the caller polls as before.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import select
import struct
from pathlib import Path

IN_MODIFY = 0x002
IN_CLOSE_WRITE = 0x008
IN_DELETE_SELF = 0x400
IN_MOVE_SELF = 0x800
IN_IGNORED = 0x8000
WATCHED = IN_MODIFY | IN_CLOSE_WRITE | IN_DELETE_SELF | IN_MOVE_SELF
_EVENT = struct.Struct("iIII")  # struct inotify_event: wd, mask, cookie, len (then len bytes of name)


def _libc() -> ctypes.CDLL | None:
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
    except OSError:
        return None
    if not all(hasattr(libc, name) for name in ("inotify_init1", "inotify_add_watch")):
        return None
    return libc


class FileWatch:
    """Tells when the database at *path* (or its ``-wal``) is written; see the module docstring."""

    def __init__(self, libc: ctypes.CDLL, path: Path) -> None:
        self._libc = libc
        self.paths = (path, path.with_name(path.name + "-wal"))
        self._fd = int(libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC))
        if self._fd < 0:
            raise OSError(ctypes.get_errno(), "inotify_init1 failed")
        self._wake_r, self._wake_w = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
        self._watched = 0
        self._arm()

    def _arm(self) -> None:
        """Watch the files that exist (the ``-wal`` comes and goes with the connections)."""
        self._watched = 0
        for path in self.paths:
            if int(self._libc.inotify_add_watch(self._fd, os.fsencode(path), WATCHED)) >= 0:
                self._watched += 1

    def wait(self, timeout: float) -> bool:
        """Sleep until a file is written, :meth:`wake` is called or *timeout* seconds pass; whether
        something was written (or woke it)."""
        ready, _, _ = select.select([self._fd, self._wake_r], [], [], max(0.0, timeout))
        if not ready:
            return False
        if self._wake_r in ready:
            self._drain(self._wake_r)
        if self._fd in ready and self._lost_a_watch(self._drain(self._fd)):
            self._arm()
        return True

    @staticmethod
    def _drain(fd: int) -> bytes:
        data = b""
        while True:
            try:
                chunk = os.read(fd, 4096)
            except BlockingIOError:
                return data
            if not chunk:
                return data
            data += chunk

    @staticmethod
    def _lost_a_watch(events: bytes) -> bool:
        """Whether a watched file went away (deleted, moved): it is watched again under its name."""
        offset = 0
        while offset + _EVENT.size <= len(events):
            _, mask, _, length = _EVENT.unpack_from(events, offset)
            if mask & (IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF):
                return True
            offset += _EVENT.size + length
        return False

    def changed(self) -> bool:
        """Whether a file was written since the last look (never waits: one system call)."""
        try:
            events = os.read(self._fd, 4096)
        except BlockingIOError:
            return False
        events += self._drain(self._fd)
        if self._lost_a_watch(events):
            self._arm()
        return True

    def wake(self) -> None:
        """Make a :meth:`wait` in another thread return now."""
        with contextlib.suppress(OSError):  # already woken (the pipe is full), or closed
            os.write(self._wake_w, b"!")

    def close(self) -> None:
        for fd in (self._fd, self._wake_r, self._wake_w):
            with contextlib.suppress(OSError):
                os.close(fd)
        self._fd = self._wake_r = self._wake_w = -1


def open_watch(path: Path | str) -> FileWatch | None:
    """A watch on the database at *path*, or ``None`` where inotify cannot be used (poll instead)."""
    libc = _libc()
    if libc is None:
        return None
    try:
        watch = FileWatch(libc, Path(path))
    except OSError:
        return None
    if not watch._watched:
        watch.close()
        return None
    return watch
