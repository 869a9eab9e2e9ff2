"""Security headers and the session secret.

The secret key signs session cookies (the staff login and the CSRF token).
It is never in the repository nor in the configuration file: the panel
generates it at first start into a file readable by its owner only (0600),
next to the database unless ``[panel] secret_key_file`` says otherwise.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from flask import Flask, Response, request

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


def init_app(app: Flask) -> None:
    @app.after_request
    def _headers(response: Response) -> Response:
        response.headers["Content-Security-Policy"] = CONTENT_SECURITY_POLICY
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["X-Frame-Options"] = "DENY"
        response.headers["Referrer-Policy"] = "no-referrer"
        if request.path.startswith("/api/") and "Cache-Control" not in response.headers:
            response.headers["Cache-Control"] = "no-store"
        return response
