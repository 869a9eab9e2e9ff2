"""A status's slot health findings, read within their bounds (protocol/health.py)."""

from __future__ import annotations

from typing import Any

import pytest

from protocol import MessageError, dumps, parse_status
from protocol.health import MAX_FINDINGS, MAX_N, NO_CONDUCTION, Finding, parse_findings

GOOD = {"part": "c4", "kind": NO_CONDUCTION, "n": 12}


def status(slots: Any) -> bytes:
    return dumps({"online": True, "health": {"ok": True, "faults": [], "slots": slots}})


def test_findings_are_read() -> None:
    assert parse_findings([GOOD, {"part": "ref 3.15", "kind": "reference", "n": 1}]) == [
        Finding("c4", NO_CONDUCTION, 12), Finding("ref 3.15", "reference", 1)]
    assert parse_findings(None) == []
    assert parse_status(status([GOOD])).status["health"]["slots"] == [GOOD]


@pytest.mark.parametrize(
    ("slots", "why"),
    [
        ([GOOD] * (MAX_FINDINGS + 1), "at most 32 findings"),
        ({"c4": GOOD}, "at most 32 findings"),
        ([{**GOOD, "part": "x" * 17}], "a part is 1 to 16"),
        ([{**GOOD, "part": "<script>"}], "a part is 1 to 16"),
        ([{**GOOD, "kind": "conducts"}], "kind is one of"),
        ([{**GOOD, "n": MAX_N + 1}], "n is a whole number"),
        ([{**GOOD, "n": -1}], "n is a whole number"),
        ([{**GOOD, "n": True}], "n is a whole number"),
        ([{**GOOD, "n": 1.5}], "n is a whole number"),
        ([{**GOOD, "extra": 1}], "a finding is {part, kind, n}"),
        (["c4"], "a finding is {part, kind, n}"),
    ],
)
def test_a_status_with_findings_out_of_bounds_is_refused(slots: Any, why: str) -> None:
    with pytest.raises(MessageError, match=why):
        parse_status(status(slots))
