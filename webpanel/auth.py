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

Guessing. Wrong PINs are counted per address, per address block and per
known staff device, never in total (:mod:`webpanel.guesses`): a guesser slows
itself down, nobody else. Each try is counted before the PIN is checked, so
tries sent at once meet the same limit as tries sent one by one. A device that
logged in once carries a signed device cookie and is then limited as itself,
not as its network: a guesser on the event's Wi-Fi cannot make the staff
tablets wait. Checking a PIN costs one scrypt (about 0.1 s and 32 MiB on the
development machine); at most :data:`PIN_CHECKS_AT_ONCE` run at a time, so
the worker threads stay free for the pages, and a stored hash costlier than
:data:`MAX_SCRYPT_BYTES` is refused rather than run.

Sessions. The signed session cookie carries a random session id; the
database (:class:`store.staff_sessions.StaffSessions`) says whether it is
still a staff session. Logging out ends it, every copy of the cookie with it;
a new PIN ends every session opened before.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import re
import secrets
import threading
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from flask import Response, current_app, g, redirect, request, session, url_for
from werkzeug.security import check_password_hash, generate_password_hash

from configuration import ConfigError
from configuration.edit import write_atomically as _atomic_write
from store.staff_sessions import StaffSessions
from webpanel.config import PanelSettings
from webpanel.db import get_db
from webpanel.errors import ApiError, bad_field, define_code
from webpanel.guesses import Attempt, GuessLimiter, GuessPolicy, TooManyGuesses

MIN_PIN_LENGTH = 6
MAX_PIN_LENGTH = 64
SESSION_KEY = "staff_session"
DEVICE_COOKIE = "hts_staff_device"
DEVICE_DAYS = 365
PIN_CHECKS_AT_ONCE = 2
"""scrypt runs at a time (the Pi has four cores; the pages keep the others)."""
PIN_QUEUE_SECONDS = 5.0
"""How long a login waits for a free check before it is told to retry (503)."""
MAX_SCRYPT_BYTES = 64 * 1024 * 1024
"""The most memory one stored hash may make a check use (128 * n * r * p bytes; the PIN's own
hash takes 32 MiB). A hash asking more is refused: a bad edit must not let a login exhaust the Pi."""
MAX_PBKDF2_ITERATIONS = 2_000_000

STAFF_ONLY = define_code("staff_only", "Staff only: log in with the staff PIN first.")
WRONG_PIN = define_code("wrong_pin", "The PIN is wrong.")
TOO_MANY_WRONG_PINS = define_code(
    "too_many_wrong_pins", "Too many wrong PINs from this address or device: wait params.retry_after seconds."
)
NO_PIN_SET = define_code(
    "no_pin_set", "No staff PIN is set: run `hautetension staff set-pin` on the controller."
)
PIN_HASH_DAMAGED = define_code(
    "pin_hash_damaged", "The stored staff PIN hash cannot be used: set the PIN again."
)
PIN_CHECK_BUSY = define_code("pin_check_busy", "The panel is busy checking other PINs: retry in a moment.")

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


# -- guessing --------------------------------------------------------------------


def make_limiter(settings: PanelSettings) -> GuessLimiter:
    """The staff login's limits: ``login_attempts`` per address and device, four times that per block."""
    policy = GuessPolicy(
        free=settings.login_attempts,
        window=settings.login_window_seconds,
        max_delay=settings.login_max_delay_seconds,
    )
    block = GuessPolicy(
        free=4 * settings.login_attempts,
        window=settings.login_window_seconds,
        max_delay=settings.login_max_delay_seconds,
    )
    return GuessLimiter(address=policy, block=block, device=policy)


def limiter() -> GuessLimiter:
    value: GuessLimiter = current_app.extensions["staff_limiter"]
    return value


def _device_signature(device_id: str) -> str:
    key = current_app.secret_key
    key_bytes = key if isinstance(key, bytes) else str(key or "").encode()
    message = b"hautetension-staff-device:" + device_id.encode("utf-8", "surrogatepass")
    return hmac.new(key_bytes, message, hashlib.sha256).hexdigest()


def known_device() -> str | None:
    """The id of this staff device, if its device cookie is one this panel signed."""
    device_id, _, signature = (request.cookies.get(DEVICE_COOKIE) or "").partition(".")
    if not device_id or not signature:
        return None
    expected = _device_signature(device_id)
    if not hmac.compare_digest(signature.encode("utf-8", "surrogatepass"), expected.encode()):
        return None
    return device_id


def remember_device(response: Response) -> None:
    """Give this device (it just logged in) its device cookie, if it has none yet."""
    if known_device() is not None:
        return
    settings: PanelSettings = current_app.config["PANEL"]
    device_id = secrets.token_urlsafe(16)
    response.set_cookie(
        DEVICE_COOKIE,
        f"{device_id}.{_device_signature(device_id)}",
        max_age=DEVICE_DAYS * 86400,
        path="/api/staff/login",  # sent with login attempts only
        httponly=True,
        samesite="Strict",
        secure=settings.secure_cookies,
    )


class PinChecker:
    """At most :data:`PIN_CHECKS_AT_ONCE` PIN checks at a time, each of bounded cost."""

    def __init__(self, slots: int = PIN_CHECKS_AT_ONCE) -> None:
        self._slots = threading.BoundedSemaphore(slots)

    def check(self, stored: str, pin: str) -> bool:
        if not affordable(stored):
            raise _damaged()
        if not self._slots.acquire(timeout=PIN_QUEUE_SECONDS):
            raise ApiError(
                503, "the panel is busy checking PINs: retry in a moment", code=PIN_CHECK_BUSY,
                headers={"Retry-After": "1"},
            )
        try:
            return check_password_hash(stored, pin)
        except (ValueError, TypeError):
            raise _damaged() from None
        finally:
            self._slots.release()


def _damaged() -> ApiError:
    return ApiError(500, "the stored staff PIN hash is damaged: set the PIN again", code=PIN_HASH_DAMAGED)


_SCRYPT = re.compile(r"scrypt:([0-9]{1,9}):([0-9]{1,4}):([0-9]{1,4})\$")
_PBKDF2 = re.compile(r"pbkdf2:[a-z0-9]+:([0-9]{1,9})\$")


def affordable(stored: str) -> bool:
    """Whether checking a PIN against *stored* costs at most :data:`MAX_SCRYPT_BYTES` of memory (scrypt)
    or :data:`MAX_PBKDF2_ITERATIONS` rounds (pbkdf2); anything else is not a hash this panel makes."""
    if m := _SCRYPT.match(stored):
        n, r, p = (int(x) for x in m.groups())
        return 128 * n * r * p <= MAX_SCRYPT_BYTES
    if m := _PBKDF2.match(stored):
        return int(m.group(1)) <= MAX_PBKDF2_ITERATIONS
    return False


# -- the session ------------------------------------------------------------


def _sessions() -> StaffSessions:
    return StaffSessions(get_db())


def log_in(pin: Any) -> None:
    """Check *pin* and open a staff session, or raise the :class:`ApiError` to answer.

    The try is counted first (a 429 if this address or device must wait), then
    checked; the right PIN is forgiven.
    """
    if not isinstance(pin, str) or not pin:
        raise bad_field("pin", "pin must be a non-empty string")
    client = request.remote_addr or "unknown"
    try:
        attempt = limiter().attempt(client, device=known_device())
    except TooManyGuesses as exc:
        raise ApiError(
            429,
            f"too many wrong PINs: try again in {exc.retry_after} s",
            code=TOO_MANY_WRONG_PINS,
            headers={"Retry-After": str(exc.retry_after)},
            params={"retry_after": exc.retry_after},
        ) from None
    generation = _sessions().generation()  # before the hash: a PIN changed meanwhile ends this session
    if not _pin_matches(pin, attempt):
        raise ApiError(401, "wrong PIN", code=WRONG_PIN)
    limiter().forgive(attempt)
    settings: PanelSettings = current_app.config["PANEL"]
    # Stored first: a database that cannot take it (its disk full) leaves the page's session as it was,
    # its CSRF token still good for the retry.
    opened = _sessions().open(hours=settings.session_hours, generation=generation)
    session.clear()  # a fresh session on login: no fixation of a pre-login cookie
    session.permanent = True
    session[SESSION_KEY] = opened
    g.is_staff = True


def _pin_matches(pin: str, attempt: Attempt) -> bool:
    """Check the PIN; a refusal that is no answer (no PIN set, busy, damaged hash) does not count."""
    try:
        stored = current_pin_hash()
        if not stored:
            raise ApiError(
                403, "no staff PIN is set: run `hautetension staff set-pin` on the controller",
                code=NO_PIN_SET,
            )
        checker: PinChecker = current_app.extensions["staff_pin_checker"]
        return checker.check(stored, pin)
    except ApiError:
        limiter().forgive(attempt)
        raise


def log_out(*, everywhere: bool = False) -> None:
    """End this staff session (every copy of its cookie), or with *everywhere* every staff session."""
    session_id = session.pop(SESSION_KEY, None)
    if everywhere:
        _sessions().end_all()
    elif isinstance(session_id, str):
        _sessions().end(session_id)
    g.is_staff = False


def is_staff() -> bool:
    """Whether this request comes from a live staff session (asked of the database once per request)."""
    if "is_staff" not in g:
        session_id = session.get(SESSION_KEY)
        g.is_staff = isinstance(session_id, str) and _sessions().is_live(session_id)
    return bool(g.is_staff)


def staff_required(view: F) -> F:
    """Let only staff through: 401 JSON under ``/api/``, a redirect to the login page elsewhere."""

    @functools.wraps(view)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        if is_staff():
            return view(*args, **kwargs)
        if request.path.startswith("/api/"):
            raise ApiError(401, "staff only: log in with the staff PIN", code=STAFF_ONLY)
        return redirect(url_for("staff.login_page", next=request.path))

    guarded._staff_only = True  # type: ignore[attr-defined]  # read by the OpenAPI document
    return guarded  # type: ignore[return-value]


def actor() -> str:
    """Who did a staff action, as the audit trails keep it: ``staff@<address>`` (the pages say "staff at
    <address>")."""
    return f"staff@{request.remote_addr or 'unknown'}"
