"""The Pi's front server (nginx, systemd/nginx-hautetension.conf.in) in front of a real panel.

nginx is Debian's, started from the same template ``install.sh`` installs
(tests/servers/nginx.py), in front of the panel served by waitress. Slow
clients come from many loopback source addresses (127.0.0.2, …); honest
clients from addresses of their own. Failures are bounded by a generous
client timeout only, so that a broken setup cannot hang the suite: nothing
here measures time.
"""

from __future__ import annotations

import http.client
import json
import shutil
import socket
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from http.cookies import SimpleCookie
from pathlib import Path
from typing import Any

import pytest

from tests.servers.nginx import INSTALL_HINT, NginxFront
from tests.servers.process import find_binary, free_port, server_folder
from tests.servers.slow_clients import SlowClients, can_bind
from tests.webpanel import helpers
from webpanel.config import PanelSettings

CLIENT_TIMEOUT_S = 10.0
"""Only so that a failure cannot hang the suite: every answer here comes at once or never."""
SLOW_CLIENTS = 300
PANEL_CONNECTIONS = 200
"""waitress's connection limit in these tests: fewer than the slow clients, as any limit is
fewer than the connections an attacker can open."""
NGINX_429 = "too many requests from this address"


@pytest.fixture(scope="module")
def nginx_binary() -> str:
    binary = find_binary("nginx")
    if binary is None:
        pytest.skip(f"nginx is missing ({INSTALL_HINT}): the front-server tests need Debian's nginx")
    if not can_bind("127.0.0.2"):
        pytest.skip("this machine routes only 127.0.0.1 to loopback: the tests need 127.0.0.0/8")
    return binary


@pytest.fixture
def settings(tmp_path: Path) -> PanelSettings:
    """The panel as the Pi's unit runs it: trusting the loopback front server, and only it."""
    panel: PanelSettings = helpers.make_settings(
        tmp_path,
        trusted_proxy="127.0.0.1",
        connection_limit=PANEL_CONNECTIONS,
        max_streams=10,
        # Streams last longer than any test: an event held back by a buffering proxy never arrives.
        stream_max_seconds=600.0,
    )
    return panel


@pytest.fixture
def panel(served: Any, service: Any) -> Any:
    """The panel served by waitress on a free loopback port, with the board service stand-in."""
    return served


@contextmanager
def running_front(binary: str, panel: str) -> Iterator[NginxFront]:
    """nginx from the Pi's template in front of *panel*, in a folder of its own removed afterwards."""
    front = NginxFront(server_folder("nginx"), binary=binary, panel=panel, with_status=True)
    try:
        front.start()
        yield front
    finally:
        front.stop()
        shutil.rmtree(front.folder, ignore_errors=True)


@pytest.fixture
def front(nginx_binary: str, panel: Any) -> Iterator[NginxFront]:
    with running_front(nginx_binary, f"127.0.0.1:{panel.port}") as front:
        yield front


class Device:
    """An HTTP client on its own source address, keeping its cookies and CSRF token like a browser."""

    def __init__(self, port: int, address: str) -> None:
        self.port = port
        self.address = address
        self.cookies: dict[str, str] = {}
        self.token: str | None = None

    def request(
        self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
    ) -> tuple[int, dict[str, str], bytes]:
        connection = http.client.HTTPConnection(
            "127.0.0.1", self.port, timeout=CLIENT_TIMEOUT_S, source_address=(self.address, 0)
        )
        sent = dict(headers or {})
        if self.cookies:
            sent["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        if self.token:
            sent["X-CSRF-Token"] = self.token
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            sent["Content-Type"] = "application/json"
        try:
            connection.request(method, path, body=data, headers=sent)
            response = connection.getresponse()
            payload = response.read()
        finally:
            connection.close()
        for header in response.headers.get_all("Set-Cookie") or []:
            for name, morsel in SimpleCookie(header).items():
                self.cookies[name] = morsel.value
        return response.status, dict(response.headers), payload

    def get_json(self, path: str) -> tuple[int, Any]:
        status, _headers, payload = self.request("GET", path)
        return status, json.loads(payload)

    def log_in(self, pin: str) -> tuple[int, str]:
        if self.token is None:
            self.token = self.get_json("/api/session")[1]["csrf_token"]
        status, _headers, payload = self.request("POST", "/api/staff/login", {"pin": pin})
        return status, json.loads(payload)["error"] if status != 200 else ""


def open_stream(port: int, address: str, path: str = "/api/events") -> tuple[socket.socket, bytes]:
    """An event stream as a browser opens it: the socket and what arrived with the response head."""
    sock = socket.create_connection(
        ("127.0.0.1", port), timeout=CLIENT_TIMEOUT_S, source_address=(address, 0)
    )
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: panel\r\nAccept: text/event-stream\r\n\r\n".encode())
    received = b""
    while b"\r\n\r\n" not in received:
        chunk = sock.recv(4096)
        if not chunk:
            break
        received += chunk
    return sock, received


def read_until(sock: socket.socket, received: bytes, marker: bytes, count: int = 1) -> bytes:
    while received.count(marker) < count:
        chunk = sock.recv(4096)
        if not chunk:
            raise AssertionError(f"the stream ended before {count} × {marker!r}: {received[-300:]!r}")
        received += chunk
    return received


# -- slow clients ----------------------------------------------------------------------------------


def test_slow_clients_do_not_stop_an_honest_client_behind_the_front_server(
    front: NginxFront
) -> None:
    with SlowClients("127.0.0.1", front.port, count=SLOW_CLIENTS, addresses=100) as attack:
        assert attack.wait_connected() == SLOW_CLIENTS
        # nginx holds every one of them, each in the middle of its request header.
        helpers.wait_for(lambda: front.status()["reading"] >= SLOW_CLIENTS, timeout=30)
        status, board = Device(front.port, "127.1.0.1").get_json("/api/board")
        assert status == 200 and "pawns" in board and board["service"]["running"] is True
        assert front.status()["reading"] >= SLOW_CLIENTS  # the attack was still on


def test_the_same_attack_locks_an_honest_client_out_of_waitress_alone(
    panel: Any, caplog: pytest.LogCaptureFixture
) -> None:
    honest = Device(panel.port, "127.1.0.1")
    with SlowClients("127.0.0.1", panel.port, count=SLOW_CLIENTS, addresses=100) as attack:
        assert attack.wait_connected() == SLOW_CLIENTS
        helpers.wait_for(lambda: "reached the connection limit" in caplog.text, timeout=30)
        with pytest.raises(TimeoutError):
            honest.get_json("/api/board")
    # Once they let go, waitress serves again.
    status, _board = helpers.wait_for(lambda: _answered(honest), timeout=30)
    assert status == 200


def _answered(device: Device) -> tuple[int, Any] | None:
    try:
        return device.get_json("/api/board")
    except TimeoutError:
        return None


# -- the client's address --------------------------------------------------------------------------


def test_the_panel_sees_the_clients_own_address_whatever_x_forwarded_for_claims(
    front: NginxFront, settings: PanelSettings
) -> None:
    guesser = Device(front.port, "127.5.0.1")
    answers = []
    for attempt in range(settings.login_attempts + 1):
        guesser.token = guesser.token or guesser.get_json("/api/session")[1]["csrf_token"]
        status, _headers, payload = guesser.request(
            "POST",
            "/api/staff/login",
            {"pin": "000000"},
            headers={"X-Forwarded-For": f"10.0.{attempt}.9", "Forwarded": f"for=10.1.{attempt}.9"},
        )
        answers.append((status, json.loads(payload)["error"]))
    assert [status for status, _ in answers] == [401] * settings.login_attempts + [429]
    assert "too many wrong PINs" in answers[-1][1]  # the panel's limiter, not nginx's
    # Another address is not locked out, and the right PIN lets it in.
    other = Device(front.port, "127.6.0.1")
    assert other.log_in("111111") == (401, "wrong PIN")
    assert other.log_in(helpers.PIN) == (200, "")


def test_waitress_alone_ignores_x_forwarded_for_from_a_client(panel: Any, settings: PanelSettings) -> None:
    guesser = Device(panel.port, "127.5.0.1")
    statuses = []
    for attempt in range(settings.login_attempts + 1):
        guesser.token = guesser.token or guesser.get_json("/api/session")[1]["csrf_token"]
        status, _headers, _payload = guesser.request(
            "POST", "/api/staff/login", {"pin": "000000"}, headers={"X-Forwarded-For": f"10.0.{attempt}.9"}
        )
        statuses.append(status)
    assert statuses == [401] * settings.login_attempts + [429]


def test_metrics_are_not_public_behind_the_front_server(front: NginxFront) -> None:
    """Any address but the machine's own is refused by nginx itself (the panel would answer this one:
    its default networks are the loopback ones); the machine itself gets the metrics."""
    status, _headers, _payload = Device(front.port, "127.8.0.1").request("GET", "/metrics")
    assert status == 403
    status, headers, payload = Device(front.port, "127.0.0.1").request("GET", "/metrics")
    assert status == 200 and headers["Content-Type"].startswith("text/plain; version=")
    assert b"hautetension_http_requests_total" in payload


# -- event streams ---------------------------------------------------------------------------------


def test_events_go_through_unbuffered(front: NginxFront) -> None:
    sock, received = open_stream(front.port, "127.7.0.1")
    with sock:
        head = received.split(b"\r\n\r\n", 1)[0].decode()
        assert head.startswith("HTTP/1.1 200") and "text/event-stream" in head
        # The first board and three heartbeats (every 0.5 s here) arrive while the panel keeps the
        # stream open for ten minutes: nginx holds nothing back.
        received = read_until(sock, received, b"event: board")
        read_until(sock, received, b": keep-alive", count=3)


def test_the_stream_cap_counts_through_the_front_server_and_per_address(
    front: NginxFront, settings: PanelSettings
) -> None:
    with ExitStack() as streams:
        # One address gets at most 8 streams from nginx.
        for _ in range(8):
            sock, head = open_stream(front.port, "127.8.0.1")
            streams.enter_context(sock)
            assert head.startswith(b"HTTP/1.1 200"), head
        sock, head = open_stream(front.port, "127.8.0.1")
        with sock:
            assert head.startswith(b"HTTP/1.1 429") and NGINX_429.encode() in read_until(sock, head, b"}")
        # Other addresses fill the panel's own cap (max_streams); beyond it, its 503 and Retry-After.
        last = None
        for index in range(settings.max_streams - 8):
            last, head = open_stream(front.port, f"127.9.0.{index + 1}")
            streams.enter_context(last)
            assert head.startswith(b"HTTP/1.1 200"), head
        sock, head = open_stream(front.port, "127.10.0.1")
        with sock:
            assert head.startswith(b"HTTP/1.1 503") and b"Retry-After:" in head
            assert b"too many live pages" in read_until(sock, head, b"}")
        # A browser that goes away gives its place back through nginx.
        assert last is not None
        last.close()
        helpers.wait_for(lambda: _stream_opens(front.port, "127.10.0.1"), timeout=30)


def _stream_opens(port: int, address: str) -> bool:
    sock, head = open_stream(port, address)
    sock.close()
    return head.startswith(b"HTTP/1.1 200")


# -- request rates -----------------------------------------------------------------------------------


def test_guessing_join_codes_is_rate_limited_per_address(front: NginxFront) -> None:
    guesser = Device(front.port, "127.11.0.1")
    answers = [guesser.request("GET", f"/j/zz{n:04d}") for n in range(40)]
    assert {status for status, _headers, _body in answers} == {404, 429}
    # The panel's own limiter refuses wrong codes too; nginx refuses most of these before they reach it.
    by_nginx = [headers for status, headers, body in answers if status == 429 and NGINX_429.encode() in body]
    assert len(by_nginx) > len(answers) // 2 and all("Retry-After" in headers for headers in by_nginx)
    # Another address is not affected.
    assert Device(front.port, "127.12.0.1").request("GET", "/j/zz0000")[0] == 404


def test_a_body_too_large_is_refused_by_the_front_server_as_json(front: NginxFront) -> None:
    device = Device(front.port, "127.13.0.1")
    device.token = device.get_json("/api/session")[1]["csrf_token"]
    status, _headers, body = device.request("POST", "/api/sim/slots/a9", "x" * 200_000)
    assert status == 413 and json.loads(body) == {"error": "the request body is too large"}


def test_a_panel_that_is_not_running_is_a_503_to_retry(nginx_binary: str) -> None:
    with running_front(nginx_binary, f"127.0.0.1:{free_port()}") as front:  # nobody listens there
        status, headers, body = Device(front.port, "127.14.0.1").request("GET", "/api/board")
    assert status == 503 and headers["Retry-After"] == "5"
    assert json.loads(body) == {"error": "the panel is not answering: retrying shortly"}
