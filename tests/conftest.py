"""Fixtures shared by every test package."""

from __future__ import annotations

import ast
import functools
import shutil
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from games.hautetension.layout import Layout, load_layout
from store.dialect import Connection
from store.event.db import connect_event
from tests.servers.mosquitto import INSTALL_HINT as MOSQUITTO_HINT
from tests.servers.mosquitto import BrokerTls, MosquittoBroker
from tests.servers.postgres import INSTALL_HINT as POSTGRES_HINT
from tests.servers.postgres import PostgresCluster, find_postgres_bindir
from tests.servers.process import find_binary, server_folder


def _one_ast_parse_at_a_time() -> None:
    """Serialise ``ast.parse`` in the test processes, a work-around for a CPython bug.

    Before Python 3.13 the AST constructor counts its recursion depth in state that every thread
    shares (python/cpython#106905): two ``ast.parse`` at once in two threads (pytest rewriting the
    asserts of a module it imports, a traceback placing its carets in a server thread of the test,
    pytest reading a failure's source) may raise ``SystemError: AST constructor recursion depth
    mismatch`` in either, which ends a fixture that did nothing wrong. One lock around the call
    makes them wait for each other.
    """
    parse = ast.parse
    lock = threading.Lock()

    @functools.wraps(parse)
    def parse_alone(*args: Any, **kwargs: Any) -> Any:
        with lock:
            return parse(*args, **kwargs)

    ast.parse = parse_alone


if sys.version_info < (3, 13):
    _one_ast_parse_at_a_time()


@pytest.fixture(autouse=True)
def stopped_wall_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """The computer players' thinking time never runs out in tests: no test depends on timing.

    In play a searching level stops at its wall-clock budget (games.budget); here the wall clock
    stands still, so every search stops at its own cap of work, as reproducibly as before.
    Tests of the budget inject a clock of their own.
    """
    monkeypatch.setattr("games.budget.wall_clock", lambda: 0.0)


@pytest.fixture(scope="session")
def pinwheel() -> Layout:
    """The default board layout."""
    return load_layout("pinwheel-80")


# -- real servers: Mosquitto and PostgreSQL as local processes ------------------------------------
# Started on free loopback ports in temporary folders (tests/servers/); skipped, with the reason and
# the install command, only where Debian's package is missing and ``make test`` could not install it.


@pytest.fixture(scope="session")
def mosquitto_binaries() -> tuple[str, str]:
    """Paths of ``mosquitto`` and ``mosquitto_passwd``."""
    broker, passwd = find_binary("mosquitto"), find_binary("mosquitto_passwd")
    if broker is None or passwd is None:
        pytest.skip(f"Mosquitto is missing ({MOSQUITTO_HINT}): the MQTT tests need the real broker")
    return broker, passwd


@pytest.fixture
def make_broker(mosquitto_binaries: tuple[str, str]) -> Iterator[Callable[..., MosquittoBroker]]:
    """Start brokers for one test (``make_broker(users=..., acl=..., tls=...)``); all stopped after it."""
    started: list[MosquittoBroker] = []

    def make(**options: Any) -> MosquittoBroker:
        broker = MosquittoBroker(
            server_folder("mosquitto"),
            binary=mosquitto_binaries[0],
            passwd_binary=mosquitto_binaries[1],
            **options,
        )
        started.append(broker)
        broker.start()
        return broker

    yield make
    for broker in started:
        broker.kill()
        shutil.rmtree(broker.folder, ignore_errors=True)


@pytest.fixture
def broker(make_broker: Callable[..., MosquittoBroker]) -> MosquittoBroker:
    """An open broker (anonymous access, no ACL) for this test alone."""
    return make_broker()


@pytest.fixture(scope="session")
def tls_authority() -> Iterator[tuple[Any, BrokerTls]]:
    """A throwaway certificate authority (trustme) and a broker certificate for 127.0.0.1 signed by it."""
    trustme = pytest.importorskip("trustme")
    folder = server_folder("tls")
    authority = trustme.CA()
    certificate = authority.issue_cert("127.0.0.1", "localhost")
    files = BrokerTls(folder / "ca.pem", folder / "broker.pem", folder / "broker.key")
    authority.cert_pem.write_to_path(str(files.ca_file))
    certificate.cert_chain_pems[0].write_to_path(str(files.cert_file))
    certificate.private_key_pem.write_to_path(str(files.key_file))
    # The broker reads them as its own user; the key is a throwaway one.
    folder.chmod(0o755)
    for path in (files.ca_file, files.cert_file, files.key_file):
        path.chmod(0o644)
    yield authority, files
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session")
def postgres_cluster() -> Iterator[PostgresCluster]:
    """One throwaway PostgreSQL cluster for the whole session."""
    bindir = find_postgres_bindir()
    if bindir is None:
        pytest.skip(f"PostgreSQL is missing ({POSTGRES_HINT}): the PostgreSQL tests need a real server")
    cluster = PostgresCluster(server_folder("postgres"), bindir=bindir)
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()
        shutil.rmtree(cluster.folder, ignore_errors=True)


@pytest.fixture
def postgres_dsn(postgres_cluster: PostgresCluster) -> str:
    """The DSN of a new, empty database on the session's cluster, for this test alone."""
    return postgres_cluster.create_database()


# -- one store, two engines (store/dialect.py) ------------------------------------------------------


@pytest.fixture(params=["sqlite", "postgresql"])
def db_location(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Where this test's event database is: an SQLite file, then a new PostgreSQL database.

    A test taking it (or ``event_db``) runs once per engine (``[sqlite]``, ``[postgresql]``)."""
    if request.param == "sqlite":
        return str(tmp_path / "central.db")
    template: str = request.getfixturevalue("postgres_event_template")
    cluster: PostgresCluster = request.getfixturevalue("postgres_cluster")
    return cluster.create_database(template=template)


@pytest.fixture(scope="session")
def postgres_event_template(postgres_cluster: PostgresCluster) -> str:
    """A database migrated once to the event server's schema, copied for each test (faster than
    migrating each one; the migrations themselves are tested on empty databases)."""
    dsn = postgres_cluster.create_database("event_template")
    connect_event(dsn).close()
    return dsn.rsplit("/", 1)[1]


@pytest.fixture
def event_db(db_location: str) -> Iterator[Connection]:
    """The event server's database on each engine, migrated (``store.event.db.connect_event``)."""
    conn = connect_event(db_location)
    yield conn
    conn.close()
