"""The OpenAPI document says, for every operation, every status it can answer, and every error
carries one of the codes the document lists."""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask

from webpanel import errors
from webpanel.errors import CODES, define_code

STATE_CHANGING = {"post", "put", "patch", "delete"}


@pytest.fixture
def doc(client: Any) -> dict[str, Any]:
    document: dict[str, Any] = client.get("/api/openapi.json").get_json()
    return document


def operations(doc: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [(path, method, op) for path, ops in doc["paths"].items() for method, op in ops.items()]


def test_every_state_changing_operation_needs_the_csrf_token_and_says_403(doc: dict[str, Any]) -> None:
    changing = [(p, m, op) for p, m, op in operations(doc) if m in STATE_CHANGING]
    assert len(changing) >= 14
    for path, method, op in changing:
        assert {"session": [], "csrf": []} in op["security"], (method, path)
        assert "403" in op["responses"], (method, path)
        assert all(p.get("name") != "X-CSRF-Token" for p in op.get("parameters", [])), (method, path)
    assert set(doc["components"]["securitySchemes"]) == {"session", "csrf"}


def test_every_staff_operation_says_401(doc: dict[str, Any], app: Flask) -> None:
    staff_paths = {"/api/staff/health", "/api/staff/slots", "/api/staff/journal", "/api/staff/game",
                   "/api/tournaments/{tid}/undo"}
    seen = {path for path, _method, op in operations(doc) if "401" in op["responses"]}
    assert staff_paths <= seen
    assert "/api/board" not in seen and "/api/games" not in seen


def test_every_body_and_every_id_has_its_refusals(doc: dict[str, Any]) -> None:
    for path, method, op in operations(doc):
        if "requestBody" in op:
            assert {"400", "413", "415"} <= set(op["responses"]), (method, path)
        if "{" in path:
            assert "404" in op["responses"], (method, path)


def test_every_error_answer_is_the_error_schema(doc: dict[str, Any]) -> None:
    for path, method, op in operations(doc):
        for status, response in op["responses"].items():
            if int(status) >= 400:
                schema = response["content"]["application/json"]["schema"]
                assert schema == {"$ref": "#/components/schemas/Error"}, (method, path, status)


def test_the_error_schema_lists_every_code_with_its_meaning(doc: dict[str, Any]) -> None:
    error = doc["components"]["schemas"]["Error"]
    assert error["required"] == ["error", "code"] and error["additionalProperties"] is False
    assert error["properties"]["code"]["enum"] == sorted(CODES)
    for name, meaning in CODES.items():
        assert f"`{name}`: {meaning}" in error["properties"]["code"]["description"]
    assert {"csrf_failed", "staff_only", "wrong_pin", "too_many_wrong_pins", "game_not_found",
            "illegal_move", "not_found", "internal_error"} <= set(CODES)


def test_a_code_is_defined_once_with_one_meaning() -> None:
    assert define_code("not_found", CODES["not_found"]) == "not_found"  # the same again: harmless
    with pytest.raises(ValueError, match="another meaning"):
        define_code("not_found", "something else")
    for bad in ("NotFound", "not-found", "1st", "", "a__b"):
        with pytest.raises(ValueError, match="snake_case"):
            define_code(bad, "x")


@pytest.mark.parametrize(
    ("method", "path", "status", "code"),
    [
        ("get", "/api/nothing-here", 404, "not_found"),
        ("delete", "/api/board", 405, "method_not_allowed"),
        ("post", "/api/staff/login", 403, "csrf_failed"),
        ("get", "/api/staff/health", 401, "staff_only"),
    ],
)
def test_every_kind_of_error_carries_its_code(client: Any, method: str, path: str, status: int,
                                              code: str) -> None:
    response = client.open(path, method=method.upper())
    assert response.status_code == status and response.get_json()["code"] == code
    assert set(response.get_json()) <= {"error", "code", "params"}


def test_a_bug_is_a_500_with_its_code(app: Flask, client: Any, mocker: Any) -> None:
    mocker.patch("webpanel.board.current_board", side_effect=RuntimeError("a bug"))
    response = client.get("/api/board")
    assert response.status_code == 500 and response.get_json() == {
        "error": "internal error (see the panel's log)", "code": errors.INTERNAL_ERROR,
    }


def test_a_body_too_large_is_a_413_with_its_code(api: Any) -> None:
    response = api.post("/api/staff/login", data="x" * 100_000, content_type="application/json")
    assert response.status_code == 413 and response.get_json()["code"] == "body_too_large"
