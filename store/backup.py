"""Backups of the shared database: consistent copies while the service runs, and putting one back.

A copy is made with SQLite's online backup API, in one step: it reads the
database in one read transaction, so it is the database as it was at one
instant (WAL mode lets the board service go on writing meanwhile, and none of
its transactions is half in the copy). The copy is a self-contained file
(rollback journal, not WAL: nothing beside it to forget when it is copied
onto a USB stick), checked with ``PRAGMA integrity_check``, private
(:mod:`store.files`), written under a temporary name and renamed, so a copy
that exists is complete.

:func:`check_backup` says whether a file is a database of this program at a
schema version it knows; :func:`restore_backup` puts one back (while holding
the database's claim, so no board service can start meanwhile), after keeping
a copy of the database it replaces. It copies *into* the live file with the
same backup API, so a panel that has the database open sees the restored
content at its next read instead of a file that was swapped under it.

:class:`RollingBackups` keeps the last few copies of each kind in a folder:
the board service makes one at every game end, the tournament store at every
round made (``[store] backups_kept``, ``backup_folder``). They are written by
one background thread, so neither the scan loop nor a page waits for a copy.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import sqlite3
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from store.claim import claim_database
from store.db import MIGRATIONS, DatabaseError, connect, migrate
from store.files import create_private, private_folder, same_mode

log = logging.getLogger(__name__)


class BackupError(DatabaseError):
    """A copy cannot be made, or a file is not a backup this program can put back (the message says why)."""


@dataclass(frozen=True)
class BackupInfo:
    """What a backup holds (what ``hautetension backup`` and ``restore`` print)."""

    path: Path
    schema: int
    bytes: int
    journal_entries: int
    board_games: int
    tournaments: int
    digital_games: int
    last_entry_at: float | None

    def describe(self) -> str:
        last = (time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(self.last_entry_at))
                if self.last_entry_at is not None else "never")
        return (f"{self.bytes / 1024:.0f} KiB, schema {self.schema}, {self.journal_entries} journal entries "
                f"(last {last}), {self.board_games} board games, {self.tournaments} tournaments, "
                f"{self.digital_games} digital games")


# -- a copy ---------------------------------------------------------------------------------


def write_backup(database: str | os.PathLike[str], target: str | os.PathLike[str]) -> BackupInfo:
    """Copy the live *database* to *target* (replaced if it exists); :class:`BackupError` if it cannot."""
    database, target = Path(database), Path(target)
    if not database.is_file():
        raise BackupError(f"{database}: there is no database there")
    partial = target.with_name(target.name + ".partial")
    try:
        private_folder(target.parent)
        with contextlib.suppress(FileNotFoundError):
            partial.unlink()  # left by a copy that died half-way
        os.close(create_private(partial, exact=False))  # a USB stick's FAT keeps no modes: fine
        source = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
        try:
            copy = sqlite3.connect(partial, isolation_level=None)
            try:
                source.backup(copy)  # one step: one read transaction, one instant of the database
                copy.execute("PRAGMA journal_mode = DELETE")  # one self-contained file
                _require_intact(copy, partial)
            finally:
                copy.close()
        finally:
            source.close()
            _settle_modes(database)
        _sync(partial)
        os.replace(partial, target)
        _sync(target.parent)
    except sqlite3.Error as exc:
        with contextlib.suppress(OSError):
            partial.unlink()
        raise BackupError(f"cannot copy {database} to {target}: {exc}") from exc
    except OSError as exc:
        with contextlib.suppress(OSError):
            partial.unlink()
        raise BackupError(f"cannot write {target}: {exc.strerror or exc}") from exc
    return check_backup(target)


def _settle_modes(database: Path) -> None:
    """A read-only connection leaves SQLite's -wal and -shm behind, with this process's umask (a root
    shell's 022 would take the panel's group write): give them the database's mode again."""
    for suffix in ("-wal", "-shm"):
        same_mode(f"{database}{suffix}", database)


def _require_intact(conn: sqlite3.Connection, path: Path) -> None:
    problems = [row[0] for row in conn.execute("PRAGMA integrity_check")]
    if problems != ["ok"]:
        raise BackupError(f"{path}: damaged ({'; '.join(problems[:3])})")


def _sync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | (os.O_DIRECTORY if path.is_dir() else 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


# -- is it one of ours? ---------------------------------------------------------------------------

OWN_TABLES = "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite%'"
"""The tables of a database but SQLite's own (``sqlite_sequence``, ``sqlite_stat1``)."""


@functools.cache
def tables_of(version: int) -> frozenset[str]:
    """The tables a database of schema *version* has: its migrations, run on an empty database in
    memory (a migration may rename or drop what an earlier one made)."""
    conn = sqlite3.connect(":memory:")
    try:
        for script in MIGRATIONS[:version]:
            conn.executescript(script)
        tables = conn.execute(OWN_TABLES)
        return frozenset(row[0] for row in tables)
    finally:
        conn.close()


def check_backup(path: str | os.PathLike[str]) -> BackupInfo:
    """What *path* holds, if it is an intact database of this program at a schema version it knows;
    else :class:`BackupError` saying what it is instead."""
    path = Path(path)
    if not path.is_file():
        raise BackupError(f"{path}: no such file")
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise BackupError(f"{path}: cannot open it ({exc})") from exc
    try:
        return _inspect(conn, path)
    except sqlite3.DatabaseError as exc:
        if isinstance(exc, BackupError):
            raise
        if "not a database" in str(exc):
            raise BackupError(f"{path}: not an SQLite database ({exc})") from exc
        raise BackupError(f"{path}: damaged ({exc})") from exc
    finally:
        conn.close()


def _inspect(conn: sqlite3.Connection, path: Path) -> BackupInfo:
    _require_intact(conn, path)
    version = int(conn.execute("PRAGMA user_version").fetchone()[0])
    tables = {row[0] for row in conn.execute(OWN_TABLES)}
    if version == 0 or not tables_of(1) <= tables:
        raise BackupError(f"{path}: an SQLite database, but not one of the Haute-Tension controller "
                          "(no journal, commands and board state)")
    if version > len(MIGRATIONS):
        raise BackupError(f"{path}: made by a newer version of the controller (schema {version}; this one "
                          f"knows 1 to {len(MIGRATIONS)}): upgrade the program first")
    missing = sorted(tables_of(version) - tables)
    if missing:
        raise BackupError(f"{path}: schema {version} but without its tables {', '.join(missing)}")

    def count(query: str) -> int:
        return int(conn.execute(query).fetchone()[0] or 0)

    last = conn.execute("SELECT MAX(at) FROM journal").fetchone()[0]
    return BackupInfo(
        path=path,
        schema=version,
        bytes=path.stat().st_size,
        journal_entries=count("SELECT COUNT(*) FROM journal"),
        board_games=count("SELECT COUNT(DISTINCT game_id) FROM journal WHERE kind = 'game-start'"),
        tournaments=count("SELECT COUNT(*) FROM tournaments") if "tournaments" in tables else 0,
        digital_games=count("SELECT COUNT(*) FROM digital_games") if "digital_games" in tables else 0,
        last_entry_at=None if last is None else float(last),
    )


# -- putting one back ---------------------------------------------------------------------------


def restore_backup(
    source: str | os.PathLike[str], database: str | os.PathLike[str], *, keep_old_in: Path | None
) -> tuple[BackupInfo, Path | None]:
    """Put the backup *source* back as *database*; return what it holds and where the replaced
    database was kept (in *keep_old_in*; None if there was no database, or no folder given).

    Refuses (:class:`~store.claim.ClaimedError`) while a board service holds the database, and
    (:class:`BackupError`) a file that is not a usable backup, before changing anything."""
    source, database = Path(source), Path(database)
    info = check_backup(source)
    if source.resolve() == database.resolve():
        raise BackupError(f"{source} is the database itself")
    with claim_database(database):
        kept = None
        if database.exists() and keep_old_in is not None:
            kept = write_backup(database, keep_old_in / _name("before-restore", "")).path
        live = connect(database)
        try:
            backup = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
            try:
                backup.backup(live)  # page by page into the live file, under SQLite's own locks
            finally:
                backup.close()
            migrate(live, source=str(database))  # an older backup is brought up to this program's schema
            _require_intact(live, database)
        except sqlite3.Error as exc:
            if isinstance(exc, BackupError):
                raise
            raise BackupError(f"cannot restore {source} into {database}: {exc}") from exc
        finally:
            live.close()
    return info, kept


# -- rolling backups ------------------------------------------------------------------------------


def _name(kind: str, label: str) -> str:
    now = time.time()
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(now)) + f"{int(now * 1000) % 1000:03d}"
    return f"{kind}-{stamp}{'-' + label if label else ''}.db"


class RollingBackups:
    """The last *keep* copies of *database* of each kind, in *folder*, written by one background thread."""

    def __init__(
        self, database: str | os.PathLike[str], *, folder: str | os.PathLike[str], keep: int
    ) -> None:
        self.database = Path(database)
        self.folder = Path(folder)
        self.keep = keep
        self.last_error: str | None = None
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="backup") if keep > 0 else None
        self._last: Future[Path | None] | None = None

    def take(self, kind: str, label: str = "") -> Future[Path | None] | None:
        """Copy the database now (in the background), then delete the oldest copies of *kind* past *keep*."""
        if self._pool is None:
            return None
        self._last = self._pool.submit(self._take, kind, label)
        return self._last

    def _take(self, kind: str, label: str) -> Path | None:
        try:
            path = write_backup(self.database, self.folder / _name(kind, label)).path
            self._prune(kind)
        except (BackupError, OSError) as exc:
            self.last_error = str(exc)
            log.warning("rolling backup (%s) not made: %s", kind, exc)
            return None
        self.last_error = None
        return path

    def _prune(self, kind: str) -> None:
        copies = sorted(self.folder.glob(f"{kind}-[0-9]*.db"))  # the stamp sorts them by age
        for old in copies[: max(0, len(copies) - self.keep)]:
            with contextlib.suppress(FileNotFoundError):
                old.unlink()

    def copies(self, kind: str) -> list[Path]:
        return sorted(self.folder.glob(f"{kind}-[0-9]*.db"))

    def wait(self) -> None:
        """Until the copy asked last is written (tests, and before stopping)."""
        if self._last is not None:
            self._last.result()

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True)
