"""``hautetension panel``: serve the web panel (what the panel's systemd unit starts)."""

from __future__ import annotations

import argparse
import contextlib
import functools
import signal
import sys
from typing import Any

from configuration import CONFIG_OPTION_HELP, EX_CONFIG, ConfigError, ConfigFile, load_config


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
        app = create_app({"PANEL": settings, "LOBBY": lobby},
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
    serve(server, app)
    return 0


def serve(server: Any, app: Any) -> None:
    """Run *server* until SIGTERM (systemd) or SIGINT, then close *app*."""
    from webpanel.app import close_app

    # Stop cleanly on SIGTERM and on SIGINT even when the parent
    # started us with SIGINT ignored (a background job inherits SIG_IGN).
    signal.signal(signal.SIGTERM, _interrupt)
    signal.signal(signal.SIGINT, _interrupt)
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


def _interrupt(_signum: int, _frame: object) -> None:
    raise KeyboardInterrupt


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
