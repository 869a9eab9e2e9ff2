"""The general ranking from the event's database: games of registered players, dated and merged."""

from __future__ import annotations

from pytest_mock import MockerFixture

from games.hautetension.outcome import Lighting
from store.dialect import Connection
from store.players import Players
from store.ranking import Ranking, TournamentCache
from store.tournaments import Tournaments
from tests.store.event.helpers import play
from tournaments.ranking import DAY, RankingRules
from tournaments.tournament import Tournament

STAFF = "staff@test"


def field(conn: Connection, names: str) -> list[int]:
    players = Players(conn)
    return [players.create(n, actor="staff@test").id for n in names]




def enter_all(conn: Connection, tid: int, ids: list[int]) -> None:
    for pid in ids:
        Players(conn).enter(tid, pid, actor=STAFF)


def test_every_game_of_a_registered_player_counts_with_its_points(conn: Connection) -> None:
    ids = field(conn, "ABCDE")
    tid = Tournaments(conn).create("Open", seed=1).id
    enter_all(conn, tid, ids)
    play(conn, tid, seed=2)
    t = Tournaments(conn).load(tid)
    assert t.is_over()
    season = Ranking(conn, RankingRules(min_games=1)).season()
    by_name = {p.name: pid for pid, p in season.players.items()}
    for standing in t.standings():
        line = season.line(by_name[standing.name])
        assert line is not None
        played = [g for g in standing.games if g.points is not None]
        assert (line.games, line.points) == (len(played), standing.points)
        assert line.best[0].place == standing.place and line.best[0].field == 5
    assert [line.place for line in season.lines] == sorted(line.place for line in season.lines)


def test_two_tournaments_and_a_merged_duplicate_make_one_line(conn: Connection) -> None:
    ids = field(conn, "ABCD")
    first = Tournaments(conn).create("One", seed=3).id
    enter_all(conn, first, ids)
    play(conn, first, seed=4, rounds=1)
    dup = field(conn, ["A2"])[0]  # "A" registered again under another name for the second tournament
    second = Tournaments(conn).create("Two", seed=5).id
    enter_all(conn, second, [dup, *ids[1:]])
    play(conn, second, seed=6, rounds=1)
    before = Ranking(conn).season()
    assert {line.player for line in before.lines} == {*ids, dup}
    Players(conn).merge(dup, ids[0], actor=STAFF)
    after = Ranking(conn, RankingRules(min_games=2)).season()
    line = after.line(ids[0])
    assert line is not None and (line.games, line.tournaments, line.is_ranked) == (2, 2, True)
    assert line.points == sum(g.points for g in before.games if g.player in (dup, ids[0]))
    assert dup not in after.players and after.line(dup) is None


def test_games_are_dated_by_their_first_entry_and_leave_the_window(conn: Connection) -> None:
    ids = field(conn, "ABCD")
    tid = Tournaments(conn).create("Old", seed=8).id
    enter_all(conn, tid, ids)
    play(conn, tid, seed=9, rounds=1)
    store = Tournaments(conn)
    entered = next(e.at for e in store.audit(tid) if e.kind == "result")
    # A correction a year later changes the points, not the game's date.
    store.record(
        tid,
        lambda t: t.enter_result(1, 1, [Lighting((3,)), Lighting((2,)), Lighting((1,))], correction=True),
        actor=STAFF,
    )
    rules = RankingRules(window_days=30, min_games=1)
    season = Ranking(conn, rules).season(now=entered + 10 * DAY)
    assert {g.at for g in season.games} == {entered}
    assert sorted(line.points for line in season.lines) == [0, 2, 3, 4]
    assert Ranking(conn, rules).season(now=entered + 31 * DAY).lines == []
    # Undoing the correction and the result takes the game out altogether.
    store.undo(tid, actor=STAFF)
    store.undo(tid, actor=STAFF)
    assert Ranking(conn, rules).season(now=entered + DAY).games == []


def test_players_not_linked_do_not_count_and_the_handicap_is_proposed(conn: Connection) -> None:
    ids = field(conn, "ABC")
    tid = Tournaments(conn).create("Mixed", seed=10).id
    enter_all(conn, tid, ids)
    Tournaments(conn).record(tid, lambda t: t.register("Walk-in"), actor=STAFF)
    play(conn, tid, seed=11)
    season = Ranking(conn, RankingRules(min_games=1)).season()
    assert {line.player for line in season.lines} == set(ids)
    proposal = season.handicap(ids)
    per_game = {pid: season.line(pid).per_game for pid in ids}  # type: ignore[union-attr]
    best = max(per_game.values())
    assert {p for p, n in proposal.pawns.items() if n} == (
        {p for p, v in per_game.items() if v == best} if len(set(per_game.values())) > 1 else set()
    )


def test_kept_tournaments_count_the_same_and_only_a_changed_one_is_replayed(
    conn: Connection, mocker: MockerFixture
) -> None:
    ids = field(conn, "ABCDEFGH")
    first, second = (Tournaments(conn).create(name, seed=n).id for n, name in enumerate(("One", "Two")))
    enter_all(conn, first, ids[:4])
    enter_all(conn, second, ids[4:])
    play(conn, first, seed=1)
    play(conn, second, seed=2, rounds=1)
    cache = TournamentCache()
    kept = Ranking(conn, RankingRules(min_games=1), cache=cache)
    fresh = Ranking(conn, RankingRules(min_games=1))
    assert kept.season(now=1e10).lines == fresh.season(now=1e10).lines
    replays = mocker.spy(Tournament, "replay")
    assert kept.season(now=1e10).lines == fresh.season(now=1e10).lines
    assert replays.call_count == 2  # the fresh ranking's two; the kept one replayed nothing
    store = Tournaments(conn)
    for change in (
        lambda: store.record(second, lambda t: t.next_round(), actor=STAFF),  # an entry
        lambda: store.undo(second, actor=STAFF),  # an undo (no new entry)
    ):
        change()
        replays.reset_mock()
        assert kept.season(now=1e10).lines == fresh.season(now=1e10).lines
        assert replays.call_count == 3  # the fresh two, and the kept ranking's changed tournament
