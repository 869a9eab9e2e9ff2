"""Whatever a board sends, on every topic it may publish, through the real broker: the ingest stays alive,
stores nothing invalid, counts what it refused, and a normal game afterwards is entered (both engines)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from protocol import Leaf, parse_row, row_message
from protocol.limits import MAX_LIVE, MAX_STATUS
from protocol.messages import HISTORY
from protocol.reader import read_object
from store.event.assignments import Assignments
from store.event.boards import Boards
from store.event.quarantine import Quarantine
from store.tournaments import Tournaments
from tests.servers.mosquitto import MosquittoBroker
from tests.store.event.helpers import Reports, a_tournament, table_of
from tests.uplink.helpers import Central, wait_for
from tests.uplink.hostile import Hostile, alive_and_honest, received, stored_rows_are_valid

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.sampled_from([2**63, 2**63 - 1, -(2**63), -(2**63) - 1, 2**53, 2**53 + 1, -1, 0])
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=40)
)
VALUES = st.recursive(
    SCALARS,
    lambda children: st.lists(children, max_size=6)
    | st.dictionaries(st.text(max_size=12), children, max_size=6),
    max_leaves=40,
)
HISTORIES = st.sampled_from(["h1", "h2", "h3"]) | st.text(max_size=70).filter(lambda t: not HISTORY.match(t))
"""Garbage under at most three histories (a board may open a bounded number: the game afterwards opens
one more)."""
KINDS = st.sampled_from(["placement", "game-start", "game-end", "result-confirmed", "lamps", "refused"])
ROWS = st.fixed_dictionaries(
    {
        "seq": st.integers(min_value=0, max_value=40) | VALUES,
        "history": HISTORIES | VALUES,
        "first": st.integers(min_value=0, max_value=3) | VALUES,
        "kind": KINDS | VALUES,
        "game": st.integers(min_value=0, max_value=3) | VALUES,
        "at": st.floats(min_value=0, max_value=2e9) | VALUES,
        "body": st.dictionaries(st.sampled_from(["game", "players", "points", "seats", "status",
                                                 "assignment", "lightings", "by"]), VALUES, max_size=6)
        | VALUES,
    },
)
STATUSES = st.fixed_dictionaries(
    {"online": st.booleans() | VALUES},
    optional={"history": HISTORIES | VALUES, "first": st.integers(0, 3) | VALUES, "game": VALUES,
              "health": VALUES, "layout": VALUES},
)


def encoded(value: Any) -> bytes:
    return json.dumps(value, allow_nan=True).encode()


PAYLOADS = st.one_of(
    st.binary(max_size=600),
    VALUES.map(encoded),
    ROWS.map(encoded),
    STATUSES.map(encoded),
    st.integers(min_value=17, max_value=6000).map(lambda d: ("[" * d + "]" * d).encode()),
    st.integers(min_value=17, max_value=6000).map(lambda d: ('{"a":' * d).encode()),
    # Beyond the reader's bounds, within the broker's packet limit (past it the broker cuts the sender:
    # tests/uplink/test_hostile_board.py).
    st.integers(min_value=30_000, max_value=250_000).map(lambda n: b'{"pad":"' + b"x" * n + b'"}'),
    st.integers(min_value=300, max_value=5000).map(lambda n: b'{"n":' + b"9" * n + b"}"),
)
MESSAGES = st.lists(st.tuples(st.sampled_from([Leaf.STATUS, Leaf.OUTBOX, Leaf.LIVE]), PAYLOADS),
                    min_size=1, max_size=5)


def nothing_invalid_stored(server: Central) -> None:
    stored_rows_are_valid(server.conn)
    for status, live in server.conn.execute("SELECT status, live FROM event_boards"):
        if status is not None:
            read_object(str(status).encode(), limit=MAX_STATUS, what="a stored status")
        if live is not None:
            read_object(str(live).encode(), limit=MAX_LIVE, what="a stored live view")
    for (result,) in server.conn.execute("SELECT result FROM event_games WHERE result IS NOT NULL"):
        json.loads(str(result), parse_constant=lambda c: math.nan)  # JSON, whatever its meaning


def test_garbage_on_every_topic_a_board_publishes(
    server: Central, hostile: Hostile, secured: MosquittoBroker, tmp_path: Path
) -> None:
    assert server.ingest is not None and server.supervisor is not None
    ingest, supervisor = server.ingest, server.supervisor
    refused_before = ingest.quarantined

    @settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(messages=MESSAGES)
    def attack(messages: list[tuple[Leaf, bytes]]) -> None:
        for leaf, payload in messages:
            hostile.send(leaf.value, payload)
        received(server, hostile)
        assert supervisor.alive and supervisor.restarts == 0, supervisor.last_error
        assert ingest.faults == 0 and ingest.unstored == 0, ingest.last_error
        nothing_invalid_stored(server)

    attack()
    assert ingest.quarantined > refused_before
    counted = Quarantine(server.conn).counts().get("board-2", 0)
    assert counted == ingest.quarantined
    alive_and_honest(server, tmp_path, secured)

    # A normal game afterwards, from the board that sent the garbage: entered into its tournament.
    conn = server.conn
    Boards(conn).accept("board-2", "Table 1", actor="test")
    tid = a_tournament(conn, players=4)
    (assignment,) = Assignments(conn).assign_round(tid)
    assert assignment.board == "board-2"
    table = table_of(conn, tid, 1, 1)
    board = Reports("board-2", history="after-the-garbage")
    status = {"online": True, "history": board.history, "first": board.first}
    hostile.send("status", json.dumps(status))
    for row in [*board.game(1, **table, assignment=assignment.id), board.agree(1, [0, 1, 2, 3])]:
        parse_row(row_message(row))
        hostile.send("outbox", row_message(row))
    wait_for(lambda: Tournaments(conn).load(tid).result(1, 1), timeout=30, what="the game entered")
    assert supervisor.alive and supervisor.restarts == 0 and ingest.faults == 0
