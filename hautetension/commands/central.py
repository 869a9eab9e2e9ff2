"""``hautetension central``: the event server — the panel in its "event" role and the boards' ingest.

One process: waitress serves the event's pages and API, and a thread takes
every board's messages from the broker into the event's database and
publishes the server's acknowledgements and assignments (``uplink.ingest``).
Both work on the same database (an SQLite file in WAL mode, or PostgreSQL),
each on its own connection. Several processes may serve one PostgreSQL
database (each with its own ``instance`` name: its own broker client): every
one receives every board's messages, the store keeps each once, and each
process's live pages hear of the others' writes through LISTEN/NOTIFY.
Stops cleanly on SIGTERM or Ctrl-C.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from configuration import CONFIG_OPTION_HELP, EX_CONFIG, ConfigError, ConfigFile, Section, load_config
from protocol import NAME
from store.event.settings import DEFAULT_EVENT_DATABASE, DEFAULT_SYSTEM_EVENT_DATABASE, EventSettings
from uplink.exc import UplinkConfigError
from uplink.settings import BrokerSettings

if TYPE_CHECKING:
    from flask import Flask

    from uplink.ingest import Ingest
    from uplink.supervisor import Supervisor

DEFAULT_PORT = 8090


@dataclass(frozen=True)
class CentralSettings:
    """The ``[central]`` section: the event (the store's keys), the broker (the link's keys), the address."""

    event: EventSettings
    broker: BrokerSettings
    host: str = "127.0.0.1"
    port: int = DEFAULT_PORT
    instance: str = ""
    """This process's name among several on one PostgreSQL database (its own broker account's suffix)."""

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
            instance=s.text("instance", cls.instance),
        )
        if settings.instance and not NAME.match(settings.instance):
            s.problem(
                f"instance must be 1 to 40 characters among a-z, 0-9 and '-', not {settings.instance!r}"
            )
        elif settings.instance:
            broker = instance_account(settings.broker, settings.instance)
            settings = dataclasses.replace(settings, broker=broker)
        if not NAME.match(settings.event.event):
            s.problem(
                f"event must be 1 to 40 characters among a-z, 0-9 and '-', not {settings.event.event!r}"
            )
        return settings


def instance_account(broker: BrokerSettings, instance: str) -> BrokerSettings:
    """Process *instance*'s own broker account: the configured user and password file, each suffixed
    with ``-<instance>`` (``central-2``, ``/etc/hautetension/central-password-2``).

    The broker pins a client's id to its user, so processes sharing one user would close each other's
    connection; each has its own (install-central.sh --instances makes them, the ACL lists them)."""
    password_file = broker.password_file
    if password_file is not None:
        password_file = password_file.with_name(f"{password_file.name}-{instance}")
    return dataclasses.replace(
        broker, username=f"{broker.username or 'central'}-{instance}", password_file=password_file
    )


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
    parser.add_argument(
        "--db", help="the event's database: a file or a postgresql:// DSN (default: [central] database)"
    )
    parser.add_argument(
        "--instance",
        help="this process's name when several serve one PostgreSQL database (default: [central] instance)",
    )
    parser.add_argument("--event", help="the event's id (default: [central] event, else demo)")
    parser.set_defaults(func=run)


def central_app(config: ConfigFile, central: CentralSettings) -> Flask:
    """The event server's panel: its ``[panel]`` and ``[lobby]`` sections (remote players join the
    lobby's games by the links ``[lobby] public_url`` makes), on the event's database."""
    from hautetension.commands.panel import configured_pin_hash
    from store.dialect import is_postgresql
    from webpanel.app import create_app
    from webpanel.config import SECRET_KEY_FILENAME, STAFF_PIN_FILENAME, panel_sections

    panel, lobby = panel_sections(config)
    panel = dataclasses.replace(panel, host=central.host, port=central.port)
    if is_postgresql(central.event.database):
        # No database folder to keep the panel's own files in: the default event database's.
        files = (DEFAULT_SYSTEM_EVENT_DATABASE if config.path else DEFAULT_EVENT_DATABASE).parent
        panel = dataclasses.replace(
            panel,
            secret_key_file=panel.secret_key_file or files / SECRET_KEY_FILENAME,
            staff_pin_file=panel.staff_pin_file or files / STAFF_PIN_FILENAME,
        )
    return create_app(
        {"PANEL": panel, "LOBBY": lobby, "EVENT": central.event},
        staff_pin_hash=functools.partial(configured_pin_hash, config),
    )


def ingest_report(ingest: Ingest, supervisor: Supervisor, instance: str) -> dict[str, Any]:
    """``GET /api/event/ingest``: the ingest's counts, whether its loop is alive, and its last error
    (the loop's own, or what ended it)."""
    report = {"instance": instance, "alive": supervisor.alive, "restarts": supervisor.restarts,
              **ingest.report()}
    ended = supervisor.last_error_at
    if supervisor.last_error is not None and ended is not None and (
        report["last_error"] is None or ended >= report["last_error"]["at"]
    ):
        report["last_error"] = {"at": round(ended, 3), "message": supervisor.last_error}
    return report


def run(args: argparse.Namespace) -> int:
    from hautetension.commands.panel import _check_port, serve
    from store.db import DatabaseError
    from store.dialect import describe
    from store.event.db import connect_event
    from uplink.ingest import Ingest
    from uplink.supervisor import Supervisor
    from webpanel.app import close_app
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
            "instance": args.instance,
        }
        central = CentralSettings.from_config(config.with_values("central", options))
        conn = connect_event(central.event.database)
        app = central_app(config, central)
    except (ConfigError, SecretKeyError, DatabaseError) as exc:
        print(f"hautetension central: {exc}", file=sys.stderr)
        return EX_CONFIG
    try:
        ingest = Ingest(
            conn,
            central.broker,
            event=central.event.event,
            confirm_timeout=central.event.confirm_timeout,
            instance=central.instance,
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
    supervisor = Supervisor(ingest, name="ingest")
    app.extensions["ingest_counts"] = functools.partial(ingest_report, ingest, supervisor, central.instance)
    ingest.start()
    supervisor.start()
    print(
        f"hautetension central: event {central.event.event} on http://{central.host}:{central.port}/event "
        f"(database {describe(central.event.database)}), boards via {central.broker.address.url}",
        file=sys.stderr,
        flush=True,
    )
    try:
        serve(server, app)
    finally:
        supervisor.stop(timeout=5)
        ingest.close()
        conn.close()
        # What this process took from the broker: with several on one database, each receives every
        # message and the store keeps each row once (stored + duplicates over the processes).
        print(
            f"hautetension central: stopped; {ingest.received} messages received, {ingest.stored} rows"
            f" stored, {ingest.duplicates} duplicates discarded",
            file=sys.stderr,
            flush=True,
        )
    return 0
