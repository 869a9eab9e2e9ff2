"""The rating's operations fuzzed on the event server with every check: the rating, a table's chances
(its player list, as the handicap's) and a round's chances (its path's ids)."""

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

rating_schema = schemathesis.pytest.from_fixture("event_api_schema").include(
    path_regex="^/api/ranking/(rating|chances|tournaments/{tid}/rounds/{number}/chances)$"
)


@pytest.mark.timeout(RUN_SECONDS)
@rating_schema.parametrize()
@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
def test_the_rating_and_a_tables_chances_keep_their_document(case: Any) -> None:
    case.call_and_validate()
