"""The wire protocol both ends share: topics, broker addresses, payloads."""

from __future__ import annotations

import json

import pytest

from protocol import (
    OFFLINE,
    Ack,
    BrokerAddress,
    Leaf,
    MessageError,
    check_name,
    dumps,
    event_filter,
    parse_ack,
    parse_row,
    parse_status,
    parse_topic,
    topic,
)


def test_topics_of_a_board_and_their_filter() -> None:
    assert topic("paris-2026", "board-3", Leaf.OUTBOX) == "hautetension/paris-2026/board/board-3/outbox"
    assert parse_topic("hautetension/paris-2026/board/board-3/status") == (
        "paris-2026",
        "board-3",
        Leaf.STATUS,
    )
    assert event_filter("paris-2026") == "hautetension/paris-2026/board/+/+"
    for bad in (
        "hautetension/paris/board/b1",
        "other/paris/board/b1/status",
        "hautetension/paris/board/b1/x",
        "hautetension/PARIS/board/b1/status",
        "hautetension/paris/boards/b1/status",
    ):
        with pytest.raises(MessageError):
            parse_topic(bad)


def test_names_are_short_slugs() -> None:
    assert check_name("board-12", "board id") == "board-12"
    for bad in ("", "Board", "board 1", "b" * 41, "board/1", "board+", "#"):
        with pytest.raises(ValueError, match="1 to 40 characters"):
            check_name(bad, "board id")


@pytest.mark.parametrize(
    ("url", "address"),
    [
        ("mqtt://127.0.0.1:1884", BrokerAddress("127.0.0.1", 1884, False)),
        ("mqtts://events.example.org", BrokerAddress("events.example.org", 8883, True)),
        ("mqtt://broker.local", BrokerAddress("broker.local", 1883, False)),
        ("mqtt://[::1]:1883", BrokerAddress("::1", 1883, False)),
    ],
)
def test_broker_addresses(url: str, address: BrokerAddress) -> None:
    assert BrokerAddress.parse(url) == address
    assert BrokerAddress.parse(address.url) == address


@pytest.mark.parametrize(
    "url", ["http://x:1883", "mqtt://", "mqtt://x:port", "mqtt://u@x:1883", "mqtt://x/t", "x"]
)
def test_a_broker_address_that_is_not_one(url: str) -> None:
    with pytest.raises(ValueError):
        BrokerAddress.parse(url)


def test_payloads_are_the_same_bytes_for_the_same_content() -> None:
    assert dumps({"b": 1, "a": [1, 2]}) == b'{"a":[1,2],"b":1}'
    assert json.loads(OFFLINE) == {"online": False}


def test_an_ack_both_ways() -> None:
    ack = Ack(12, "abc", resend=True)
    assert parse_ack(ack.payload()) == ack
    assert parse_ack(Ack(0, "abc").payload()) == Ack(0, "abc")
    for bad in (b"", b"[]", b'{"seq": -1, "history": "a"}', b'{"seq": true, "history": "a"}', b'{"seq": 1}'):
        with pytest.raises(MessageError):
            parse_ack(bad)


def test_a_row_and_what_is_refused() -> None:
    good = {
        "seq": 3,
        "history": "h",
        "first": 1,
        "kind": "placement",
        "game": 2,
        "at": 1.5,
        "body": {"slot": "a9"},
    }
    row = parse_row(json.dumps(good).encode())
    assert (row.seq, row.first, row.kind, row.game, row.body) == (3, 1, "placement", 2, {"slot": "a9"})
    for change in (
        {"seq": 0},
        {"seq": "3"},
        {"game": True},
        {"at": "now"},
        {"body": []},
        {"kind": None},
        {"history": 5},
    ):
        with pytest.raises(MessageError):
            parse_row(json.dumps({**good, **change}).encode())


def test_a_status_says_whether_the_board_is_online() -> None:
    assert parse_status(b'{"online": false}').status == {"online": False}
    with pytest.raises(MessageError):
        parse_status(b'{"online": "yes"}')
