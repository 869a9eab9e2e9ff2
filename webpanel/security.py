"""Security headers, the session secret and the session cookie's check.

The secret key signs session cookies (the staff login and the CSRF token).
It is never in the repository nor in the configuration file: the panel
generates it at first start into a file readable by its owner only (0600),
next to the database unless ``[panel] secret_key_file`` says otherwise.

A device sends the same session cookie with every request (a game's seat
sends it a few times a second): its signature is checked once, and the
cookie's value remembered with what it holds (:class:`CheckedSessions`).
"""

from __future__ import annotations

import copy
import os
import secrets
import threading
import time
from collections import OrderedDict
from pathlib import Path
from typing import Any

from flask import Flask, Response, request
from flask.sessions import SecureCookieSession, SecureCookieSessionInterface
from flask.wrappers import Request

CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)


class SecretKeyError(OSError):
    """The secret key file exists but cannot be used safely."""


def load_or_create_secret_key(path: Path) -> bytes:
    """Read the key at *path*, creating it (0600, 32 random bytes) if it does not exist."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        pass
    else:
        with os.fdopen(fd, "w") as handle:
            handle.write(secrets.token_hex(32) + "\n")
    mode = path.stat().st_mode & 0o777
    if mode & 0o077:
        # Someone loosened it: tighten rather than sign sessions with a key others can read.
        os.chmod(path, 0o600)
    key = path.read_text(encoding="ascii").strip()
    if len(key) < 32:
        raise SecretKeyError(f"{path}: the secret key is too short; delete the file to make a new one")
    return key.encode()


CHECKED_COOKIES = 4096
"""Session cookies remembered as checked (a device's cookie changes only when its session does)."""


class CheckedSessions(SecureCookieSessionInterface):
    """Flask's signed-cookie sessions, each cookie value's signature checked once.

    Exactly what Flask's own interface answers: a cookie value is remembered only once its signature
    was found right with the app's key, with its signing time, and a session older than the app's
    session lifetime is refused as Flask refuses it (the time is checked at every request). Every
    request gets a session of its own (a copy). At most :data:`CHECKED_COOKIES` values are kept, the
    least recently seen making room.
    """

    def __init__(self, kept: int = CHECKED_COOKIES) -> None:
        self.kept = kept
        self._checked: OrderedDict[tuple[Any, str], tuple[int, dict[str, Any]]] = OrderedDict()
        self._lock = threading.Lock()

    def open_session(self, app: Flask, request: Request) -> SecureCookieSession | None:
        value = request.cookies.get(self.get_cookie_name(app))
        if not app.secret_key or not value:
            return super().open_session(app, request)
        max_age = int(app.permanent_session_lifetime.total_seconds())
        key = (app.secret_key, value)
        with self._lock:
            checked = self._checked.get(key)
            if checked is not None:
                self._checked.move_to_end(key)
        if checked is None:
            opened = super().open_session(app, request)  # Flask's own check: signature and age
            serializer = self.get_signing_serializer(app)
            if not opened or serializer is None:
                return opened  # no session, a wrong signature or an expired one: nothing to remember
            # Found right just now with the same key: read again for its signing time (no age given,
            # nothing left to refuse).
            data, signed = serializer.loads(value, return_timestamp=True)
            checked = (int(signed.timestamp()), data)
            with self._lock:
                self._checked[key] = checked
                while len(self._checked) > self.kept:
                    self._checked.popitem(last=False)
        signed_at, data = checked
        if not 0 <= int(time.time()) - signed_at <= max_age:  # itsdangerous' own test of age
            return self.session_class()
        return self.session_class(copy.deepcopy(data))


def init_app(app: Flask) -> None:
    app.session_interface = CheckedSessions()

    @app.after_request
    def _headers(response: Response) -> Response:
        response.headers["Content-Security-Policy"] = CONTENT_SECURITY_POLICY
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["X-Frame-Options"] = "DENY"
        response.headers["Referrer-Policy"] = "no-referrer"
        if request.path.startswith("/api/") and "Cache-Control" not in response.headers:
            response.headers["Cache-Control"] = "no-store"
        return response
