"""Serving the panel with waitress, the production WSGI server.

Each open live page holds one waitress worker thread for its event stream,
so the pool is sized from ``[panel] max_streams`` (``threads`` = streams + 16
by default): live pages can never take the threads the other requests need.

Slow clients. waitress gives every connection one of its ``connection_limit``
places from the moment it accepts it until the client goes away, and has no
deadline for a request header: a client that sends one header byte every few
seconds keeps its place forever, so ``connection_limit`` such clients lock
everybody out. Nothing in waitress's settings can stop that; the settings
below make it take as many connections as the process can afford and free
the ones that fall silent. On the Raspberry Pi the panel listens on loopback
only, behind nginx (``systemd/nginx-hautetension.conf.in``), which bounds the
time a header may take and holds slow clients for a few hundred bytes each.
"""

from __future__ import annotations

import logging
import resource

from flask import Flask
from waitress.server import create_server

from webpanel.app import MAX_BODY_BYTES
from webpanel.config import PanelSettings

log = logging.getLogger(__name__)

MAX_CONNECTIONS = 1000
"""The most connections the automatic limit allows. waitress's event loop walks every
connection each time one of them stirs, so its cost grows with the square of the
trickling clients: on the development machine an honest request still took 20 ms among
1,600 of them and missed its second among 3,200; a Pi is about four times slower."""
FILES_PER_THREAD = 3
"""Each worker thread may hold a SQLite connection (when every thread serves a request at once): the
database, its -wal and its -shm file."""
SPARE_FILES = 64
"""The listening socket, waitress's trigger pipe, logs, the board follower's connection, modules read late."""


def make_server(app: Flask, *, host: str | None = None, port: int | None = None) -> object:
    """A waitress server for *app* (not yet running: call ``.run()``, stop with ``.close()``)."""
    settings: PanelSettings = app.config["PANEL"]
    threads = settings.worker_threads
    # Where it listens decides which address its links may name (webpanel.lobby.pages.public_root).
    app.config["LISTEN_HOST"] = host or settings.host
    proxy: dict[str, object] = {}
    if settings.trusted_proxy:
        # Only the front server may say who the client is, in the one header it replaces
        # (never appends to); from any other peer every proxy header is dropped.
        proxy = {
            "trusted_proxy": settings.trusted_proxy,
            "trusted_proxy_count": 1,
            "trusted_proxy_headers": {"x-forwarded-for"},
        }
    return create_server(
        app,
        host=host or settings.host,
        port=settings.port if port is None else port,
        threads=threads,
        connection_limit=connections_held(settings),
        # poll() instead of select(): select() cannot watch a descriptor numbered 1024 or more,
        # which a busy panel with the connection limit above reaches.
        asyncore_use_poll=True,
        # A connection with no request in progress and nothing sent or received for this long
        # is closed: a client that opened a connection and fell silent gives its place back
        # after 15-20 s instead of waitress's 120-150 s. Streams are never cut by it: waitress
        # only closes connections with no request in progress, and a browser simply opens a
        # new connection for its next request.
        channel_timeout=15,
        # Keep reading a connection while its request runs: a live page's client that goes away is
        # seen at once (waitress.client_disconnected), and its stream frees its place, instead of at
        # the next heartbeat's failed write (webpanel/stream.py).
        channel_request_lookahead=1,
        cleanup_interval=5,
        # The panel's cookies and headers fit in a few KiB; waitress's default (256 KiB) lets
        # each slow client make the panel hold a quarter megabyte.
        max_request_header_size=32 * 1024,
        # Flask refuses bodies over MAX_BODY_BYTES with a JSON 413; waitress refuses far bigger
        # ones itself before buffering them (its default is 1 GiB, spooled to a temporary file).
        max_request_body_size=4 * MAX_BODY_BYTES,
        ident="hautetension-panel",
        clear_untrusted_proxy_headers=True,
        **proxy,
    )


def connections_held(settings: PanelSettings) -> int:
    """waitress's ``connection_limit``: ``[panel] connection_limit``, or :func:`automatic_limit`."""
    return settings.connection_limit or automatic_limit(settings.worker_threads)


def automatic_limit(threads: int) -> int:
    """As many connections as the open-file limit leaves room for, at most :data:`MAX_CONNECTIONS`.

    A connection is a file descriptor: past the limit, ``accept()`` fails with EMFILE and
    waitress would spin on a listening socket it cannot empty. What the worker threads'
    database connections and the rest of the process need is kept aside. The ceiling
    keeps waitress's event loop responsive (see ``bench/slow_clients.py``).
    """
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    reserved = threads * FILES_PER_THREAD + SPARE_FILES
    if soft == resource.RLIM_INFINITY:
        return MAX_CONNECTIONS
    room = soft - reserved
    if room < threads + 16:
        log.warning(
            "the open-file limit (%d) leaves room for only %d connections: raise it (ulimit -n)",
            soft,
            max(room, 0),
        )
    return max(threads + 16, min(MAX_CONNECTIONS, room))
