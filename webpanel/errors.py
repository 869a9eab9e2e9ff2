"""JSON errors for the API, their stable codes, and the request-body checks every route shares.

Under ``/api/`` every error, whatever raised it (a route, Flask's routing, a
body too large, a bug), is answered as ``{"error": "<what is wrong>", "code":
"<its name>"}`` with the right status: ``error`` is an English sentence for
programs and logs, ``code`` a stable name a page translates (and a program
branches on), with the values the sentence quotes in ``params`` when a
translation needs them. Every code is defined once, with its meaning, by
:func:`define_code`; the OpenAPI document lists them all.

Request bodies are read in one place, :func:`read_json`: JSON in UTF-8, at most
:data:`MAX_JSON_DEPTH` deep, finite numbers, valid Unicode strings; anything
else is a 400 that says so, never a 500 further down.
"""

from __future__ import annotations

import json
import logging
import math
import re
from collections.abc import Iterable, Mapping
from typing import Any, NewType

from flask import Flask, Response, g, jsonify, request
from werkzeug.exceptions import HTTPException

log = logging.getLogger(__name__)

ErrorCode = NewType("ErrorCode", str)
"""The stable, machine-readable name of an API error (``snake_case``)."""

CODES: dict[str, str] = {}
"""Every error code the API answers with, and what it means."""

_CODE_NAME = re.compile(r"[a-z][a-z0-9]*(_[a-z0-9]+)*")


def define_code(name: str, meaning: str) -> ErrorCode:
    """Declare the error code *name* (once, with its *meaning*) and return it for :class:`ApiError`."""
    if not _CODE_NAME.fullmatch(name):
        raise ValueError(f"an error code is snake_case, not {name!r}")
    if CODES.get(name, meaning) != meaning:
        raise ValueError(f"the error code {name!r} is already defined with another meaning")
    CODES[name] = meaning
    return ErrorCode(name)


BAD_JSON = define_code("bad_json", "The body is not valid JSON (UTF-8, finite numbers, valid strings).")
JSON_TOO_DEEP = define_code("json_too_deep", "The JSON body nests arrays and objects too deep.")
NOT_JSON = define_code("not_json", "The body must be sent as JSON (Content-Type: application/json).")
NOT_AN_OBJECT = define_code("not_an_object", "The body must be a JSON object.")
UNKNOWN_FIELDS = define_code(
    "unknown_fields", "The body has fields this operation does not take (params.fields)."
)
MISSING_FIELDS = define_code("missing_fields", "The body lacks required fields (params.fields).")
BAD_FIELD = define_code("bad_field", "A field of the body has a value the operation refuses (params.field).")
BAD_QUERY = define_code(
    "bad_query", "A query parameter or header has a value the operation refuses (params.name)."
)
NOT_FOUND = define_code("not_found", "No such resource (path).")
METHOD_NOT_ALLOWED = define_code("method_not_allowed", "This method is not allowed here (see Allow).")
BODY_TOO_LARGE = define_code("body_too_large", "The request body is too large.")
BAD_REQUEST = define_code("bad_request", "The request is malformed (HTTP level).")
HTTP_ERROR = define_code("http_error", "Another HTTP-level refusal (the status says which).")
INTERNAL_ERROR = define_code("internal_error", "A bug in the panel (its log has the details).")

MAX_JSON_DEPTH = 32
"""How deep a request body may nest arrays and objects (the deepest the API takes is 5)."""

_HTTP_CODES = {400: BAD_REQUEST, 404: NOT_FOUND, 405: METHOD_NOT_ALLOWED, 413: BODY_TOO_LARGE}


class ApiError(Exception):
    """An error a route answers with *status*, a readable *message* and its stable *code*.

    *params* are the values the message quotes that a translation needs
    (``{"retry_after": 30}``); *headers* go on the response (``Retry-After``).
    """

    def __init__(
        self,
        status: int,
        message: str,
        *,
        code: ErrorCode,
        headers: Mapping[str, str] | None = None,
        params: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.code = code
        self.headers = dict(headers or {})
        self.params = dict(params or {})


def error_response(
    status: int,
    message: str,
    code: ErrorCode,
    headers: Mapping[str, str] | None = None,
    params: Mapping[str, Any] | None = None,
) -> Response:
    body: dict[str, Any] = {"error": message, "code": code}
    if params:
        body["params"] = dict(params)
    response = jsonify(body)
    response.status_code = status
    response.headers["Cache-Control"] = "no-store"
    for name, value in (headers or {}).items():
        response.headers[name] = value
    return response


def is_api() -> bool:
    return request.path == "/api" or request.path.startswith("/api/")


def unexpected(exc: Exception) -> Any:
    """A bug: logged with its traceback, answered 500."""
    log.exception("unexpected error on %s %s", request.method, request.path, exc_info=exc)
    if is_api():
        return error_response(500, "internal error (see the panel's log)", INTERNAL_ERROR)
    return "Internal error (see the panel's log)", 500


def init_app(app: Flask) -> None:
    @app.errorhandler(ApiError)
    def _api_error(exc: ApiError) -> Response:
        return error_response(exc.status, exc.message, exc.code, exc.headers, exc.params)

    @app.errorhandler(HTTPException)
    def _http_error(exc: HTTPException) -> Any:
        if not is_api():
            return exc
        status = exc.code or 500
        messages = {
            404: f"no such resource: {request.path}",
            405: f"{request.method} is not allowed on {request.path}",
            413: "the request body is too large",
        }
        message = messages.get(status, exc.description or exc.name)
        headers = {}
        if status == 405 and exc.response is None:
            allowed = getattr(exc, "valid_methods", None)
            if allowed:
                headers["Allow"] = ", ".join(allowed)
        return error_response(status, message, _HTTP_CODES.get(status, HTTP_ERROR), headers)

    app.register_error_handler(Exception, unexpected)


# -- request bodies ------------------------------------------------------------------------------


def read_json() -> Any:
    """The request body as JSON, bounded and checked, or the :class:`ApiError` saying what is wrong.

    The one reader of JSON bodies (read once per request): UTF-8 only, no
    ``NaN``/``Infinity`` nor numbers too large for a float, no lone surrogate
    in a string (SQLite could not store it), at most :data:`MAX_JSON_DEPTH`
    levels deep (a deeper body would exhaust the recursion of whatever walks it).
    """
    if "json_body" in g:
        return g.json_body
    if not request.is_json:
        raise ApiError(415, "send the body as JSON (Content-Type: application/json)", code=NOT_JSON)
    raw = request.get_data(cache=True)
    try:
        value = json.loads(raw.decode("utf-8"), parse_constant=_refuse_constant, parse_float=_finite_float)
    except RecursionError:
        raise _too_deep() from None
    except ValueError:  # also UnicodeDecodeError, and an integer of more than 4300 digits
        raise ApiError(400, "the body is not valid JSON", code=BAD_JSON) from None
    _check_value(value)
    g.json_body = value
    return value


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _finite_float(text: str) -> float | int:
    """A JSON number with a fraction or an exponent: a float, or an int when it is whole (JSON
    does not tell 1.0 from 1, nor does JSON Schema: both are an "integer")."""
    number = float(text)
    if not math.isfinite(number):
        raise ValueError(f"{text} is too large")
    return int(number) if number.is_integer() else number


def _too_deep() -> ApiError:
    return ApiError(
        400, f"the body nests arrays and objects more than {MAX_JSON_DEPTH} deep", code=JSON_TOO_DEEP
    )


def _check_value(value: Any) -> None:
    """Depth and strings of a parsed body, walked without recursion."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            _check_text(item)
        elif isinstance(item, list | dict):
            if depth > MAX_JSON_DEPTH:
                raise _too_deep()
            children: Iterable[Any] = item
            if isinstance(item, dict):
                for key in item:
                    _check_text(key)
                children = item.values()
            stack.extend((child, depth + 1) for child in children)


def _check_text(text: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ApiError(
            400, "the body is not valid JSON: a string holds a lone surrogate", code=BAD_JSON
        ) from None


def json_object(*, allowed: set[str] | None = None, required: set[str] | None = None) -> dict[str, Any]:
    """The request body as a JSON object, or an :class:`ApiError` saying what is wrong with it."""
    body = read_json()
    if not isinstance(body, dict):
        raise ApiError(400, "the body must be a JSON object", code=NOT_AN_OBJECT)
    if allowed is not None:
        unknown = sorted(set(body) - allowed)
        if unknown:
            raise ApiError(
                400, f"unknown field(s): {', '.join(unknown)}", code=UNKNOWN_FIELDS,
                params={"fields": unknown},
            )
    missing = sorted((required or set()) - set(body))
    if missing:
        raise ApiError(
            400, f"missing field(s): {', '.join(missing)}", code=MISSING_FIELDS, params={"fields": missing}
        )
    return body


def bad_field(name: str, message: str) -> ApiError:
    """The refusal of the body field *name* (the message says why)."""
    return ApiError(400, message, code=BAD_FIELD, params={"field": name})


def require_bool(body: Mapping[str, Any], name: str) -> bool:
    value = body.get(name)
    if not isinstance(value, bool):
        raise bad_field(name, f"{name} must be true or false")
    return value


def require_int(value: Any, name: str, *, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise bad_field(name, f"{name} must be a whole number from {low} to {high}")
    return value


# -- whole numbers in queries and headers ---------------------------------------------------------

_WHOLE = re.compile(r"[0-9]{1,18}")
"""ASCII digits only (``str.isdigit`` also takes "²", which ``int`` refuses), at most 18 of them:
below SQLite's largest integer (2**63 - 1), so any of them can be looked up."""

MAX_WHOLE = 10**18 - 1


def whole_number(raw: str, name: str, *, low: int = 0, high: int = MAX_WHOLE) -> int:
    """*raw* (a query parameter or header called *name*) as a whole number from *low* to *high*."""
    if not _WHOLE.fullmatch(raw) or not low <= int(raw) <= high:
        raise ApiError(
            400, f"{name} must be a whole number from {low} to {high}", code=BAD_QUERY, params={"name": name}
        )
    return int(raw)


def query_int(name: str, default: int, *, low: int = 0, high: int = MAX_WHOLE) -> int:
    """The query parameter *name* as a whole number (*default* when absent or empty)."""
    raw = request.args.get(name)
    if raw is None or raw == "":
        return default
    return whole_number(raw, name, low=low, high=high)
