"""Files that hold the game's secrets are private.

The database (and SQLite's ``-wal`` and ``-shm`` beside it), the simulated
board's file, the backups and the lock files hold pawn kinds or say what the
service is doing: no other local user may read them. Such a file is created
``0600``, or ``0660`` in a folder shared with a group (the group may read,
write and enter it: ``/var/lib/hautetension``, which install.sh makes
``0770`` for the board service and the panel, two users of the group
``hautetension``); never readable by others. SQLite creates ``-wal`` and
``-shm`` with the mode of the database file, so they follow it.

Files are created with :func:`os.open` and that mode, then given it exactly
with ``fchmod``: the file is never readable by others, not even for an
instant. (Changing the umask instead would change it for every thread of the
process at once: the panel serves requests while it writes a backup.)
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from pathlib import Path

SHARED = 0o070
"""A folder whose group has all of these shares its files with that group."""


def private_mode(folder: str | os.PathLike[str]) -> int:
    """The mode of a private file made in *folder*: 0660 if the folder is shared with its group, else 0600."""
    try:
        mode = os.stat(folder).st_mode
    except OSError:
        return 0o600
    return 0o660 if mode & SHARED == SHARED else 0o600


def private_folder(folder: str | os.PathLike[str]) -> Path:
    """Create *folder* (and its parents) if needed; a new one is 0700, or 0770 inside a shared folder."""
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise NotADirectoryError(errno.ENOTDIR, f"{folder} is not a folder")
    if not folder.is_dir():
        parent_mode = private_mode(_existing_parent(folder))
        folder.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(OSError):
            os.chmod(folder, 0o770 if parent_mode == 0o660 else 0o700)
    return folder


def _existing_parent(path: Path) -> Path:
    for parent in path.absolute().parents:
        if parent.is_dir():
            return parent
    return Path("/")


def create_private(path: str | os.PathLike[str], *, exclusive: bool = True, exact: bool = True) -> int:
    """Create *path* as a private file and return its descriptor (open for reading and writing).

    With *exclusive*, an existing file is an error (:class:`FileExistsError`);
    without, an existing file is opened as it is and only made private (never
    so on a database: see :func:`make_private`). Without *exact*, a file system
    that keeps no modes (a USB stick's FAT) is not an error."""
    path = Path(path)
    mode = private_mode(path.parent)
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, mode)
    except FileExistsError:
        if exclusive:
            raise
        fd = os.open(path, os.O_RDWR | os.O_CLOEXEC)
        created = False
    else:
        created = True
    try:
        if created:
            os.fchmod(fd, mode)  # exactly: the umask may have taken the group's bits
        else:
            _tighten(fd, mode)
    except OSError as exc:
        if not exact and exc.errno in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP):
            return fd
        os.close(fd)
        raise
    return fd


def make_private(path: str | os.PathLike[str]) -> bool:
    """Take away from an existing *path* the permissions a private file must not have.

    Returns False if it could not (this user does not own the file); a missing file is fine.
    It works on the path and never opens the file: opening and closing a database file would
    drop the locks SQLite holds on it in this process (POSIX locks belong to the process)."""
    path = Path(path)
    try:
        current = stat.S_IMODE(os.stat(path).st_mode)
        allowed = private_mode(path.parent)
        if current & ~allowed:
            os.chmod(path, current & allowed)
    except FileNotFoundError:
        return True
    except PermissionError:
        return False
    return True


def same_mode(path: str | os.PathLike[str], like: str | os.PathLike[str]) -> bool:
    """Give an existing *path* the mode of *like* (SQLite's ``-wal`` and ``-shm`` that of the database,
    whatever the umask of the process that made them: the panel must write them too on the Pi).

    Returns False if it could not (this user does not own the file); a missing file is fine."""
    try:
        wanted = stat.S_IMODE(os.stat(like).st_mode)
        if stat.S_IMODE(os.stat(path).st_mode) != wanted:
            os.chmod(path, wanted)
    except FileNotFoundError:
        return True
    except PermissionError:
        return False
    return True


def _tighten(fd: int, allowed: int) -> bool:
    current = stat.S_IMODE(os.fstat(fd).st_mode)
    if current & ~allowed == 0:
        return True
    try:
        os.fchmod(fd, current & allowed)
    except PermissionError:
        return False
    return True
