"""Digital games that play tournament tables: the link, the migration, and entering the points once."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from games.frame import game_class
from store.db import MIGRATIONS, apply_migrations, connect, schema_version
from store.dialect import statements
from store.games import GameStore, SeatSpec
from store.tournament_tables import TournamentTables
from store.tournaments import Tournaments


@pytest.fixture
def conn(tmp_path: Path) -> sqlite3.Connection:
    return connect(tmp_path / "board.db")


def a_table(conn: sqlite3.Connection) -> tuple[int, int, list[str]]:
    """A tournament with round 1 made: its id, the first table and the table's players in seat order."""
    store = Tournaments(conn)
    tid = store.create("Club night", seed=7).id
    for name in ("Ana", "Ben", "Cleo", "Dan"):
        store.record(tid, lambda t, n=name: t.register(n), actor="test")
    store.record(tid, lambda t: t.next_round(), actor="test")
    tournament = store.load(tid)
    table = tournament.round(1).tables[0]
    return tid, table.number, [tournament.names[p] for p in table.seats]


def a_game(conn: sqlite3.Connection, names: list[str], *, finished: bool) -> int:
    game = game_class("hautetension").new(names, options={"first": 0})
    record, _host = GameStore(conn).create(game, [SeatSpec(kind="human", name=n) for n in names],
                                           hot_seat=False)
    while finished and not game.is_over():  # attack pawns in reading order until the lamps decide
        game.push(next(m for m in game.legal_moves() if m["pawn"] == "attack"))
    return GameStore(conn).save(record.id, game, expected_version=record.version).id


def test_the_table_comes_from_a_migration_like_every_other(conn: sqlite3.Connection) -> None:
    assert schema_version(conn) == len(MIGRATIONS)
    columns = [row[1] for row in conn.execute("PRAGMA table_info(digital_tournament_tables)")]
    assert columns == ["game_id", "tournament_id", "round", "table_number", "created_at", "entered_at",
                       "refused"]


def test_a_database_whose_panel_made_the_table_itself_keeps_its_links(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    old = sqlite3.connect(path, isolation_level=None)
    apply_migrations(old, MIGRATIONS[:3], versions=None)
    # As a panel before version 4 left it: the table made by hand, without the index.
    old.execute(next(statements(MIGRATIONS[3])).replace("IF NOT EXISTS ", ""))
    old.execute("INSERT INTO digital_tournament_tables VALUES (5, 1, 1, 2, 10.0, NULL, NULL)")
    old.close()
    again = connect(path)
    assert schema_version(again) == len(MIGRATIONS)
    link = TournamentTables(again).get(5)
    assert link is not None
    assert (link.tournament_id, link.round, link.table, link.is_pending) == (1, 1, 2, True)


def test_link_get_and_the_running_game_of_a_table(conn: sqlite3.Connection) -> None:
    tid, table, names = a_table(conn)
    tables = TournamentTables(conn)
    gid = a_game(conn, names, finished=False)
    assert tables.get(gid) is None and not tables.is_pending(gid)
    assert tables.running_game(tid, 1, table) is None
    link = tables.link(gid, tid, 1, table)
    assert tables.get(gid) == link and link.is_pending and tables.is_pending(gid)
    assert tables.running_game(tid, 1, table) == gid
    assert tables.running_game(tid, 2, table) is None


def test_a_finished_game_enters_its_points_once(conn: sqlite3.Connection) -> None:
    tid, table, names = a_table(conn)
    tables = TournamentTables(conn)
    running = a_game(conn, names, finished=False)
    tables.link(running, tid, 1, table)
    tables.enter_result(running)  # not over yet: nothing entered
    assert Tournaments(conn).load(tid).result(1, table) is None and tables.is_pending(running)
    gid = a_game(conn, names, finished=True)
    tables.link(gid, tid, 1, table)
    tables.enter_result(gid)
    tables.enter_result(gid)  # a second look at the end changes nothing
    result = Tournaments(conn).load(tid).result(1, table)
    assert result is not None and result.source == {"kind": "digital", "game_id": gid, "seats": "order"}
    game = GameStore(conn).get(gid).load()
    assert list(result.points) == [int(p) for p in game.game.points()]  # type: ignore[attr-defined]
    link = tables.get(gid)
    assert link is not None and link.entered_at is not None and link.refused is None
    assert [e.kind for e in Tournaments(conn).audit(tid)].count("result") == 1  # entered once


def test_a_table_with_a_result_already_keeps_it_and_the_refusal_is_kept(conn: sqlite3.Connection) -> None:
    tid, table, names = a_table(conn)
    store = Tournaments(conn)
    store.record(tid, lambda t: t.import_result(1, table, [4] * len(names), source={"kind": "hand"}),
                 actor="staff")
    gid = a_game(conn, names, finished=True)
    tables = TournamentTables(conn)
    tables.link(gid, tid, 1, table)
    tables.enter_result(gid)
    link = tables.get(gid)
    assert link is not None and link.entered_at is None and link.refused and not link.is_pending
    result = store.load(tid).result(1, table)
    assert result is not None and result.source == {"kind": "hand"}


def test_an_unknown_game_enters_nothing(conn: sqlite3.Connection) -> None:
    tables = TournamentTables(conn)
    tables.enter_result(99)
    assert tables.get(99) is None
