"""Staff service mode: the PIN, the login session and the guard other areas use.

The staff PIN is stored only as a salted scrypt hash (Werkzeug's
``generate_password_hash``). Where it lives: ``staff_pin_hash`` in the
``[panel]`` section of the configuration file when the panel runs with one
(``hautetension staff set-pin`` writes it there), else the file
``staff-pin.hash`` next to the database (development checkouts without a
configuration file). The hash is read at each login, so a new PIN works
without restarting the panel: the configured one comes from the function
``create_app`` was given (``hautetension panel`` reads the file again), the
file's from the file.

Failed attempts are limited per client address (``login_attempts`` per
``login_window_seconds``, then 429 with ``Retry-After``) and in total (four
times that), so guessing a PIN takes days, not minutes.
"""

from __future__ import annotations

import functools
import re
import threading
import time
import tomllib
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from flask import current_app, redirect, request, session, url_for
from werkzeug.security import check_password_hash, generate_password_hash

from configuration import ConfigError
from configuration.edit import write_atomically as _atomic_write
from webpanel.config import PanelSettings
from webpanel.errors import ApiError

MIN_PIN_LENGTH = 6
MAX_PIN_LENGTH = 64
STAFF_KEY = "staff_until"

F = TypeVar("F", bound=Callable[..., Any])


class PinError(ValueError):
    """A PIN that cannot be used (too short, blank, …)."""


# -- the PIN ----------------------------------------------------------------


def check_new_pin(pin: str) -> str:
    if pin != pin.strip() or any(ch.isspace() for ch in pin):
        raise PinError("the PIN must not contain spaces")
    if not MIN_PIN_LENGTH <= len(pin) <= MAX_PIN_LENGTH:
        raise PinError(f"the PIN must have {MIN_PIN_LENGTH} to {MAX_PIN_LENGTH} characters")
    return pin


def hash_pin(pin: str) -> str:
    return generate_password_hash(check_new_pin(pin), method="scrypt")


def write_pin_hash_file(path: Path, pin_hash: str) -> None:
    _atomic_write(path, pin_hash + "\n", mode=0o600)


def write_pin_hash_to_config(path: Path, pin_hash: str) -> None:
    """Set ``[panel] staff_pin_hash`` in the TOML file at *path*, leaving every other line as it was."""
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    text = set_panel_key(text, "staff_pin_hash", pin_hash)
    try:
        written = tomllib.loads(text)["panel"]["staff_pin_hash"]
    except (tomllib.TOMLDecodeError, KeyError) as exc:
        raise ConfigError(
            f"{path}: cannot set staff_pin_hash safely ({exc}); edit the file by hand"
        ) from None
    if written != pin_hash:
        raise ConfigError(f"{path}: cannot set staff_pin_hash safely; edit the file by hand")
    if path.exists():
        st = path.stat()
        _atomic_write(path, text, mode=st.st_mode & 0o777, owner=(st.st_uid, st.st_gid))
    else:
        _atomic_write(path, text, mode=0o600)


_SECTION = re.compile(r"^\s*\[\s*([^\]]+?)\s*\]\s*(#.*)?$")


def set_panel_key(text: str, key: str, value: str) -> str:
    """*text* (TOML) with ``key = "value"`` set in its ``[panel]`` table."""
    line_for = f'{key} = "{value}"'
    lines = text.splitlines()
    start = next(
        (i for i, line in enumerate(lines) if (m := _SECTION.match(line)) and m.group(1) == "panel"), None
    )
    if start is None:
        tail = ["", "[panel]", line_for] if lines else ["[panel]", line_for]
        return "\n".join(lines + tail) + "\n"
    end = next((i for i in range(start + 1, len(lines)) if _SECTION.match(lines[i])), len(lines))
    key_line = re.compile(rf"^\s*{re.escape(key)}\s*=")
    for i in range(start + 1, end):
        if key_line.match(lines[i]):
            lines[i] = line_for
            break
    else:
        lines.insert(start + 1, line_for)
    return "\n".join(lines) + "\n"


def current_pin_hash() -> str:
    """The stored hash, read now ('' when no PIN has been set)."""
    settings: PanelSettings = current_app.config["PANEL"]
    configured: Callable[[], str] = current_app.extensions["staff_pin_hash"]
    pin_hash = configured()
    if pin_hash:
        return pin_hash
    try:
        return settings.staff_pin_path.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return ""


# -- rate limit ---------------------------------------------------------------


class AttemptLimiter:
    """Failed logins per client address (and in total) in a sliding window."""

    def __init__(
        self, *, per_client: int, window: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.per_client = per_client
        self.total = per_client * 4
        self.window = window
        self.clock = clock
        self._failures: dict[str, deque[float]] = {}
        self._all: deque[float] = deque()
        self._lock = threading.Lock()

    def retry_after(self, client: str) -> int:
        """Seconds the client must wait before trying again (0: it may try now)."""
        with self._lock:
            now = self.clock()
            self._expire(now)
            waits = []
            mine = self._failures.get(client)
            if mine and len(mine) >= self.per_client:
                waits.append(mine[0] + self.window - now)
            if len(self._all) >= self.total:
                waits.append(self._all[0] + self.window - now)
            return max(1, int(max(waits)) + 1) if waits else 0

    def failed(self, client: str) -> None:
        with self._lock:
            now = self.clock()
            self._failures.setdefault(client, deque()).append(now)
            self._all.append(now)

    def _expire(self, now: float) -> None:
        horizon = now - self.window
        while self._all and self._all[0] <= horizon:
            self._all.popleft()
        for client in list(self._failures):
            times = self._failures[client]
            while times and times[0] <= horizon:
                times.popleft()
            if not times:
                del self._failures[client]


def limiter() -> AttemptLimiter:
    value: AttemptLimiter = current_app.extensions["staff_limiter"]
    return value


# -- the session ------------------------------------------------------------


def log_in(pin: Any) -> None:
    """Check *pin* and open a staff session, or raise the :class:`ApiError` to answer."""
    client = request.remote_addr or "unknown"
    wait = limiter().retry_after(client)
    if wait:
        raise ApiError(
            429, f"too many wrong PINs: try again in {wait} s", headers={"Retry-After": str(wait)}
        )
    if not isinstance(pin, str) or not pin:
        raise ApiError(400, "pin must be a non-empty string")
    stored = current_pin_hash()
    if not stored:
        raise ApiError(403, "no staff PIN is set: run `hautetension staff set-pin` on the controller")
    try:
        good = check_password_hash(stored, pin)
    except (ValueError, TypeError):
        raise ApiError(500, "the stored staff PIN hash is damaged: set the PIN again") from None
    if not good:
        limiter().failed(client)
        raise ApiError(401, "wrong PIN")
    settings: PanelSettings = current_app.config["PANEL"]
    session.clear()  # a fresh session on login: no fixation of a pre-login cookie
    session.permanent = True
    session[STAFF_KEY] = time.time() + settings.session_hours * 3600


def log_out() -> None:
    session.pop(STAFF_KEY, None)


def is_staff() -> bool:
    """Whether this request comes from a logged-in staff session."""
    until = session.get(STAFF_KEY)
    return isinstance(until, int | float) and time.time() < until


def staff_required(view: F) -> F:
    """Let only staff through: 401 JSON under ``/api/``, a redirect to the login page elsewhere."""

    @functools.wraps(view)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        if is_staff():
            return view(*args, **kwargs)
        if request.path.startswith("/api/"):
            raise ApiError(401, "staff only: log in with the staff PIN")
        return redirect(url_for("staff.login_page", next=request.path))

    return guarded  # type: ignore[return-value]
