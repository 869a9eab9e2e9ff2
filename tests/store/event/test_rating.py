"""The rating from the event's database: every table's lamp order, computers and unlinked seats left out."""

from __future__ import annotations

from games.hautetension.outcome import Lighting
from store.dialect import Connection
from store.players import Players
from store.ranking import Ranking, TournamentCache
from store.tournaments import Tournaments
from tests.store.event.helpers import play
from tournaments.rating import ranks_of

STAFF = "staff@test"


def registered(conn: Connection, tid: int, names: str) -> list[int]:
    players = Players(conn)
    ids = [players.create(n, actor=STAFF).id for n in names]
    for pid in ids:
        players.enter(tid, pid, actor=STAFF)
    return ids


def test_every_table_is_rated_in_date_order_by_its_lamp_order(conn: Connection) -> None:
    tid = Tournaments(conn).create("Open", seed=1).id
    ids = registered(conn, tid, "ABCDEFG")
    play(conn, tid, seed=2)
    t = Tournaments(conn).load(tid)
    season = Ranking(conn).season()
    ratings = season.ratings
    # One step per game a player played, each at its game's date, and every table's order as entered.
    for pid in ids:
        assert [(s.round, s.table) for s in ratings.steps[pid]] == [
            (g.round, g.table) for g in season.games_of(pid)
        ]
    by_number = {number: ids[number - 1] for number in t.names}
    for game in season.rated:
        result = t.result(game.round, game.table)
        assert result is not None and result.lightings is not None
        assert game.ranks == ranks_of(len(game.players), result.lightings)
        assert game.players == tuple(by_number[p] for p in t.round(game.round).table(game.table).seats)
    assert sorted(line.player for line in ratings.lines) == sorted(ids)
    values = [line.value for line in ratings.lines]
    assert values == sorted(values, reverse=True)


def test_seats_of_computers_and_unlinked_players_are_left_out(conn: Connection) -> None:
    store = Tournaments(conn)
    tid = store.create("Online", seed=3).id
    ids = registered(conn, tid, "ABC")
    store.record(tid, lambda t: t.register("Walk-in"), actor=STAFF)
    store.record(tid, lambda t: t.next_round(), actor=STAFF)
    t = store.load(tid)
    table = t.round(1).table(1)
    assert len(table.seats) == 4
    lightings = [Lighting((s,)) for s in range(3)]
    computer = next(s for s, p in enumerate(table.seats) if t.names[p] != "Walk-in")
    store.record(
        tid,
        lambda t: t.import_result(
            1, 1, [0, 2, 3, 4], source={"kind": "digital", "computers": [computer]}, lightings=lightings
        ),
        actor=STAFF,
    )
    ratings = Ranking(conn).season().ratings
    by_number = {e.player: e.player_id for e in Players(conn).entrants(tid)}
    # The walk-in is not registered and a computer played for one of the three: two players are rated.
    absent = by_number[table.seats[computer]]
    assert {line.player for line in ratings.lines} == set(ids) - {absent}
    assert ratings.line(absent) is None


def test_kept_tournaments_rate_the_same(conn: Connection) -> None:
    tid = Tournaments(conn).create("Kept", seed=5).id
    registered(conn, tid, "ABCDE")
    play(conn, tid, seed=6)
    cache = TournamentCache()
    Ranking(conn, cache=cache).season(now=1e10)
    kept = Ranking(conn, cache=cache).season(now=1e10).ratings
    fresh = Ranking(conn).season(now=1e10).ratings
    assert kept.lines == fresh.lines and kept.steps == fresh.steps
