"""The OpenAPI document at ``/api/openapi.json``, assembled from every area.

Each blueprint module describes its own paths when it is imported::

    from webpanel import openapi
    openapi.add_paths({"/api/things": {"get": {...}}})
    openapi.add_schemas({"Thing": {...}})
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from flask import Blueprint, Response, jsonify

bp = Blueprint("openapi", __name__)

_paths: dict[str, dict[str, Any]] = {}
_schemas: dict[str, Any] = {
    "Error": {
        "type": "object",
        "required": ["error"],
        "properties": {
            "error": {"type": "string", "description": "What is wrong, in a sentence (English)."},
            "code": {"type": "string", "description": "A stable name for the error, which pages translate "
                     "(the lobby's: webpanel/lobby/messages.py)."},
        },
    },
}


def add_paths(paths: Mapping[str, Mapping[str, Any]]) -> None:
    """Describe some paths (merged per path: several modules may add methods to one path)."""
    for path, operations in paths.items():
        _paths.setdefault(path, {}).update(copy.deepcopy(dict(operations)))


def add_schemas(schemas: Mapping[str, Any]) -> None:
    _schemas.update(copy.deepcopy(dict(schemas)))


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


def document() -> dict[str, Any]:
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Haute-Tension panel API",
            "version": "1",
            "description": (
                "The JSON API the panel's pages use. State-changing requests need the session's "
                'CSRF token in X-CSRF-Token; errors are {"error": "..."}. Nothing here reveals '
                "which pawns conduct during a game."
            ),
        },
        "paths": {path: copy.deepcopy(ops) for path, ops in sorted(_paths.items())},
        "components": {"schemas": copy.deepcopy(_schemas)},
    }


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
