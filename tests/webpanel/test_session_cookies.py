"""The session cookie's signature is checked once per cookie value, and the session is what Flask's own
check gives: a forged or altered cookie is no session, an expired one is refused even when remembered,
and every request gets a session of its own."""

from __future__ import annotations

import datetime
import time
from typing import Any

from flask import Flask
from flask.sessions import SecureCookieSessionInterface

from tests.webpanel.helpers import Api
from webpanel.security import CheckedSessions


def counted_loads(app: Flask) -> list[str]:
    """Every cookie value whose signature is checked (the serializer's loads), from now on."""
    checked: list[str] = []
    interface = app.session_interface
    assert isinstance(interface, CheckedSessions)
    original = interface.get_signing_serializer

    def serializer(of: Flask) -> Any:
        signer = original(of)
        loads = signer.loads

        def counting(value: str, **kwargs: Any) -> Any:
            checked.append(value)
            return loads(value, **kwargs)

        signer.loads = counting
        return signer

    interface.get_signing_serializer = serializer  # type: ignore[method-assign]
    return checked


def test_a_cookie_is_checked_once_and_keeps_its_csrf_token(app: Flask) -> None:
    client = app.test_client()
    token = client.get("/api/session").get_json()["csrf_token"]  # no cookie yet: a new session
    checked = counted_loads(app)
    assert client.get("/api/session").get_json()["csrf_token"] == token
    assert checked, "the cookie's first look checks its signature"
    first = len(checked)
    for _ in range(4):
        assert client.get("/api/session").get_json()["csrf_token"] == token
    assert len(checked) == first, "the same cookie was checked again"


def test_an_altered_cookie_is_no_session(app: Flask) -> None:
    api = Api(app.test_client())
    api.get("/api/session")
    cookie = api.client.get_cookie("hautetension_session")
    assert cookie is not None
    forged = Api(app.test_client())
    altered = cookie.value[:-2] + ("AA" if cookie.value[-2:] != "AA" else "BB")
    forged.client.set_cookie("hautetension_session", altered)
    forged.token = api.token  # the right token, with a cookie whose signature is wrong
    answer = forged.post("/api/staff/login", {"pin": "0000"})
    assert answer.status_code == 403 and answer.get_json()["code"] == "csrf_failed"


def test_an_expired_session_is_refused_even_when_remembered(app: Flask) -> None:
    api = Api(app.test_client())
    token = api.get("/api/session").get_json()["csrf_token"]
    app.permanent_session_lifetime = datetime.timedelta(seconds=1)
    assert api.get("/api/session").get_json()["csrf_token"] == token  # remembered, still young
    time.sleep(2.1)
    assert api.get("/api/session").get_json()["csrf_token"] != token


def test_each_request_gets_a_session_of_its_own(app: Flask) -> None:
    interface = app.session_interface
    signer = SecureCookieSessionInterface().get_signing_serializer(app)
    assert signer is not None
    value = signer.dumps({"csrf_token": "kept", "list": [1]})
    name = interface.get_cookie_name(app)
    with app.test_request_context("/", headers={"Cookie": f"{name}={value}"}) as ctx:
        one = interface.open_session(app, ctx.request)
        two = interface.open_session(app, ctx.request)
    assert one is not None and two is not None
    assert dict(one) == {"csrf_token": "kept", "list": [1]}
    one["list"].append(2)
    assert two["list"] == [1], "a remembered cookie's contents were shared between requests"
