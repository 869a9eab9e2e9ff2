"""Tournaments in the database: entries, corrections with their audit trail, undo, request ids, board games.

On both engines of the event server (SQLite, PostgreSQL): the tournament store is the same code."""

from __future__ import annotations

import json
import random
import threading
from contextlib import closing

import pytest

from games.hautetension.outcome import Lighting
from store.dialect import Connection
from store.event.db import connect_event
from store.journal import Journal
from store.tournaments import BoardGameError, TournamentNotFoundError, Tournaments, seat_order
from tournaments.exc import ResultError, RoundError, TournamentError
from tournaments.tournament import Tournament


@pytest.fixture()
def conn(event_db: Connection) -> Connection:
    return event_db


@pytest.fixture()
def store(conn: Connection) -> Tournaments:
    return Tournaments(conn)


def _with_players(store: Tournaments, n: int, **options: object) -> int:
    tid = store.create("Open de Lyon", seed=42, **options).id  # type: ignore[arg-type]
    for i in range(n):
        store.record(tid, lambda t, i=i: t.register(f"P{i + 1}"), actor="staff")
    return tid


def test_create_list_and_get(store: Tournaments) -> None:
    a = store.create("  Open   de Lyon ", seed=1, handicap=True)
    b = store.create("Club night")
    assert a.name == "Open de Lyon" and a.settings["handicap"] is True and a.settings["seed"] == "1"
    assert b.settings["seed"].isdigit()
    assert [t.id for t in store.all()] == [b.id, a.id]
    assert store.get(a.id) == a
    with pytest.raises(TournamentNotFoundError):
        store.get(999)
    with pytest.raises(TournamentError, match="needs a name"):
        store.create("   ")
    with pytest.raises(TournamentError, match="handicap step"):
        store.create("x", handicap_step=0)


def test_entries_survive_reopening(db_location: str) -> None:
    with closing(connect_event(db_location)) as conn:
        store = Tournaments(conn)
        tid = _with_players(store, 6)
        store.record(tid, lambda t: t.next_round(), actor="staff")
        store.record(tid, lambda t: t.enter_result(1, 1, [Lighting((0,)), Lighting((1,))]), actor="tablet-1")
    with closing(connect_event(db_location)) as conn:
        again = Tournaments(conn).load(tid)
    assert len(again.names) == 6
    assert again.result(1, 1) is not None and again.result(1, 1).points == (0, 2, 4)  # type: ignore[union-attr]


def test_refused_entry_writes_nothing(store: Tournaments) -> None:
    tid = _with_players(store, 4)
    before = store.audit(tid)
    with pytest.raises(RoundError):
        store.record(tid, lambda t: t.enter_result(1, 1, []), actor="staff")
    with pytest.raises(TournamentError, match="malformed"):
        store.record(tid, lambda t: t.apply({"kind": "result", "round": 1}), actor="staff")
    assert store.audit(tid) == before


def test_correction_keeps_the_previous_value_in_the_audit_trail(store: Tournaments) -> None:
    tid = _with_players(store, 4)
    store.record(tid, lambda t: t.next_round(), actor="staff")
    store.record(
        tid, lambda t: t.enter_result(1, 1, [Lighting((0,)), Lighting((1,)), Lighting((2,))]), actor="tab"
    )
    store.record(tid, lambda t: t.enter_result(1, 1, [Lighting((3,))], correction=True), actor="chief")
    assert store.load(tid).result(1, 1).points == (4, 4, 4, 0)  # type: ignore[union-attr]
    trail = [e for e in store.audit(tid) if e.kind in ("result", "correction")]
    assert [e.kind for e in trail] == ["result", "correction"]
    assert trail[1].actor == "chief"
    assert trail[1].event["previous"]["points"] == [0, 2, 3, 4]


def test_undo_marks_the_last_entry_and_keeps_it(store: Tournaments) -> None:
    tid = _with_players(store, 4)
    store.record(tid, lambda t: t.next_round(), actor="staff")
    entry = store.record(tid, lambda t: t.enter_result(1, 1, [Lighting((0,))]), actor="tab").entry
    undone = store.undo(tid, actor="chief")
    assert undone.id == entry.id and undone.is_undone and undone.undone_by == "chief"
    assert store.load(tid).result(1, 1) is None
    assert store.audit(tid)[-1] == undone  # still there
    store.undo(tid, actor="chief")  # the round
    assert store.load(tid).rounds == []
    for _ in range(4):
        store.undo(tid, actor="chief")
    with pytest.raises(TournamentError, match="nothing to undo"):
        store.undo(tid, actor="chief")
    with pytest.raises(TournamentNotFoundError):
        store.undo(999, actor="chief")


def test_same_request_id_is_recorded_once(store: Tournaments) -> None:
    tid = _with_players(store, 4)
    store.record(tid, lambda t: t.next_round(), actor="staff")
    first = store.record(tid, lambda t: t.enter_result(1, 1, [Lighting((0,))]), actor="tab", request_id="abc")
    again = store.record(tid, lambda t: t.enter_result(1, 1, [Lighting((0,))]), actor="tab", request_id="abc")
    assert not first.duplicate and again.duplicate and again.entry == first.entry
    assert sum(e.kind == "result" for e in store.audit(tid)) == 1


def test_two_tablets_entering_one_table_at_once(event_db: Connection, db_location: str) -> None:
    store = Tournaments(event_db)
    tid = _with_players(store, 4)
    store.record(tid, lambda t: t.next_round(), actor="staff")
    outcomes: list[str] = []

    def enter(name: str) -> None:
        with closing(connect_event(db_location)) as conn:  # each tablet on a connection of its own
            try:
                Tournaments(conn).record(tid, lambda t: t.enter_result(1, 1, [Lighting((0,))]), actor=name)
                outcomes.append("ok")
            except ResultError as exc:
                outcomes.append(str(exc))

    threads = [threading.Thread(target=enter, args=(f"tab-{i}",)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert outcomes.count("ok") == 1
    assert all("correct it instead" in o for o in outcomes if o != "ok")


def test_a_stored_tournament_equals_the_one_played_in_memory(store: Tournaments) -> None:
    rng = random.Random(3)
    memory = Tournament(seed=42)
    tid = store.create("Sim", seed=42).id
    for i in range(11):
        memory.register(f"P{i}")
    for event in memory.events:
        store.record(tid, lambda t, e=event: t.apply(e), actor="x")
    while not memory.is_over():
        event = memory.next_round()
        store.record(tid, lambda t: t.next_round(), actor="x")
        number = event["data"]["round"]
        for table in memory.round(number).tables:
            lightings = [Lighting((s,)) for s in rng.sample(range(len(table.seats)), len(table.seats) - 1)]
            memory.enter_result(number, table.number, lightings)
            store.record(
                tid, lambda t, r=number, n=table.number, x=lightings: t.enter_result(r, n, x), actor="x"
            )
    loaded = store.load(tid)
    assert loaded.events == json.loads(json.dumps(memory.events))
    assert loaded.winner() == memory.winner() is not None


# -- board games ---------------------------------------------------------------------


def _board_game(
    conn: Connection,
    game_id: int,
    players: list[str],
    points: list[int] | None,
    placements: list[tuple[int, list[int]]] = (),
    status: str = "over",
) -> None:  # type: ignore[assignment]
    """Journal entries as the board service writes them (docs/board-service.md)."""
    journal = Journal(conn)
    for move, (player, eliminated) in enumerate(placements, start=1):
        journal.append(
            "placement",
            {
                "game": game_id,
                "slot": "a1",
                "player": player,
                "move": move,
                "lit": [],
                "eliminated": eliminated,
                "to_move": None,
            },
            {"kind": "attack"},
            game_id=game_id,
        )
    public: dict[str, object] = {"game": game_id, "status": status, "players": players, "moves": 40}
    if points is not None:
        public["points"] = points
    journal.append("game-end", public, game_id=game_id)


def test_finished_board_games_are_listed_latest_first(conn: Connection, store: Tournaments) -> None:
    _board_game(conn, 1, ["A", "B"], [4, 0], [(0, [1])])
    _board_game(conn, 2, ["A", "B", "C"], None, status="abandoned")
    _board_game(conn, 3, ["C", "D", "E", "F"], [0, 2, 3, 4], [(1, [0]), (2, [1]), (3, [2])])
    Journal(conn).append("game-end", {"game": 4, "status": "over", "players": "garbage", "points": [1]})
    Journal(conn).append("game-end", {"game": 5, "status": "over", "players": [{"nom": 1}], "points": [4]})
    Journal(conn).append(
        "game-end", {"game": 6, "status": "over", "players": [{"name": "G"}, {"name": "H"}], "points": [4, 0]}
    )
    games = store.finished_board_games()
    assert [g.game_id for g in games] == [6, 3, 1]
    assert games[0].players == ("G", "H") and games[0].lightings is None
    assert games[1].lightings == (Lighting((0,), 1), Lighting((1,), 2), Lighting((2,), 3))
    with pytest.raises(BoardGameError, match="not a finished game"):
        store.board_game(2)
    # A placement entry this program cannot read: the engine's points still stand, without a lamp order.
    Journal(conn).append("placement", {"game": 1, "eliminated": [0]}, game_id=1)
    assert store.board_game(1).points == (4, 0) and store.board_game(1).lightings is None


def test_attach_a_board_game_by_names(conn: Connection, store: Tournaments) -> None:
    tid = _with_players(store, 4)
    store.record(tid, lambda t: t.next_round(), actor="staff")
    table = store.load(tid).round(1).table(1)
    names = [f"P{p}" for p in table.seats]
    board_names = [names[2], names[0], names[3], names[1]]  # they sat in another order
    # Board seat 0 (names[2]) lit first, then board seat 1 (names[0]), then board seat 2 (names[3]).
    _board_game(conn, 7, [n.lower() for n in board_names], [0, 2, 3, 4], [(3, [0]), (3, [1]), (3, [2])])
    recorded = store.attach_board_game(tid, 1, 1, 7, actor="staff")
    result = store.load(tid).result(1, 1)
    assert result is not None
    assert result.points == (2, 4, 0, 3)
    assert result.source["seats"] == "names" and result.source["game_id"] == 7
    assert result.lightings == (Lighting((2,), 1), Lighting((0,), 1), Lighting((3,), 1))
    assert recorded.entry.kind == "result"
    with pytest.raises(ResultError, match="correct it instead"):
        store.attach_board_game(tid, 1, 1, 7, actor="staff")


def test_attach_by_seat_order_and_refusals(conn: Connection, store: Tournaments) -> None:
    tid = _with_players(store, 8)
    store.record(tid, lambda t: t.next_round(), actor="staff")
    _board_game(conn, 1, ["Red", "Blue", "Black", "White"], [4, 0, 2, 3])
    _board_game(conn, 2, ["Red", "Blue"], [4, 0])
    store.attach_board_game(tid, 1, 1, 1, actor="staff")
    result = store.load(tid).result(1, 1)
    assert result is not None and result.points == (4, 0, 2, 3) and result.source["seats"] == "order"
    assert result.lightings is None  # no placements in the journal: the engine's points stand
    with pytest.raises(BoardGameError, match="already the result of round 1 table 1"):
        store.attach_board_game(tid, 1, 2, 1, actor="staff")
    with pytest.raises(BoardGameError, match="had 2 players but the table seats 4"):
        store.attach_board_game(tid, 1, 2, 2, actor="staff")
    with pytest.raises(BoardGameError, match="not a finished game"):
        store.attach_board_game(tid, 1, 2, 99, actor="staff")


def test_seat_order() -> None:
    assert seat_order(["a", "b"], ("B", "A")) == ([1, 0], "names")
    assert seat_order(["a", "b"], ("x", "A")) == ([0, 1], "order")
    assert seat_order(["a", "a2"], ("a", "a")) == ([0, 1], "order")


def test_several_entries_in_one_transaction_each_with_its_outcome(store: Tournaments) -> None:
    tid = _with_players(store, 12)
    store.record(tid, lambda t: t.next_round(), actor="staff")
    order = [Lighting((1,), 0), Lighting((2,), 0), Lighting((3,), 0)]
    outcomes = store.record_each(
        tid,
        [
            (lambda t: t.enter_result(1, 1, order), "board 1", "b1"),
            (lambda t: t.enter_result(1, 1, order), "board 1 again", "b1-twice"),  # the table has its result
            (lambda t: t.enter_result(1, 9, order), "nowhere", None),  # no such table
            (lambda t: t.enter_result(1, 2, order), "board 2", "b2"),
            (lambda t: t.enter_result(1, 1, order), "board 1", "b1"),  # the same request: recorded once
        ],
    )
    first, clash, missing, second, again = outcomes
    assert not isinstance(first, Exception) and not first.duplicate
    assert isinstance(clash, ResultError) and isinstance(missing, RoundError)
    assert not isinstance(second, Exception) and second.entry.actor == "board 2"
    assert not isinstance(again, Exception) and again.duplicate and again.entry.id == first.entry.id
    t = store.load(tid)
    assert t.result(1, 1) is not None and t.result(1, 2) is not None and t.result(1, 3) is None
    assert [e.actor for e in store.audit(tid) if e.kind == "result"] == ["board 1", "board 2"]
