"""The season: events, the tournaments that count, the audit trail (SQLite and PostgreSQL)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from store.db import MIGRATIONS, PANEL_SCHEMA_TABLE, POSTGRESQL_MIGRATIONS, apply_migrations, migrate
from store.dialect import Connection, PgDatabase
from store.players import Players
from store.ranking import Ranking
from store.season import KEEP, Calendar, EventNotFoundError, SeasonError
from store.tournaments import TournamentNotFoundError, Tournaments
from tests.store.event.helpers import play
from tournaments.ranking import RankingRules

STAFF = "staff@test"


def played(conn: Connection, name: str, names: str, *, seed: int, **options: object) -> int:
    """A tournament of registered players (one per letter of *names*), one round played."""
    players = Players(conn)
    registered = {p.name: p.id for p in players.all()}
    tid = Tournaments(conn).create(name, seed=seed, **options).id  # type: ignore[arg-type]
    for n in names:
        pid = registered.get(n) or players.create(n, actor=STAFF).id
        players.enter(tid, pid, actor=STAFF)
    play(conn, tid, seed=seed + 1, rounds=1)
    return tid


def test_an_event_is_made_changed_and_audited(conn: Connection) -> None:
    calendar = Calendar(conn)
    made = calendar.create(
        "paris-2026", name="Open de Paris", place="Paris", starts_on="2026-05-02", ends_on="2026-05-03",
        actor=STAFF,
    )
    assert made.to_json() == {
        "id": "paris-2026", "name": "Open de Paris", "place": "Paris",
        "starts_on": "2026-05-02", "ends_on": "2026-05-03",
    }
    changed = calendar.edit("paris-2026", place="Paris 11e", ends_on=None, actor="staff@other")
    assert (changed.name, changed.place, changed.starts_on, changed.ends_on) == (
        "Open de Paris", "Paris 11e", "2026-05-02", None,
    )
    calendar.edit("paris-2026", actor=STAFF)  # nothing changed: nothing in the trail
    trail = calendar.audit()
    assert [(a.kind, a.subject, a.actor) for a in trail] == [
        ("event", "paris-2026", "staff@other"), ("event", "paris-2026", STAFF),
    ]
    assert trail[0].before is not None and trail[0].before["place"] == "Paris"
    assert trail[0].after["place"] == "Paris 11e" and trail[1].before is None
    assert [e.id for e in calendar.events()] == ["paris-2026"]


@pytest.mark.parametrize(
    ("event_id", "fields", "problem"),
    [
        ("Paris 2026", {}, "1 to 40 characters"),
        ("x" * 41, {}, "1 to 40 characters"),
        (3, {}, "1 to 40 characters"),
        ("lyon", {"name": "  "}, "needs a name"),
        ("lyon", {"name": "n" * 81}, "at most 80"),
        ("lyon", {"place": "p" * 61}, "at most 60"),
        ("lyon", {"place": "a\x07b"}, "control characters"),
        ("lyon", {"name": 5}, "is text"),
        ("lyon", {"starts_on": "2026-02-30"}, "YYYY-MM-DD"),
        ("lyon", {"starts_on": "02/05/2026"}, "YYYY-MM-DD"),
        ("lyon", {"starts_on": 20260502}, "YYYY-MM-DD"),
        ("lyon", {"starts_on": "2026-05-03", "ends_on": "2026-05-02"}, "before its first"),
    ],
)
def test_a_bad_event_is_refused_and_nothing_is_written(
    conn: Connection, event_id: object, fields: dict[str, object], problem: str
) -> None:
    with pytest.raises(SeasonError, match=problem):
        Calendar(conn).create(event_id, actor=STAFF, **fields)
    assert Calendar(conn).events() == [] and Calendar(conn).audit() == []


def test_an_event_twice_or_a_missing_one_is_refused(conn: Connection) -> None:
    calendar = Calendar(conn)
    calendar.create("lyon", actor=STAFF)
    with pytest.raises(SeasonError, match="already"):
        calendar.create("lyon", name="Other", actor=STAFF)
    with pytest.raises(EventNotFoundError):
        calendar.edit("nowhere", name="X", actor=STAFF)
    with pytest.raises(SeasonError, match="before its first"):
        calendar.edit("lyon", starts_on="2026-05-03", ends_on="2026-05-01", actor=STAFF)
    assert calendar.get("lyon").name == "lyon" and len(calendar.audit()) == 1
    assert calendar.ensure("lyon", name="Ignored", actor=STAFF).name == "lyon"  # kept as it is
    assert calendar.ensure("brest", name="Brest", actor=STAFF).name == "Brest"


def test_a_tournament_is_placed_in_an_event_and_counts_or_not(conn: Connection) -> None:
    calendar = Calendar(conn)
    calendar.create("lyon", actor=STAFF)
    tid = Tournaments(conn).create("Open").id
    assert (Tournaments(conn).get(tid).event, Tournaments(conn).get(tid).counts) == (None, True)
    placed = calendar.place(tid, event="lyon", actor=STAFF)
    assert placed == {"tournament": tid, "event": "lyon", "counts": True}
    placed = calendar.place(tid, counts=False, actor=STAFF)
    assert placed == {"tournament": tid, "event": "lyon", "counts": False}
    info = Tournaments(conn).get(tid)
    assert (info.event, info.counts) == ("lyon", False)
    assert calendar.counted() == set() and calendar.counted("lyon") == set()
    calendar.place(tid, event=None, counts=True, actor=STAFF)
    assert calendar.counted() == {tid} and calendar.counted("lyon") == set()
    trail = [a for a in calendar.audit() if a.kind == "tournament"]
    assert [(a.before, a.after) for a in reversed(trail)] == [
        ({"event": None, "counts": True}, {"event": "lyon", "counts": True}),
        ({"event": "lyon", "counts": True}, {"event": "lyon", "counts": False}),
        ({"event": "lyon", "counts": False}, {"event": None, "counts": True}),
    ]
    calendar.place(tid, event=KEEP, counts=KEEP, actor=STAFF)  # nothing changed: nothing in the trail
    assert len(calendar.audit()) == 4


def test_a_bad_place_is_refused_and_nothing_is_written(conn: Connection) -> None:
    calendar = Calendar(conn)
    tid = Tournaments(conn).create("Open").id
    with pytest.raises(EventNotFoundError):
        calendar.place(tid, event="nowhere", actor=STAFF)
    with pytest.raises(SeasonError, match="true or false"):
        calendar.place(tid, counts=1, actor=STAFF)
    with pytest.raises(SeasonError, match="event's id"):
        calendar.place(tid, event=7, actor=STAFF)
    with pytest.raises(TournamentNotFoundError):
        calendar.place(tid + 1, counts=False, actor=STAFF)
    info = Tournaments(conn).get(tid)
    assert (info.event, info.counts) == (None, True) and calendar.audit() == []


def test_the_ranking_counts_only_counting_tournaments_and_one_event_on_request(conn: Connection) -> None:
    calendar = Calendar(conn)
    calendar.create("lyon", actor=STAFF)
    calendar.create("brest", actor=STAFF)
    lyon = played(conn, "Lyon", "ABCD", seed=1, event="lyon")
    brest = played(conn, "Brest", "ABEF", seed=3, event="brest")
    demo = played(conn, "Demo", "ABCDEFGH", seed=5, event="lyon", counts=False)
    rules = RankingRules(min_games=1)
    everything = Ranking(conn, rules).season()
    assert set(everything.tournaments) == {lyon, brest}
    assert {g.tournament for g in everything.games} == {lyon, brest}
    names = {p.id: p.name for p in everything.players.values()}
    assert {names[line.player] for line in everything.lines} == set("ABCDEF")  # G and H played the demo only
    of_lyon = Ranking(conn, rules).season(event="lyon")
    assert of_lyon.event == "lyon" and set(of_lyon.tournaments) == {lyon}
    assert {names[line.player] for line in of_lyon.lines} == set("ABCD")
    calendar.place(demo, counts=True, actor=STAFF)  # staff decide it counts after all
    assert set(Ranking(conn, rules).season(event="lyon").tournaments) == {lyon, demo}
    assert Ranking(conn, rules).season(event="nowhere").lines == []


# -- migration 10 on a database made before it ----------------------------------------------------


@pytest.fixture(params=["sqlite", "postgresql"])
def version_9(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Connection]:
    """An empty database of each engine at the panel schema's version 9 (before the season)."""
    conn: Connection
    if request.param == "sqlite":
        conn = sqlite3.connect(tmp_path / "old.db", isolation_level=None)
        conn.row_factory = sqlite3.Row
        conn.execute("PRAGMA foreign_keys = ON")
        apply_migrations(conn, MIGRATIONS[:9], versions=None)
    else:
        conn = PgDatabase(request.getfixturevalue("postgres_dsn"))
        apply_migrations(conn, MIGRATIONS[:9], versions=PANEL_SCHEMA_TABLE, postgresql=POSTGRESQL_MIGRATIONS)
    yield conn
    conn.close()


def test_tournaments_made_before_the_season_count_and_belong_to_no_event(version_9: Connection) -> None:
    version_9.execute(
        "INSERT INTO tournaments (name, created_at, settings) VALUES ('Old', 1.0, ?)", ('{"seed": "1"}',)
    )
    assert migrate(version_9) == len(MIGRATIONS) >= 10
    [info] = Tournaments(version_9).all()
    assert (info.name, info.event, info.counts) == ("Old", None, True)
    assert Calendar(version_9).counted() == {info.id}
    with pytest.raises(Exception, match="(?i)foreign key"):  # an event the season does not have
        version_9.execute("UPDATE tournaments SET event = 'nowhere' WHERE id = ?", (info.id,))
    with pytest.raises(Exception, match="(?i)check"):
        version_9.execute("UPDATE tournaments SET counts = 2 WHERE id = ?", (info.id,))
