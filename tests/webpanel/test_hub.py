"""The process's change hub: notices by topic, the watcher of other connections' commits, the pool's bound."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from store.db import connect, transaction
from webpanel.db import ConnectionPool
from webpanel.errors import ApiError
from webpanel.hub import EVENT, ChangeHub, game_topic


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
