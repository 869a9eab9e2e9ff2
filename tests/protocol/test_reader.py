"""The bounded reader: each bound refused with its reason, on every kind of message, without recursion."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

import pytest

from protocol import (
    Ack,
    MessageError,
    ReportedRow,
    compact,
    limits,
    parse_ack,
    parse_assignment,
    parse_live,
    parse_row,
    parse_status,
    row_message,
    stand_in,
)
from protocol.reader import read_object, scan_text

ROW = {"seq": 7, "history": "a1b2c3", "first": 1, "kind": "placement", "game": 2, "at": 1.5, "body": {}}


def row(**change: Any) -> bytes:
    return json.dumps({**ROW, **change}).encode()


def refused(read: Callable[[bytes], Any], payload: bytes, reason: str) -> MessageError:
    with pytest.raises(MessageError) as caught:
        read(payload)
    assert reason in caught.value.reason, caught.value.reason
    return caught.value


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


READERS: list[Callable[[bytes], Any]] = [parse_status, parse_row, parse_live, parse_ack, parse_assignment]


@pytest.mark.parametrize("read", READERS)
def test_nesting_deeper_than_the_bound_is_refused(read: Callable[[bytes], Any]) -> None:
    for payload in (f'{{"a":{nested(limits.MAX_DEPTH)}}}', "[" * 17, '{"a":' * 17):
        refused(read, payload.encode(), "more than 16 deep")


def test_nesting_far_deeper_than_the_stack_never_reaches_the_parser() -> None:
    for depth in (5_000, sys.getrecursionlimit() * 100):
        for payload in (f'{{"a":{nested(depth)}}}', "[" * depth, '{"a":' * depth):
            with pytest.raises(MessageError, match="more than 16 deep"):
                read_object(payload.encode(), limit=10**7, what="x")


def test_depth_is_counted_outside_strings_only() -> None:
    brackets = '"' + "[{" * 500 + '\\"[' + '"'  # brackets (and an escaped quote) inside a string
    assert parse_live(f'{{"a":{brackets},"b":{nested(limits.MAX_DEPTH - 1)}}}'.encode()).view["a"]
    # An escaped backslash: the string ends before the brackets.
    scan_text(('["\\\\",' + nested(15) + "]").encode(), "x")
    with pytest.raises(MessageError, match="more than 16 deep"):
        scan_text(('["\\\\",' + nested(16) + "]").encode(), "x")
    with pytest.raises(MessageError, match="more than 16 deep"):
        scan_text(('["\\"",' + nested(16) + "]").encode(), "x")  # an escaped quote, then the string's end
    with pytest.raises(MessageError):
        scan_text(('["\\",' + nested(16) + "]").encode(), "x")  # a string never closed: never parsed
    with pytest.raises(MessageError, match="x is not JSON"):
        scan_text(b'{"a":[1,2}', "x")
    with pytest.raises(MessageError, match="x is not JSON"):
        read_object(b'{"a":[1,2]} % ', limit=100, what="x")


@pytest.mark.parametrize(
    ("read", "limit"),
    [
        (parse_status, limits.MAX_STATUS),
        (parse_row, limits.MAX_ROW),
        (parse_live, limits.MAX_LIVE),
        (parse_ack, limits.MAX_ACK),
        (parse_assignment, limits.MAX_ASSIGNMENT),
    ],
)
def test_each_kind_has_its_size(read: Callable[[bytes], Any], limit: int) -> None:
    payload = b'{"pad":"' + b"x" * limit + b'"}'
    refused(read, payload, f"more than {limit}")
    refused(read, b" " * (limit + 1), f"more than {limit}")  # before anything is parsed


@pytest.mark.parametrize(
    ("payload", "reason"),
    [
        (b'{"a":9223372036854775808}', "does not fit 64 bits"),
        (b'{"a":-9223372036854775809}', "does not fit 64 bits"),
        (b'{"a":' + b"9" * 5000 + b"}", "a number of more than 40 digits"),  # never handed to int()
        (b'{"a":' + b"9" * 30 + b"}", "does not fit 64 bits"),
        (b'{"a":"' + b"9" * 50 + b'"}', None),  # digits in a string are a string
        (b'{"a":NaN}', "NaN is not a number"),
        (b'{"a":-Infinity}', "-Infinity is not a number"),
        (b'{"a":1e400}', "not finite"),
        (b'{"a":"' + b"x" * (limits.MAX_STRING + 1) + b'"}', "a string of 2049 characters"),
        (b'{"' + b"k" * (limits.MAX_STRING + 1) + b'":1}', "a string of 2049 characters"),
        (b'{"a":"\\ud800"}', "lone surrogate"),
        (b'{"a":[' + b",".join([b"0"] * (limits.MAX_ITEMS + 1)) + b"]}", "an array of more than 4096"),
        (b"\xff\xfe{}", "not UTF-8"),
        (b'{"a":', "is not JSON"),
        (b"[1]", "not a JSON object"),
        (b'"x"', "not a JSON object"),
    ],
)
def test_values_beyond_their_bounds(payload: bytes, reason: str | None) -> None:
    if reason is None:
        assert parse_live(payload).view
    else:
        refused(parse_live, payload, reason)


def test_the_largest_integers_and_finite_numbers_pass() -> None:
    view = parse_live(b'{"a":9223372036854775807,"b":-9223372036854775808,"c":1.5e300}').view
    assert view == {"a": 2**63 - 1, "b": -(2**63), "c": 1.5e300}


def test_a_row_names_its_place_when_it_can() -> None:
    assert parse_row(row()) == ReportedRow(7, "a1b2c3", 1, "placement", 2, 1.5, {})
    placed = refused(parse_row, row(body=[]), "body is an object")
    assert (placed.history, placed.seq, placed.first) == ("a1b2c3", 7, 1)
    big = refused(parse_row, row(body={"moves": ["x" * 2000] * 30}), f"more than {limits.MAX_BODY} bytes")
    assert big.seq == 7
    for change, reason in (
        ({"seq": 2**63}, "from 0 to 2^53, not 9223372036854775808"),
        ({"seq": 2**53 + 1}, "from 0 to 2^53"),
        ({"seq": -1}, "from 0 to 2^53"),
        ({"seq": True}, "from 0 to 2^53"),
        ({"first": 9}, "below the history's first row"),
        ({"history": "a/b"}, "names its history"),
        ({"history": 5}, "names its history"),
    ):
        unplaced = refused(parse_row, row(**change), reason)
        assert unplaced.seq is None
    for change, reason in (
        ({"game": 2**62}, "game is a whole number"),
        ({"game": 2**63}, "the integer 9223372036854775808 does not fit 64 bits"),
        ({"body": {"n": 2**63}}, "the integer 9223372036854775808 does not fit 64 bits"),
        ({"body": {"n": float("nan")}}, "NaN is not a number"),
        ({"body": {"s": "x" * 3000}}, "a string of 3000 characters"),
        ({"game": "2"}, "game is a whole number"),
        ({"at": "now"}, "at is a time"),
        ({"at": -1}, "at is a time"),
        ({"kind": "Game End"}, "kind is a journal kind"),
        ({"kind": None}, "kind is a journal kind"),
    ):
        assert refused(parse_row, row(**change), reason).seq == 7


def test_a_stand_in_is_a_row_like_any_other() -> None:
    standing = stand_in("a1b2c3", 7, 1, "too big " * 100)
    assert parse_row(row_message(standing)) == standing
    assert standing.kind == "refused" and len(standing.body["reason"]) == 200


def test_a_status_and_its_history() -> None:
    assert parse_status(b'{"online":true,"history":"h1","first":3}').status["first"] == 3
    refused(parse_status, b'{"online":true,"history":"h/1"}', "history is 1 to 64")
    refused(parse_status, b'{"online":true,"history":"h1","first":-3}', "from 0 to 2^53")
    refused(parse_status, b'{"online":1}', "online: true or false")


def test_an_ack_names_the_rows_refused() -> None:
    ack = Ack(9, "h1", refused=(4, 7))
    assert parse_ack(ack.payload()) == ack
    assert b"refused" not in Ack(9, "h1").payload()  # as before: the same bytes when none was refused
    refused(parse_ack, b'{"seq":1,"history":"h1","refused":"x"}', "a list of at most 16")
    refused(parse_ack, b'{"seq":1,"history":"h1","refused":[-1]}', "from 0 to 2^53")


def test_an_assignment_or_none() -> None:
    assert parse_assignment(b"") is None and parse_assignment(b"{}") is None
    assert parse_assignment(b'{"assignment":"t1-r1-3"}') == {"assignment": "t1-r1-3"}
    refused(parse_assignment, b'{"assignment":3}', "names its id")


def test_one_writer_of_compact_json_that_never_writes_nan() -> None:
    assert compact({"b": [1, 2], "a": "é"}) == '{"a":"\\u00e9","b":[1,2]}'
    with pytest.raises(ValueError):
        compact({"a": float("nan")})
    assert read_object(compact({"a": 1}).encode(), limit=100, what="x") == {"a": 1}


def test_names_are_bounded_where_a_board_reports_them() -> None:
    long = "N" * (limits.MAX_NAME + 1)
    start = row(kind="game-start", body={"players": [{"name": "Ada"}, {"name": long}]})
    assert refused(parse_row, start, "a name of 81 characters").seq == 7
    refused(parse_row, row(kind="game-end", body={"players": ["Ada", long]}), "a name of 81 characters")
    refused(parse_status, json.dumps({"online": True, "game": {"players": [long]}}).encode(), "a name of 81")
    assert parse_row(row(kind="game-start", body={"players": [{"name": "N" * 80}]})).body["players"]
