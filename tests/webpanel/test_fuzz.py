"""Any body to any state-changing endpoint: never a 500, and a refusal changes nothing."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

ENDPOINTS = [
    "/api/sim/slots/a9",
    "/api/sim/button",
    "/api/staff/lamp-test",
    "/api/staff/self-test",
    "/api/staff/game",
    "/api/staff/game/abandon",
    "/api/staff/login",
]
KEYS = st.sampled_from(
    ["pawn", "held", "on", "players", "first", "seed", "handicap", "name", "colour", "pin"]
)
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from(["attack", "defense", "draw", "red", "N", "a9", ""])
    | st.text(max_size=12)
)
JSON = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=5) | st.dictionaries(KEYS | st.text(max_size=6), inner, max_size=5)
    ),
    max_leaves=12,
)


def _state(staff: Any, service: Any) -> tuple[Any, int]:
    board = staff.get("/api/board").get_json()
    board.pop("service")
    return board, len(service.handled)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(url=st.sampled_from(ENDPOINTS), body=JSON)
def test_any_json_body(staff: Any, service: Any, url: str, body: Any) -> None:
    before = _state(staff, service)
    response = staff.post(url, body if body is not None else {})
    assert response.status_code < 500, (url, body, response.get_data(as_text=True))
    payload = response.get_json()
    assert isinstance(payload, dict)
    if response.status_code >= 400:
        assert isinstance(payload.get("error"), str) and payload["error"]
        assert _state(staff, service) == before


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    url=st.sampled_from(ENDPOINTS),
    raw=st.binary(min_size=1, max_size=64),
    content_type=st.sampled_from(
        [
            "application/json",
            "text/plain",
            "application/x-www-form-urlencoded",
            "application/json; charset=latin-1",
        ]
    ),
)
def test_any_raw_body(staff: Any, service: Any, url: str, raw: bytes, content_type: str) -> None:
    try:
        json.loads(raw)
        return  # valid JSON is the other test's business
    except ValueError:
        pass
    before = _state(staff, service)
    response = staff.post(url, data=raw, content_type=content_type)
    assert 400 <= response.status_code < 500, (url, raw, response.get_data(as_text=True))
    assert response.get_json()["error"]
    assert _state(staff, service) == before
