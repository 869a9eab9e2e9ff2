"""The two operations schemathesis once found answering against their document, fuzzed on the event
server with every check: the handicap's player list and the registry's audit (its Allow header)."""

from __future__ import annotations

from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, settings

from tests.webpanel.test_schemathesis import (  # noqa: F401  (fixtures)
    RUN_SECONDS,
    _node_id_for_schemathesis,
    event_api_schema,
    fuzzed_event_server,
)

registry_schema = schemathesis.pytest.from_fixture("event_api_schema").include(
    path_regex="^/api/(ranking/handicap|players/audit)$"
)


@pytest.mark.timeout(RUN_SECONDS)
@registry_schema.parametrize()
@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
def test_the_handicap_and_the_registry_audit_keep_their_document(case: Any) -> None:
    case.call_and_validate()
