"""JSON errors for the API and the request-body checks every route shares.

Under ``/api/`` every error, whatever raised it (a route, Flask's routing, a
body too large, a bug), is answered as ``{"error": "<what is wrong>"}`` with
the right status, so a client always gets a sentence it can show.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from flask import Flask, Response, jsonify, request
from werkzeug.exceptions import HTTPException

log = logging.getLogger(__name__)


class ApiError(Exception):
    """An error a route answers with *status* and a readable *message* (English, for programs),
    and a stable *code* that pages translate (docs/webpanel.md, "API errors")."""

    def __init__(self, status: int, message: str, *, code: str | None = None,
                 headers: Mapping[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.code = code
        self.headers = dict(headers or {})


def error_response(status: int, message: str, headers: Mapping[str, str] | None = None,
                   code: str | None = None) -> Response:
    response = jsonify({"error": message} if code is None else {"error": message, "code": code})
    response.status_code = status
    response.headers["Cache-Control"] = "no-store"
    for name, value in (headers or {}).items():
        response.headers[name] = value
    return response


def _is_api() -> bool:
    return request.path == "/api" or request.path.startswith("/api/")


def init_app(app: Flask) -> None:
    @app.errorhandler(ApiError)
    def _api_error(exc: ApiError) -> Response:
        return error_response(exc.status, exc.message, exc.headers, exc.code)

    @app.errorhandler(HTTPException)
    def _http_error(exc: HTTPException) -> Any:
        if not _is_api():
            return exc
        messages = {
            404: f"no such resource: {request.path}",
            405: f"{request.method} is not allowed on {request.path}",
            413: "the request body is too large",
        }
        message = messages.get(exc.code or 500, exc.description or exc.name)
        headers = {}
        if exc.code == 405 and exc.response is None:
            allowed = getattr(exc, "valid_methods", None)
            if allowed:
                headers["Allow"] = ", ".join(allowed)
        return error_response(exc.code or 500, message, headers)

    @app.errorhandler(Exception)
    def _unexpected(exc: Exception) -> Any:
        log.exception("unexpected error on %s %s", request.method, request.path)
        if _is_api():
            return error_response(500, "internal error (see the panel's log)")
        return "Internal error (see the panel's log)", 500


def json_object(*, allowed: set[str] | None = None, required: set[str] | None = None) -> dict[str, Any]:
    """The request body as a JSON object, or an :class:`ApiError` saying what is wrong with it."""
    if not request.is_json:
        raise ApiError(415, "send the body as JSON (Content-Type: application/json)")
    body = request.get_json(silent=True)
    if body is None:
        raise ApiError(400, "the body is not valid JSON")
    if not isinstance(body, dict):
        raise ApiError(400, "the body must be a JSON object")
    if allowed is not None:
        unknown = sorted(set(body) - allowed)
        if unknown:
            raise ApiError(400, f"unknown field(s): {', '.join(unknown)}")
    missing = sorted((required or set()) - set(body))
    if missing:
        raise ApiError(400, f"missing field(s): {', '.join(missing)}")
    return body


def require_bool(body: Mapping[str, Any], name: str) -> bool:
    value = body.get(name)
    if not isinstance(value, bool):
        raise ApiError(400, f"{name} must be true or false")
    return value


def require_int(value: Any, name: str, *, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ApiError(400, f"{name} must be a whole number from {low} to {high}")
    return value
