"""The process's change hub: notices by topic, the watcher of other connections' commits, the pool's bound."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest

from store.changes import ChangeListener
from store.db import connect, open_database, transaction
from store.dialect import is_postgresql
from store.journal import Journal, JournalEntry, JournalKind
from webpanel.db import ConnectionPool
from webpanel.errors import ApiError
from webpanel.hub import BOARD, EVENT, ChangeHub, Notice, game_topic


def test_a_notice_wakes_the_subscriptions_of_its_topic_only(tmp_path: Path) -> None:
    hub = ChangeHub(tmp_path / "x.db")
    try:
        with hub.subscribe([game_topic(1)]) as one, hub.subscribe([game_topic(2)]) as two:
            hub.publish(game_topic(1), version=5, status="running")
            notices = one.wait(10)
            assert [(n.topic, n.version) for n in notices] == [(game_topic(1), 5)]
            assert two.wait(0) == []
    finally:
        hub.close()


def test_a_version_already_told_is_not_told_again(tmp_path: Path) -> None:
    hub = ChangeHub(tmp_path / "x.db")
    try:
        assert hub.publish(game_topic(3), version=4) is not None
        assert hub.publish(game_topic(3), version=4) is None
        assert hub.publish(game_topic(3), version=3) is None
        last = hub.last(game_topic(3))
        assert last is not None and last.version == 4
    finally:
        hub.close()


def test_a_late_subscriber_starts_from_the_last_notice(tmp_path: Path) -> None:
    hub = ChangeHub(tmp_path / "x.db")
    try:
        hub.publish(game_topic(7), version=9, status="over")
        with hub.subscribe([game_topic(7)]) as late:
            assert [n.version for n in late.latest()] == [9]
            assert late.wait(0) == []  # nothing newer than what it started from
    finally:
        hub.close()


def test_only_games_are_forgotten_when_the_hub_remembers_too_many(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("webpanel.hub.KEPT_TOPICS", 3)
    hub = ChangeHub(tmp_path / "x.db")
    try:
        hub.publish(BOARD, version=1, status="running")
        hub.publish(EVENT)
        for game in range(1, 6):  # five games through a memory of three
            hub.publish(game_topic(game), version=1)
        assert [hub.last(game_topic(n)) is not None for n in range(1, 6)] == [False, False, True, True, True]
        board, event = hub.last(BOARD), hub.last(EVENT)
        assert board is not None and board.version == 1 and event is not None
        hub.publish(game_topic(3), version=2)  # told again: the newest, so game 4 is the oldest now
        hub.publish(game_topic(6), version=1)
        assert [hub.last(game_topic(n)) is not None for n in (3, 4, 5, 6)] == [True, False, True, True]
    finally:
        hub.close()


def test_another_connections_commit_wakes_the_games_followers(tmp_path: Path) -> None:
    path = tmp_path / "panel.db"
    writer = connect(path)
    hub = ChangeHub(path)
    try:
        with hub.subscribe([game_topic(1), EVENT]) as following:
            with transaction(writer):
                writer.execute(
                    "INSERT INTO digital_games (game, created_at, updated_at, host_hash, state)"
                    " VALUES ('qttt', ?, ?, 'h', '{}')", (time.time(), time.time()))
            seen: dict[object, int | None] = {}
            deadline = time.monotonic() + 30
            while game_topic(1) not in seen and time.monotonic() < deadline:
                for notice in following.wait(1):
                    seen[notice.topic] = notice.version
            assert seen.get(game_topic(1)) == 1
            assert EVENT in seen
    finally:
        hub.close()
        writer.close()


def test_a_page_opened_after_a_commit_opens_on_it_and_is_not_told_it_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A page reads its view, then opens its stream: the commit that view shows is in the stream's
    opening (the subscription waits for the watcher to look), never told to it afterwards as a change
    (a staff overview reloads at each change after the first)."""
    # Without inotify the watcher reads again only every poll_interval, here a minute: only the look a
    # new subscription asks for can publish the commit before the page's opening.
    monkeypatch.setattr("webpanel.hub.open_watch", lambda _path: None)
    path = tmp_path / "panel.db"
    writer = connect(path)
    hub = ChangeHub(path, poll_interval=60.0)
    try:
        with hub.subscribe([EVENT]) as staying:  # another page keeps the watcher running
            told_before = staying.latest()[0].number
            with transaction(writer):
                writer.execute(
                    "INSERT INTO digital_games (game, created_at, updated_at, host_hash, state)"
                    " VALUES ('qttt', ?, ?, 'h', '{}')", (time.time(), time.time()))
            with hub.subscribe([EVENT, game_topic(1)]) as page:
                opening = {notice.topic: notice for notice in page.latest()}
                assert opening[game_topic(1)].version == 1
                assert opening[EVENT].number > told_before
                assert page.wait(0.5) == []
    finally:
        hub.close()
        writer.close()


@pytest.mark.parametrize("commits", [1, 3])
def test_a_commit_notified_after_a_page_opened_on_it_is_not_told_again(
    db_location: str, commits: int
) -> None:
    """The same when the database's notice of the commit comes after the page's stream opened
    (PostgreSQL's NOTIFY, SQLite's write seen by inotify): the watcher reads the database's version
    and publishes nothing when no commit moved it since it last looked."""
    writer = open_database(db_location)
    listener = ChangeListener(db_location) if is_postgresql(db_location) else None
    hub = ChangeHub(db_location, listener=listener)
    try:
        with hub.subscribe([EVENT]) as staying:
            for number in range(commits):
                with transaction(writer):
                    writer.execute(f"CREATE TABLE note_{number} (said INTEGER)")
            with hub.subscribe([EVENT]) as page:
                opened = page.latest()[0].number
                told = page.wait(1.0)  # the notices of the commits come meanwhile (NOTIFY, inotify)
                assert told == [], [(n.number, opened) for n in told]
                assert staying.wait(0) != []  # the page that was open is told, once
    finally:
        hub.close()
        if listener is not None:
            listener.close()
        writer.close()


def test_the_board_topic_carries_its_public_view_and_says_when_its_service_stops(tmp_path: Path) -> None:
    """The board service writes a state: the board's notice holds its public view (the allow-list's: a
    pawn's owner, never its kind); its heartbeat goes stale: the board is told its service stopped,
    though nothing was written."""
    path = tmp_path / "panel.db"
    journal = Journal(connect(path))
    journal.append_many([JournalEntry(JournalKind.SERVICE_START, {"pid": 1})],
                        state_public={"pawns": {"f5": {"owner": 0}}},
                        state_private={"kinds": {"f5": "defense"}})
    hub = ChangeHub(path, service_stale_s=0.5)
    try:
        with hub.subscribe([BOARD]) as page:
            [opening] = page.latest()
            assert opening.status == "running" and opening.public is not None
            view = json.loads(opening.public)
            assert view["id"] == opening.version == journal.state().journal_id  # type: ignore[union-attr]
            assert view["pawns"] == {"f5": {"owner": 0}} and view["service"] == {"running": True}
            assert "defense" not in opening.public
            told: list[Notice] = []
            deadline = time.monotonic() + 30
            while not told and time.monotonic() < deadline:
                told = page.wait(1)
            assert [(n.status, n.version) for n in told] == [("stopped", opening.version)]
            assert json.loads(told[0].public or "{}")["service"] == {"running": False}
    finally:
        hub.close()
        journal.conn.close()


def test_the_watcher_ends_when_nobody_listens(tmp_path: Path) -> None:
    path = tmp_path / "panel.db"
    connect(path).close()
    hub = ChangeHub(path)
    try:
        with hub.subscribe([EVENT]):
            thread = hub._thread
            assert thread is not None
        thread.join(10)
        assert not thread.is_alive() and hub.subscribers == 0
    finally:
        hub.close()


def test_pages_coming_and_going_leave_one_watcher(tmp_path: Path) -> None:
    """A page that opens while the watcher leaves (the last page closed) starts the one watcher: the one
    leaving never comes back (two would each publish every change, and a page opened then would be
    told the change its opening showed)."""
    path = tmp_path / "panel.db"
    connect(path).close()
    hub = ChangeHub(path)
    before = set(threading.enumerate())
    try:
        page = hub.subscribe([EVENT])
        for _ in range(300):
            page.close()
            page = hub.subscribe([EVENT])
        watching = hub._thread
        for thread in threading.enumerate():
            if thread.name == "change-hub" and thread not in before and thread is not watching:
                thread.join(10)  # a watcher that left ends
        left = [t for t in threading.enumerate()
                if t.name == "change-hub" and t not in before and t.is_alive()]
        assert left == [watching], left
        page.close()
    finally:
        hub.close()


def test_closing_the_hub_wakes_its_waiters(tmp_path: Path) -> None:
    hub = ChangeHub(tmp_path / "x.db")
    subscription = hub.subscribe([EVENT])
    woken = threading.Event()

    def wait() -> None:
        subscription.wait(60)
        woken.set()

    waiter = threading.Thread(target=wait)
    waiter.start()
    hub.close()
    waiter.join(30)
    assert woken.is_set() and hub.closed


def test_past_its_bound_the_pool_answers_503_with_retry_after(tmp_path: Path) -> None:
    pool = ConnectionPool(tmp_path / "panel.db", idle=1, most=1, wait_s=0.01)
    try:
        held = pool._lend()
        with pytest.raises(ApiError) as refused:
            pool._lend()
        assert refused.value.status == 503 and refused.value.code == "server_busy"
        assert refused.value.headers["Retry-After"] == "1"
        assert held is not None
    finally:
        pool.close()
