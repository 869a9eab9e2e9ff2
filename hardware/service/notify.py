"""The systemd notify protocol, spoken directly over its AF_UNIX datagram socket.

systemd starts a ``Type=notify`` unit with ``NOTIFY_SOCKET`` in its
environment and waits for ``READY=1`` before it counts the unit as started.
With ``WatchdogSec=`` it also sets ``WATCHDOG_USEC`` (and ``WATCHDOG_PID``)
and restarts the service when no ``WATCHDOG=1`` arrives within that time.
The board service pings from its scan loop at half the period, so only a
scan loop that really hangs gets restarted.

Outside systemd (a terminal, the tests, ``make run``) there is no socket and
every call is a cheap no-op.
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Mapping


class SystemdNotifier:
    """Sends state changes to systemd's notify socket, if there is one.

    Errors sending are swallowed: the board must keep running even if systemd
    went away (``sendto`` fails only when the socket is gone).
    """

    def __init__(self, environ: Mapping[str, str] | None = None, *, clock: object = time.monotonic) -> None:
        env = os.environ if environ is None else environ
        self.address = _socket_address(env.get("NOTIFY_SOCKET", ""))
        self.watchdog_interval = _watchdog_interval(env)
        self._clock = clock
        self._last_ping: float | None = None
        self._socket: socket.socket | None = None
        self.sent: int = 0
        """Datagrams sent (a count the health report shows)."""

    @property
    def enabled(self) -> bool:
        return self.address is not None

    def notify(self, **fields: str | int) -> bool:
        """Send ``KEY=value`` lines (``ready=1`` becomes ``READY=1``); False if not sent."""
        if self.address is None:
            return False
        message = "\n".join(f"{key.upper()}={value}" for key, value in fields.items()).encode()
        try:
            if self._socket is None:
                self._socket = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC)
            self._socket.sendto(message, self.address)
        except OSError:
            return False
        self.sent += 1
        return True

    def ready(self, status: str) -> bool:
        return self.notify(ready=1, status=status, mainpid=os.getpid())

    def status(self, status: str) -> bool:
        return self.notify(status=status)

    def stopping(self, status: str = "stopping") -> bool:
        return self.notify(stopping=1, status=status)

    def watchdog(self) -> bool:
        """Ping the watchdog if half its period has passed since the last ping."""
        if self.watchdog_interval is None:
            return False
        now = float(self._clock())  # type: ignore[operator]
        if self._last_ping is not None and now - self._last_ping < self.watchdog_interval / 2:
            return False
        self._last_ping = now
        return self.notify(watchdog=1)

    def close(self) -> None:
        if self._socket is not None:
            self._socket.close()
            self._socket = None


def _socket_address(value: str) -> str | bytes | None:
    if not value:
        return None
    if value.startswith("@"):
        # An abstract socket: a leading NUL byte instead of the "@".
        return b"\0" + value[1:].encode()
    if value.startswith("/"):
        return value
    return None


def _watchdog_interval(env: Mapping[str, str]) -> float | None:
    """The watchdog period in seconds, if systemd asked this very process for pings."""
    usec = env.get("WATCHDOG_USEC", "")
    if not usec.isdigit() or int(usec) == 0:
        return None
    pid = env.get("WATCHDOG_PID", "")
    if pid and (not pid.isdigit() or int(pid) != os.getpid()):
        return None
    return int(usec) / 1e6
