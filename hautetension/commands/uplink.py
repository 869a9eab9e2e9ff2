"""``hautetension uplink``: the board's link to its event (what the uplink's systemd unit starts)."""

from __future__ import annotations

import argparse
import sys
import threading
from typing import Any

from configuration import CONFIG_OPTION_HELP, EX_CONFIG
from hautetension.stopping import stop_on_signals


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "uplink",
        help="send this board's games to the event server (the outbox, over MQTT)",
        description="Report the board to its event: every outbox row, in order, from the server's last "
        "acknowledgement; the board's status and its public live view. Takes the table the server "
        "assigns to the board. Runs until SIGTERM or Ctrl-C, then goes offline cleanly.",
    )
    parser.add_argument("--config", help=CONFIG_OPTION_HELP)
    parser.add_argument("--db", help="database file (default: [store] path)")
    parser.add_argument(
        "--broker", metavar="URL", help="mqtt://HOST:PORT or mqtts://HOST:PORT (default: [uplink] broker)"
    )
    parser.add_argument("--board-id", help="this board's id, its MQTT user name (default: [uplink] board_id)")
    parser.add_argument("--event", help="the event's id (default: [uplink] event)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from configuration import ConfigError, database_path, load_config
    from store.db import DatabaseError, connect
    from uplink.board import Uplink
    from uplink.settings import UplinkSettings

    try:
        config = load_config(args.config)
        options = {"broker": args.broker, "board_id": args.board_id, "event": args.event}
        settings = UplinkSettings.from_config(config.with_values("uplink", options))
        missing = settings.missing()
        if missing:
            raise ConfigError(missing, source=f"{config.describe()} [uplink]")
        conn = connect(args.db or database_path(config))
    except (ConfigError, DatabaseError) as exc:
        print(f"hautetension uplink: {exc}", file=sys.stderr)
        return EX_CONFIG
    stop = threading.Event()
    try:
        with Uplink(conn, settings) as uplink:

            def _stop() -> None:
                stop.set()
                uplink.wake()  # it may sleep on the database until its next deadline

            stop_on_signals(_stop)
            print(
                f"hautetension uplink: board {settings.board_id} of event {settings.event} via "
                f"{settings.broker.address.url} (history {uplink.state.history}, from row "
                f"{uplink.state.first_seq}, {uplink.outbox.waiting()} waiting)",
                file=sys.stderr,
                flush=True,
            )
            uplink.run(stop)
    except ConfigError as exc:  # the password file went missing
        print(f"hautetension uplink: {exc}", file=sys.stderr)
        return EX_CONFIG
    finally:
        conn.close()
    return 0
