"""A server started as a child process on a loopback port: start, stop, kill -9, restart."""

from __future__ import annotations

import abc
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

LOOPBACK = "127.0.0.1"
START_TIMEOUT_S = 20.0


class ServerError(RuntimeError):
    """A test server did not start (its log says why)."""


def free_port(host: str = LOOPBACK) -> int:
    """A TCP port nobody listens on right now (the kernel picks it)."""
    with socket.socket() as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def is_listening(host: str, port: int) -> bool:
    with socket.socket() as sock:
        sock.settimeout(0.2)
        return sock.connect_ex((host, port)) == 0


def service_user(name: str) -> pwd.struct_passwd | None:
    """The system user a daemon drops to when started as root, if this machine has it."""
    if os.geteuid() != 0:
        return None
    try:
        return pwd.getpwnam(name)
    except KeyError:
        return None


def hand_over(path: Path, user: pwd.struct_passwd | None) -> None:
    """Give *path* (and everything below it) to *user*, so a daemon running as that user can use it."""
    if user is None:
        return
    for root, dirs, files in os.walk(path):
        os.chown(root, user.pw_uid, user.pw_gid)
        for name in dirs + files:
            os.chown(os.path.join(root, name), user.pw_uid, user.pw_gid)


def server_folder(prefix: str) -> Path:
    """A new private folder for one server's files, outside pytest's own temporary tree.

    pytest's tree is readable by this user only, and a daemon started as root
    drops to its own user (Mosquitto) or must run as one (PostgreSQL), which
    could then not even reach its folder. This one is created in the system's
    temporary folder and handed over with :func:`hand_over`; remove it with
    :func:`shutil.rmtree` when done.
    """
    return Path(tempfile.mkdtemp(prefix=f"hautetension-{prefix}-"))


def as_user(user: pwd.struct_passwd | None) -> dict[str, Any]:
    """:class:`subprocess.Popen` options that run a child as *user* (nothing to add for None)."""
    if user is None:
        return {}
    return {
        "user": user.pw_uid,
        "group": user.pw_gid,
        "extra_groups": [],
        "env": {**os.environ, "HOME": user.pw_dir},
    }


def find_binary(name: str, *extra_dirs: str) -> str | None:
    """*name* on PATH, in the sbin folders a user's PATH may lack, or in *extra_dirs*."""
    search = os.pathsep.join([os.environ.get("PATH", ""), "/usr/sbin", "/usr/local/sbin", *extra_dirs])
    return shutil.which(name, path=search)


class ServerProcess(abc.ABC):
    """One server process on ``(host, port)``, logging into *folder*.

    Subclasses give :meth:`command` and may override :meth:`wait_ready`. The
    port stays the same across :meth:`kill` and :meth:`start`, so clients that
    reconnect find the server again.
    """

    name = "server"
    run_as: pwd.struct_passwd | None = None
    """The user the process runs as (started by this process directly, so that it is reaped here)."""

    def __init__(self, folder: Path, *, port: int | None = None, host: str = LOOPBACK) -> None:
        self.folder = folder
        self.host = host
        self.port = port if port is not None else free_port(host)
        self.log_path = folder / f"{self.name}.log"
        self._process: subprocess.Popen[bytes] | None = None

    # -- what a subclass says --------------------------------------------------

    @abc.abstractmethod
    def command(self) -> Sequence[str]:
        """The command line that starts the server in the foreground."""

    def wait_ready(self, deadline: float) -> None:
        while time.monotonic() < deadline:
            if self._process is not None and self._process.poll() is not None:
                raise ServerError(
                    f"{self.name} exited with status {self._process.returncode}: {self.log_tail()}"
                )
            if is_listening(self.host, self.port):
                return
            time.sleep(0.05)
        raise ServerError(f"{self.name} did not listen on {self.host}:{self.port}: {self.log_tail()}")

    # -- life ------------------------------------------------------------------

    @property
    def is_running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    @property
    def pid(self) -> int | None:
        return self._process.pid if self.is_running and self._process else None

    def start(self) -> None:
        if self.is_running:
            return
        with self.log_path.open("ab") as log:
            self._process = subprocess.Popen(
                list(self.command()),
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                **as_user(self.run_as),
            )
        try:
            self.wait_ready(time.monotonic() + START_TIMEOUT_S)
        except BaseException:
            self.kill()
            raise

    def stop(self, timeout: float = 10.0) -> None:
        """A clean shutdown (SIGTERM), as systemd would do it."""
        self._signal(signal.SIGTERM, timeout)

    def kill(self) -> None:
        """SIGKILL: no chance to save anything, as after ``kill -9`` or a power cut."""
        self._signal(signal.SIGKILL, 10.0)

    def restart(self) -> None:
        self.stop()
        self.start()

    def _signal(self, signum: int, timeout: float) -> None:
        process, self._process = self._process, None
        if process is None or process.poll() is not None:
            return
        os.killpg(process.pid, signum)
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()

    def log_tail(self, lines: int = 15) -> str:
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return "(no log)"
        return "\n".join(text.splitlines()[-lines:])

    def __enter__(self) -> ServerProcess:
        self.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()
