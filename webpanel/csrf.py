"""CSRF protection for every state-changing request, whichever blueprint serves it.

Each session carries a random token. A ``POST``, ``PUT``, ``PATCH`` or
``DELETE`` must send it back in the ``X-CSRF-Token`` header or a
``csrf_token`` form field; a page on another site cannot read it, so it
cannot forge the request. The check runs before any view, so a blueprint
added later is protected without doing anything.
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Callable
from typing import Any, TypeVar

from flask import Flask, current_app, request, session

from webpanel.errors import ApiError, define_code

HEADER = "X-CSRF-Token"
FIELD = "csrf_token"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "TRACE"})

F = TypeVar("F", bound=Callable[..., Any])

CSRF_FAILED = define_code(
    "csrf_failed", "The request lacks the session's CSRF token (GET /api/session gives it)."
)


def token() -> str:
    """This session's token (created on first use)."""
    value = session.get(FIELD)
    if not isinstance(value, str) or not value:
        value = secrets.token_urlsafe(32)
        session[FIELD] = value
    return value


def exempt(view: F) -> F:
    """Let *view* accept state-changing requests without a token (use sparingly)."""
    view._csrf_exempt = True  # type: ignore[attr-defined]
    return view


def _check() -> None:
    if request.method in SAFE_METHODS or request.routing_exception is not None:
        return  # no view will run: the 404/405 is the answer
    view = current_app.view_functions.get(request.endpoint or "")
    if view is not None and getattr(view, "_csrf_exempt", False):
        return
    expected = session.get(FIELD)
    sent = request.headers.get(HEADER)
    if sent is None and request.mimetype in ("application/x-www-form-urlencoded", "multipart/form-data"):
        sent = request.form.get(FIELD)
    if not isinstance(expected, str) or not sent or not _same(sent, expected):
        raise ApiError(
            403,
            f"missing or wrong CSRF token: send the {HEADER} header (GET /api/session gives it)",
            code=CSRF_FAILED,
        )


def _same(sent: str, expected: str) -> bool:
    """Compare as bytes: ``compare_digest`` refuses str with non-ASCII characters (a header may
    carry any Latin-1 character, a form field any character)."""
    return hmac.compare_digest(sent.encode("utf-8", "surrogatepass"), expected.encode("utf-8"))


def init_app(app: Flask) -> None:
    app.before_request(_check)
    app.jinja_env.globals["csrf_token"] = token
