"""The OpenAPI document at ``/api/openapi.json``, assembled from every area.

Each blueprint module describes its own paths when it is imported::

    from webpanel import openapi
    openapi.add_paths({"/api/things": {"get": {...}}})
    openapi.add_schemas({"Thing": {...}})
"""

from __future__ import annotations

import copy
import functools
import re
import sys
from collections.abc import Callable, Mapping
from typing import Any

from flask import Blueprint, Flask, Response, current_app, jsonify

from webpanel.errors import CODES

bp = Blueprint("openapi", __name__)

_paths: dict[str, dict[str, Any]] = {}
_schemas: dict[str, Any] = {}


def error_schema() -> dict[str, Any]:
    """Every error's body: the sentence, its stable code (each code and its meaning listed), params."""
    return {
        "type": "object",
        "required": ["error", "code"],
        "additionalProperties": False,
        "properties": {
            "error": {"type": "string", "description": "What is wrong, in an English sentence (programs)."},
            "code": {
                "enum": sorted(CODES),
                "description": "What is wrong, as a stable name a page translates:\n"
                + "\n".join(f"* `{name}`: {meaning}" for name, meaning in sorted(CODES.items())),
            },
            "params": {
                "type": "object",
                "description": "The values the sentence quotes that a translation needs "
                "(retry_after, field, fields, name).",
            },
        },
    }


def add_paths(paths: Mapping[str, Mapping[str, Any]]) -> None:
    """Describe some paths (merged per path: several modules may add methods to one path)."""
    for path, operations in paths.items():
        _paths.setdefault(path, {}).update(copy.deepcopy(dict(operations)))


def add_schemas(schemas: Mapping[str, Any]) -> None:
    _schemas.update(copy.deepcopy(dict(schemas)))


def add_schema_factory(name: str, make: Callable[[], Mapping[str, Any]]) -> None:
    """A schema built when the document is served (from what is registered by then: the games)."""
    _factories[name] = make


_factories: dict[str, Callable[[], Mapping[str, Any]]] = {}


def sse_events(*names: str) -> dict[str, Any]:
    """One event of a Server-Sent Events stream: its name (one of *names*), its JSON data, its id."""
    return {
        "type": "object",
        "required": ["event", "data"],
        "properties": {
            "event": {"enum": list(names)},
            "data": {"type": "string", "contentMediaType": "application/json"},
            "id": {"type": "string", "pattern": "^[0-9]+$"},
            "retry": {"type": "integer", "minimum": 0},
        },
    }


# -- text as the server reads it ---------------------------------------------------------------------
# Patterns spell out the server's own character tests (str.isspace, str.isprintable) as classes of
# literal characters built from this interpreter's Unicode tables: a shorthand such as \s means
# other characters to Python, to ECMAScript and to a Rust validator.


EVERY_CHARACTER = ((0, sys.maxunicode),)


@functools.cache
def _character_class(
    test: Callable[[str], bool], blocks: tuple[tuple[int, int], ...] = EVERY_CHARACTER
) -> str:
    """The characters of *blocks* that pass *test*, as the inside of a regex class of literal ranges."""
    ranges: list[tuple[int, int]] = []
    for code in (code for low, high in blocks for code in range(low, high + 1)):
        if test(chr(code)):
            if ranges and ranges[-1][1] == code - 1:
                ranges[-1] = (ranges[-1][0], code)
            else:
                ranges.append((code, code))
    parts = []
    for low, high in ranges:
        for end in {low, high}:
            if chr(end) in "\\]^-[":
                raise ValueError(f"U+{end:04X} cannot end a range of a character class")
        parts.append(chr(low) if low == high else f"{chr(low)}-{chr(high)}")
    return "".join(parts)


def _is_space(ch: str) -> bool:
    return ch.isspace()


def _is_visible(ch: str) -> bool:
    return ch.isprintable() and not ch.isspace() and not 0xD800 <= ord(ch) <= 0xDFFF


def text_with_content(max_length: int) -> dict[str, Any]:
    """A string of at most *max_length* characters that ``strip()`` leaves something of."""
    return {"type": "string", "maxLength": max_length, "pattern": f"[^{_character_class(_is_space)}]"}


NAME_BLOCKS = ((0x21, 0x52F), (0x3040, 0x30FF), (0x4E00, 0x9FFF), (0xAC00, 0xD7A3))
"""Where a player's name for the board takes its characters: Latin, Greek and Cyrillic letters,
digits, punctuation and symbols, kana, CJK ideographs, Hangul (their printable ones). A class of
every printable character would be 700 ranges long, too slow for a fuzzer to draw from."""
LABEL_BLOCKS = (*NAME_BLOCKS, (0x2010, 0x205E))
"""A label's characters (a board's label, a season event's name and place): a player's name's
(:data:`NAME_BLOCKS`) and the general punctuation (dashes, quotes, bullets: "Table 2 — by the window")."""


def name_pattern(max_length: int, blocks: tuple[tuple[int, int], ...] = NAME_BLOCKS) -> str:
    """1 to *max_length* characters of *blocks* (spaces inside) once the spaces around are
    stripped; every one of them printable (``str.isprintable``)."""
    visible = f"[{_character_class(_is_visible, blocks)}]"
    inner = f"[{_character_class(_is_visible, blocks)} ]"
    return f"^ *{visible}(?:{inner}{{0,{max_length - 2}}}{visible})? *$"


def printable_name(max_length: int, blocks: tuple[tuple[int, int], ...] = NAME_BLOCKS) -> dict[str, Any]:
    """The schema of :func:`name_pattern`."""
    return {"type": "string", "pattern": name_pattern(max_length, blocks)}


def matches_name(text: str, max_length: int, blocks: tuple[tuple[int, int], ...] = NAME_BLOCKS) -> bool:
    """Whether *text* is a name :func:`name_pattern` takes (the server's check of what it documents)."""
    return _name_regex(max_length, blocks).fullmatch(text) is not None


@functools.cache
def _name_regex(max_length: int, blocks: tuple[tuple[int, int], ...]) -> re.Pattern[str]:
    return re.compile(name_pattern(max_length, blocks)[1:-1])


def error(description: str) -> dict[str, Any]:
    """A response entry for an error status."""
    return {
        "description": description,
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
    }


def json_response(description: str, schema: Mapping[str, Any] | None = None) -> dict[str, Any]:
    return {
        "description": description,
        "content": {"application/json": {"schema": dict(schema or {"type": "object"})}},
    }


def json_body(schema: Mapping[str, Any]) -> dict[str, Any]:
    return {"required": True, "content": {"application/json": {"schema": dict(schema)}}}


CSRF_PARAMETER = {
    "name": "X-CSRF-Token",
    "in": "header",
    "required": True,
    "description": "The session's CSRF token (GET /api/session).",
    "schema": {"type": "string"},
}


SECURITY_SCHEMES = {
    "session": {
        "type": "apiKey",
        "in": "cookie",
        "name": "hautetension_session",
        "description": "The panel's signed session cookie (any GET starts one; logging in makes it staff).",
    },
    "csrf": {
        "type": "apiKey",
        "in": "header",
        "name": "X-CSRF-Token",
        "description": "The session's CSRF token (GET /api/session gives it); required on every "
        "state-changing request.",
    },
}
STATE_CHANGING = frozenset({"post", "put", "patch", "delete"})


def document(app: Flask | None = None) -> dict[str, Any]:
    """The whole document; with *app* (the current one by default), that app's: the operations it
    routes (a board's panel has the event's table, the event server the event's API), completed
    from its routes."""
    paths = {path: copy.deepcopy(ops) for path, ops in sorted(_paths.items())}
    app = app if app is not None else _current_app()
    if app is not None:
        paths = _routed(paths, app)
        _complete(paths, app)
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Haute-Tension panel API",
            "version": "1",
            "description": (
                "The JSON API the panel's pages use. State-changing requests need the session's "
                "CSRF token in X-CSRF-Token. Errors are "
                '{"error": "<an English sentence>", "code": "<a stable name>"} (see Error). '
                "Nothing here reveals which pawns conduct during a game."
            ),
        },
        "paths": paths,
        "components": {
            "schemas": {
                "Error": error_schema(),
                **copy.deepcopy(_schemas),
                **{name: dict(make()) for name, make in _factories.items()},
            },
            "securitySchemes": copy.deepcopy(SECURITY_SCHEMES),
        },
    }


def _current_app() -> Flask | None:
    try:
        return current_app._get_current_object()  # type: ignore[attr-defined,no-any-return]
    except RuntimeError:  # no app context: the bare registry
        return None


def _routed(paths: dict[str, dict[str, Any]], app: Flask) -> dict[str, dict[str, Any]]:
    """The operations of *paths* that *app* has a route for (the registry holds every role's)."""
    routed = {
        (_RULE_ARGUMENT.sub(r"{\1}", rule.rule), method.lower())
        for rule in app.url_map.iter_rules()
        for method in rule.methods or set()
    }
    kept = {path: {m: op for m, op in ops.items() if (path, m) in routed} for path, ops in paths.items()}
    return {path: ops for path, ops in kept.items() if ops}


def _complete(paths: dict[str, dict[str, Any]], app: Flask) -> None:
    """Add what the app's routes say of each operation: CSRF, staff, body and id refusals."""
    for rule in app.url_map.iter_rules():
        path = _RULE_ARGUMENT.sub(r"{\1}", rule.rule)
        view = app.view_functions.get(rule.endpoint)
        for method in (rule.methods or set()) - {"HEAD", "OPTIONS"}:
            operation = paths.get(path, {}).get(method.lower())
            if operation is None or view is None:
                continue  # not documented: test_api_board fails on it
            _complete_operation(operation, method.lower(), view, has_id="<id:" in rule.rule)


_RULE_ARGUMENT = re.compile(r"<(?:\w+:)?(\w+)>")


def _complete_operation(operation: dict[str, Any], method: str, view: Any, *, has_id: bool) -> None:
    responses: dict[str, Any] = operation.setdefault("responses", {})
    operation["parameters"] = [p for p in operation.get("parameters", []) if p != CSRF_PARAMETER]
    if not operation["parameters"]:
        del operation["parameters"]
    staff = bool(getattr(view, "_staff_only", False))
    needs_csrf = method in STATE_CHANGING and not getattr(view, "_csrf_exempt", False)
    requirement: dict[str, list[str]] = {}
    if staff or needs_csrf:
        requirement["session"] = []
    if needs_csrf:
        requirement["csrf"] = []
    if requirement:
        operation["security"] = [requirement]
    if needs_csrf:
        responses.setdefault("403", error("Missing or wrong CSRF token (csrf_failed)"))
    if staff:
        responses.setdefault("401", error("Not logged in as staff (staff_only)"))
    if "requestBody" in operation:
        responses.setdefault("400", error("The body is not JSON, too deep, or a field is refused (see code)"))
        responses.setdefault("413", error("The body is larger than the panel takes"))
        responses.setdefault("415", error("The body is not sent as JSON"))
    if has_id:
        responses.setdefault("404", error("No such resource (not an id, or nothing has this id)"))


@bp.get("/api/openapi.json")
def openapi_json() -> Response:
    return jsonify(document())


add_paths(
    {
        "/api/openapi.json": {
            "get": {
                "summary": "This document",
                "responses": {"200": json_response("The OpenAPI document")},
            },
        },
    }
)
