"""A throwaway PostgreSQL cluster for the tests, on a free loopback port.

PostgreSQL refuses to run as root, so when the suite runs as root (CI does)
the cluster is created and run as Debian's ``postgres`` user with
``runuser``, in a temporary folder handed over to it. Authentication is
``trust`` on loopback only: the cluster lives as long as the test session and
listens on nothing else. ``fsync`` is off: only a crash of the whole test
machine could lose data then, while a killed server (``kill -9``) still loses
no committed transaction, which is what the tests look at.
"""

from __future__ import annotations

import glob
import itertools
import os
import signal
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path

from tests.servers.process import (
    START_TIMEOUT_S,
    ServerError,
    ServerProcess,
    as_user,
    hand_over,
    service_user,
)

INSTALL_HINT = "apt-get install postgresql"
SUPERUSER = "hautetension"


def find_postgres_bindir() -> Path | None:
    """Debian's newest server binaries folder (``/usr/lib/postgresql/N/bin``), if installed."""
    candidates = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/postgres"), key=lambda path: int(Path(path).parts[4])
    )
    return Path(candidates[-1]).parent if candidates else None


class PostgresCluster(ServerProcess):
    """One cluster: ``initdb`` at the first start, then ``postgres`` in the foreground."""

    name = "postgres"

    def __init__(self, folder: Path, *, bindir: Path, port: int | None = None, durable: bool = False) -> None:
        super().__init__(folder, port=port)
        self.durable = durable
        """fsync on, as in production (benchmarks against SQLite's synchronous=FULL); off for tests."""
        self.bindir = bindir
        self.data = folder / "data"
        self.socket_dir = folder / "socket"
        # PostgreSQL refuses to run as root: as root, it runs as Debian's postgres user.
        self.run_as = service_user("postgres")
        self._names = itertools.count(1)

    def dsn(self, dbname: str = "postgres") -> str:
        return f"postgresql://{SUPERUSER}@{self.host}:{self.port}/{dbname}"

    def command(self) -> Sequence[str]:
        return [
            str(self.bindir / "postgres"),
            "-D",
            str(self.data),
            "-p",
            str(self.port),
            "-k",
            str(self.socket_dir),
            "-c",
            f"listen_addresses={self.host}",
            "-c",
            f"fsync={'on' if self.durable else 'off'}",
            "-c",
            "max_connections=200",
        ]

    def stop(self, timeout: float = 10.0) -> None:
        """A fast shutdown (SIGINT), as ``pg_ctlcluster stop`` does: SIGTERM would wait for every
        client to leave, SIGINT ends their sessions and still loses no committed transaction."""
        self._signal(signal.SIGINT, timeout)

    def start(self) -> None:
        if not self.data.exists():
            self._initdb()
        super().start()
        self._wait_accepting()

    def _initdb(self) -> None:
        self.socket_dir.mkdir(parents=True, exist_ok=True)
        hand_over(self.folder, self.run_as)
        result = subprocess.run(
            [
                str(self.bindir / "initdb"),
                "-D",
                str(self.data),
                "-U",
                SUPERUSER,
                "-A",
                "trust",
                "-E",
                "UTF8",
                "--locale=C.UTF-8",
                "--no-sync",
            ],
            capture_output=True,
            text=True,
            cwd=self.folder,
            **as_user(self.run_as),
        )
        if result.returncode != 0:
            raise ServerError(f"initdb failed: {result.stderr.strip() or result.stdout.strip()}")

    def _wait_accepting(self) -> None:
        # Listening is not yet accepting (recovery after a kill -9 comes first):
        # pg_isready asks the server itself, and answers at once while it refuses.
        deadline = time.monotonic() + START_TIMEOUT_S
        command = [
            str(self.bindir / "pg_isready"),
            "-q",
            "-h",
            self.host,
            "-p",
            str(self.port),
            "-U",
            SUPERUSER,
        ]
        while subprocess.run(command, capture_output=True).returncode != 0:
            if time.monotonic() > deadline:
                raise ServerError(f"postgres is not accepting connections: {self.log_tail()}")
            time.sleep(0.05)

    def create_database(self, prefix: str = "test", *, template: str | None = None) -> str:
        """A new database, empty or a copy of *template* (a database nobody is connected to); its DSN."""
        name = f"{prefix}_{os.getpid()}_{next(self._names)}"
        copy = ["-T", template] if template else []
        result = subprocess.run(
            [str(self.bindir / "createdb"), "-h", self.host, "-p", str(self.port), "-U", SUPERUSER, *copy]
            + [name],
            capture_output=True,
            text=True,
        )
        if result.returncode != 0:
            raise ServerError(f"createdb {name} failed: {result.stderr.strip()}")
        return self.dsn(name)
