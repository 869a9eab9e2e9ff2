"""``hautetension central``: the event server — the panel in its "event" role and the boards' ingest.

One process: waitress serves the event's pages and API, and a thread takes
every board's messages from the broker into the event's database and
publishes the server's acknowledgements and assignments (``uplink.ingest``).
Both work on the same database file (SQLite in WAL mode), each on its own
connection. Stops cleanly on SIGTERM or Ctrl-C.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from configuration import CONFIG_OPTION_HELP, EX_CONFIG, ConfigError, ConfigFile, Section, load_config
from store.event.settings import DEFAULT_EVENT_DATABASE, DEFAULT_SYSTEM_EVENT_DATABASE, EventSettings
from uplink.exc import UplinkConfigError
from uplink.protocol import NAME
from uplink.settings import BrokerSettings

DEFAULT_PORT = 8090


@dataclass(frozen=True)
class CentralSettings:
    """The ``[central]`` section: the event (the store's keys), the broker (the link's keys), the address."""

    event: EventSettings
    broker: BrokerSettings
    host: str = "127.0.0.1"
    port: int = DEFAULT_PORT

    @classmethod
    def from_config(cls, config: ConfigFile) -> CentralSettings:
        database = DEFAULT_SYSTEM_EVENT_DATABASE if config.path else DEFAULT_EVENT_DATABASE
        with config.read("central", error=UplinkConfigError) as section:
            return cls.read(section, database=database)

    @classmethod
    def read(cls, s: Section, *, database: Path = DEFAULT_EVENT_DATABASE) -> CentralSettings:
        settings = cls(
            event=EventSettings.read(s, database=database),
            broker=BrokerSettings.read(s),
            host=s.text("host", cls.host),
            port=s.integer("port", cls.port, minimum=1, maximum=65535),
        )
        if not NAME.match(settings.event.event):
            s.problem(
                f"event must be 1 to 40 characters among a-z, 0-9 and '-', not {settings.event.event!r}"
            )
        return settings


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "central",
        help="run the event server: every board of an event, its tables, results and wall display",
        description="Serve the event's pages (boards, tables, results, the wall display, tournaments) and "
        "take every board's reports from the broker into the event's database, exactly once.",
    )
    parser.add_argument("--config", help=CONFIG_OPTION_HELP)
    parser.add_argument("--host", help="address to listen on (default: [central] host, else 127.0.0.1)")
    parser.add_argument("--port", type=int, help=f"port (default: [central] port, else {DEFAULT_PORT})")
    parser.add_argument(
        "--broker",
        metavar="URL",
        help="mqtt://HOST:PORT or mqtts://HOST:PORT (default: [central] broker, else mqtt://127.0.0.1:1883)",
    )
    parser.add_argument("--db", help="the event's database (default: [central] database)")
    parser.add_argument("--event", help="the event's id (default: [central] event, else demo)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from hautetension.commands.panel import _check_port, configured_pin_hash, serve
    from store.db import DatabaseError
    from store.event.db import connect_event
    from uplink.ingest import Ingest
    from webpanel.app import close_app, create_app
    from webpanel.config import panel_sections
    from webpanel.security import SecretKeyError
    from webpanel.serve import make_server

    try:
        config = load_config(args.config)
        options = {
            "host": args.host,
            "port": args.port,
            "broker": args.broker,
            "database": args.db,
            "event": args.event,
        }
        central = CentralSettings.from_config(config.with_values("central", options))
        panel, _lobby = panel_sections(config)
        panel = dataclasses.replace(panel, host=central.host, port=central.port)
        conn = connect_event(central.event.database)
        app = create_app(
            {"PANEL": panel, "EVENT": central.event},
            staff_pin_hash=functools.partial(configured_pin_hash, config),
        )
    except (ConfigError, SecretKeyError, DatabaseError) as exc:
        print(f"hautetension central: {exc}", file=sys.stderr)
        return EX_CONFIG
    try:
        ingest = Ingest(
            conn, central.broker, event=central.event.event, confirm_timeout=central.event.confirm_timeout
        )
        _check_port(central.host, central.port)
        server = make_server(app)
    except ConfigError as exc:
        close_app(app)
        print(f"hautetension central: {exc}", file=sys.stderr)
        return EX_CONFIG
    except OSError as exc:
        close_app(app)
        print(
            f"hautetension central: cannot listen on {central.host}:{central.port} ({exc.strerror})",
            file=sys.stderr,
        )
        return 1
    stop = threading.Event()
    thread = threading.Thread(target=ingest.run, args=(stop,), name="ingest", daemon=True)
    ingest.start()
    thread.start()
    print(
        f"hautetension central: event {central.event.event} on http://{central.host}:{central.port}/event "
        f"(database {central.event.database}), boards via {central.broker.address.url}",
        file=sys.stderr,
        flush=True,
    )
    try:
        serve(server, app)
    finally:
        stop.set()
        thread.join(timeout=5)
        ingest.close()
        conn.close()
    return 0
