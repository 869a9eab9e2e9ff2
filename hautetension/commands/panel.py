"""``hautetension panel``: serve the web panel (what the panel's systemd unit starts)."""

from __future__ import annotations

import argparse
import contextlib
import functools
import os
import platform
import sys
from collections.abc import Mapping
from typing import Any

from configuration import CONFIG_OPTION_HELP, EX_CONFIG, ConfigError, ConfigFile, load_config
from hautetension.stopping import interrupt, stop_on_signals

MALLOC_TUNABLES = {"glibc.malloc.arena_max": "2", "glibc.malloc.tcache_count": "0"}
"""glibc's allocator settings the panel runs with (``GLIBC_TUNABLES``), read by glibc when a process starts.

The panel serves requests on about 80 threads (one per live page's event stream, and 16 more), each
given a request in turn. glibc keeps a cache of freed blocks per thread (its tcache: up to 7 blocks
of each size to 1 KiB, freed memory that counts as in use) and up to 16 arenas on 2 cores: each of
the 80 threads filled its own cache slowly, one request in 80, and the panel's memory rose for as
long as the soak benchmark ran (``bench/soak.py``: the C allocator's blocks in use grew 0.4 MiB a
minute with the Python heap flat; with no thread cache they stayed flat at 7 MiB less). Python
keeps its own pools for small objects, so the per-thread cache saves little here; two arenas hold
less free memory than 16 (5 MiB less in the same run)."""


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "panel",
        help="serve the web panel (live board, simulated board, staff service mode)",
        description="Serve the web panel with waitress. It follows the board service through the "
        "shared database; start the board service too (hautetension board).",
    )
    parser.add_argument("--config", help=CONFIG_OPTION_HELP)
    parser.add_argument("--db", help="database file (default: [store] path)")
    parser.add_argument("--host", help="address to listen on (default: [panel] host, else 127.0.0.1)")
    parser.add_argument("--port", type=int, help="port (default: [panel] port, else 8080)")
    parser.add_argument(
        "--trusted-proxy",
        metavar="ADDRESS",
        help="the front server's address: its X-Forwarded-For names the client (default: "
        "[panel] trusted_proxy, else none; the Pi's unit passes 127.0.0.1 for its nginx)",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    environment = allocator_environment(os.environ) if _started_as_panel() else None
    if environment is not None:  # glibc reads them at start: start again, as the same process, with them
        os.execve(sys.executable, [sys.executable, *sys.orig_argv[1:]], environment)
    from configuration import StoreSettings
    from store.backup import RollingBackups
    from webpanel.app import close_app, create_app
    from webpanel.config import panel_sections
    from webpanel.security import SecretKeyError
    from webpanel.serve import connections_held, make_server

    try:
        config = load_config(args.config)
        options = {
            "database": args.db, "host": args.host, "port": args.port, "trusted_proxy": args.trusted_proxy
        }
        settings, lobby = panel_sections(config.with_values("panel", options))
        store = StoreSettings.from_config(config)
        # A copy of the database at every tournament round made ([store] backups_kept).
        backups = RollingBackups(settings.database, folder=store.folder_for(settings.database),
                                 keep=store.backups_kept)
        app = create_app({"PANEL": settings, "LOBBY": lobby, "BACKUPS": backups},
                         staff_pin_hash=functools.partial(configured_pin_hash, config))
    except (ConfigError, SecretKeyError) as exc:
        print(f"hautetension panel: {exc}", file=sys.stderr)
        return EX_CONFIG
    except OSError as exc:  # e.g. the secret key file cannot be created there
        print(f"hautetension panel: {exc.filename or ''}: {exc.strerror or exc}", file=sys.stderr)
        return EX_CONFIG
    try:
        _check_port(settings.host, settings.port)
        server = make_server(app)
    except OSError as exc:
        close_app(app)
        backups.close()
        print(
            f"hautetension panel: cannot listen on {settings.host}:{settings.port} ({exc.strerror})",
            file=sys.stderr,
        )
        return 1
    if not _pin_is_set(app):
        print(
            "hautetension panel: no staff PIN yet: service mode stays locked until "
            "`hautetension staff set-pin` is run",
            file=sys.stderr,
        )
    print(
        f"hautetension panel: http://{settings.host}:{settings.port}/ (database {settings.database}, "
        f"{settings.worker_threads} threads, at most {settings.max_streams} live pages, "
        f"{connections_held(settings)} connections"
        + (f", behind the front server at {settings.trusted_proxy})" if settings.trusted_proxy else ")"),
        file=sys.stderr,
        flush=True,
    )
    try:
        serve(server, app)
    finally:
        backups.close()
    return 0


def allocator_environment(environ: Mapping[str, str]) -> dict[str, str] | None:
    """*environ* with :data:`MALLOC_TUNABLES` added to ``GLIBC_TUNABLES``; None if it has them all
    (or a setting of the same name: the operator's) or the C library is not glibc."""
    if not sys.platform.startswith("linux") or platform.libc_ver()[0] != "glibc":
        return None
    current = environ.get("GLIBC_TUNABLES", "")
    named = {item.split("=", 1)[0] for item in current.split(":") if item}
    missing = [f"{name}={value}" for name, value in MALLOC_TUNABLES.items() if name not in named]
    if not missing:
        return None
    return {**environ, "GLIBC_TUNABLES": ":".join([*([current] if current else []), *missing])}


def _started_as_panel() -> bool:
    """Whether this process was started to be the panel (``hautetension panel ...``), not a program
    that calls the command (a test): only the panel's own process may be started again."""
    return sys.argv[1:2] == ["panel"]


def serve(server: Any, app: Any) -> None:
    """Run *server* until SIGTERM (systemd) or SIGINT, then close *app*."""
    from webpanel.app import close_app

    stop_on_signals(interrupt)
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        close_app(app)


def configured_pin_hash(config: ConfigFile) -> str:
    """``[panel] staff_pin_hash`` as the file says now (``staff set-pin`` may have changed it since the
    panel started); what the panel started with if the file cannot be read any more."""
    started_with = config.section("panel").get("staff_pin_hash", "")
    if config.path is not None:
        with contextlib.suppress(ConfigError):
            started_with = load_config(config.path).section("panel").get("staff_pin_hash", "")
    return started_with if isinstance(started_with, str) else ""


def _pin_is_set(app: Any) -> bool:
    from webpanel.auth import current_pin_hash

    with app.app_context():
        return bool(current_pin_hash())


def _check_port(host: str, port: int) -> None:
    """Raise OSError if *port* is taken (before waitress builds anything it would leave open)."""
    import socket

    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        probe.bind((host, port))
