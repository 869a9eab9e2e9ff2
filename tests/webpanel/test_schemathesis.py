"""The whole OpenAPI document fuzzed by schemathesis, with every check it has.

Every operation is called with data valid by its schema (which the panel must
accept: 2xx, or a refusal that depends on state — 401, 403, 404, 409, 429)
and with invalid data (which it must refuse with a 4xx); no answer is a 500,
every status and body is the one the document promises. A route added later
is fuzzed the same way the moment it is documented (and test_api_board fails
when it is not). Requests carry a staff session and its CSRF token, so the
staff operations are reached too; the board service is the stand-in of the
other panel tests.

The event server (the panel in its event role) serves its own document: its
``/api/event/`` operations are fuzzed the same way against it, with a board
that has reported and a tournament to assign; the operations it shares with a
board's panel are fuzzed once, on the board's.

Bounded: 15 examples per operation plus the coverage cases, a minute or two of CPU per document.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from flask import Flask
from hypothesis import HealthCheck, settings

from games.hautetension.seats import DEFAULT_COLOURS
from store.event.attendance import PlayerLinks
from store.event.db import connect_event
from store.event.intake import Intake
from store.event.settings import EventSettings
from tests.store.event.helpers import Reports, a_tournament, send
from tests.webpanel.helpers import PIN, FakeService, make_settings
from webpanel.app import close_app, create_app
from webpanel.config import LobbySettings

EXAMPLES = 15
RUN_SECONDS = 900
"""pytest-timeout's limit for one run: each test below is one test item that fuzzes every operation of
its document in turn (a minute or two of CPU; several on the shared machine under load)."""
AUTH_ADDRESS = "192.0.2.250"
"""Where the test's own staff logins come from: not the fuzzer's address, whose wrong PINs wait."""


@pytest.fixture(scope="module")
def fuzzed_panel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Flask]:
    tmp: Path = tmp_path_factory.mktemp("schemathesis")
    panel_settings = make_settings(tmp, stream_max_seconds=0.2, heartbeat_seconds=0.1, command_timeout=1.0)
    service = FakeService(panel_settings.database).start()
    # The lobby's cap on open games is a 503 (lobby_full), which the fuzzer takes for a server
    # error: a run creates a few hundred games, so the cap is out of its reach.
    lobby = LobbySettings(max_open_games=1_000_000)
    app = create_app({"PANEL": panel_settings, "LOBBY": lobby, "TESTING": True})
    try:
        yield app
    finally:
        app.extensions["lobby_ai"].close()
        close_app(app)
        service.stop()


@pytest.fixture(scope="module")
def fuzzed_event_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Flask]:
    tmp: Path = tmp_path_factory.mktemp("schemathesis-event")
    event = EventSettings(event="fuzz", database=tmp / "central.db", confirm_timeout=60)
    conn = connect_event(event.database)
    try:
        send(Intake(conn, confirm_timeout=60), "board-1", [Reports("board-1").status()])
        tid = a_tournament(conn, 4)
        links = PlayerLinks(conn).ensure(tid, range(1, 5), actor="test")
    finally:
        conn.close()
    app = create_app({"PANEL": make_settings(tmp), "EVENT": event, "TESTING": True})
    app.config["FUZZED_TOKENS"] = [link.token for link in links.values()]
    try:
        yield app
    finally:
        close_app(app)


@pytest.fixture(scope="module")
def api_schema(fuzzed_panel: Flask) -> Any:
    return _staff_fuzzed(schemathesis.openapi.from_wsgi("/api/openapi.json", fuzzed_panel), fuzzed_panel)


@pytest.fixture(scope="module")
def event_api_schema(fuzzed_event_server: Flask) -> Any:
    schema = schemathesis.openapi.from_wsgi("/api/openapi.json", fuzzed_event_server)
    tokens: list[str] = fuzzed_event_server.config["FUZZED_TOKENS"]

    @schema.hook
    def map_path_parameters(context: Any, parameters: Any) -> Any:
        """Half the players' tokens drawn are real ones (the others find no link): each player's
        operations are reached past the lookup too."""
        if isinstance(parameters, dict) and isinstance(parameters.get("token"), str):
            drawn = parameters["token"]
            if len(drawn) % 2 == 0:
                parameters = {**parameters, "token": tokens[len(drawn) % len(tokens)]}
        return parameters

    return _staff_fuzzed(schema, fuzzed_event_server)


def _staff_fuzzed(schema: Any, app: Flask) -> Any:
    """*schema* with a staff session and its CSRF token on every case."""
    staff = app.test_client()

    @schema.auth(refresh_interval=None)
    class StaffSession:
        """A fresh staff session for each case (an earlier case may have logged out)."""

        def get(self, case: Any, context: Any) -> tuple[str, str]:
            token = staff.get("/api/session").get_json()["csrf_token"]
            response = staff.post(
                "/api/staff/login", json={"pin": PIN}, headers={"X-CSRF-Token": token},
                environ_overrides={"REMOTE_ADDR": AUTH_ADDRESS},
            )
            assert response.status_code == 200, response.get_json()
            cookie = staff.get_cookie("hautetension_session")
            assert cookie is not None
            return cookie.value, response.get_json()["csrf_token"]

        def set(self, case: Any, data: tuple[str, str], context: Any) -> None:
            cookie, token = data
            case.cookies = {**(case.cookies or {}), "hautetension_session": cookie}
            case.headers = {**(case.headers or {}), "X-CSRF-Token": token}

    @schema.hook
    def map_headers(context: Any, headers: Any) -> Any:
        """No generated ``Host`` header: the API documents none, the test transport names the host,
        and a drawn one such as ``[`` makes the client's cookie jar raise before anything is sent."""
        if not isinstance(headers, dict):
            return headers
        return {name: value for name, value in headers.items() if name.lower() != "host"}

    @schema.hook
    def filter_case(context: Any, case: Any) -> bool:
        return not (case.meta and case.meta.generation.mode.is_positive and _breaks_an_unwritten_rule(case))

    return schema


def _breaks_an_unwritten_rule(case: Any) -> bool:
    """The rules the document states in words because JSON Schema cannot compare items: the players
    of a board game have different names and colours, compared without case."""
    if case.operation.label != "POST /api/staff/game" or not isinstance(case.body, dict):
        return False
    players = [p if isinstance(p, dict) else {"name": p} for p in case.body.get("players", [])]
    names = [str(p.get("name", "")).strip().casefold() for p in players]
    colours = [str(p.get("colour", DEFAULT_COLOURS[i % len(DEFAULT_COLOURS)])).casefold()
               for i, p in enumerate(players)]
    return len(set(names)) < len(names) or len(set(colours)) < len(colours)


@pytest.fixture(autouse=True)
def _node_id_for_schemathesis(request: pytest.FixtureRequest) -> None:
    # schemathesis's lazy schema renames the test after each operation through the attribute pytest
    # before 9 kept its node id in; pytest 9 keeps it elsewhere: give it the attribute it reads.
    if not hasattr(request.node, "_nodeid"):
        request.node._nodeid = request.node.nodeid


schema = schemathesis.pytest.from_fixture("api_schema")
event_schema = schemathesis.pytest.from_fixture("event_api_schema").include(path_regex="^/api/event/")


@pytest.mark.timeout(RUN_SECONDS)
@schema.parametrize()
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
def test_the_api_keeps_every_promise_of_its_document(case: Any) -> None:
    case.call_and_validate()


@pytest.mark.timeout(RUN_SECONDS)
@event_schema.parametrize()
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
def test_the_event_servers_api_keeps_every_promise_of_its_document(case: Any) -> None:
    case.call_and_validate()
